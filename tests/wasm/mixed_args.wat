;; Parameters and results of both register classes: argument and result k
;; travel in register k of their class (x[k] or f[k]), whether pulley-run
;; calls the .wasm or the .pasm of its translation (--emit-pasm;
;; tests/wasm/pulley_run_wasm.sh).
(module
  ;; a * 100 + c + b: (1, 2.5, 3) gives 105.5
  (func $mix (export "mix") (param i32 f64 i32) (result f64)
    (f64.add
      (f64.convert_i32_s (i32.add (i32.mul (local.get 0) (i32.const 100)) (local.get 2)))
      (local.get 1)))
  ;; (a + 1, b * 2, c + 1)
  (func $spread (export "spread") (param i32 f64 i32) (result i32 f64 i32)
    (i32.add (local.get 0) (i32.const 1))
    (f64.mul (local.get 1) (f64.const 2))
    (i32.add (local.get 2) (i32.const 1))))
