; trap_div.pasm - a program that traps: a percentage of nothing.
;
;   percent(part, whole) = part * 100 / whole      (signed 64-bit)
;
; main asks for percent(7, 0): the xdiv64_s at offset 7 of function percent
; traps with div_by_zero, and pulley-run reports
;   pulley-run: trap: integer divide by zero (div_by_zero) in function percent at offset 7
; and exits with status 2.  `--invoke percent trap_div.pasm 7 20` prints 35.

.func main -> i64
    push_frame
    xconst8 x0, 7
    xconst8 x1, 0
    call percent
    pop_frame
    ret
.end

.func percent i64 i64 -> i64
    xconst8 x2, 100
    xmul64 x0, x0, x2
    xdiv64_s x0, x0, x1         ; offset 7
    ret
.end
