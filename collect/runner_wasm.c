/*
 * runner_wasm.c - running .wasm programs: not available yet.  When the
 * Wasm translator (interp/wasm) and the WASI host (interp/wasi) expose
 * "translate a module" and "bind WASI to a VM", this becomes: translate,
 * collect_register_module, pvm_vm_new, bind WASI with p->args and
 * p->dirs, register the VM's slot, call _start, end the session with
 * "return", "exit" (proc_exit) or "trap: KIND" as collect_run_pulley does.
 */
#include <stdio.h>

#include "runner.h"

int collect_run_wasm(collect_session *s, const collect_program *p)
{
    fprintf(stderr,
            "%s: %s: .wasm programs need the Wasm translator and the WASI host, which this "
            "build of pulley-collect does not link yet\n",
            s->tool, p->path);
    session_finish(s, "not run: .wasm unsupported", 1);
    return 1;
}
