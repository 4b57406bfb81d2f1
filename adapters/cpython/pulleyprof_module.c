/*
 * pulleyprof_module.c - _pulleyprof, CPython 3.11's adapter to libpulleyprof
 * (include/pulley/profile.h): the first interpreter outside this project
 * profiled with the library, through its public API only.
 *
 * CPython's opcode table (built in Python from the `opcode` module by
 * pulleyprof/__main__.py) becomes the run's ISA; every code object met is
 * registered with its bytecode (co_code: the base instructions with their
 * inline cache entries, never the specialized ones) at the address of its
 * live instructions, so that an instruction's address is that plus its
 * byte offset.  Three modes:
 *
 *   frames (sampling, the default): no trace function.  CPython itself
 *     stores the address of the instruction it executes in the frame
 *     (prev_instr); the library's sampler thread calls read_pc, which
 *     follows thread state -> current frame -> prev_instr, each read with
 *     process_vm_readv so that a frame freed under it is an error, not a
 *     crash.  Code objects are registered by a thread of the adapter's
 *     that takes the GIL when a sample has landed in code not registered
 *     yet, and registers the code of the frames on the stack; code met by
 *     a sample but never found there is looked for among the live
 *     functions and generators when the run ends (samples are attributed
 *     then, so theirs count).
 *   trace (sampling): a C trace function with opcode events publishes
 *     each instruction's address into the slot the sampler reads, 0 while
 *     a C function runs.
 *   exact: the same trace function counts every instruction.
 *
 * Only the thread that calls start() is profiled.
 */
#define _GNU_SOURCE /* process_vm_readv */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
/* The frame layout of CPython 3.11 (shipped by python3-dev), for read_pc
 * and the walk over the frames on the stack. */
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE

#include <pulley/profile.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/grow.h"

enum { NOPS = 256, EXTENDED_ARG_OP = 144, UNKNOWN_CAP = 4096 };
enum jump_kind { JUMP_NONE, JUMP_FORWARD_REL, JUMP_BACKWARD_REL, JUMP_ABSOLUTE };

/* The opcode table: rows for the library, and what the decoder needs. */
static struct {
    pulleyprof_opcode rows[NOPS];
    size_t nrows;
    char *strings[3 * NOPS + 1]; /* names, operands, semantics, the ISA name: owned */
    size_t nstrings;
    unsigned char length[NOPS]; /* bytes, cache entries included (0: no such opcode) */
    unsigned char has_arg[NOPS];
    unsigned char jump[NOPS];  /* enum jump_kind */
    const char *name[NOPS];
} isa;

/* A code object met while profiling: its address range and counts. */
typedef struct code_entry {
    PyObject *code;    /* a strong reference, so its address is never reused */
    uintptr_t base;    /* address of its first live instruction */
    Py_ssize_t size;   /* bytes of co_code */
    int func;          /* the library's handle */
    uint64_t *counts;  /* exact mode: per 2-byte code unit */
} code_entry;

/* An address range registered, for read_pc. */
typedef struct code_range {
    uintptr_t start, end;
} code_range;

enum mode { MODE_FRAMES, MODE_TRACE, MODE_EXACT };

static struct {
    pulleyprof_agent *agent;
    pulleyprof_isa desc;
    int module;
    enum mode mode;
    _Atomic(uintptr_t) slot;
    PyThreadState *thread;
    pid_t pid;
    /* Frames mode: the ranges registered, sorted (whoever holds the GIL
     * adds, read_pc looks up), whether read_pc has met code not registered
     * yet, and the registrar thread that then registers it. */
    pthread_mutex_t ranges_lock;
    code_range *ranges;
    size_t nranges, ranges_cap;
    atomic_int scan_pending, registrar_stop;
    pthread_t registrar;
    /* Code objects (addresses) that samples landed in before they were
     * registered: written by read_pc only, read by stop() once the reader
     * is unregistered.  Open addressing; 0 is empty. */
    uintptr_t unknown[UNKNOWN_CAP];
    size_t nunknown;
    code_entry *entries; /* in order met */
    size_t nentries, cap;
    size_t *table;       /* open addressing: index + 1 into entries, 0 empty */
    size_t tcap;
    code_entry *last;    /* the entry of the previous event */
    PyFrameObject *last_frame; /* its frame, until a call or return event */
    int failed;          /* registration failed: stop publishing */
} prof;

