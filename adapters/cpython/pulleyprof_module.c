/*
 * pulleyprof_module.c - _pulleyprof, CPython 3.11's adapter to libpulleyprof
 * (include/pulley/profile.h): the first interpreter outside this project
 * profiled with the library, through its public API only.
 *
 * CPython's opcode table (built in Python from the `opcode` module by
 * pulleyprof/__main__.py) becomes the run's ISA; every code object met is
 * registered with its bytecode (co_code: the base instructions with their
 * inline cache entries, never the specialized ones) at an address range
 * of its own; a C trace function with opcode events publishes, before
 * each instruction, that code object's address plus the instruction's
 * byte offset into the slot the library's sampler reads, and 0 while a C
 * function runs.  In exact mode it counts every instruction instead.
 * Only the thread that calls start() is profiled.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>

#include <pulley/profile.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NOPS = 256, EXTENDED_ARG_OP = 144 };
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
    uintptr_t base;    /* address of its first instruction */
    Py_ssize_t size;   /* bytes of co_code */
    int func;          /* the library's handle */
    uint64_t *counts;  /* exact mode: per 2-byte code unit */
} code_entry;

static struct {
    pulleyprof_agent *agent;
    pulleyprof_isa desc;
    int module, exact;
    _Atomic(uintptr_t) slot;
    PyThreadState *thread;
    uintptr_t next_base;
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

/* The entry of code, registering it with the library when first met;
 * NULL on failure. */
static code_entry *entry_of(PyCodeObject *code)
{
    if (prof.last && prof.last->code == (PyObject *)code)
        return prof.last;
    size_t h = prof.tcap ? hash_ptr(code, prof.tcap) : 0;
    while (prof.tcap && prof.table[h]) {
        code_entry *e = &prof.entries[prof.table[h] - 1];
        if (e->code == (PyObject *)code)
            return e;
        h = (h + 1) & (prof.tcap - 1);
    }
    if ((prof.nentries + 1) * 2 > prof.tcap && table_grow() != 0)
        return NULL;
    if (prof.nentries == prof.cap) {
        size_t ncap = prof.cap ? 2 * prof.cap : 256;
        code_entry *g = realloc(prof.entries, ncap * sizeof *g);
        if (!g)
            return NULL;
        prof.entries = g;
        prof.cap = ncap;
    }
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
    code_entry e = {.code = (PyObject *)code, .base = prof.next_base, .size = size};
    e.counts = prof.exact ? calloc((size_t)size / 2 + 1, sizeof *e.counts) : NULL;
    e.func = pulleyprof_register_function(prof.agent, prof.module, (uint32_t)prof.nentries, name,
                                          e.base, (const uint8_t *)PyBytes_AS_STRING(bytes),
                                          (size_t)size);
    Py_DECREF(bytes);
    if (e.func < 0 || (prof.exact && !e.counts)) {
        free(e.counts);
        return NULL;
    }
    Py_INCREF(code);
    prof.next_base += ((uintptr_t)size + 64) & ~(uintptr_t)15;
    prof.entries[prof.nentries++] = e;
    h = hash_ptr(code, prof.tcap);
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
    static char *names[] = {"db", "opcodes", "isa_name", "hz", "exact", "label", "benchmark",
                            "command_line", NULL};
    const char *db, *isa_name, *label = NULL, *benchmark = NULL, *command_line = NULL;
    PyObject *rows;
    unsigned hz = 0;
    int exact = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!s|Ipzzz", names, &db, &PyList_Type, &rows,
                                     &isa_name, &hz, &exact, &label, &benchmark, &command_line))
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
    prof.exact = exact;
    prof.next_base = 0x10000;
    char err[512];
    pulleyprof_config cfg = {.db_path = db, .sample_hz = hz, .isa = &prof.desc, .label = label,
                             .benchmark = benchmark, .command_line = command_line,
                             .build_flags = exact ? "cpython exact" : "cpython sampled",
                             .tool = "python3 -m pulleyprof", .exact = exact};
    prof.agent = pulleyprof_open(&cfg, err, sizeof err);
    if (!prof.agent) {
        free_isa();
        PyErr_Format(PyExc_OSError, "pulleyprof: %s", err);
        return NULL;
    }
    prof.module = pulleyprof_register_module(prof.agent, benchmark ? benchmark : "python", NULL);
    pulleyprof_register_slot(prof.agent, &prof.slot);
    prof.thread = PyThreadState_Get();
    PyEval_SetTrace(trace, NULL);
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
    PyEval_SetTrace(NULL, NULL);
    pulleyprof_publish(&prof.slot, 0);
    pulleyprof_unregister_slot(prof.agent, &prof.slot);
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
    memset(&prof, 0, sizeof prof);
    free_isa();
    if (rc != 0) {
        PyErr_Format(PyExc_OSError, "pulleyprof: run %lld is incomplete: %s", (long long)s.run_id,
                     err);
        return NULL;
    }
    return Py_BuildValue("{s:L,s:K,s:K,s:K,s:K,s:d,s:i}", "run", (long long)s.run_id,
                         "samples", (unsigned long long)s.samples_written, "executed",
                         (unsigned long long)s.executed, "dropped",
                         (unsigned long long)s.samples_dropped, "cut_short",
                         (unsigned long long)s.functions_cut_short, "seconds",
                         (double)s.duration_ns / 1e9, "failed", failed);
}

static PyMethodDef methods[] = {
    {"start", (PyCFunction)(void (*)(void))start, METH_VARARGS | METH_KEYWORDS,
     "start(db, opcodes, isa_name, hz=0, exact=False, label=None, benchmark=None,"
     " command_line=None): open a run and trace this thread"},
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
