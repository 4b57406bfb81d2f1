;; Writes into the provider's memory, then its start function traps:
;; uninstantiable, and the write stays.
(module
  (import "provider" "mem" (memory 1))
  (data (i32.const 20) "\07")
  (func $start (unreachable))
  (start $start))
