/*
 * base/hash.h - FNV-1a, 64 bits (http://www.isthe.com/chongo/tech/comp/fnv/):
 * h = BASE_FNV1A64_INIT, then for each byte h = (h ^ byte) * BASE_FNV1A64_PRIME.
 * base_fnv1a64_step mixes one value (a byte, or a wider code some hashes
 * take whole); _bytes and _str continue from h, _str without the NUL.
 */
#ifndef PULLEY_BASE_HASH_H
#define PULLEY_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BASE_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
#define BASE_FNV1A64_PRIME UINT64_C(0x100000001b3)

static inline uint64_t base_fnv1a64_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * BASE_FNV1A64_PRIME;
}

static inline uint64_t base_fnv1a64_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = base_fnv1a64_step(h, p[i]);
    return h;
}

static inline uint64_t base_fnv1a64_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = base_fnv1a64_step(h, (unsigned char)*s);
    return h;
}

#endif
