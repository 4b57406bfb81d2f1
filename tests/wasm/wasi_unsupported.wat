;; Imports a WASI function the host does not have: named at load time.
(module
  (import "wasi_snapshot_preview1" "no_such_call" (func (param i32)))
  (func (export "_start")))
