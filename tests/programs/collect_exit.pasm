; collect_exit.pasm - spins n times (a loop the profiler can sample), then
; ends through the exit import with status 3: pulley-collect must record
; the run and pass the status on.  `pulley-collect -- collect_exit.pasm N`.

.import exit

.func main i64                  ; x0 = n
    xconst8 x1, 1
spin:
    br_if_not x0, done
    xsub64 x0, x0, x1
    jump spin
done:
    xconst8 x0, 3
    call_host exit
    trap unreachable
.end
