;; ping(n) calls host.reenter(n - 1), which the test binds to a host
;; function calling ping again: a call chain through the host, deep enough
;; to exhaust the nesting the store allows (a trap, not a host crash).
(module
  (import "host" "reenter" (func $reenter (param i32) (result i32)))
  (func (export "ping") (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $reenter (i32.sub (local.get 0) (i32.const 1))))))))
