;; Spins for N rounds of a small loop (N: the first program argument, in
;; decimal; 1000 without one), writes "spun\n" with WASI fd_write, then
;; exits with status 3 (tests/e2e/collect_wasm.sh profiles it).
(module
  (import "wasi_snapshot_preview1" "args_sizes_get"
    (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get"
    (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "spun\n")
  ;; argv[1] as a decimal number, or 1000 (argument strings at 1024,
  ;; argv pointers at 512, at most 64 arguments and 32 KiB of strings).
  (func $rounds (result i32)
    (local $p i32) (local $n i32) (local $c i32)
    (if (call $args_sizes_get (i32.const 64) (i32.const 68)) (then (return (i32.const 1000))))
    (if (i32.lt_u (i32.load (i32.const 64)) (i32.const 2)) (then (return (i32.const 1000))))
    (if (i32.gt_u (i32.load (i32.const 64)) (i32.const 64)) (then (return (i32.const 1000))))
    (if (i32.gt_u (i32.load (i32.const 68)) (i32.const 32768)) (then (return (i32.const 1000))))
    (if (call $args_get (i32.const 512) (i32.const 1024)) (then (return (i32.const 1000))))
    (local.set $p (i32.load (i32.const 516)))
    (block $end
      (loop $digits
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $end (i32.lt_u (local.get $c) (i32.const 48)))
        (br_if $end (i32.gt_u (local.get $c) (i32.const 57)))
        (local.set $n (i32.add (i32.mul (local.get $n) (i32.const 10))
                               (i32.sub (local.get $c) (i32.const 48))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $digits)))
    (local.get $n))
  ;; A little arithmetic per round, so the loop is worth sampling.
  (func $spin (param $n i32) (result i32)
    (local $acc i32)
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $acc (i32.add (i32.mul (local.get $acc) (i32.const 31))
                                 (i32.xor (local.get $n) (i32.const 0x5bd1e995))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (local.get $acc))
  (func $start (export "_start")
    (drop (call $spin (call $rounds)))
    (i32.store (i32.const 0) (i32.const 16))  ;; iovec: base
    (i32.store (i32.const 4) (i32.const 5))   ;;        length
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 3))))
