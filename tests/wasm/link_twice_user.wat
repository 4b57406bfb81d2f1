;; Imports the function link_twice.wat re-exports (an import of its own,
;; registered as "twice"; tests/unit/test_wasm_instance.c).
(module
  (import "twice" "add_again" (func $add (param i32 i32) (result i32)))
  (func (export "run") (param i32 i32) (result i32) (call $add (local.get 0) (local.get 1))))
