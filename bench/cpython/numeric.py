"""numeric.py - numeric loops in pure Python: a prime sieve, a Mandelbrot
set and a matrix product, with local variables and integer and float
arithmetic.  A workload of bench/quality/rediscover_cpython.sh."""
import sys


def sieve(n):
    flags = [True] * (n + 1)
    flags[0] = flags[1] = False
    i = 2
    while i * i <= n:
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = False
        i += 1
    return sum(flags)


def mandel(size, limit):
    inside = 0
    for py in range(size):
        ci = 2.0 * py / size - 1.0
        for px in range(size):
            cr = 3.0 * px / size - 2.0
            zr = zi = 0.0
            k = 0
            while k < limit and zr * zr + zi * zi < 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            if k == limit:
                inside += 1
    return inside


def matmul(n):
    a = [[(i * j) % 7 for j in range(n)] for i in range(n)]
    b = [[(i + j) % 5 for j in range(n)] for i in range(n)]
    c = [[0] * n for _ in range(n)]
    for i in range(n):
        ai = a[i]
        ci = c[i]
        for k in range(n):
            aik = ai[k]
            bk = b[k]
            for j in range(n):
                ci[j] += aik * bk[j]
    return sum(map(sum, c))


if __name__ == "__main__":
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    print(sieve(200000 * scale), mandel(60 * scale, 50), matmul(40 * scale))
