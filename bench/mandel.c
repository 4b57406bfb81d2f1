/* mandel.c - single-precision floating point: escape-time Mandelbrot and
 * Julia sets computed in float, with int<->float conversions for the pixel
 * grid, an iteration histogram, and a float box blur over the result.
 *
 *   mandel [SIZE]   (default 640: a SIZE x SIZE image of each set) */
#include "bench_util.h"

#define MAX_ITER 96

static int escape(float zr, float zi, float cr, float ci)
{
    int n = 0;
    while (n < MAX_ITER) {
        float rr = zr * zr, ii = zi * zi;
        if (rr + ii > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = rr - ii + cr;
        n++;
    }
    return n;
}

/* Fill img with escape counts; julia selects z0 = pixel, c = fixed. */
static void render(unsigned char *img, int size, int julia)
{
    const float cx = -0.745f, cy = 0.113f; /* Julia parameter */
    float scale = 3.0f / (float)size;
    for (int y = 0; y < size; y++) {
        float im = (float)y * scale - 1.5f;
        for (int x = 0; x < size; x++) {
            float re = (float)x * scale - (julia ? 1.5f : 2.1f);
            int n = julia ? escape(re, im, cx, cy) : escape(0.0f, 0.0f, re, im);
            img[y * size + x] = (unsigned char)n;
        }
    }
}

/* A 3x3 box blur in float; returns the sum of the blurred image. */
static float blur(const unsigned char *img, float *out, int size)
{
    float total = 0.0f;
    for (int y = 1; y < size - 1; y++) {
        for (int x = 1; x < size - 1; x++) {
            int acc = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    acc += img[(y + dy) * size + x + dx];
            float v = (float)acc * (1.0f / 9.0f);
            out[y * size + x] = v;
            total += v * 0.001f;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    int size = bench_scale(argc, argv, 640);
    if (size < 3)
        size = 3;
    unsigned char *img = bench_alloc((size_t)size * size);
    float *smooth = bench_alloc((size_t)size * size * sizeof *smooth);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    for (int julia = 0; julia <= 1; julia++) {
        unsigned hist[MAX_ITER + 1] = { 0 };
        render(img, size, julia);
        for (int i = 0; i < size * size; i++)
            hist[img[i]]++;
        float total = blur(img, smooth, size);
        int inside = (int)hist[MAX_ITER];
        printf("%s: %d x %d, %d points inside, blurred sum %.4f\n",
               julia ? "julia" : "mandelbrot", size, size, inside, (double)total);
        sum = bench_mix_bytes(sum, img, (size_t)size * size);
        for (int i = 0; i <= MAX_ITER; i++)
            sum = bench_mix(sum, hist[i]);
        sum = bench_mix(sum, (uint64_t)(int64_t)(total * 16.0f));
        for (int y = 1; y < size - 1; y += 7)
            sum = bench_mix(sum, (uint64_t)(smooth[y * size + y] * 1000.0f));
    }
    free(img);
    free(smooth);
    bench_print_checksum(sum);
    return 0;
}
