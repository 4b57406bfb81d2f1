;; Imports host.add twice with different types: one extern cannot match
;; both, so the module is unlinkable (tests/unit/test_wasm_instance.c).
(module
  (import "host" "add" (func (param i32 i32) (result i32)))
  (import "host" "add" (func (param i64 i64) (result i64))))
