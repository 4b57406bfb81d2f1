; dispatch_table.pasm - calls through a function table and a jump table.
;
; Four 64-bit (wrapping) operations, picked by the low two bits of i:
;
;   acc = 1;  for i = 1 .. n:  acc = op[i & 3](acc, i)
;   op[0] = add, op[1] = sub, op[2] = mul, op[3] = xor
;
; by_index(n) calls op[i & 3] with call_indirect through a table of four
; function references (func_ref) in its stack frame; by_table(n) dispatches
; with br_table to four inline cases.  Both compute the same value: main
; returns by_index(20) and by_table(20), both 27835.

.func op_add i64 i64 -> i64     ; function 0
    xadd64 x0, x0, x1
    ret
.end

.func op_sub i64 i64 -> i64     ; function 1
    xsub64 x0, x0, x1
    ret
.end

.func op_mul i64 i64 -> i64     ; function 2
    xmul64 x0, x0, x1
    ret
.end

.func op_xor i64 i64 -> i64     ; function 3
    xbxor64 x0, x0, x1
    ret
.end

.func by_index i64 -> i64       ; x0 = n
    push_frame
    xpush x16
    xpush x17
    xpush x18
    xpush x19
    xpush x20
    stack_alloc 32              ; the function table: four references
    xget_sp x20                 ; x20 = its address
    func_ref x1, op_add
    xstore64 x20, x1, 0
    func_ref x1, op_sub
    xstore64 x20, x1, 8
    func_ref x1, op_mul
    xstore64 x20, x1, 16
    func_ref x1, op_xor
    xstore64 x20, x1, 24
    xmov x16, x0                ; x16 = n
    xconst8 x17, 1              ; x17 = i
    xconst8 x18, 1              ; x18 = acc
    xconst8 x19, 3
loop:
    xle64_s x0, x17, x16
    br_if_not x0, done
    xband64 x2, x17, x19        ; the operation's index
    xadd64 x2, x2, x2
    xadd64 x2, x2, x2
    xadd64 x2, x2, x2           ; times 8
    xadd64 x2, x2, x20
    xload64 x2, x2, 0           ; its reference
    xmov x0, x18
    xmov x1, x17
    call_indirect x2
    xmov x18, x0
    xconst8 x0, 1
    xadd64 x17, x17, x0
    jump loop
done:
    xmov x0, x18
    stack_free 32
    xpop x20
    xpop x19
    xpop x18
    xpop x17
    xpop x16
    pop_frame
    ret
.end

.func by_table i64 -> i64       ; x0 = n
    xconst8 x1, 1               ; x1 = i
    xconst8 x2, 1               ; x2 = acc
    xconst8 x3, 3
    xconst8 x5, 1
loop:
    xle64_s x4, x1, x0
    br_if_not x4, done
    xband64 x4, x1, x3
    br_table x4, [case_add, case_sub, case_mul, case_xor]
case_add:
    xadd64 x2, x2, x1
    jump next
case_sub:
    xsub64 x2, x2, x1
    jump next
case_mul:
    xmul64 x2, x2, x1
    jump next
case_xor:
    xbxor64 x2, x2, x1
next:
    xadd64 x1, x1, x5
    jump loop
done:
    xmov x0, x2
    ret
.end

.func main -> i64 i64
    push_frame
    xpush x16
    xconst8 x0, 20
    call by_index
    xmov x16, x0
    xconst8 x0, 20
    call by_table
    xmov x1, x0
    xmov x0, x16
    xpop x16
    pop_frame
    ret
.end
