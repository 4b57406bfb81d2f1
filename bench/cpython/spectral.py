"""spectral.py - the largest singular value of an infinite matrix, by
power iteration on a finite corner of it: small functions called in tight
loops, integer and float arithmetic, lists built by comprehension.  A
workload of bench/quality/rediscover_cpython.sh."""
import sys


def entry(i, j):
    s = i + j
    return 1.0 / (s * (s + 1) // 2 + i + 1)


def times(v):
    n = len(v)
    return [sum(entry(i, j) * v[j] for j in range(n)) for i in range(n)]


def times_transposed(v):
    n = len(v)
    return [sum(entry(j, i) * v[j] for j in range(n)) for i in range(n)]


def norm(n, rounds):
    u = [1.0] * n
    v = u
    for _ in range(rounds):
        v = times_transposed(times(u))
        u = times_transposed(times(v))
    vbv = vv = 0.0
    for ue, ve in zip(u, v):
        vbv += ue * ve
        vv += ve * ve
    return (vbv / vv) ** 0.5


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 90
    print("%.9f" % norm(n, 5))
