#!/usr/bin/env python3
"""where_lost.py - the report of bench/where_lost.sh from its runs (used by it).

    python3 bench/where_lost.py VM.cg VM.db WASM3.cg [TOP]

VM.cg is a cachegrind.out (or callgrind.out) file of this VM's pulley-run
(a tail-dispatch build: each opcode's handler is its own function
op_<mnemonic>) running a program, VM.db the profile database of pulley-collect --exact running it
the same way, WASM3.cg a callgrind.out file (--dump-instr=yes) of wasm3
running it.  wasm3's executions of an operation are the Ir of the first
(lowest) address of its function: each execution enters there once.

Prints, side by side, the machine instructions (Ir) and the VM
instructions (wasm3: operations) by area (memory, calls, moves, ...), the
difference and its share of the gap; what this VM's calls cost (saves of
callee-saved registers, saves around calls, moves of arguments,
parameters and results, call/ret/frame); the saves made by invocations
that call nothing (a lower bound per function); the frame-slot accesses
(spills) per function; the TOP opcodes of each (default 15).
"""
import os
import re
import sqlite3
import sys
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_costs import cost_lines  # noqa: E402  (callgrind.out parser)

SAVE = ("xpush", "xpop", "fpush", "fpop")
CALL = ("call", "call_indirect", "call_host")
CALLRET = CALL + ("ret", "push_frame", "pop_frame", "sigcheck", "table_get", "table_size")
MOVE = ("xmov", "fmov")
FRAME_BASE = "x29"  # the frame base of translated code (interp/wasm/TRANSLATION.md)
AREAS = ["memory: heap access", "memory: frame slots (spills)",
         "calls: register saves (push/pop)", "calls: call/ret/frame",
         "moves, constants, globals", "arithmetic, compare", "branches, select",
         "outside handlers (start-up, translation, host)"]
WASM3_CALL = ("op_Call", "op_CallIndirect", "op_Entry", "op_Return", "m3_Yield")


def fail(msg):
    sys.exit("where_lost.py: " + msg)


def vm_area(op):
    if op in SAVE:
        return "calls: register saves (push/pop)"
    if op in CALLRET:
        return "calls: call/ret/frame"
    if "load" in op or "store" in op:
        return "memory: heap access"
    if op in MOVE or re.match(r"[xf]const", op) or "global" in op:
        return "moves, constants, globals"
    if op in ("jump", "xselect", "fselect") or op.startswith("br_"):
        return "branches, select"
    return "arithmetic, compare"


def wasm3_area(f):
    if f in WASM3_CALL or re.match(r"__(memcpy|memset|memmove)", f):
        return "calls: call/ret/frame"
    if not f.startswith("op_"):
        return "outside handlers (start-up, translation, host)"
    if re.match(r"op_(CopySlot|SetSlot|SetRegister|PreserveSetSlot|PreserveCopySlot|"
                r"PreserveSetRegister|SwapSlot|Const|GetGlobal|SetGlobal)", f):
        return "moves, constants, globals"
    if "Load" in f or "Store" in f:
        return "memory: heap access"
    if re.match(r"op_(Branch|BranchIf|BranchTable|ContinueLoop|Loop|If|Select|Block)", f):
        return "branches, select"
    return "arithmetic, compare"


def is_frame_access(op, text):
    """A load or store whose base register is the frame base."""
    t = text.replace(",", " ").split()
    if "load" in op:
        return len(t) > 2 and t[2] == FRAME_BASE
    if "store" in op:
        return len(t) > 1 and t[1] == FRAME_BASE
    return False


