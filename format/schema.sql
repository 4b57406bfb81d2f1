-- schema.sql - the profile database's tables, schema version 10.
--
-- Written by pulley-collect (collect/), read by sql/queries, notebooks and
-- analyze/.  A database is identified by PRAGMA application_id = 0x50564D50
-- ("PVMP") and versioned by PRAGMA user_version.  This file creates the
-- current version from an empty database.  An older database is migrated
-- forward, one version at a time, by the migrations in collect/profile_db.c
-- when the collector appends a run to it; a newer one is refused untouched.
-- The views are in views.sql: they hold no data, so the collector drops and
-- re-creates them all whenever it creates or migrates a database.
-- Columns are only ever added, never renamed or dropped; select them by
-- name (a table rebuilt by a migration may hold a new one between old ones).
--
-- Versions:
--   1  the first schema.
--   2  edge_counts.to_function_id: transfers between functions (calls,
--      returns) are stored, not only those inside one function; the key
--      of edge_counts includes the target function.  runs.counts_unmapped.
--      Sample chunks are written as 'dzv2-rc' (older chunks stay
--      'dzv1-zlib'; the decoder reads both).  Migrating a version 1
--      database sets to_function_id = function_id on its edges (version 1
--      stored edges inside one function only) and leaves counts_unmapped
--      NULL on its runs (not recorded).
--   3  opcodes.roles: what each register operand of an opcode is to it
--      (read, written), stated by the opcode table rather than read out of
--      its semantics; flag 16 (returns) and 32 (macro op); macro_parts:
--      the parts of each macro op.  Operand lists may hold several
--      immediates (macro ops).  opcodes.reg_bits: the VM now encodes each
--      register operand as a byte (8), where older runs packed 5 bits (5,
--      what migrated rows get).  Migrating a version 2 database fills
--      roles as the analysis used to read them from the semantics (the
--      first register operand written when the semantics begin "x[a] ="
--      or "f[a]... =", every other one read) and flags ret as returning.
--   4  functions.checksum (format/func_checksum.h): readers recompute it from
--      the code and the instruction rows and refuse (or skip) a run whose
--      stored functions changed since they were written.  Migrated rows
--      get NULL (not checked, but their rows are still checked against
--      their code).
--   5  the views (views.sql) read exact runs too: instruction_weights says
--      what each instruction weighs in its run, samples or executions
--      (measure); hot_functions, hot_instructions and opcode_profile give
--      the run's measure, its weight and the percent of it, with samples
--      and executions in their own columns.  No table changed.
--   6  the profile library (include/pulley/profile.h) serves any
--      interpreter: instruction rows carry their operands and branch
--      targets as the interpreter's decoder reported them (regs, imms,
--      targets), so readers need no knowledge of an ISA's encoding;
--      runs.operands_stored says a run's rows have them (0 for runs
--      written before, whose code readers decode in Pulley's encoding);
--      runs.functions_cut_short; opcodes.reg_bits 0 for code not in
--      Pulley's encoding; opcodes.length 0 for an opcode whose length
--      varies.  The checksum covers the new columns of such runs.
--   7  opcodes.wide_form: an opcode that is another's operation with a
--      narrower immediate names that one (NULL: none, as in migrated
--      rows), so that n-grams and macro ops match the two as one.
--   8  what the interpreter's code costs where the run was taken:
--      opcodes.cost (machine instructions one execution of the opcode's
--      handler takes, its dispatch included) and runs.dispatch_cost (what
--      one dispatch takes: the part of a handler a macro op saves for
--      each part after its first).  NULL where not measured, as in
--      migrated rows; the analysis then predicts dispatches only.
--   9  register_ranges: windows of registers an opcode reads or writes
--      beyond its register operands (Lua's CALL, FORLOOP, CONCAT,
--      SETLIST), as the interpreter declared them; none in migrated runs.
--      functions.address is the function's stored address: its own, or a
--      fresh range when its code reused the memory of a function
--      unregistered earlier in the run (see the functions table).
--  10  runs.run_starts: 1 when the interpreter published an address only
--      where a straight-line run of instructions starts (this project's
--      VM does since this version): its sample chunks hold those
--      addresses, and pc_samples each run's samples spread equally over
--      the run's instructions.  0 in migrated runs (per instruction).
--      runs.sampler_cpu_ns: what sampling cost a core (NULL in migrated
--      runs).
--
-- Identifiers: every run, module and function gets its own id, so several
-- runs (from several machines) live side by side in one file.  Addresses
-- are the VM's code addresses as integers; offsets are bytes from the
-- start of a function.  Times are nanoseconds unless said otherwise.

