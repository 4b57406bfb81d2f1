; hello.pasm - prints "Hello, world!" a byte at a time with print_char,
; reading the text from the heap up to its terminating zero byte, then ends
; through the exit import with status 0.

.memory 4096
.import print_char
.import exit
.data 0 "Hello, world!\n\x00"

.func main
    heap_base x16
    xconst8 x17, 0              ; x17 = heap offset of the next byte
    xconst8 x18, 1
loop:
    bcheck32 x17, 1
    xadd64 x1, x16, x17
    xload8_u x0, x1, 0
    br_if_not x0, done
    call_host print_char
    xadd64 x17, x17, x18
    jump loop
done:
    xconst8 x0, 0
    call_host exit
    trap unreachable
.end
