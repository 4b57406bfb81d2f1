;; Exports a function, a memory, a mutable global and a table, to be
;; imported by link_user.wat (tests/unit/test_wasm_instance.c).
(module
  (memory (export "mem") 1 2)
  (global (export "g") (mut i32) (i32.const 5))
  (table (export "tab") 2 funcref)
  (func (export "twice") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0))))
