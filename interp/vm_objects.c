/*
 * vm_objects.c - the objects VMs may share: memories (a VM's heap), global
 * cells and tables of references.  Each is reference-counted; growth
 * either succeeds whole or changes nothing.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "vm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- memories ------------------------------------------------------------ */

static size_t page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

/* n rounded up to whole pages (n <= PVM_MAX_HEAP: no overflow). */
static size_t whole_pages(uint64_t n)
{
    size_t page = page_size();
    return (size_t)((n + page - 1) / page * page);
}

pvm_memory *pvm_memory_new(uint64_t size, uint64_t max, pvm_error *err)
{
    if (size > max || max > PVM_MAX_HEAP || max > SIZE_MAX / 2) {
        pvm_errorf(err, "memory limits %" PRIu64 "..%" PRIu64 " are not within 0..%" PRIu64,
                   size, max, PVM_MAX_HEAP);
        return NULL;
    }
    pvm_memory *mem = calloc(1, sizeof *mem);
    if (!mem) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    /* Reserve the whole range inaccessible, then open the first size
     * bytes; anonymous pages read as zero until written. */
    mem->reserved = whole_pages(max ? max : 1);
    void *base = mmap(NULL, mem->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
    if (base == MAP_FAILED) {
        pvm_errorf(err, "cannot reserve %" PRIu64 " bytes of address space for a heap: %s", max,
                   strerror(errno));
        free(mem);
        return NULL;
    }
    mem->bytes = base;
    if (size && mprotect(base, whole_pages(size), PROT_READ | PROT_WRITE) != 0) {
        pvm_errorf(err, "cannot make a heap of %" PRIu64 " bytes: %s", size, strerror(errno));
        munmap(base, mem->reserved);
        free(mem);
        return NULL;
    }
    mem->size = size;
    mem->max = mem->cap = max;
    mem->refs = 1;
    return mem;
}

pvm_memory *pvm_memory_retain(pvm_memory *mem)
{
    mem->refs++;
    return mem;
}

void pvm_memory_release(pvm_memory *mem)
{
    if (mem && --mem->refs == 0) {
        munmap(mem->bytes, mem->reserved);
        free(mem);
    }
}

uint64_t pvm_memory_grow(pvm_memory *mem, uint64_t bytes)
{
    uint64_t old = mem->size;
    if (bytes > mem->max - old)
        return UINT64_MAX;
    if (bytes == 0)
        return old;
    if (mem->cap < old || bytes > mem->cap - old) {
        if (old + bytes > mem->refused)
            mem->refused = old + bytes;
        return UINT64_MAX;
    }
    uint64_t size = old + bytes; /* at most max: inside the reservation */
    size_t from = whole_pages(old), to = whole_pages(size);
    if (to > from && mprotect(mem->bytes + from, to - from, PROT_READ | PROT_WRITE) != 0)
        return UINT64_MAX;
    mem->size = size;
    return old;
}

void pvm_memory_set_cap(pvm_memory *mem, uint64_t cap) { mem->cap = cap < mem->max ? cap : mem->max; }

/* ---- globals ------------------------------------------------------------- */

pvm_global *pvm_global_new(uint64_t value, pvm_error *err)
{
    pvm_global *g = malloc(sizeof *g);
    if (!g) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    *g = (pvm_global){.value = value, .refs = 1};
    return g;
}

pvm_global *pvm_global_retain(pvm_global *g)
{
    g->refs++;
    return g;
}

void pvm_global_release(pvm_global *g)
{
    if (g && --g->refs == 0)
        free(g);
}

/* ---- tables -------------------------------------------------------------- */

pvm_table *pvm_table_new(uint32_t size, uint32_t max, uint64_t init, pvm_error *err)
{
    if (size > max || size > PVM_MAX_TABLE_SIZE) {
        pvm_errorf(err, "table limits %" PRIu32 "..%" PRIu32 " exceed %" PRIu32 " entries",
                   size, max, PVM_MAX_TABLE_SIZE);
        return NULL;
    }
    pvm_table *t = calloc(1, sizeof *t);
    if (t && !(t->elems = malloc((size ? size : 1) * sizeof *t->elems))) {
        free(t);
        t = NULL;
    }
    if (!t) {
        pvm_errorf(err, "out of memory for a table of %" PRIu32 " entries", size);
        return NULL;
    }
    for (uint32_t i = 0; i < size; i++)
        t->elems[i] = init;
    t->size = size;
    t->max = max;
    t->refs = 1;
    return t;
}

pvm_table *pvm_table_retain(pvm_table *t)
{
    t->refs++;
    return t;
}

void pvm_table_release(pvm_table *t)
{
    if (t && --t->refs == 0) {
        free(t->elems);
        free(t);
    }
}

uint32_t pvm_table_grow(pvm_table *t, uint32_t n, uint64_t init)
{
    uint32_t old = t->size;
    uint32_t limit = t->max < PVM_MAX_TABLE_SIZE ? t->max : PVM_MAX_TABLE_SIZE;
    if (n > limit - old) /* old <= limit: tables never exceed it */
        return UINT32_MAX;
    if (n == 0)
        return old;
    uint64_t *grown = realloc(t->elems, ((size_t)old + n) * sizeof *grown);
    if (!grown)
        return UINT32_MAX;
    for (uint32_t i = old; i < old + n; i++)
        grown[i] = init;
    t->elems = grown;
    t->size = old + n;
    return old;
}
