#!/usr/bin/env python3
"""make_tricky.py: (re)generate the hand-made tricky modules of
tests/fuzz/regressions (tricky_*.wasm): valid modules at the front end's
limits, written in the text format and built with wat2wasm, and malformed
binaries written byte by byte.  Run from anywhere; needs wat2wasm."""
import os
import subprocess
import sys
import tempfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


def leb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def section(sid, payload):
    return bytes([sid]) + leb(len(payload)) + payload


HEADER = b"\0asm\1\0\0\0"


def wat(name, text):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "m.wat")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run(["wat2wasm", src, "-o", os.path.join(OUT, name + ".wasm")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{name}: wat2wasm failed:\n" + "\n".join(r.stderr.splitlines()[:6]))


def raw(name, data):
    with open(os.path.join(OUT, name + ".wasm"), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    # One MODULE.NAME imported twice, with different types (valid Wasm).
    wat("tricky_dup_import", """(module
  (import "m" "f" (func $a (param i32)))
  (import "m" "f" (func $b (param f64) (result i64)))
  (func (export "g") (result i64) (call $a (i32.const 1)) (call $b (f64.const 2))))""")
    # 600 nested blocks, each passing an i64 through (block results).
    depth = 600
    wat("tricky_deep_blocks", "(module (func (export \"f\") (param i64) (result i64)\n"
        + "(block (result i64) " * depth + "(local.get 0)" + ")" * depth + "))")
    # Many locals of every type: far more than the registers, so spills.
    # Indices: params 0 (i32), 1 (f64); 2-5 i32; then i32 i64 f32 f64 from 6.
    body = "".join(f"(local.set {i} (i32.add (local.get {i}) (local.get {i + 4})))"
                   for i in range(6, 796, 4))
    body += "".join(f"(local.set {i} (f64.mul (local.get {i}) (local.get 1)))"
                    for i in range(9, 805, 4))
    wat("tricky_many_locals", "(module (func (export \"f\") (param i32 f64)"
        " (local i32 i32 i32 i32) " + "(local i32 i64 f32 f64) " * 200 + body + "))")
    # A type with 1000 parameters and one with 1000 results, both called.
    p = " ".join(["i64", "f32"] * 500)
    args = " ".join(f"(i64.const {i}) (f32.const {i})" for i in range(500))
    wat("tricky_max_params", f"""(module
  (func $p (param {p}) (result i64) (local.get 998))
  (func $r (result {" ".join(["i32"] * 1000)}) {" ".join(f"(i32.const {i})" for i in range(1000))})
  (func (export "f") (result i64)
    (call $r) {"drop " * 1000}
    (call $p {args})))""")
    # Unreachable code: the polymorphic stack under every kind of operator.
    wat("tricky_unreachable", """(module
  (table 2 funcref) (memory 1)
  (func (export "f") (param i32) (result i32 i64)
    (block (result i32 i64) unreachable i32.add select br_table 0 0 0)
    (loop (param) (result) unreachable br_if 0 drop memory.grow drop call_indirect (type 0) unreachable)
    unreachable
    i64.eqz drop f32.neg drop select (result f64) drop i32.const 1 i64.const 2 return)
  (type (func)))""")
    # br_table with 3000 targets and multi-value branches; if with params.
    targets = " ".join(str(i % 4) for i in range(3000))
    wat("tricky_br_table", f"""(module
  (func (export "f") (param i32) (result i32 i32)
    (block (result i32 i32) (block (result i32 i32) (block (result i32 i32) (block (result i32 i32)
      (i32.const 1) (i32.const 2) (local.get 0) (br_table {targets})) ) ) )
    (if (param i32 i32) (result i32 i32) (local.get 0) (then (i32.add) (i32.const 9)) (else (i32.sub) (i32.const 8)))))""")
    # A deep operand stack: 5000 constants, folded back.
    wat("tricky_deep_stack", "(module (func (export \"f\") (result i64) "
        + "(i64.const 1) " * 5000 + "i64.add " * 4999 + "))")
    # The largest memory, every width at the highest offset; bulk and table ops.
    wat("tricky_memory_edges", """(module
  (memory 0 65536) (data "x") (elem func $f) (table 1 10 funcref)
  (func $f (export "f") (param i32)
    (drop (i64.load offset=4294967295 (local.get 0)))
    (i32.store8 offset=4294967295 (local.get 0) (i32.const 0))
    (drop (memory.grow (i32.const 65536)))
    (memory.copy (local.get 0) (local.get 0) (i32.const -1))
    (memory.fill (local.get 0) (i32.const 0) (i32.const -1))
    (memory.init 0 (local.get 0) (i32.const 0) (i32.const 1)) (data.drop 0)
    (drop (table.grow 0 (ref.func $f) (i32.const -1)))
    (table.init 0 0 (i32.const 0) (i32.const 0) (i32.const 1)) (elem.drop 0)
    (call_indirect (param i32) (local.get 0) (i32.const 0))))""")

    # Malformed: counts and sizes far beyond the bytes that remain.
    raw("tricky_huge_type_count", HEADER + bytes([1, 5]) + leb(0xFFFFFFFF))
    raw("tricky_section_past_end", HEADER + bytes([1]) + leb(0x7FFFFFFF) + b"\0")
    raw("tricky_truncated_leb", HEADER + bytes([1, 3, 1, 0x60, 0x80]))
    raw("tricky_overlong_leb", HEADER + bytes([1, 7, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0]))
    # Local runs whose counts sum past 2^32.
    code = leb(2) + leb(0x80000000) + b"\x7f" + leb(0x80000000) + b"\x7e" + b"\x0b"
    raw("tricky_locals_overflow", HEADER + section(1, b"\x01\x60\x00\x00")
        + section(3, b"\x01\x00") + section(10, b"\x01" + leb(len(code)) + code))
    # A function body whose size runs past the code section.
    raw("tricky_body_past_section", HEADER + section(1, b"\x01\x60\x00\x00")
        + section(3, b"\x01\x00") + section(10, b"\x01" + leb(1000) + b"\x00\x0b"))
    raw("tricky_empty", b"")
    raw("tricky_bad_version", b"\0asm\2\0\0\0")
    # Data count says 1, but no data section follows; memory.init uses it.
    code = b"\x00" + b"\x41\x00\x41\x00\x41\x00\xfc\x08\x00\x00\x0b"
    raw("tricky_datacount_mismatch", HEADER + section(1, b"\x01\x60\x00\x00")
        + section(3, b"\x01\x00") + section(5, b"\x01\x00\x01") + section(12, b"\x01")
        + section(10, b"\x01" + leb(len(code)) + code))
    return 0


if __name__ == "__main__":
    sys.exit(main())
