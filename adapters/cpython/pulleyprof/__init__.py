"""pulleyprof - profile CPython 3.11 bytecode with libpulleyprof.

Run a script under it with ``python3 -m pulleyprof [OPTIONS] script.py ARGS``
(see ``python3 -m pulleyprof --help``); the profile database it writes is
read by pulley-ngrams and pulley-report like any other.

cpython_opcodes() is CPython's opcode table as the library stores it, made
from the ``opcode`` module: one row per base opcode, its length in bytes
with its inline cache entries, whether it takes an argument, its jumps.
An instruction with inline cache entries is adaptive: CPython's
specializing interpreter rewrites it in place as the program runs (LOAD_ATTR
becomes LOAD_ATTR_INSTANCE_VALUE, and so on), so no fixed superinstruction
can contain it; the table says so and pulley-ngrams leaves it out of
n-grams unless asked (--include-adaptive).
"""
import opcode
import sys

SUPPORTED = (3, 11)

# Flag bits of include/pulley/profile.h.
BRANCH, TERMINATOR, TRAPS, CALL, RETURN, ADAPTIVE = 1, 2, 4, 8, 16, 64
# How a jump's argument gives its target (the adapter's decoder).
JUMP_NONE, JUMP_FORWARD_REL, JUMP_BACKWARD_REL, JUMP_ABSOLUTE = range(4)

_NEVER_FALL_THROUGH = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
                       "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
_CALLS = {"CALL", "CALL_FUNCTION_EX"}


def cpython_opcodes():
    """Rows (id, name, length, flags, operands, jump kind, has_arg, semantics)."""
    caches = opcode._inline_cache_entries
    rows = []
    for op, name in enumerate(opcode.opname):
        if name.startswith("<"):
            continue  # no such opcode
        has_arg = op >= opcode.HAVE_ARGUMENT
        jump = JUMP_NONE
        if op in opcode.hasjrel:
            jump = JUMP_BACKWARD_REL if "JUMP_BACKWARD" in name else JUMP_FORWARD_REL
        elif op in opcode.hasjabs:
            jump = JUMP_ABSOLUTE
        flags = (BRANCH if jump != JUMP_NONE else 0) \
            | (TERMINATOR if name in _NEVER_FALL_THROUGH else 0) \
            | (CALL if name in _CALLS else 0) \
            | (RETURN if name == "RETURN_VALUE" else 0) \
            | (ADAPTIVE if caches[op] else 0)
        rows.append((op, name, 2 * (1 + caches[op]), flags, "arg" if has_arg else "", jump,
                     int(has_arg), ""))
    return rows


def isa_name():
    return "cpython-%d.%d" % sys.version_info[:2]
