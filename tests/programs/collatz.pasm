; collatz.pasm - printing and exiting through host imports.
;
;   collatz(n) prints n and then each step of the Collatz sequence (n / 2
;   for even n, 3n + 1 for odd n) down to 1, one number per line with
;   print_i64, and returns the number of steps.
;
; main runs collatz(6), printing 6 3 10 5 16 8 4 2 1 (one per line), and
; ends the program through the exit import with the number of steps, 8, as
; the exit status.  `--invoke collatz collatz.pasm 27` prints 112 numbers
; and then 111, the steps.

.import print_i64
.import exit

.func main
    xconst8 x0, 6
    call collatz
    call_host exit              ; never returns: main needs no frame
    trap unreachable
.end

.func collatz i64 -> i64        ; x0 = n >= 1
    push_frame
    xpush x16
    xpush x17
    xmov x16, x0                ; x16 = n
    xconst8 x17, 0              ; x17 = steps
    xconst8 x1, 1
loop:
    xmov x0, x16
    call_host print_i64
    xeq64 x2, x16, x1
    br_if x2, done
    xband64 x2, x16, x1
    br_if x2, odd
    xshr64_u x16, x16, x1
    jump next
odd:
    xconst8 x2, 3
    xmul64 x16, x16, x2
    xadd64 x16, x16, x1
next:
    xadd64 x17, x17, x1
    jump loop
done:
    xmov x0, x17
    xpop x17
    xpop x16
    pop_frame
    ret
.end
