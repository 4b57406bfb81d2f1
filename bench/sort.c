/* sort.c - sorting: quicksort (median of three, insertion sort for short
 * ranges, recursion on the smaller side), heapsort and a stable top-down
 * merge sort of records through a comparison function pointer, on the same
 * pseudo-random data; each result is checked for order (and stability).
 *
 *   sort [ROUNDS]   (default 3 rounds of 100K ints and 50K records) */
#include "bench_util.h"

static void insertion_sort(int32_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int32_t v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static void swap(int32_t *a, int32_t *b)
{
    int32_t t = *a;
    *a = *b;
    *b = t;
}

static void quicksort(int32_t *a, int n)
{
    while (n > 16) {
        int mid = n / 2;
        if (a[mid] < a[0])
            swap(&a[mid], &a[0]);
        if (a[n - 1] < a[0])
            swap(&a[n - 1], &a[0]);
        if (a[n - 1] < a[mid])
            swap(&a[n - 1], &a[mid]);
        int32_t pivot = a[mid];
        int i = 0, j = n - 1;
        for (;;) { /* Hoare partition */
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i >= j)
                break;
            swap(&a[i], &a[j]);
            i++;
            j--;
        }
        int left = j + 1; /* a[0..j] <= pivot <= a[j+1..n) */
        if (left < n - left) {
            quicksort(a, left);
            a += left;
            n -= left;
        } else {
            quicksort(a + left, n - left);
            n = left;
        }
    }
    insertion_sort(a, n);
}

static void sift_down(int32_t *a, int root, int n)
{
    int32_t v = a[root];
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            break;
        if (child + 1 < n && a[child + 1] > a[child])
            child++;
        if (a[child] <= v)
            break;
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}

static void heapsort(int32_t *a, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n);
    for (int end = n - 1; end > 0; end--) {
        swap(&a[0], &a[end]);
        sift_down(a, 0, end);
    }
}

struct record {
    uint16_t key;   /* few distinct keys: many ties, so stability matters */
    uint32_t seq;   /* original position */
    uint32_t payload;
};

typedef int (*compare_fn)(const struct record *, const struct record *);

static int by_key(const struct record *a, const struct record *b)
{
    return (a->key > b->key) - (a->key < b->key);
}

static void merge_sort(struct record *a, struct record *tmp, int n, compare_fn cmp)
{
    if (n < 2)
        return;
    int h = n / 2;
    merge_sort(a, tmp, h, cmp);
    merge_sort(a + h, tmp, n - h, cmp);
    if (cmp(&a[h - 1], &a[h]) <= 0)
        return; /* already in order */
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    memcpy(a, tmp, (size_t)k * sizeof *a); /* the rest of a[j..n) is in place */
}

static void check_sorted(const int32_t *a, int n, const char *what)
{
    for (int i = 1; i < n; i++) {
        if (a[i - 1] > a[i]) {
            fprintf(stderr, "%s: out of order at %d\n", what, i);
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 3);
    enum { N = 100000, R = 50000 };
    int32_t *orig = bench_alloc(N * sizeof *orig);
    int32_t *a = bench_alloc(N * sizeof *a);
    int32_t *b = bench_alloc(N * sizeof *b);
    struct record *rec = bench_alloc(R * sizeof *rec);
    struct record *tmp = bench_alloc(R * sizeof *tmp);
    bench_rng rng = bench_rng_seed(0x5027);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < N; i++) /* some rounds have many duplicates */
            orig[i] = (int32_t)(r % 2 ? bench_rng_u32(&rng) : bench_rng_below(&rng, 1000));
        memcpy(a, orig, N * sizeof *a);
        memcpy(b, orig, N * sizeof *b);
        quicksort(a, N);
        heapsort(b, N);
        check_sorted(a, N, "quicksort");
        if (memcmp(a, b, N * sizeof *a) != 0) {
            fprintf(stderr, "quicksort and heapsort disagree\n");
            return 1;
        }
        for (int i = 0; i < R; i++)
            rec[i] = (struct record){ (uint16_t)bench_rng_below(&rng, 256), (uint32_t)i, bench_rng_u32(&rng) };
        merge_sort(rec, tmp, R, by_key);
        uint64_t rh = 0;
        for (int i = 0; i < R; i++) {
            if (i && (rec[i - 1].key > rec[i].key ||
                      (rec[i - 1].key == rec[i].key && rec[i - 1].seq > rec[i].seq))) {
                fprintf(stderr, "merge sort: not stable at %d\n", i);
                return 1;
            }
            rh = rh * 31 + rec[i].payload;
        }
        for (int i = 0; i < N; i += 97)
            sum = bench_mix(sum, (uint32_t)a[i]);
        sum = bench_mix(sum, rh);
    }
    printf("sort: %d rounds of %d ints and %d records; min %d max %d median %d\n",
           rounds, N, R, (int)a[0], (int)a[N - 1], (int)a[N / 2]);
    free(orig);
    free(a);
    free(b);
    free(rec);
    free(tmp);
    bench_print_checksum(sum);
    return 0;
}
