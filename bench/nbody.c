/* nbody.c - double-precision floating point: a gravitational N-body
 * simulation (a heavy central mass and a disc of pseudo-random bodies),
 * advanced with a symplectic Euler step and a softened force; prints the
 * total energy before and after.  Uses only + - * / and sqrt, which are
 * correctly rounded everywhere, so native and wasm agree to the bit.
 *
 *   nbody [STEPS]   (default 48000 steps of 24 bodies) */
#include <math.h>

#include "bench_util.h"

#define NBODIES 24
#define SOFTENING 1e-3

struct body {
    double x, y, z;
    double vx, vy, vz;
    double mass;
};

static void init_bodies(struct body *b, int n)
{
    bench_rng rng = bench_rng_seed(0x5eed0b0d1e5ULL);
    b[0] = (struct body){ 0, 0, 0, 0, 0, 0, 1000.0 };
    for (int i = 1; i < n; i++) {
        double r = 1.0 + 9.0 * bench_rng_unit(&rng);
        /* a point on a square "orbit" shape keeps us away from sin/cos */
        double u = 2.0 * bench_rng_unit(&rng) - 1.0;
        double v = (bench_rng_u32(&rng) & 1) ? sqrt(1.0 - u * u) : -sqrt(1.0 - u * u);
        double speed = sqrt(b[0].mass / r);
        b[i].x = r * u;
        b[i].y = r * v;
        b[i].z = 0.05 * (bench_rng_unit(&rng) - 0.5);
        b[i].vx = -speed * v;
        b[i].vy = speed * u;
        b[i].vz = 0.01 * (bench_rng_unit(&rng) - 0.5);
        b[i].mass = 0.01 + 0.1 * bench_rng_unit(&rng);
    }
    /* move to the centre-of-momentum frame */
    double px = 0, py = 0, pz = 0, m = 0;
    for (int i = 0; i < n; i++) {
        px += b[i].vx * b[i].mass;
        py += b[i].vy * b[i].mass;
        pz += b[i].vz * b[i].mass;
        m += b[i].mass;
    }
    for (int i = 0; i < n; i++) {
        b[i].vx -= px / m;
        b[i].vy -= py / m;
        b[i].vz -= pz / m;
    }
}

static double energy(const struct body *b, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        e += 0.5 * b[i].mass * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
        for (int j = i + 1; j < n; j++) {
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            e -= b[i].mass * b[j].mass / sqrt(dx * dx + dy * dy + dz * dz + SOFTENING);
        }
    }
    return e;
}

static void advance(struct body *b, int n, double dt)
{
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            double d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            double mag = dt / (d2 * sqrt(d2));
            double mi = b[i].mass * mag, mj = b[j].mass * mag;
            b[i].vx -= dx * mj;
            b[i].vy -= dy * mj;
            b[i].vz -= dz * mj;
            b[j].vx += dx * mi;
            b[j].vy += dy * mi;
            b[j].vz += dz * mi;
        }
    }
    for (int i = 0; i < n; i++) {
        b[i].x += dt * b[i].vx;
        b[i].y += dt * b[i].vy;
        b[i].z += dt * b[i].vz;
    }
}

int main(int argc, char **argv)
{
    int steps = bench_scale(argc, argv, 48000);
    static struct body bodies[NBODIES];
    init_bodies(bodies, NBODIES);
    double e0 = energy(bodies, NBODIES);
    for (int s = 0; s < steps; s++)
        advance(bodies, NBODIES, 1e-4);
    double e1 = energy(bodies, NBODIES);

    uint64_t sum = BENCH_CHECKSUM_INIT;
    for (int i = 0; i < NBODIES; i++) {
        sum = bench_mix_double(sum, bodies[i].x);
        sum = bench_mix_double(sum, bodies[i].y);
        sum = bench_mix_double(sum, bodies[i].z);
        sum = bench_mix_double(sum, bodies[i].vx);
    }
    printf("nbody: %d bodies, %d steps\n", NBODIES, steps);
    printf("energy before %.12f after %.12f\n", e0, e1);
    bench_print_checksum(sum);
    return 0;
}
