; loops.pasm - nested counting loops: the branch-heavy program.
;
;   loops(n) = sum of i * j for 0 <= i < n, 0 <= j < n = (n (n - 1) / 2)^2
;
; main computes loops(100) = 24502500.  `pulley-run --invoke loops
; loops.pasm 7000` prints 600078512250000 (49 million inner iterations,
; 0.3..0.6 s: the benchmark size).

.func main -> i64
    push_frame                  ; saves lr: main calls
    xconst8 x0, 100
    call loops
    pop_frame
    ret
.end

.func loops i64 -> i64          ; x0 = n
    xconst8 x1, 0               ; x1 = sum
    xconst8 x2, 0               ; x2 = i
    xconst8 x5, 1
outer:
    xlt64_s x4, x2, x0
    br_if_not x4, done
    xconst8 x3, 0               ; x3 = j
inner:
    xlt64_s x4, x3, x0
    br_if_not x4, next_i
    xmul64 x4, x2, x3
    xadd64 x1, x1, x4
    xadd64 x3, x3, x5
    jump inner
next_i:
    xadd64 x2, x2, x5
    jump outer
done:
    xmov x0, x1
    ret
.end
