; asm_branches.pasm - branch operands: labels used before and after their
; definition, a label and an instruction on one line, signed byte offsets
; (+N / -N, counted from the start of the branching instruction), br_table
; mixing labels and offsets, trap kinds by name and by number.
;
; main sums pick(i) for i = 0 .. 9, where the jump table gives pick(0) = 0,
; pick(1) = 1 and pick(i) = 2 above (its last entry takes every larger
; index): 0 + 1 + 8 * 2 = 17.  Byte offsets of the loop, from `loop`:
;   +0 xlt64_s  +3 br_if_not  +9 br_table (18 bytes)  +27 zero  +32 one
;   +40 many  +46 next  +49 jump back  +54 done

.func main -> i64
    xconst8 x0, 0               ; x0 = sum
    xconst8 x1, 0               ; x1 = i
    xconst8 x2, 10
    xconst8 x4, 1
loop: xlt64_s x3, x1, x2
    br_if_not x3, +51           ; to done
    br_table x1, [zero, one, +31]   ; +31: to many
zero: jump next
one:  xadd64 x0, x0, x4
    jump next
many: xadd64 x0, x0, x4
    xadd64 x0, x0, x4
next: xadd64 x1, x1, x4
    jump -49                    ; to loop
done:
    ret
.end

.func traps i32
    br_if x0, by_number
    trap div_by_zero
by_number:
    trap 1                      ; unreachable, by its number
.end
