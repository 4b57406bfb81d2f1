;; Functions whose translations tests/unit/test_translate.c inspects.
(module
  (memory 1)
  ;; A leaf with parameters kept where they arrive: xadd32 x0, x0, x1; ret.
  (func $add (export "add") (param i32 i32) (result i32)
    local.get 0 local.get 1 i32.add)
  ;; Locals read in place, the result written straight into c.
  (func $locals (export "locals") (param $n i32) (result i32)
    (local $a i32) (local $b i32) (local $c i32)
    (local.set $a (local.get $n))
    (local.set $b (i32.const 3))
    call $add_locals_marker
    local.get $a local.get $b i32.add local.set $c
    local.get $c)
  (func $add_locals_marker)
  ;; a and n live across two calls that always run: callee-saved homes.
  (func $two_calls (export "two_calls") (param $n i32) (result i32) (local $a i32)
    (local.set $a (i32.mul (local.get $n) (i32.const 3)))
    call $add_locals_marker
    call $add_locals_marker
    (i32.add (local.get $a) (local.get $n)))
  ;; At most one call on any path, none in a loop: no frame on entry, a
  ;; frame around each call; n is saved around the call in the then-arm.
  (func $one_call_a_path (export "one_call_a_path") (param $n i32) (result i32)
    (if (i32.gt_s (local.get $n) (i32.const 10))
      (then call $add_locals_marker)
      (else (if (i32.lt_s (local.get $n) (i32.const 0)) (then call $add_locals_marker))))
    (i32.add (local.get $n) (i32.const 1)))
  ;; Two calls off a path that makes none: light too.
  (func $calls_off_a_fast_path (export "calls_off_a_fast_path") (param $n i32) (result i32)
    (if (i32.gt_s (local.get $n) (i32.const 10))
      (then call $add_locals_marker call $add_locals_marker))
    (i32.add (local.get $n) (i32.const 1)))
  ;; A call in a loop: a frame on entry, as any function that calls.
  (func $call_in_loop (export "call_in_loop") (param $n i32) (result i32)
    (block $done
      (loop $top
        (br_if $done (i32.eqz (local.get $n)))
        call $add_locals_marker
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $top)))
    (local.get $n))
  ;; t holds two values, neither living across the call: only n, whose
  ;; value does, is saved around it.
  (func $two_values (export "two_values") (param $n i32) (result i32) (local $t i32)
    (local.set $t (i32.mul (local.get $n) (i32.const 3)))
    (local.set $n (i32.add (local.get $t) (local.get $n)))
    call $add_locals_marker
    (local.set $t (i32.mul (local.get $n) (i32.const 5)))
    (i32.add (local.get $t) (i32.const 1)))
  ;; x is written on both paths before it is read: never zeroed.
  (func $both_arms (export "both_arms") (param $n i32) (result i32) (local $x i32)
    (if (local.get $n)
      (then (local.set $x (i32.const 5)))
      (else (local.set $x (i32.const 7))))
    (local.get $x))
  ;; A counting loop: no moves inside, the constant 1 hoisted.
  (func $sum (export "sum") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done
      (loop $top
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $top)))
    (local.get $s))
  ;; A function that calls, with a loop that does not: the loop's constants
  ;; (too wide for an immediate) are loaded into caller-saved registers
  ;; where the loop is entered.
  (func $loop_after_call (export "loop_after_call") (param $n i64) (result i64)
    (local $i i64) (local $s i64)
    call $add_locals_marker
    (block $done
      (loop $top
        (br_if $done (i64.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i64.add (local.get $s) (i64.const 0x700000000)))
        (local.set $i (i64.add (local.get $i) (i64.const 0x100000000)))
        (br $top)))
    (local.get $s))
  ;; br_if on i32.eqz branches on the operand with br_if_not.
  (func $eqz (export "eqz") (param i32) (result i32)
    (block (br_if 0 (i32.eqz (local.get 0))) (return (i32.const 1)))
    (i32.const 0))
  ;; A load: bcheck32, xadd64 of the heap base, plain load.
  (func $load (export "load") (param i32) (result i32)
    (i32.load offset=4 (local.get 0)))
  ;; One constant used twice in a block is loaded once; after a label it is
  ;; loaded again (control may come from elsewhere).  It is the first
  ;; operand of a subtraction, which no immediate form has:
  ;; r = (1000 - a) + (1000 - b); r = 1000 - r when c is not zero; 1000 - r.
  (func $same_const (export "same_const") (param $a i32) (param $b i32) (param $c i32)
    (result i32) (local $r i32)
    (local.set $r (i32.add (i32.sub (i32.const 1000) (local.get $a))
                           (i32.sub (i32.const 1000) (local.get $b))))
    (if (local.get $c)
      (then (local.set $r (i32.sub (i32.const 1000) (local.get $r)))))
    (i32.sub (i32.const 1000) (local.get $r)))
  ;; Integer constant operands as immediates: (x + 5) + (x - 3) +
  ;; (10 < x) + (x <= 7), that is 2x + 2 + (x > 10) + (x < 8).
  (func $imm_ops (export "imm_ops") (param $x i32) (result i32)
    (i32.add
      (i32.add (i32.add (local.get $x) (i32.const 5)) (i32.sub (local.get $x) (i32.const 3)))
      (i32.add (i32.lt_s (i32.const 10) (local.get $x))
               (i32.le_u (local.get $x) (i32.const 7)))))
  ;; Constants no immediate stands for: x + 2^32, u32(x) <= 0xffffffff,
  ;; s32(x) >= INT32_MIN (both always 1).
  (func $imm_edges (export "imm_edges") (param $x i64) (result i64)
    (i64.add
      (i64.add (local.get $x) (i64.const 0x100000000))
      (i64.extend_i32_u
        (i32.add (i32.le_u (i32.wrap_i64 (local.get $x)) (i32.const -1))
                 (i32.ge_s (i32.wrap_i64 (local.get $x)) (i32.const 0x80000000))))))
