; asm_floats.pasm - float immediates: decimals, -0, infinities, the
; smallest denormals, NaN (by name, and with a payload as raw bits 0x...);
; and .noentry: the module has no entry function even though main exists
; (run it with --invoke main).
;
; main returns f0 = 1.5, f1 = -0, f2 = -inf, f3 = 1e-45 (f32),
; f4 = 4.9406564584124654e-324 (f64), f5 = 0.1 (f64).

.noentry

.func main -> f64 f32 f64 f32 f64 f64
    fconst64 f0, 1.5
    fconst32 f1, -0
    fconst64 f2, -inf
    fconst32 f3, 1e-45
    fconst64 f4, 4.9406564584124654e-324
    fconst64 f5, 0.1
    fconst32 f6, nan
    fconst64 f7, 0x7ff8000000000001     ; a quiet NaN with payload 1
    fconst32 f8, 0x7fa00000             ; a signalling NaN
    fconst64 f9, +inf
    fconst32 f10, 3.40282347e+38        ; the largest f32
    ret
.end