static char *copy(const char *s)
{
    char *c = strdup(s ? s : "");
    if (c && isa.nstrings < sizeof isa.strings / sizeof *isa.strings)
        isa.strings[isa.nstrings++] = c;
    return c;
}

static void free_isa(void)
{
    for (size_t i = 0; i < isa.nstrings; i++)
        free(isa.strings[i]);
    memset(&isa, 0, sizeof isa);
}

/* The oparg of the instruction at off, with the EXTENDED_ARG prefixes
 * before it (cache entries are zero bytes, never mistaken for one). */
static int64_t full_arg(const uint8_t *code, size_t off)
{
    int64_t arg = code[off + 1];
    for (unsigned shift = 8; off >= 2 && code[off - 2] == EXTENDED_ARG_OP && shift <= 24;
         shift += 8) {
        off -= 2;
        arg |= (int64_t)code[off + 1] << shift;
    }
    return arg;
}

static int decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                  pulleyprof_insn *in)
{
    (void)ctx;
    unsigned op = code[off];
    if (!isa.length[op] || off + 2 > size)
        return -1;
    in->opcode = op;
    /* The last instruction's caches may be cut off in a code object that
     * ends early; they are never executed. */
    in->length = off + isa.length[op] <= size ? isa.length[op] : (unsigned)(size - off);
    const char *name = isa.name[op];
    if (!isa.has_arg[op]) {
        snprintf(in->text, in->text_cap, "%s", name);
        return 0;
    }
    int64_t arg = full_arg(code, off);
    in->nimms = 1;
    in->imms[0] = arg;
    int64_t target = -1;
    int64_t after = (int64_t)off + isa.length[op];
    if (isa.jump[op] == JUMP_FORWARD_REL)
        target = after + 2 * arg;
    else if (isa.jump[op] == JUMP_BACKWARD_REL)
        target = after - 2 * arg;
    else if (isa.jump[op] == JUMP_ABSOLUTE)
        target = 2 * arg;
    if (target >= 0 && (size_t)target < size) {
        if (pulleyprof_insn_add_target(in, (uint32_t)target) != 0)
            return -1;
        snprintf(in->text, in->text_cap, "%s %lld (to %lld)", name, (long long)arg,
                 (long long)target);
    } else {
        snprintf(in->text, in->text_cap, "%s %lld", name, (long long)arg);
    }
    return 0;
}

/* ---- code objects -------------------------------------------------------- */

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static int table_grow(void)
{
    size_t ncap = prof.tcap ? 2 * prof.tcap : 1024;
    size_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < prof.nentries; i++) {
        size_t h = hash_ptr(prof.entries[i].code, ncap);
        while (t[h])
            h = (h + 1) & (ncap - 1);
        t[h] = i + 1;
    }
    free(prof.table);
    prof.table = t;
    prof.tcap = ncap;
    return 0;
}

/* Record [start, start + size) as registered, for read_pc; 0 or -1. */
static int add_range(uintptr_t start, size_t size)
{
    int rc = 0;
    pthread_mutex_lock(&prof.ranges_lock);
    if (BASE_GROW(prof.ranges, prof.ranges_cap, prof.nranges + 1, 256) != 0)
        rc = -1;
    if (rc == 0) {
        size_t i = prof.nranges;
        while (i > 0 && prof.ranges[i - 1].start > start)
            i--;
        memmove(&prof.ranges[i + 1], &prof.ranges[i], (prof.nranges - i) * sizeof *prof.ranges);
        prof.ranges[i] = (code_range){start, start + size};
        prof.nranges++;
    }
    pthread_mutex_unlock(&prof.ranges_lock);
    return rc;
}

/* Is pc in a registered range?  On the sampler's thread: when the main
 * thread is adding one, the answer is yes (asking again at the next
 * sample is as good).  An address inside an instruction (a frame that
 * called another keeps the last unit of its CALL) is the library's to
 * place at the instruction's start. */
