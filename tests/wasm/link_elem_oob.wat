;; An element segment past the end of its table: uninstantiable.
(module (table 1 funcref) (func $f) (elem (i32.const 1) func $f))
