-- collect_schema_v1.sql - format/schema.sql as it was at schema version 1, kept
-- for collect_exact.sh's migration test: a database made from it must be
-- migrated to the current version when a run is appended.  Do not edit.

-- schema.sql - the profile database, schema version 1.
--
-- Written by pulley-collect (collect/), read by sql/queries, notebooks and
-- analyze/.  A database is identified by PRAGMA application_id = 0x50564D50
-- ("PVMP") and versioned by PRAGMA user_version.  This file creates version
-- 1 from an empty database; a later version N adds sql/migrations/N.sql,
-- which takes version N-1 to N (the collector applies them in order, so
-- old databases are migrated forward; it refuses databases newer than it).
-- Columns are only ever added, never renamed or dropped.
--
-- Identifiers: every run, module and function gets its own id, so several
-- runs (from several machines) live side by side in one file.  Addresses
-- are the VM's code addresses as integers; offsets are bytes from the
-- start of a function.  Times are nanoseconds unless said otherwise.

PRAGMA application_id = 1347833168; -- 0x50564D50, "PVMP"
PRAGMA user_version = 1;

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
  outcome         TEXT,                 -- 'return', 'exit', 'trap: KIND', 'signal SIGINT', ...
  exit_status     INTEGER,              -- the exit status pulley-collect passed on
  exact           INTEGER NOT NULL,     -- 1: counting build (exec_counts, edge_counts filled)
  build_flags     TEXT,                 -- the VM build, e.g. 'dispatch=goto profile'
  host            TEXT,                 -- 'nodename sysname release machine'
  isa_name        TEXT NOT NULL,        -- instruction set, 'pulley'
  isa_hash        TEXT NOT NULL,        -- hash of its opcode table (16 hex digits)
  collector       TEXT NOT NULL         -- 'pulley-collect VERSION'
);

-- The opcode table a run was taken with (decode old runs with their ISA).
CREATE TABLE opcodes (
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  id         INTEGER NOT NULL,          -- opcode number (extended: 256 + code)
  name       TEXT NOT NULL,             -- mnemonic
  format     TEXT NOT NULL,             -- operand format name
  operands   TEXT NOT NULL,             -- operand kinds, e.g. 'x x s32'
  length     INTEGER NOT NULL,          -- encoded bytes (jump table entries excluded)
  flags      INTEGER NOT NULL,          -- flag bits: 1 branch, 2 terminator, 4 may trap, 8 call
  flag_names TEXT NOT NULL,             -- the same as words
  semantics  TEXT NOT NULL,             -- one-line meaning
  PRIMARY KEY (run_id, id)
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
  address   INTEGER NOT NULL,           -- load address of its first byte
  size      INTEGER NOT NULL,           -- bytes of code
  code      BLOB NOT NULL               -- the code bytes
);
CREATE INDEX functions_run ON functions(run_id);

-- Every instruction of every function, decoded with the run's ISA.
CREATE TABLE instructions (
  function_id INTEGER NOT NULL REFERENCES functions(id),
  offset      INTEGER NOT NULL,         -- byte offset in the function
  length      INTEGER NOT NULL,         -- encoded bytes
  opcode      INTEGER NOT NULL,         -- opcodes.id
  text        TEXT NOT NULL,            -- disassembly; branch targets as +/- byte offsets
  PRIMARY KEY (function_id, offset)
) WITHOUT ROWID;

-- The raw sample streams, compressed.  Decode with the encoding named:
-- 'dzv1-zlib' is zlib(varint n, n zigzag-varint tick deltas, n zigzag-varint
-- pc deltas) (format/sample_codec.h); a tick is 1/sample_hz seconds
-- since the run started; pc 0 is host time.
CREATE TABLE sample_chunks (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  seq          INTEGER NOT NULL,        -- 0, 1, ... in sampling order
  encoding     TEXT NOT NULL,           -- 'dzv1-zlib'
  sample_count INTEGER NOT NULL,
  first_ns     INTEGER NOT NULL,        -- time of the first sample since run start
  last_ns      INTEGER NOT NULL,        -- time of the last sample since run start
  raw_bytes    INTEGER NOT NULL,        -- size before zlib
  data         BLOB NOT NULL,
  UNIQUE (run_id, seq)
);

-- Per-instruction sample histogram, written when the run ends.
CREATE TABLE pc_samples (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  function_id INTEGER REFERENCES functions(id), -- NULL: host, or no registered function
  offset      INTEGER,                  -- in the function; NULL when function_id is
  pc          INTEGER NOT NULL,         -- the sampled address (0: host)
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

-- Exact taken-branch counts from a counting build.
CREATE TABLE edge_counts (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  from_offset INTEGER NOT NULL,         -- the branch instruction
  to_offset   INTEGER NOT NULL,         -- where it went
  count       INTEGER NOT NULL,
  PRIMARY KEY (function_id, from_offset, to_offset)
) WITHOUT ROWID;

-- Samples per function, hottest first within a run; percent of all the
-- run's samples (host included).
CREATE VIEW hot_functions AS
SELECT p.run_id, f.id AS function_id, m.name AS module, f.name AS function,
       sum(p.samples) AS samples,
       round(100.0 * sum(p.samples) / t.total, 2) AS percent
FROM pc_samples p
JOIN functions f ON f.id = p.function_id
JOIN modules m ON m.id = f.module_id
JOIN (SELECT run_id, sum(samples) AS total FROM pc_samples GROUP BY run_id) t
  ON t.run_id = p.run_id
GROUP BY p.run_id, f.id
ORDER BY p.run_id, samples DESC;

-- Samples per instruction with its disassembly, hottest first.
CREATE VIEW hot_instructions AS
SELECT p.run_id, f.id AS function_id, f.name AS function, p.offset,
       o.name AS opcode, i.text, p.samples,
       round(100.0 * p.samples / t.total, 2) AS percent
FROM pc_samples p
JOIN functions f ON f.id = p.function_id
JOIN instructions i ON i.function_id = p.function_id AND i.offset = p.offset
JOIN opcodes o ON o.run_id = p.run_id AND o.id = i.opcode
JOIN (SELECT run_id, sum(samples) AS total FROM pc_samples GROUP BY run_id) t
  ON t.run_id = p.run_id
ORDER BY p.run_id, p.samples DESC;

-- Per run and opcode: static instructions, samples (and percent of the
-- run's bytecode samples), exact executions (counting builds; else NULL).
CREATE VIEW opcode_profile AS
SELECT f.run_id, o.id AS opcode, o.name,
       count(*) AS instructions,
       coalesce(sum(s.samples), 0) AS samples,
       round(100.0 * coalesce(sum(s.samples), 0) /
             (SELECT sum(samples) FROM pc_samples q
              WHERE q.run_id = f.run_id AND q.function_id IS NOT NULL), 2) AS percent,
       sum(e.count) AS executions
FROM instructions i
JOIN functions f ON f.id = i.function_id
JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode
LEFT JOIN (SELECT function_id, offset, sum(samples) AS samples
           FROM pc_samples WHERE function_id IS NOT NULL
           GROUP BY function_id, offset) s
  ON s.function_id = i.function_id AND s.offset = i.offset
LEFT JOIN exec_counts e ON e.function_id = i.function_id AND e.offset = i.offset
GROUP BY f.run_id, o.id
ORDER BY f.run_id, samples DESC, executions DESC;