def read_vm_db(path):
    """Per function, its instructions in order: (offset, count, opcode, text)."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = db.execute(
            """SELECT f.id, f.name, i.offset, coalesce(e.count, 0), o.name, i.text
               FROM instructions i JOIN functions f ON f.id = i.function_id
               JOIN runs r ON r.id = f.run_id
               JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode
               LEFT JOIN exec_counts e ON e.function_id = i.function_id AND e.offset = i.offset
               WHERE r.exact = 1 AND f.run_id = (SELECT max(id) FROM runs WHERE exact = 1)
               ORDER BY f.id, i.offset""").fetchall()
    except sqlite3.Error as e:
        fail(f"{path}: {e}")
    funcs = defaultdict(list)
    names = {}
    for fid, name, off, n, op, text in rows:
        funcs[fid].append((off, n, op, text))
        names[fid] = name
    if not funcs:
        fail(f"{path}: no run with exact counts (pulley-collect --exact)")
    return funcs, names


def main(argv):
    if len(argv) not in (4, 5):
        fail("usage: where_lost.py VM.cg VM.db WASM3.cg [TOP]")
    top = int(argv[4]) if len(argv) == 5 else 15
    for p in (argv[1], argv[3]):
        if not os.path.isfile(p):
            fail(f"{p}: no such file")

    # ---- this VM: handler Ir, executions per opcode ----
    vm_ir = defaultdict(int)
    for fn, _, n in cost_lines(argv[1]):
        vm_ir[fn] += n
    vm_total = sum(vm_ir.values())
    if "op_nop" not in vm_ir and not any(k.startswith("op_x") for k in vm_ir):
        fail(f"{argv[1]}: no op_ handler functions: the VM must be a tail-dispatch build")
    funcs, names = read_vm_db(argv[2])
    execs = defaultdict(int)
    frame = defaultdict(int)       # executions of frame-slot accesses, per opcode
    frame_fn = defaultdict(int)    # and per function
    for fid, ins in funcs.items():
        for _, n, op, text in ins:
            execs[op] += n
            if n and is_frame_access(op, text):
                frame[op] += n
                frame_fn[names[fid]] += n
    per = {op: vm_ir.get("op_" + op, 0) / n for op, n in execs.items() if n}
    handlers = sum(v for k, v in vm_ir.items() if k.startswith("op_"))
    vm_n = sum(execs.values())

    # ---- wasm3: Ir and executions per function ----
    w_ir = defaultdict(int)
    w_at = defaultdict(lambda: defaultdict(int))
    for fn, pos, n in cost_lines(argv[3]):
        w_ir[fn] += n
        if pos is not None:
            w_at[fn][pos] += n
    if not w_at:
        fail(f"{argv[3]}: no instruction addresses (run callgrind with --dump-instr=yes)")
    w_n = {f: d[min(d)] for f, d in w_at.items()}
    w_total = sum(w_ir.values())
    w_ops = sum(n for f, n in w_n.items() if f.startswith("op_"))

    # ---- areas ----
    A, N, B, M = defaultdict(float), defaultdict(int), defaultdict(int), defaultdict(int)
    for op, n in execs.items():
        a = vm_area(op)
        N[a] += n
        A[a] += vm_ir.get("op_" + op, 0)
    # frame-slot accesses take the VM stack's path of the data-space check:
    # their cost is what the handler costs above the heap path, from the
    # split of executions (cost = heap_n * c_heap + frame_n * c_frame,
    # c_heap the cost of the same handler's heap-only peers: 14 here)
    heap_cost = {}
    for op in frame:
        peers = [per[o] for o in per if ("load" in o) == ("load" in op) and o not in frame
                 and ("load" in o or "store" in o) and execs[o] > 1000]
        heap_cost[op] = min(peers) if peers else per[op]
    fr_n = sum(frame.values())
    fr_ir = 0.0
    for op, n in frame.items():
        heap_n = execs[op] - n
        fr_ir += vm_ir.get("op_" + op, 0) - heap_n * heap_cost[op]
    A["memory: heap access"] -= fr_ir
    N["memory: heap access"] -= fr_n
    A["memory: frame slots (spills)"] = fr_ir
    N["memory: frame slots (spills)"] = fr_n
    A["outside handlers (start-up, translation, host)"] = vm_total - handlers
    for f, n in w_ir.items():
        a = wasm3_area(f)
        B[a] += n
        if f.startswith("op_"):
            M[a] += w_n.get(f, 0)

    gap = vm_total - w_total
    print(f"This VM: {vm_total / 1e9:.3f} G machine instructions (Ir), {vm_n / 1e6:.1f} M VM "
          f"instructions, {vm_total / vm_n:.2f} Ir each ({handlers / vm_n:.2f} in handlers)")
    print(f"wasm3:   {w_total / 1e9:.3f} G Ir, {w_ops / 1e6:.1f} M operations, "
          f"{w_total / w_ops:.2f} Ir each")
    print(f"ratio: {vm_total / w_total:.3f}x the Ir, {vm_n / w_ops:.3f}x the instructions; "
          f"the gap {gap / 1e9:+.3f} G Ir")
    print()
    print("| area | VM insns (M) | Ir (G) | Ir/insn | wasm3 ops (M) | wasm3 Ir (G) | Ir/op "
          "| difference (G Ir) | of the gap |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a in AREAS:
        d = A[a] - B[a]
        share = f"{100 * d / gap:+.0f}%" if gap else "-"
        print(f"| {a} | {N[a] / 1e6:.1f} | {A[a] / 1e9:.3f} | {A[a] / N[a] if N[a] else 0:.1f} "
              f"| {M[a] / 1e6:.1f} | {B[a] / 1e9:.3f} | {B[a] / M[a] if M[a] else 0:.1f} "
              f"| {d / 1e9:+.3f} | {share} |")
    print(f"| total | {vm_n / 1e6:.1f} | {vm_total / 1e9:.3f} | {vm_total / vm_n:.2f} "
          f"| {w_ops / 1e6:.1f} | {w_total / 1e9:.3f} | {w_total / w_ops:.2f} "
          f"| {gap / 1e9:+.3f} | 100% |")

    # ---- calls: where each push, pop and move sits ----
    place = defaultdict(int)
    for ins in funcs.values():
        ops = [i[2] for i in ins]
        for k, (_, n, op, _) in enumerate(ins):
            if not n:
                continue
            if op in ("xpush", "fpush"):
                j = k - 1
                while j >= 0 and ops[j] in ("xpush", "fpush"):
                    j -= 1
                place["saves: callee-saved registers, prologue" if j >= 0 and ops[j] == "push_frame"
                      else "saves: around calls"] += n
            elif op in ("xpop", "fpop"):
                j = k + 1
                while j < len(ops) and ops[j] in ("xpop", "fpop"):
                    j += 1
                place["saves: callee-saved registers, epilogue" if j < len(ops) and ops[j] == "pop_frame"
                      else "saves: around calls"] += n
            elif op in MOVE:
                j = k + 1
                while j < len(ops) and (ops[j] in MOVE + ("xpush", "fpush") or re.match(r"[xf]const", ops[j])):
                    j += 1
                if j < len(ops) and ops[j] in CALL:
                    place["moves: arguments before a call"] += n
                elif k > 0 and ops[k - 1] in CALL + ("xpop", "fpop"):
                    place["moves: results after a call"] += n
                elif all(o in ("push_frame", "xpush", "fpush") + MOVE for o in ops[:k]):
                    place["moves: parameters to their homes (prologue)"] += n
                else:
                    j = k + 1
                    while j < len(ops) and ops[j] in MOVE + ("xpop", "fpop", "pop_frame"):
                        j += 1
                    place["moves: results before ret" if j < len(ops) and ops[j] == "ret"
                          else "moves: others"] += n
    calls = sum(execs[o] for o in CALL)
    print()
    print(f"Calls in this VM: {calls / 1e6:.2f} M executed; per place of a push, pop or move:")
    print("| what | executions (M) | of all VM insns | Ir (G) | per call |")
    print("|---|---:|---:|---:|---:|")
    cost_of = {"saves": (per.get("xpush", 0) + per.get("xpop", 0)) / 2, "moves": per.get("xmov", 0)}
    for k in sorted(place):
        n = place[k]
        ir = n * cost_of[k.split(":")[0]]
        print(f"| {k} | {n / 1e6:.2f} | {100 * n / vm_n:.2f}% | {ir / 1e9:.3f} | "
              f"{ir / calls if calls else 0:.1f} |")
    cr = sum(vm_ir.get("op_" + o, 0) for o in CALLRET)
    print(f"| call, ret, push_frame, pop_frame (and call_indirect's checks) | "
          f"{sum(execs[o] for o in CALLRET) / 1e6:.2f} | "
          f"{100 * sum(execs[o] for o in CALLRET) / vm_n:.2f}% | {cr / 1e9:.3f} | "
          f"{cr / calls if calls else 0:.1f} |")
    wc = B["calls: call/ret/frame"]
    wcalls = w_n.get("op_Call", 0) + w_n.get("op_CallIndirect", 0)
    print(f"wasm3: call, entry, return (and the memcpy/memset they make): {wc / 1e9:.3f} G Ir, "
          f"{wc / wcalls if wcalls else 0:.1f} per call ({wcalls / 1e6:.2f} M calls)")

    # ---- saves by invocations that call nothing ----
    rows = []
    tot_n = tot_ir = 0
    for fid, ins in funcs.items():
        if not ins or ins[0][2] != "push_frame" or not ins[0][1]:
            continue
        entries = ins[0][1]
        made = sum(n for _, n, op, _ in ins if op in CALL)
        k = 1
        pro = ["push_frame"]
        while k < len(ins) and ins[k][2] in ("xpush", "fpush") + MOVE:
            pro.append(ins[k][2])
            k += 1
        saves = sum(1 for p in pro if p.endswith("push"))
        vm_per = len(pro) + saves + 1      # and as many pops, and pop_frame
        ir_per = sum(per.get(p, 0) for p in pro) + saves * per.get("xpop", 0) + per.get("pop_frame", 0)
        nocall = max(0, entries - made)    # at least this many invocations call nothing
        tot_n += nocall * vm_per
        tot_ir += nocall * ir_per
        if nocall:
            rows.append((nocall * ir_per, names[fid], entries, made, saves, vm_per))
    rows.sort(reverse=True)
    print()
    print(f"Frames of invocations that call nothing (at least entries - calls made): "
          f">= {tot_n / 1e6:.1f} M VM insns ({100 * tot_n / vm_n:.1f}%), "
          f">= {tot_ir / 1e9:.3f} G Ir ({100 * tot_ir / vm_total:.1f}%)")
    print("| function | entries | calls made | registers saved | frame insns per entry | Ir >= (M) |")
    print("|---|---:|---:|---:|---:|---:|")
    for ir, name, entries, made, saves, vm_per in rows[:top // 2 or 1]:
        print(f"| {name} | {entries} | {made} | {saves} | {vm_per} | {ir / 1e6:.1f} |")

    # ---- spills ----
    print()
    print(f"Frame-slot accesses (base {FRAME_BASE}): {fr_n / 1e6:.2f} M, "
          f"{fr_ir / fr_n if fr_n else 0:.1f} Ir each; by function:")
    for name, n in sorted(frame_fn.items(), key=lambda x: -x[1])[:5]:
        print(f"  {name:24s} {n / 1e6:8.2f} M")

    # ---- top opcodes ----
    print()
    print(f"This VM, the {top} costliest opcodes | wasm3, the {top} costliest functions")
    left = sorted(((vm_ir.get("op_" + o, 0), o) for o in execs), reverse=True)[:top]
    right = sorted(((n, f) for f, n in w_ir.items()), reverse=True)[:top]
    print("| opcode | executions (M) | Ir (M) | Ir/exec | wasm3 function | executions (M) | Ir (M) | Ir/exec |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for (ir, o), (wir, f) in zip(left, right):
        wn = w_n.get(f, 0)
        print(f"| {o} | {execs[o] / 1e6:.1f} | {ir / 1e6:.0f} | {per.get(o, 0):.2f} "
              f"| {f} | {wn / 1e6:.1f} | {wir / 1e6:.0f} | {wir / wn if wn else 0:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
