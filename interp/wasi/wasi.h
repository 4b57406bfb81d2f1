/*
 * wasi.h - the WASI preview1 host ("wasi_snapshot_preview1"): what a
 * program built with wasi-libc needs to run on the VM, with stdin, stdout
 * and stderr passed through and the file system limited to the directories
 * the user granted.
 *
 * Translated Wasm code imports a WASI function as the host import
 * "wasi_snapshot_preview1.NAME".  Argument k of the Wasm signature arrives
 * in vm->x[k] (an i32 zero-extended); the errno result is written to
 * vm->x[0], in WASI's numbering (0 is success).  proc_exit stops the VM
 * with PVM_TRAP_EXIT and vm->exit_status set.  Guest pointers are offsets
 * into the VM heap; every pointer and length is checked against it, and a
 * bad one gives errno FAULT (21) without touching any other memory.
 *
 * Sandbox: guest paths are resolved only inside a granted directory (or a
 * directory opened from one), one component at a time with openat() and
 * O_NOFOLLOW.  Absolute paths, ".." above the directory, and symbolic
 * links that are absolute or lead above it are refused with errno PERM
 * (63).  See wasi_resolve.c for the exact guarantees.
 */
#ifndef PULLEY_WASI_H
#define PULLEY_WASI_H

#include <stddef.h>

#include "error.h"
#include "module.h"
#include "vm.h"

#define PVM_WASI_MODULE "wasi_snapshot_preview1"

typedef struct pvm_wasi pvm_wasi;

/* A WASI host for a program with arguments argv[0..argc) (argv[0] is the
 * program name the guest sees) and environment envp ("NAME=value" strings,
 * NULL-terminated; NULL: empty).  dirs[0..ndirs) are the granted
 * directories: "HOST" (the guest sees it under the same name) or
 * "HOST::GUEST"; they become guest fds 3, 4, ... in order.  Host fds 0, 1
 * and 2 become guest fds 0, 1 and 2 when they are open; they are never
 * closed by the host.  Returns NULL with err on failure (a directory that
 * cannot be opened, out of memory). */
pvm_wasi *pvm_wasi_new(int argc, char *const *argv, char *const *envp,
                       const char *const *dirs, size_t ndirs, pvm_error *err);
/* Close every file the guest left open and free w. */
void pvm_wasi_free(pvm_wasi *w);

/* Bind every import of vm's module named "wasi_snapshot_preview1.NAME"
 * that this host implements to w (which must outlive the VM's use of it).
 * Returns the number of imports bound; others stay unbound (see
 * pvm_wasi_unsupported_import). */
int pvm_wasi_bind(pvm_wasi *w, pvm_vm *vm);

/* The first import of m named "wasi_snapshot_preview1.NAME" that this host
 * does not implement (the whole import name), or NULL. */
const char *pvm_wasi_unsupported_import(const pvm_module *m);

/* Does the host implement "wasi_snapshot_preview1.NAME"? (NAME alone) */
int pvm_wasi_implements(const char *name);

#endif