;; i32.wrap_i64 costs nothing where the value is zero-extended already (a
  ;; shift right by 32) or read only by an i32 op (i32.add, straight or
  ;; after a constant); returned, or tested by i32.eqz, it is zero-extended.
  (func $wrap_high (export "wrap_high") (param $v i64) (result i32)
    (i32.wrap_i64 (i64.shr_u (local.get $v) (i64.const 32))))
  (func $wrap_add (export "wrap_add") (param $v i64) (param $w i64) (result i32)
    (i32.add (i32.add (i32.wrap_i64 (local.get $v)) (i32.const -4))
             (i32.wrap_i64 (local.get $w))))
  (func $wrap (export "wrap") (param $v i64) (result i32)
    (i32.wrap_i64 (local.get $v)))
  (func $wrap_eqz (export "wrap_eqz") (param $v i64) (result i32)
    (i32.eqz (i32.wrap_i64 (local.get $v))))
  ;; Eighteen locals live across a call in a loop: more than the callee-
  ;; saved registers; those left over take caller-saved registers, pushed
  ;; around the call, not frame slots.  Returns 18 * n * (n - 1) / 2.
  (func $hot_across_call (export "hot_across_call") (param $n i32) (result i32)
    (local $i i32) (local $v0 i32) (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32) (local $v5 i32) (local $v6 i32) (local $v7 i32) (local $v8 i32) (local $v9 i32) (local $v10 i32) (local $v11 i32) (local $v12 i32) (local $v13 i32) (local $v14 i32) (local $v15 i32) (local $v16 i32) (local $v17 i32)
    (loop $next
      (local.set $v0 (i32.add (local.get $v0) (local.get $i)))
      (local.set $v1 (i32.add (local.get $v1) (local.get $i)))
      (local.set $v2 (i32.add (local.get $v2) (local.get $i)))
      (local.set $v3 (i32.add (local.get $v3) (local.get $i)))
      (local.set $v4 (i32.add (local.get $v4) (local.get $i)))
      (local.set $v5 (i32.add (local.get $v5) (local.get $i)))
      (local.set $v6 (i32.add (local.get $v6) (local.get $i)))
      (local.set $v7 (i32.add (local.get $v7) (local.get $i)))
      (local.set $v8 (i32.add (local.get $v8) (local.get $i)))
      (local.set $v9 (i32.add (local.get $v9) (local.get $i)))
      (local.set $v10 (i32.add (local.get $v10) (local.get $i)))
      (local.set $v11 (i32.add (local.get $v11) (local.get $i)))
      (local.set $v12 (i32.add (local.get $v12) (local.get $i)))
      (local.set $v13 (i32.add (local.get $v13) (local.get $i)))
      (local.set $v14 (i32.add (local.get $v14) (local.get $i)))
      (local.set $v15 (i32.add (local.get $v15) (local.get $i)))
      (local.set $v16 (i32.add (local.get $v16) (local.get $i)))
      (local.set $v17 (i32.add (local.get $v17) (local.get $i)))
      call $add_locals_marker
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (local.get $n))))
    (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (local.get $v0) (local.get $v1)) (local.get $v2)) (local.get $v3)) (local.get $v4)) (local.get $v5)) (local.get $v6)) (local.get $v7)) (local.get $v8)) (local.get $v9)) (local.get $v10)) (local.get $v11)) (local.get $v12)) (local.get $v13)) (local.get $v14)) (local.get $v15)) (local.get $v16)) (local.get $v17)))
  ;; x & 0xffffffff is a zero-extension, its constant never loaded.
  (func $low_half (export "low_half") (param $v i64) (result i64)
    (i64.and (i64.const 0xffffffff) (local.get $v)))
  ;; Sixteen locals live across a call in a loop nest: those left without
  ;; a callee-saved register live in frame slots.  The loop after it makes
  ;; no call: each slot it reads is loaded once, where it is entered, into
  ;; a register held through it, and its write of $v0 writes both.
  ;; Returns n (16 n + 120) + n (n - 1) / 2 + n + 15.
  (func $loop_reads_frame (export "loop_reads_frame") (param $n i32) (result i32)
    (local $i i32) (local $j i32) (local $s i32) (local $v0 i32) (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32) (local $v5 i32) (local $v6 i32) (local $v7 i32) (local $v8 i32) (local $v9 i32) (local $v10 i32) (local $v11 i32) (local $v12 i32) (local $v13 i32) (local $v14 i32) (local $v15 i32)
    (local.set $v0 (i32.add (local.get $n) (i32.const 0)))
    (local.set $v1 (i32.add (local.get $n) (i32.const 1)))
    (local.set $v2 (i32.add (local.get $n) (i32.const 2)))
    (local.set $v3 (i32.add (local.get $n) (i32.const 3)))
    (local.set $v4 (i32.add (local.get $n) (i32.const 4)))
    (local.set $v5 (i32.add (local.get $n) (i32.const 5)))
    (local.set $v6 (i32.add (local.get $n) (i32.const 6)))
    (local.set $v7 (i32.add (local.get $n) (i32.const 7)))
    (local.set $v8 (i32.add (local.get $n) (i32.const 8)))
    (local.set $v9 (i32.add (local.get $n) (i32.const 9)))
    (local.set $v10 (i32.add (local.get $n) (i32.const 10)))
    (local.set $v11 (i32.add (local.get $n) (i32.const 11)))
    (local.set $v12 (i32.add (local.get $n) (i32.const 12)))
    (local.set $v13 (i32.add (local.get $n) (i32.const 13)))
    (local.set $v14 (i32.add (local.get $n) (i32.const 14)))
    (local.set $v15 (i32.add (local.get $n) (i32.const 15)))
    (loop $outer
      (local.set $j (i32.const 0))
      (loop $inner
        call $add_locals_marker
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $inner (i32.lt_u (local.get $j) (i32.const 2))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $i) (i32.const 2))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $s (i32.add (local.get $s) (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (i32.add (local.get $v0) (local.get $v1)) (local.get $v2)) (local.get $v3)) (local.get $v4)) (local.get $v5)) (local.get $v6)) (local.get $v7)) (local.get $v8)) (local.get $v9)) (local.get $v10)) (local.get $v11)) (local.get $v12)) (local.get $v13)) (local.get $v14)) (local.get $v15))))
      (local.set $v0 (i32.add (local.get $v0) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $sum (i32.lt_u (local.get $i) (local.get $n))))
    (i32.add (local.get $s) (local.get $v15)))
  ;; A leaf keeps its parameters where they arrive; once they are dead,
  ;; their registers home other locals.  Five locals live together above
  ;; an operand stack five deep leave two registers free above it: the
  ;; other three take parameters' registers, not callee-saved ones.
  (func $leaf_reuses_params (export "leaf_reuses_params") (param $p0 i32) (param $p1 i32) (param $p2 i32) (param $p3 i32) (param $p4 i32) (param $p5 i32) (param $p6 i32) (param $p7 i32) (result i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32) (local $e i32)
    (local.set $a (i32.add (local.get $p0) (local.get $p1)))
    (local.set $b (i32.add (local.get $p2) (local.get $p3)))
    (local.set $c (i32.add (local.get $p4) (local.get $p5)))
    (local.set $d (i32.add (local.get $p6) (local.get $p7)))
    (local.set $e (i32.mul (local.get $a) (local.get $b)))
    (i32.add (local.get $e)
      (i32.add (local.get $a) (i32.add (local.get $b) (i32.add (local.get $c) (local.get $d))))))
)
