; asm_directives.pasm - every module directive of the assembler (the syntax
; is in interp/asm.h): .entry naming a function whose name needs quotes,
; .memory with both limits, .import (names bare or quoted), .data with
; escapes and with several strings making one segment; function types;
; calls by name, by index (#N) and before the function is defined.
;
; The entry returns x0 = helper(21, 2) = 42 and x1 = 1, the byte at heap
; offset 1024 (the first byte of the second data segment).

.entry "the entry"
.memory 65536 131072
.import print_i64
.import "print_char"                 ; quotes are allowed on any name
.data 0 "Hello\t\"pulley\"\n\x00"
.data 1024 "\x01\x02" "\x03\x04"   ; two strings, one segment
.data 65536 ""                     ; empty, at the very end of the heap

.func helper i64 i64 -> i64
    xmul64 x0, x0, x1
    ret
.end

.func "the entry" -> i64 i64
    push_frame
    xconst8 x0, 21
    xconst8 x1, 2
    call helper
    heap_base x2
    xload8_u x1, x2, 1024
    pop_frame
    ret
.end

.func unused f32 f64 i32 i64 -> f64 f32
    call_host print_i64
    call_host "print_char"
    call_host #0
    call #0
    call defined_later
    ret
.end

.func defined_later
    ret
.end
