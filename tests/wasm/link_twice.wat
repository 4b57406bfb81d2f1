;; Imports host.add twice, with host.sub between: one extern under two
;; function indices.  The translation has one host import per module and
;; name, the bulk operation's (memory.fill) after them; called directly,
;; through the table and re-exported (tests/unit/test_translate.c,
;; test_wasm_instance.c; link_twice_user.wat imports the re-export).
(module
  (import "host" "add" (func $add (param i32 i32) (result i32)))
  (import "host" "sub" (func $sub (param i32 i32) (result i32)))
  (import "host" "add" (func $add_again (param i32 i32) (result i32)))
  (memory 1)
  (table 3 funcref)
  (elem (i32.const 0) $add $sub $add_again)
  ;; add(a, b) * 100 + sub(a, b) * 10 + add_again(a, b)
  (func $direct (export "direct") (param i32 i32) (result i32)
    (i32.add
      (i32.add (i32.mul (call $add (local.get 0) (local.get 1)) (i32.const 100))
               (i32.mul (call $sub (local.get 0) (local.get 1)) (i32.const 10)))
      (call $add_again (local.get 0) (local.get 1))))
  (func $indirect (export "indirect") (param i32 i32 i32) (result i32)
    (call_indirect (param i32 i32) (result i32) (local.get 1) (local.get 2) (local.get 0)))
  (func $fill (export "fill") (param i32) (result i32)
    (memory.fill (i32.const 0) (local.get 0) (i32.const 4))
    (i32.load8_u (i32.const 3)))
  (export "add_again" (func $add_again)))
