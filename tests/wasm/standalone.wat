;; Everything a saved translation must carry to run on its own
;; (tests/wasm/pulley_run_wasm.sh: --emit-pasm, pulley-asm, pulley-run):
;; a start function that sets a global, a global with a non-zero initial
;; value, a table filled by an element segment with a null entry and
;; called through call_indirect, a data segment copied with memory.copy
;; (a bulk operation), the program's arguments from WASI, and an exit
;; status.  It prints "start=7 base=40 f=3 g=4"
;; and then each argument on its own line, and exits with the number of
;; arguments (the program name included).
(module
  (import "wasi_snapshot_preview1" "args_sizes_get"
    (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get"
    (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory 1)
  (global $started (mut i32) (i32.const 0))
  (global $base i32 (i32.const 40))
  (type $nullary (func (result i32)))
  (table 4 funcref)
  (elem (i32.const 1) func $three $four)
  (elem (i32.const 3) funcref (ref.null func))
  (data (i32.const 200) "start=? base=?? f=? g=?\n")
  (func $three (result i32) (i32.const 3))
  (func $four (result i32) (i32.const 4))
  (func $init (global.set $started (i32.const 7)))
  (start $init)
  ;; Write len bytes at p to stdout (iovec at 0, written count at 8).
  (func $write (param $p i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $digit (param $at i32) (param $v i32)
    (i32.store8 (local.get $at) (i32.add (i32.const 48) (local.get $v))))
  (func (export "_start")
    (local $i i32) (local $n i32) (local $s i32) (local $len i32)
    (memory.copy (i32.const 100) (i32.const 200) (i32.const 24))
    (call $digit (i32.const 106) (global.get $started))
    (call $digit (i32.const 113) (i32.div_u (global.get $base) (i32.const 10)))
    (call $digit (i32.const 114) (i32.rem_u (global.get $base) (i32.const 10)))
    (call $digit (i32.const 118) (call_indirect (type $nullary) (i32.const 1)))
    (call $digit (i32.const 122) (call_indirect (type $nullary) (i32.const 2)))
    (call $write (i32.const 100) (i32.const 24))
    ;; argc at 16, argv pointers at 512, strings at 1024
    (drop (call $args_sizes_get (i32.const 16) (i32.const 20)))
    (local.set $n (i32.load (i32.const 16)))
    (drop (call $args_get (i32.const 512) (i32.const 1024)))
    (local.set $i (i32.const 1))
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
        (call $write (i32.const 123) (i32.const 1))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $proc_exit (local.get $n))))
