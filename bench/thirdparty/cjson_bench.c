/* cJSON benchmark driver: build a big JSON document deterministically, print it,
 * parse it back repeatedly, walk the tree and print checksums. */
#include "cJSON.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NOBJ
#define NOBJ 1500
#endif
#ifndef NPARSE
#define NPARSE 20
#endif

static unsigned rng = 2463534242u;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static unsigned fnv(const char *s, unsigned h)
{
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

static const char *names[] = {"alpha",  "beta",          "gamma",   "delta",   "epsilon",
                              "zeta",   "eta",           "theta",   "iota",    "kappa",
                              "lambda", "mu \"quoted\"", "nu\\tab", "xi\u00e9"};

static cJSON *build(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "generator", "jbench");
    cJSON_AddNumberToObject(root, "version", 3);
    cJSON *items = cJSON_AddArrayToObject(root, "items");
    for (int i = 0; i < NOBJ; i++) {
        cJSON *o = cJSON_CreateObject();
        unsigned r = next_rand();
        char buf[64];
        cJSON_AddNumberToObject(o, "id", i);
        snprintf(buf, sizeof buf, "%s-%u", names[r % 14], r % 1000);
        cJSON_AddStringToObject(o, "name", buf);
        cJSON_AddNumberToObject(o, "value", (double)(int)(r % 2000000) / 1000.0 - 1000.0);
        cJSON_AddNumberToObject(o, "ratio", (double)(r % 65536) / 65536.0);
        cJSON_AddBoolToObject(o, "flag", (r >> 7) & 1);
        if (r % 11 == 0)
            cJSON_AddNullToObject(o, "missing");
        int tags[8];
        int nt = 1 + (int)(next_rand() % 8);
        for (int t = 0; t < nt; t++)
            tags[t] = (int)(next_rand() % 500);
        cJSON_AddItemToObject(o, "tags", cJSON_CreateIntArray(tags, nt));
        cJSON *nested = cJSON_AddObjectToObject(o, "pos");
        cJSON_AddNumberToObject(nested, "x", (int)(next_rand() % 10000) - 5000);
        cJSON_AddNumberToObject(nested, "y", (int)(next_rand() % 10000) - 5000);
        cJSON_AddItemToArray(items, o);
    }
    return root;
}

/* order-preserving walk: hash of structure, keys, strings, numbers */
static unsigned walk(const cJSON *it, unsigned h, double *sum, int *count)
{
    for (; it; it = it->next) {
        (*count)++;
        if (it->string)
            h = fnv(it->string, h);
        h = h * 31u + (unsigned)(it->type & 0xff);
        if (cJSON_IsNumber(it)) {
            *sum += it->valuedouble;
            h = h * 31u + (unsigned)it->valueint;
        } else if (cJSON_IsString(it))
            h = fnv(it->valuestring, h);
        if (it->child)
            h = walk(it->child, h, sum, count);
    }
    return h;
}

int main(void)
{
    cJSON *doc = build();
    char *text = cJSON_Print(doc); /* formatted */
    char *compact = cJSON_PrintUnformatted(doc);
    if (!doc || !text || !compact) {
        fputs("cjson_bench: out of memory\n", stderr);
        return 1;
    }
    size_t tlen = strlen(text), clen = strlen(compact);
    fputs(compact, stdout);
    putchar('\n');
    printf("formatted length %lu, compact length %lu, fnv(formatted) %08x\n", (unsigned long)tlen,
           (unsigned long)clen, fnv(text, 2166136261u));
    unsigned total = 0;
    for (int p = 0; p < NPARSE; p++) {
        cJSON *back = cJSON_Parse((p & 1) ? compact : text);
        if (!back) {
            printf("parse failed at pass %d\n", p);
            return 1;
        }
        double sum = 0;
        int count = 0;
        unsigned h = walk(back, 2166136261u, &sum, &count);
        char *again = cJSON_PrintUnformatted(back);
        if (!again) {
            fputs("cjson_bench: out of memory\n", stderr);
            return 1;
        }
        int same = strcmp(again, compact) == 0;
        if (!same) {
            printf("re-print mismatch at pass %d\n", p);
            return 1;
        }
        if (p == 0 || p == NPARSE - 1)
            printf("pass %d: nodes %d sum %.6f hash %08x reprint-equal %d\n", p, count, sum, h,
                   same);
        total = total * 1000003u + h + (unsigned)count;
        cJSON_free(again);
        cJSON_Delete(back);
    }
    printf("checksum %08x\n", total);
    cJSON_free(text);
    cJSON_free(compact);
    cJSON_Delete(doc);
    return 0;
}
