;; Imports provider.twice with the wrong type: unlinkable.
(module (import "provider" "twice" (func (param i64) (result i32))))
