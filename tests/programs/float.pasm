; float.pasm - floating point: Newton's square root and the Leibniz series.
;
;   newton(a)  = Newton's iteration x' = (x + a / x) * 0.5 from x = a, until
;                x stops changing (at most 100 steps): about sqrt(a)
;   leibniz(n) = 4 * sum of (-1)^k / (2k + 1) for 0 <= k < n: about pi
;   table(n)   prints sqrt(1) .. sqrt(n) through the print_f64 import
;
; main returns newton(2) = 1.4142135623730949 (one ulp below sqrt(2): the
; iteration settles there), leibniz(1000) = 3.1405926538397941, and
; leibniz(1000) demoted to f32 = 3.14059258.
;
; `pulley-run --invoke leibniz float.pasm 30000000` prints 3.1415926202566329
; (0.4..0.6 s: the benchmark size; newton converges in a few steps whatever
; its argument, so it is no workload).

.import print_f64

.func main -> f64 f64 f32
    push_frame
    fconst64 f0, 2.0
    call newton
    fpush f0
    xconst16 x0, 1000
    call leibniz
    fmov f1, f0
    fpop f0
    f32_from_f64 f2, f1
    pop_frame
    ret
.end

.func newton f64 -> f64         ; f0 = a
    fmov f1, f0                 ; f1 = x
    fconst64 f2, 0.5
    xconst8 x0, 100             ; x0 = steps left
    xconst8 x2, -1
loop:
    fdiv64 f3, f0, f1
    fadd64 f3, f1, f3
    fmul64 f3, f3, f2           ; f3 = x'
    feq64 x1, f3, f1
    br_if x1, done
    fmov f1, f3
    xadd64 x0, x0, x2
    br_if x0, loop
done:
    fmov f0, f3
    ret
.end

.func leibniz i64 -> f64        ; x0 = n
    fconst64 f0, 0.0            ; f0 = sum
    fconst64 f1, 1.0            ; f1 = sign
    fconst64 f4, 2.0
    fconst64 f5, 1.0
    xconst8 x1, 0               ; x1 = k
    xconst8 x3, 1
loop:
    xlt64_s x2, x1, x0
    br_if_not x2, done
    f64_from_x64_s f2, x1
    fmul64 f2, f2, f4
    fadd64 f2, f2, f5           ; 2k + 1
    fdiv64 f2, f1, f2
    fadd64 f0, f0, f2
    fneg64 f1, f1
    xadd64 x1, x1, x3
    jump loop
done:
    fconst64 f2, 4.0
    fmul64 f0, f0, f2
    ret
.end

.func table i64                 ; x0 = n
    push_frame
    xpush x16
    xpush x17
    xmov x16, x0
    xconst8 x17, 1              ; x17 = k
loop:
    xle64_s x0, x17, x16
    br_if_not x0, done
    f64_from_x64_s f0, x17
    fsqrt64 f0, f0
    call_host print_f64
    xconst8 x0, 1
    xadd64 x17, x17, x0
    jump loop
done:
    xpop x17
    xpop x16
    pop_frame
    ret
.end