PRAGMA application_id = 1347833168; -- 0x50564D50, "PVMP"
PRAGMA user_version = 10;

-- One row per recorded program run.
CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,  -- run id
  label           TEXT,                 -- --label NAME, or NULL
  benchmark       TEXT,                 -- program file name (no directory)
  command_line    TEXT NOT NULL,        -- the pulley-collect command, quoted
  start_time      TEXT NOT NULL,        -- UTC, ISO 8601 with milliseconds
  end_time        TEXT,                 -- UTC; NULL while the run is in progress
                                        -- (or if the collector was killed)
  duration_ns     INTEGER,              -- wall time from start to end
  sampled_ns      INTEGER,              -- time during which a VM was registered
  sample_hz       INTEGER NOT NULL,     -- requested sample rate per VM
  samples_taken   INTEGER,              -- PC slot reads by the sampler
  samples_written INTEGER,              -- samples stored in sample_chunks
  samples_dropped INTEGER,              -- taken but not stored; taken = written + dropped
  ticks_missed    INTEGER,              -- sampler deadlines missed (woke too late)
  bytes_stored    INTEGER,              -- compressed sample bytes (sum of chunk sizes)
  outcome         TEXT,                 -- 'return', 'exit', 'trap: KIND', 'signal SIGINT',
                                        -- 'not run', 'incomplete: LOST (OUTCOME)' when
                                        -- part of the run could not be stored; NULL:
                                        -- not ended (killed, or still running)
  exit_status     INTEGER,              -- the exit status pulley-collect passed on
  exact           INTEGER NOT NULL,     -- 1: counting build (exec_counts, edge_counts filled)
  build_flags     TEXT,                 -- the VM build, e.g. 'dispatch=goto profile'
  host            TEXT,                 -- 'nodename sysname release machine'
  isa_name        TEXT NOT NULL,        -- instruction set: 'pulley', 'cpython-3.11', ...
  isa_hash        TEXT NOT NULL,        -- hash of its opcode table (16 hex digits)
  collector       TEXT NOT NULL,        -- 'pulley-collect VERSION', 'libpulleyprof VERSION'
  counts_unmapped INTEGER,              -- exact counts (instructions, transfers) the VM
                                        -- reported for no registered function or for an
                                        -- offset outside its code: not stored; 0 normally
                                        -- (since version 2; NULL for older runs)
  operands_stored INTEGER NOT NULL DEFAULT 0, -- 1: instruction rows carry regs, imms
                                        -- and targets (version 6); 0: written before
  functions_cut_short INTEGER,          -- functions whose code stopped decoding before
                                        -- its end (their rows stop there); NULL before 6
  dispatch_cost   REAL,                 -- machine instructions one dispatch takes in the
                                        -- build that ran (> 0); NULL: not measured
                                        -- (since version 8)
  run_starts      INTEGER NOT NULL DEFAULT 0, -- 1: a sample is the address where the
                                        -- run of instructions it fell in started,
                                        -- spread over that run in pc_samples
                                        -- (version 10); 0: of the instruction run
  sampler_cpu_ns  INTEGER               -- CPU time the sampler thread took; NULL: not
                                        -- measured (version 10)
);

-- The opcode table a run was taken with (decode old runs with their ISA).
CREATE TABLE opcodes (
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  id         INTEGER NOT NULL,          -- opcode number (extended: 256 + code)
  name       TEXT NOT NULL,             -- mnemonic
  format     TEXT NOT NULL,             -- operand format name
  operands   TEXT NOT NULL,             -- operand kinds: register classes (as many as
                                        -- roles), then immediates, e.g. 'x x s32'
                                        -- ('' when the ISA declares none)
  length     INTEGER NOT NULL,          -- encoded bytes (jump table entries excluded;
                                        -- 0: varies, the instruction rows say)
  flags      INTEGER NOT NULL,          -- flag bits: 1 branch, 2 terminator, 4 may trap,
                                        -- 8 call, 16 returns (the caller reads its
                                        -- results from registers), 32 macro op,
                                        -- 64 adaptive (rewritten in place at run
                                        -- time: never part of a macro op)
  flag_names TEXT NOT NULL,             -- the same as words
  semantics  TEXT NOT NULL,             -- one-line meaning
  roles      TEXT NOT NULL DEFAULT '',  -- per register operand, in order: 'r' read,
                                        -- 'w' written, 'rw' read then written, e.g.
                                        -- 'w r r' (since version 3)
  reg_bits   INTEGER NOT NULL DEFAULT 5, -- code in Pulley's encoding: bits of each
                                        -- register operand in the register pack, 8 (a
                                        -- byte each) or 5 (packed from bit 0, as
                                        -- versions 1 and 2 stored); 0: another encoding
                                        -- (read the stored instruction rows)
  wide_form  INTEGER,                   -- the id of the opcode this one is with a
                                        -- wider immediate (the same registers, roles
                                        -- and flags): n-grams and macro ops match this
                                        -- one as that one, e.g. xconst8 as xconst64;
                                        -- NULL: none (since version 7)
  cost       REAL,                      -- machine instructions one execution of its
                                        -- handler takes, dispatch included, in the
                                        -- build that ran (> 0); NULL: not measured
                                        -- (since version 8)
  PRIMARY KEY (run_id, id)
) WITHOUT ROWID;

