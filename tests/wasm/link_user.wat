;; Imports everything link_provider.wat exports (registered as "provider").
(module
  (import "provider" "twice" (func $twice (param i32) (result i32)))
  (import "provider" "mem" (memory 1))
  (import "provider" "g" (global $g (mut i32)))
  (import "provider" "tab" (table 2 funcref))
  (data (i32.const 10) "\63")
  (func (export "run") (param i32) (result i32)
    (global.set $g (i32.add (global.get $g) (i32.const 1)))
    (i32.add (call $twice (local.get 0)) (global.get $g)))
  (func (export "twice_again") (param i32) (result i32) (call $twice (local.get 0))))
