;; Grows its memory by 65534 pages (to almost 4 GiB), writes a byte in the
;; last page and reads it back: exits 0 when that worked, 1 when the grow
;; was refused.  The VM commits memory as it is touched, so this costs two
;; pages, not 4 GiB (tests/wasm/pulley_run_wasm.sh: --max-memory and the
;; peak memory).
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (func $start (export "_start")
    (if (i32.eq (memory.grow (i32.const 65534)) (i32.const -1))
      (then (call $exit (i32.const 1))))
    (i32.store8 (i32.const 0xfffeffff) (i32.const 42))
    (call $exit (i32.ne (i32.load8_u (i32.const 0xfffeffff)) (i32.const 42)))))