-- The parts of each macro op (opcodes.flags & 32): the opcodes whose work
-- it does, in order, and which of its operands each part's operands are
-- (since version 3).
CREATE TABLE macro_parts (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  opcode      INTEGER NOT NULL,         -- the macro op (opcodes.id)
  part        INTEGER NOT NULL,         -- 0, 1, ... in execution order
  part_opcode INTEGER NOT NULL,         -- the part (opcodes.id of the same run)
  regs        TEXT NOT NULL,            -- per register operand of the part, the
                                        -- macro's register operand it is: '0 1 2'
  imms        TEXT NOT NULL,            -- per immediate of the part, the macro's
                                        -- immediate it is: '0'
  PRIMARY KEY (run_id, opcode, part)
) WITHOUT ROWID;

-- Registers an opcode reads or writes beyond its register operands (since
-- version 9): a window of `count` registers of the kind of register
-- operand `base`, from that operand's register number + `offset`, where
-- count is the value of immediate `count_imm` (an index into the
-- instruction's imms) + `count_add`, or, with count_imm -1, count_add
-- alone.  open_if_zero = 1: an immediate of 0 means every register from
-- the start up (Lua's B = 0): read all of them, write none that can be
-- named.  E.g. Lua's CALL A B C reads R[A]..R[A+B-1] (B = 0: to the top):
-- access 1, base 0, offset 0, count_imm 0, count_add -1, open_if_zero 1.
CREATE TABLE register_ranges (
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  opcode       INTEGER NOT NULL,        -- opcodes.id
  n            INTEGER NOT NULL,        -- 0, 1, ... in the table's order
  access       INTEGER NOT NULL,        -- 1 reads, 2 writes, 3 both
  base         INTEGER NOT NULL,        -- the register operand the window starts from
  offset       INTEGER NOT NULL,
  count_imm    INTEGER NOT NULL,        -- the immediate holding the count, -1: none
  count_add    INTEGER NOT NULL,
  open_if_zero INTEGER NOT NULL,
  PRIMARY KEY (run_id, opcode, n)
) WITHOUT ROWID;

-- Modules registered during a run.
CREATE TABLE modules (
  id     INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name   TEXT NOT NULL                  -- file name or module name
);

-- Every registered bytecode function.
CREATE TABLE functions (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  module_id INTEGER NOT NULL REFERENCES modules(id),
  idx       INTEGER NOT NULL,           -- index of the function in its module
  name      TEXT NOT NULL,
  address   INTEGER NOT NULL,           -- stored address of its first byte: the address
                                        -- the interpreter ran it at, unless that range
                                        -- overlaps the stored range of a function
                                        -- registered earlier in the run (code freed
                                        -- and its memory reused): then a fresh range
                                        -- (above 2^62 on 64-bit hosts) overlapping
                                        -- none; the run's stored ranges never overlap,
                                        -- and its pc_samples.pc are in the same terms
  size      INTEGER NOT NULL,           -- bytes of code
  code      BLOB NOT NULL,              -- the code bytes
  checksum  INTEGER                     -- of code and instruction rows (format/func_checksum.h);
                                        -- NULL before version 4
);
CREATE INDEX functions_run ON functions(run_id);

-- Every instruction of every function, decoded with the run's ISA.
CREATE TABLE instructions (
  function_id INTEGER NOT NULL REFERENCES functions(id),
  offset      INTEGER NOT NULL,         -- byte offset in the function
  length      INTEGER NOT NULL,         -- encoded bytes
  opcode      INTEGER NOT NULL,         -- opcodes.id
  text        TEXT NOT NULL,            -- disassembly; branch targets as +/- byte offsets
  regs        TEXT,                     -- register numbers of its register operands, in
                                        -- the opcode's order: '3 5 7' (version 6)
  imms        TEXT,                     -- its immediates' values, in order: '-8'; a
                                        -- jump table's is its entry count (version 6)
  targets     TEXT,                     -- byte offsets it may branch to: '12 40' (6)
  PRIMARY KEY (function_id, offset)
) WITHOUT ROWID;

-- The raw sample streams, compressed: (tick, pc) pairs, a tick being
-- 1/sample_hz seconds since the run started, pc 0 host time.  Decode with
-- sample_decode() (format/sample_codec.h, both encodings) or the SQL
-- extension's pulley_samples(data):
--   'dzv2-rc'   (version 2) the chunk's distinct pcs, then per sample its
--               tick delta and the index of its pc, range-coded with
--               adaptive models; starts with byte 0x02; CRC-32 at the end
--   'dzv1-zlib' (version 1) zlib(varint n, n zigzag-varint tick deltas,
--               n zigzag-varint pc deltas); starts with byte 0x78
CREATE TABLE sample_chunks (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  seq          INTEGER NOT NULL,        -- 0, 1, ... in sampling order
  encoding     TEXT NOT NULL,           -- 'dzv2-rc' or 'dzv1-zlib'
  sample_count INTEGER NOT NULL,
  first_ns     INTEGER NOT NULL,        -- time of the first sample since run start
  last_ns      INTEGER NOT NULL,        -- time of the last sample since run start
  raw_bytes    INTEGER NOT NULL,        -- size uncompressed: dzv2 16 bytes a sample
                                        -- (tick, pc); dzv1 the varints before zlib
  data         BLOB NOT NULL,
  UNIQUE (run_id, seq)
);

-- Per-instruction sample histogram, written when the run ends.
CREATE TABLE pc_samples (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  function_id INTEGER REFERENCES functions(id), -- NULL: host, or no registered function
  offset      INTEGER,                  -- in the function; NULL when function_id is
  pc          INTEGER NOT NULL,         -- the sampled address (0: host), in stored
                                        -- terms (functions.address + offset); in a
                                        -- run_starts run the instruction's, its
                                        -- samples its share of its runs' samples
  samples     INTEGER NOT NULL
);
CREATE INDEX pc_samples_function ON pc_samples(function_id, offset);
CREATE INDEX pc_samples_run ON pc_samples(run_id);

-- Exact execution counts from a counting build (runs.exact = 1).
CREATE TABLE exec_counts (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  offset      INTEGER NOT NULL,         -- instruction start
  count       INTEGER NOT NULL,         -- times it ran
  PRIMARY KEY (function_id, offset)
) WITHOUT ROWID;

-- Exact counts of taken control transfers from a counting build: jumps,
-- taken conditional branches, br_table, calls and returns (a branch not
-- taken falls through and is no transfer).  A call goes from the call
-- instruction to the callee's first instruction; a return from the ret
-- to the instruction after the call.
--
-- (The key's columns are adjacent and in table order: SQLite 3.40's
-- integrity_check reports false NULLs in WITHOUT ROWID tables whose key
-- columns are not.  So to_function_id came in between in version 2.)
CREATE TABLE edge_counts (
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  function_id    INTEGER NOT NULL REFERENCES functions(id), -- the function transferring
  from_offset    INTEGER NOT NULL,      -- the branch, call or ret instruction, in function_id
  to_function_id INTEGER NOT NULL REFERENCES functions(id), -- the function control went
                                        -- to: function_id for a branch, a recursive call
                                        -- or a return into the same function (version 2)
  to_offset      INTEGER NOT NULL,      -- where control went, in to_function_id
  count          INTEGER NOT NULL,      -- times taken
  PRIMARY KEY (function_id, from_offset, to_function_id, to_offset)
) WITHOUT ROWID;
CREATE INDEX edge_counts_target ON edge_counts(to_function_id, to_offset);

-- Not in every file: freelist_checked (id INTEGER PRIMARY KEY CHECK
-- (id = 1), free_pages INTEGER NOT NULL), created by the first collect
-- that found the file with free pages and checked it whole: how many free
-- pages it had then, lowered by each later collect as its run takes some
-- (collect/README.md, "Opening").  No profile data; readers ignore it,
-- and the version does not change with it.
