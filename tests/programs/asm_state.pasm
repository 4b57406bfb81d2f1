; asm_state.pasm - the directives of a module's initial state beyond code
; and data (interp/asm.h): a global's initial value, a table's size and
; maximum, an element segment with functions by name, by index and null,
; the start function, and the heap register.
;
; The start function adds 1 to global #0 (initially 41); the entry calls
; table entry 2 (the function at index #1, "forty") through call_indirect
; and returns global #0, that result, and x1, given the heap's data-space
; address by the VM (the stack size, 1 MiB by default).

.globals 2
.tables 1
.memory 16 16
.global #0 41
.global #1 0xffffffffffffffff
.table #0 4 8
.elem #0 1 null #1 start
.start start
.heap_base x1

.func main -> i64 i64 i64
    push_frame
    xconst8 x0, 2
    table_get x2, x0, #0
    call_indirect x2
    xmov x3, x0
    xglobal_get x0, #0
    xmov x2, x1
    xmov x1, x3
    pop_frame
    ret
.end

.func forty -> i64
    xconst8 x0, 40
    ret
.end

.func start
    xglobal_get x2, #0
    xconst8 x3, 1
    xadd64 x2, x2, x3
    xglobal_set x2, #0
    ret
.end
