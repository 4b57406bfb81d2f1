;; _start divides by zero in function "divide" (tests/wasm/pulley_run_wasm.sh).
(module
  (memory (export "memory") 1)
  (func $divide (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0)))
  (func $start (export "_start") (drop (call $divide (i32.const 0)))))
