; fib.pasm - naive recursive Fibonacci: the call-heavy program.
;
;   fib(n) = n                      for n < 2
;   fib(n) = fib(n - 1) + fib(n - 2) otherwise
;
; main computes fib(20) = 6765.  `pulley-run --invoke fib fib.pasm 34` prints
; 5702887 (about 18 million calls, 0.3..0.5 s: the benchmark size).
;
; Calling convention of these programs: arguments and results in x0, x1, ...;
; a function that calls saves lr and fp with push_frame and the registers it
; keeps across calls (x16 and up) with xpush / xpop.

.func main -> i64
    push_frame                  ; saves lr: main calls
    xconst8 x0, 20
    call fib
    pop_frame
    ret
.end

.func fib i64 -> i64
    xconst8 x1, 2
    xlt64_s x2, x0, x1          ; n < 2: fib(n) = n
    br_if x2, done
    push_frame
    xpush x16
    xpush x17
    xmov x16, x0                ; x16 = n
    xconst8 x1, -1
    xadd64 x0, x16, x1
    call fib                    ; fib(n - 1)
    xmov x17, x0
    xconst8 x1, -2
    xadd64 x0, x16, x1
    call fib                    ; fib(n - 2)
    xadd64 x0, x17, x0
    xpop x17
    xpop x16
    pop_frame
done:
    ret
.end
