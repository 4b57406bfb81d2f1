;; Writes "hello\n" to stdout with WASI fd_write, then exits with status 7
;; (tests/wasm/pulley_run_wasm.sh).
(module
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hello\n")
  (func $start (export "_start")
    (i32.store (i32.const 0) (i32.const 16))  ;; iovec: base
    (i32.store (i32.const 4) (i32.const 6))   ;;        length
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 7)))
  (func $add (export "add") (param i64 f64) (result f64 i64)
    (f64.add (local.get 1) (f64.const 0.5)) (i64.add (local.get 0) (i64.const 1))))
