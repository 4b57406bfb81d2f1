"""recursion.py - recursion: Fibonacci, the N-queens count, permutations
and a memoised partition count.  A workload of
bench/quality/rediscover_cpython.sh."""
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def queens(n, row=0, cols=0, d1=0, d2=0):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if not (cols >> c & 1 or d1 >> (row + c) & 1 or d2 >> (row - c + n) & 1):
            count += queens(n, row + 1, cols | 1 << c, d1 | 1 << (row + c), d2 | 1 << (row - c + n))
    return count


def permutations(items):
    if len(items) <= 1:
        return [items]
    out = []
    for i in range(len(items)):
        for rest in permutations(items[:i] + items[i + 1:]):
            out.append([items[i]] + rest)
    return out


def partitions(n, k, memo):
    if n == 0:
        return 1
    if n < 0 or k == 0:
        return 0
    key = (n, k)
    if key not in memo:
        memo[key] = partitions(n - k, k, memo) + partitions(n, k - 1, memo)
    return memo[key]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 22
    print(fib(n), queens(7), len(permutations(list(range(7)))), partitions(120, 120, {}))
