; memory.pasm - heap work: .memory, .data, heap_grow, bcheck32, heap_base,
; byte loads and stores.  Every access is bounds-checked the way a Wasm heap
; access is: bcheck32 covers the static offset plus the access size.
;
;   sieve(n)        number of primes below n (sieve of Eratosthenes over a
;                   byte array at heap offset 16; the heap grows to fit it)
;   adler32(p, len) Adler-32 checksum of heap bytes p .. p + len - 1
;
; main returns sieve(1000) = 168 and adler32 of "Wikipedia" (the data at
; heap offset 0) = 300286872 (0x11E60398).  `pulley-run --invoke sieve
; memory.pasm 10000000` prints 664579 (a 10 MB heap, 0.4..0.6 s: the
; benchmark size).

.memory 65536 67108864
.data 0 "Wikipedia"

.func main -> i64 i64
    push_frame
    xpush x16
    xconst16 x0, 1000
    call sieve
    xmov x16, x0
    xconst8 x0, 0
    xconst8 x1, 9
    call adler32
    xmov x1, x0
    xmov x0, x16
    xpop x16
    pop_frame
    ret
.end

.func sieve i64 -> i64          ; x0 = n; flags[i] at heap offset 16 + i
    xconst8 x1, 16
    xadd64 x1, x0, x1           ; bytes needed: 16 + n
    heap_size x2
    xle64_u x3, x1, x2
    br_if x3, have_room
    xsub64 x3, x1, x2
    heap_grow x4, x3
    xconst8 x5, -1
    xeq64 x5, x4, x5
    br_if_not x5, have_room
    trap heap_oob               ; n is beyond the heap's maximum
have_room:
    heap_base x10
    xconst8 x7, 1
    xconst8 x8, 0
    xconst8 x2, 0               ; clear flags[0 .. n)
clear:
    xlt64_u x3, x2, x0
    br_if_not x3, cleared
    bcheck32 x2, 17
    xadd64 x4, x10, x2
    xstore8 x4, x8, 16
    xadd64 x2, x2, x7
    jump clear
cleared:
    xconst8 x2, 2               ; x2 = i
outer:
    xmul64 x3, x2, x2           ; x3 = j = i * i
    xlt64_u x4, x3, x0
    br_if_not x4, count
    bcheck32 x2, 17
    xadd64 x4, x10, x2
    xload8_u x5, x4, 16
    br_if x5, next_i            ; i is composite
cross_out:
    xlt64_u x4, x3, x0
    br_if_not x4, next_i
    bcheck32 x3, 17
    xadd64 x4, x10, x3
    xstore8 x4, x7, 16
    xadd64 x3, x3, x2
    jump cross_out
next_i:
    xadd64 x2, x2, x7
    jump outer
count:
    xconst8 x1, 0               ; x1 = primes
    xconst8 x2, 2
count_loop:
    xlt64_u x4, x2, x0
    br_if_not x4, done
    bcheck32 x2, 17
    xadd64 x4, x10, x2
    xload8_u x5, x4, 16
    xeqz64 x5, x5
    xadd64 x1, x1, x5
    xadd64 x2, x2, x7
    jump count_loop
done:
    xmov x0, x1
    ret
.end

.func adler32 i64 i64 -> i64    ; x0 = heap offset, x1 = length
    heap_base x10
    xconst8 x2, 1               ; x2 = a
    xconst8 x3, 0               ; x3 = b
    xconst32 x4, 65521
    xconst8 x7, 1
    xadd64 x5, x0, x1           ; x5 = end
loop:
    xlt64_u x6, x0, x5
    br_if_not x6, done
    bcheck32 x0, 1
    xadd64 x6, x10, x0
    xload8_u x6, x6, 0
    xadd64 x2, x2, x6
    xrem64_u x2, x2, x4
    xadd64 x3, x3, x2
    xrem64_u x3, x3, x4
    xadd64 x0, x0, x7
    jump loop
done:
    xconst8 x6, 16
    xshl64 x3, x3, x6
    xbor64 x0, x3, x2
    ret
.end
