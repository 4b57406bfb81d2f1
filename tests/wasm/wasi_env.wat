;; Prints its environment, one NAME=VALUE a line, with WASI environ_get
;; and fd_write; at most 64 variables and 32 KiB of strings.
;; (tests/e2e/collect_edges.sh and tests/wasm/pulley_run_wasm.sh: --env.)
(module
  (import "wasi_snapshot_preview1" "environ_sizes_get"
    (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get"
    (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 32) "\n")
  ;; Write len bytes at p to stdout (iovec at 0, written count at 8).
  (func $write (param $p i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $start (export "_start")
    (local $i i32) (local $n i32) (local $s i32) (local $len i32)
    ;; count at 16, string bytes at 20; pointers at 512, strings at 1024
    (drop (call $environ_sizes_get (i32.const 16) (i32.const 20)))
    (local.set $n (i32.load (i32.const 16)))
    (if (i32.gt_u (local.get $n) (i32.const 64)) (then (unreachable)))
    (if (i32.gt_u (i32.load (i32.const 20)) (i32.const 32768)) (then (unreachable)))
    (drop (call $environ_get (i32.const 512) (i32.const 1024)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (i32.const 512) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $len (i32.const 0))
        (block $end
          (loop $scan
            (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $s) (local.get $len)))))
            (local.set $len (i32.add (local.get $len) (i32.const 1)))
            (br $scan)))
        (call $write (local.get $s) (local.get $len))
        (call $write (i32.const 32) (i32.const 1))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))))
