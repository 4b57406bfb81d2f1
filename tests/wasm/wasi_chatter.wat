;; Writes "chatter\n" to stdout with WASI fd_write 1000000 times and returns;
;; when a write fails, exits at once with the WASI errno it got as its
;; status (64, EPIPE, once the reader of a pipe has gone: `| head -1`).
;; tests/e2e/collect_edges.sh profiles it through a closed pipe.
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "chatter\n")
  (func $start (export "_start")
    (local $i i32) (local $errno i32)
    (i32.store (i32.const 0) (i32.const 16))  ;; iovec: base
    (i32.store (i32.const 4) (i32.const 8))   ;;        length
    (loop $again
      (local.set $errno
        (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (if (local.get $errno) (then (call $exit (local.get $errno))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $again (i32.lt_u (local.get $i) (i32.const 1000000))))))