static bool registered(uintptr_t pc)
{
    if (pthread_mutex_trylock(&prof.ranges_lock) != 0)
        return true;
    size_t lo = 0, hi = prof.nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (prof.ranges[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool found = lo > 0 && pc < prof.ranges[lo - 1].end;
    pthread_mutex_unlock(&prof.ranges_lock);
    return found;
}

/* The entry of code if it is registered, else NULL. */
static code_entry *find_entry(const void *code)
{
    size_t h = prof.tcap ? hash_ptr(code, prof.tcap) : 0;
    while (prof.tcap && prof.table[h]) {
        code_entry *e = &prof.entries[prof.table[h] - 1];
        if (e->code == code)
            return e;
        h = (h + 1) & (prof.tcap - 1);
    }
    return NULL;
}

/* The entry of code, registering it with the library when first met;
 * NULL on failure. */
static code_entry *entry_of(PyCodeObject *code)
{
    if (prof.last && prof.last->code == (PyObject *)code)
        return prof.last;
    code_entry *known = find_entry(code);
    if (known)
        return known;
    if ((prof.nentries + 1) * 2 > prof.tcap && table_grow() != 0)
        return NULL;
    if (BASE_GROW(prof.entries, prof.cap, prof.nentries + 1, 256) != 0)
        return NULL;
    PyObject *bytes = PyCode_GetCode(code);
    if (!bytes)
        return NULL;
    char name[512];
    const char *qual = PyUnicode_AsUTF8(code->co_qualname);
    const char *file = PyUnicode_AsUTF8(code->co_filename);
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (!qual || !file)
        PyErr_Clear();
    snprintf(name, sizeof name, "%s (%s:%d)", qual ? qual : "?", slash ? slash + 1 : file ? file : "?",
             code->co_firstlineno);
    Py_ssize_t size = PyBytes_GET_SIZE(bytes);
    code_entry e = {.code = (PyObject *)code, .base = (uintptr_t)_PyCode_CODE(code), .size = size};
    int exact = prof.mode == MODE_EXACT;
    e.counts = exact ? calloc((size_t)size / 2 + 1, sizeof *e.counts) : NULL;
    const uint8_t *code_bytes = (const uint8_t *)PyBytes_AS_STRING(bytes);
    e.func = pulleyprof_register_function(prof.agent, prof.module, (uint32_t)prof.nentries, name,
                                          e.base, code_bytes, (size_t)size);
    int failed = e.func < 0 || (exact && !e.counts) ||
                 (prof.mode == MODE_FRAMES && add_range(e.base, (size_t)size) != 0);
    Py_DECREF(bytes);
    if (failed) {
        free(e.counts);
        return NULL;
    }
    Py_INCREF(code);
    prof.entries[prof.nentries++] = e;
    size_t h = hash_ptr(code, prof.tcap);
    while (prof.table[h])
        h = (h + 1) & (prof.tcap - 1);
    prof.table[h] = prof.nentries;
    return &prof.entries[prof.nentries - 1];
}

/* ---- the trace function -------------------------------------------------- */

/* The frame is about to execute the instruction at its last index: publish
 * it, and count it when counting. */
static void at_instruction(PyFrameObject *frame)
{
    code_entry *e = prof.last;
    if (frame != prof.last_frame) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        e = entry_of(code);
        Py_DECREF(code);
        prof.last_frame = frame;
    }
    if (!e) {
        prof.failed = 1;
        pulleyprof_publish(&prof.slot, 0);
        PyErr_WarnEx(PyExc_RuntimeWarning, "pulleyprof: cannot register a code object;"
                                           " profiling stops here", 1);
        return;
    }
    /* The pointer into entries stays valid until the next entry_of. */
    prof.last = e;
    int lasti = PyFrame_GetLasti(frame);
    if (lasti < 0 || lasti >= e->size)
        return;
    pulleyprof_publish(&prof.slot, e->base + (uintptr_t)lasti);
    if (e->counts)
        e->counts[lasti / 2]++;
}

static int trace(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj, (void)arg;
    if (prof.failed)
        return 0;
    switch (what) {
    case PyTrace_RETURN:
        prof.last_frame = NULL; /* the frame may go, and its address be reused */
        return 0;
    case PyTrace_CALL:
        prof.last_frame = NULL;
        /* Opcode events are delivered to frames that ask for them; line
         * events, which say nothing more, are turned off. */
        if (PyObject_SetAttrString((PyObject *)frame, "f_trace_opcodes", Py_True) != 0 ||
            PyObject_SetAttrString((PyObject *)frame, "f_trace_lines", Py_False) != 0)
            return -1;
        /* A call (or a generator's resumption) is reported at its RESUME
         * instruction, which then gets no opcode event of its own. */
        at_instruction(frame);
        return 0;
    case PyTrace_OPCODE:
        at_instruction(frame);
        return 0;
    case PyTrace_C_CALL:
        pulleyprof_publish(&prof.slot, 0); /* a C function: not bytecode */
        return 0;
    default:
        return 0;
    }
}

/* ---- frames mode: the sampler reads CPython's own record ----------------- */

/* Copy n bytes at addr of this process into out, or fail (-1) where they
 * are not mapped: a frame may be freed while the sampler reads it. */
static int peek(const void *addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    return process_vm_readv(prof.pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* Register the code of every frame on the profiled thread's stack.  With
 * the GIL held, from start() or the registrar thread (the profiled thread
 * then waits for the GIL, its frames at rest). */
static void scan_frames(void)
{
    for (_PyInterpreterFrame *f = prof.thread->cframe->current_frame; f && !prof.failed;
         f = f->previous)
        if (!entry_of(f->f_code)) {
            prof.failed = 1;
            PyErr_Clear();
        }
}

/* The registrar thread: every couple of milliseconds, when read_pc has met
 * code not registered yet, take the GIL (the profiled thread lets it go
 * at its next switch interval) and register the frames on its stack.
 * Code too short-lived to be on the stack then is looked for at the end
 * (register_remembered). */
static void *registrar_main(void *arg)
{
    (void)arg;
    const struct timespec pause = {0, 2000000};
    while (!atomic_load(&prof.registrar_stop)) {
        nanosleep(&pause, NULL);
        if (!atomic_load(&prof.scan_pending))
            continue;
        PyGILState_STATE g = PyGILState_Ensure();
        atomic_store(&prof.scan_pending, 0);
        if (!atomic_load(&prof.registrar_stop))
            scan_frames();
        PyGILState_Release(g);
    }
    return NULL;
}

/* Note a code object a sample landed in before it was registered (on the
 * sampler's thread; the set is full at UNKNOWN_CAP / 2: code beyond
 * relies on the registrar alone). */
static void remember_unknown(uintptr_t code)
{
    size_t h = hash_ptr((const void *)code, UNKNOWN_CAP);
    while (prof.unknown[h] && prof.unknown[h] != code)
        h = (h + 1) & (UNKNOWN_CAP - 1);
    if (!prof.unknown[h] && prof.nunknown < UNKNOWN_CAP / 2) {
        prof.unknown[h] = code;
        prof.nunknown++;
    }
}

static bool was_unknown(const void *code)
{
    size_t h = hash_ptr(code, UNKNOWN_CAP);
    while (prof.unknown[h] && prof.unknown[h] != (uintptr_t)code)
        h = (h + 1) & (UNKNOWN_CAP - 1);
    return prof.unknown[h] != 0;
}

/* Register the code a sample landed in that the registrar never found on
 * the stack and that still exists: every function's code (and the code
 * nested in it) and every generator's, found through the garbage
 * collector.  Code gone by now (compiled and dropped) stays unregistered;
 * its samples are stored without a function.  At the end of the run, with
 * the GIL; 0, or -1 with a Python error. */
static int register_remembered_code(PyObject *code, int depth)
{
    if (!PyCode_Check(code) || depth > 64)
        return 0;
    if (was_unknown(code) && !entry_of((PyCodeObject *)code))
        return -1;
    PyObject *consts = ((PyCodeObject *)code)->co_consts;
    for (Py_ssize_t i = 0; consts && i < PyTuple_GET_SIZE(consts); i++)
        if (register_remembered_code(PyTuple_GET_ITEM(consts, i), depth + 1) != 0)
            return -1;
    return 0;
}

static int register_remembered(void)
{
    if (prof.nunknown == 0)
        return 0;
    PyObject *gc = PyImport_ImportModule("gc");
    PyObject *all = gc ? PyObject_CallMethod(gc, "get_objects", NULL) : NULL;
    Py_XDECREF(gc);
    if (!all || !PyList_Check(all)) {
        Py_XDECREF(all);
        return -1;
    }
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(all); i++) {
        PyObject *o = PyList_GET_ITEM(all, i);
        if (PyFunction_Check(o))
            rc = register_remembered_code(PyFunction_GET_CODE(o), 0);
        else if (PyGen_Check(o))
            rc = register_remembered_code((PyObject *)((PyGenObject *)o)->gi_code, 0);
        else if (PyCoro_CheckExact(o))
            rc = register_remembered_code((PyObject *)((PyCoroObject *)o)->cr_code, 0);
    }
    Py_DECREF(all);
    return rc;
}

/* A pointer that may point at a frame or an object: not NULL, 8-aligned. */
static bool aligned(uintptr_t p)
{
    return p && p % sizeof(void *) == 0;
}

/* The sampler's reader: the address of the instruction the profiled thread
 * executes (thread state -> current frame -> prev_instr), 0 when it runs no
 * Python code or a read fails.  Code not registered yet is asked for. */
static uintptr_t read_pc(void *ctx)
{
    (void)ctx;
    /* The pointers read may be stale (a frame gone, a C stack reused):
     * never dereferenced, only offset from as plain addresses, and refused
     * when misaligned. */
    uintptr_t cframe, frame, instr;
    if (peek(&prof.thread->cframe, &cframe, sizeof cframe) != 0 || !aligned(cframe) ||
        peek((const void *)(cframe + offsetof(_PyCFrame, current_frame)), &frame,
             sizeof frame) != 0 ||
        !aligned(frame) ||
        peek((const void *)(frame + offsetof(_PyInterpreterFrame, prev_instr)), &instr,
             sizeof instr) != 0)
        return 0;
    if (!registered(instr)) {
        atomic_store(&prof.scan_pending, 1);
        uintptr_t code;
        if (peek((const void *)(frame + offsetof(_PyInterpreterFrame, f_code)), &code,
                 sizeof code) == 0 &&
            aligned(code))
            remember_unknown(code);
    }
    return instr;
}

/* ---- the module's functions ---------------------------------------------- */

static int add_row(PyObject *row)
{
    unsigned id, length, flags, jump, has_arg;
    const char *name, *operands, *semantics;
    if (!PyArg_ParseTuple(row, "IsIIsIIs", &id, &name, &length, &flags, &operands, &jump,
                          &has_arg, &semantics))
        return -1;
    if (id >= NOPS || length < 2 || length > 255 || jump > JUMP_ABSOLUTE || isa.length[id]) {
        PyErr_Format(PyExc_ValueError, "opcode row %u (%s) is not a CPython 3.11 opcode", id, name);
        return -1;
    }
    pulleyprof_opcode *o = &isa.rows[isa.nrows];
    *o = (pulleyprof_opcode){.id = id, .name = copy(name), .operands = copy(operands),
                             .length = length, .flags = flags, .semantics = copy(semantics)};
    if (!o->name || !o->operands || !o->semantics) {
        PyErr_NoMemory();
        return -1;
    }
    isa.length[id] = (unsigned char)length;
    isa.jump[id] = (unsigned char)jump;
    isa.has_arg[id] = has_arg != 0;
    isa.name[id] = o->name;
    isa.nrows++;
    return 0;
}

static PyObject *start(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *names[] = {"db", "opcodes", "isa_name", "hz", "exact", "trace", "label",
                            "benchmark", "command_line", NULL};
    const char *db, *isa_name, *label = NULL, *benchmark = NULL, *command_line = NULL;
    PyObject *rows;
    unsigned hz = 0;
    int exact = 0, trace_opcodes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!s|Ippzzz", names, &db, &PyList_Type, &rows,
                                     &isa_name, &hz, &exact, &trace_opcodes, &label, &benchmark,
                                     &command_line))
        return NULL;
    if (prof.agent) {
        PyErr_SetString(PyExc_RuntimeError, "pulleyprof: a run is already started");
        return NULL;
    }
    free_isa();
    Py_ssize_t n = PyList_GET_SIZE(rows);
    if (n <= 0 || n > NOPS) {
        PyErr_SetString(PyExc_ValueError, "pulleyprof: 1 to 256 opcode rows");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (add_row(PyList_GET_ITEM(rows, i)) != 0) {
            free_isa();
            return NULL;
        }
    memset(&prof, 0, sizeof prof);
    prof.desc = (pulleyprof_isa){.name = copy(isa_name), .opcodes = isa.rows,
                                 .nopcodes = isa.nrows, .decode = decode};
    prof.mode = exact ? MODE_EXACT : trace_opcodes ? MODE_TRACE : MODE_FRAMES;
    static const char *const flags[] = {"cpython sampled frames", "cpython sampled trace",
                                        "cpython exact"};
    char err[512];
    pulleyprof_config cfg = {.db_path = db, .sample_hz = hz, .isa = &prof.desc, .label = label,
                             .benchmark = benchmark, .command_line = command_line,
                             .build_flags = flags[prof.mode], .tool = "python3 -m pulleyprof",
                             .exact = exact};
    if (pthread_mutex_init(&prof.ranges_lock, NULL) != 0) {
        free_isa();
        PyErr_SetString(PyExc_OSError, "pulleyprof: cannot create a lock");
        return NULL;
    }
    prof.agent = pulleyprof_open(&cfg, err, sizeof err);
    if (!prof.agent) {
        pthread_mutex_destroy(&prof.ranges_lock);
        free_isa();
        PyErr_Format(PyExc_OSError, "pulleyprof: %s", err);
        return NULL;
    }
    prof.module = pulleyprof_register_module(prof.agent, benchmark ? benchmark : "python", NULL);
    prof.thread = PyThreadState_Get();
    prof.pid = getpid();
    if (prof.mode == MODE_FRAMES) {
        scan_frames();
        if (pthread_create(&prof.registrar, NULL, registrar_main, NULL) != 0) {
            pulleyprof_set_outcome(prof.agent, "not run", 1);
            pulleyprof_close(prof.agent, NULL, err, sizeof err);
            pthread_mutex_destroy(&prof.ranges_lock);
            memset(&prof, 0, sizeof prof);
            free_isa();
            PyErr_SetString(PyExc_OSError, "pulleyprof: cannot start the registrar thread");
            return NULL;
        }
        pulleyprof_register_reader(prof.agent, read_pc, NULL);
    } else {
        pulleyprof_register_slot(prof.agent, &prof.slot);
        PyEval_SetTrace(trace, NULL);
    }
    Py_RETURN_NONE;
}

static PyObject *stop(PyObject *self, PyObject *args)
{
    (void)self;
    const char *outcome;
    int status;
    if (!PyArg_ParseTuple(args, "si", &outcome, &status))
        return NULL;
    if (!prof.agent) {
        PyErr_SetString(PyExc_RuntimeError, "pulleyprof: no run is started");
        return NULL;
    }
    if (prof.mode == MODE_FRAMES) {
        pulleyprof_unregister_reader(prof.agent, read_pc, NULL);
        atomic_store(&prof.registrar_stop, 1);
        Py_BEGIN_ALLOW_THREADS /* it may be waiting for the GIL */
        pthread_join(prof.registrar, NULL);
        Py_END_ALLOW_THREADS
        if (!prof.failed && register_remembered() != 0) {
            prof.failed = 1;
            PyErr_Clear();
        }
    } else {
        PyEval_SetTrace(NULL, NULL);
        pulleyprof_publish(&prof.slot, 0);
        pulleyprof_unregister_slot(prof.agent, &prof.slot);
    }
    for (size_t i = 0; i < prof.nentries; i++) {
        code_entry *e = &prof.entries[i];
        for (Py_ssize_t u = 0; e->counts && u < e->size / 2; u++)
            if (e->counts[u])
                pulleyprof_add_exec_count(prof.agent, e->func, (uint32_t)(2 * u), e->counts[u]);
        free(e->counts);
        Py_DECREF(e->code);
    }
    pulleyprof_set_outcome(prof.agent, outcome, status);
    pulleyprof_summary s;
    char err[512] = "";
    int rc = pulleyprof_close(prof.agent, &s, err, sizeof err);
    int failed = prof.failed;
    free(prof.entries);
    free(prof.table);
    free(prof.ranges);
    pthread_mutex_destroy(&prof.ranges_lock);
    memset(&prof, 0, sizeof prof);
    free_isa();
    if (rc != 0) {
        PyErr_Format(PyExc_OSError, "pulleyprof: run %lld is incomplete: %s", (long long)s.run_id,
                     err);
        return NULL;
    }
    return Py_BuildValue("{s:L,s:K,s:K,s:K,s:K,s:K,s:d,s:i}", "run", (long long)s.run_id,
                         "samples", (unsigned long long)s.samples_written, "executed",
                         (unsigned long long)s.executed, "dropped",
                         (unsigned long long)s.samples_dropped, "cut_short",
                         (unsigned long long)s.functions_cut_short, "unattributed",
                         (unsigned long long)s.samples_unattributed, "seconds",
                         (double)s.duration_ns / 1e9, "failed", failed);
}

static PyMethodDef methods[] = {
    {"start", (PyCFunction)(void (*)(void))start, METH_VARARGS | METH_KEYWORDS,
     "start(db, opcodes, isa_name, hz=0, exact=False, trace=False, label=None, benchmark=None,"
     " command_line=None): open a run and profile this thread (sampling its frames; with"
     " trace, through opcode events; exact: counting them)"},
    {"stop", stop, METH_VARARGS, "stop(outcome, exit_status) -> summary dict: end the run"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pulleyprof",
                                    "CPython's adapter to libpulleyprof", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__pulleyprof(void)
{
    return PyModule_Create(&module);
}
