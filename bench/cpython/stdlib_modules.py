"""stdlib_modules.py MODULE - exercise one pure-Python standard-library
module on generated input: tomllib, difflib, textwrap, fractions or
statistics.  A workload of bench/quality/rediscover_cpython.sh."""
import sys


def run_tomllib():
    import tomllib
    doc = "\n".join(
        '[server%d]\nhost = "10.0.%d.%d"\nports = [%d, %d, %d]\nenabled = %s\nweight = %d.5\n'
        'tags = { env = "prod", zone = "z%d" }\n' % (i, i % 256, i // 256, i, i + 1, i + 2,
                                                    "true" if i % 2 else "false", i, i % 7)
        for i in range(300))
    total = 0
    for _ in range(4):
        total += sum(len(v["ports"]) for v in tomllib.loads(doc).values())
    return total


def run_difflib():
    import difflib
    a = ["line %d of the first text: %s" % (i, "x" * (i % 17)) for i in range(1200)]
    b = [s.replace("first", "second") if i % 9 == 0 else s for i, s in enumerate(a)]
    del b[::97]
    diff = list(difflib.unified_diff(a, b, lineterm=""))
    ratio = difflib.SequenceMatcher(None, "".join(a[:200]), "".join(b[:200])).ratio()
    return len(diff), round(ratio, 4)


def run_textwrap():
    import textwrap
    words = ["profile", "dispatch", "opcode", "interpreter", "a", "of", "superinstruction"]
    text = " ".join(words[(i * 5) % len(words)] for i in range(30000))
    return sum(len(textwrap.fill(text[k:k + 20000], width=w)) for k in (0, 7, 13) for w in (40, 72))


def run_fractions():
    from fractions import Fraction
    h = Fraction(0)
    for k in range(1, 400):
        h += Fraction(1, k) * Fraction(k + 1, k + 2)
    return h.numerator % 1000003


def run_statistics():
    import statistics
    data = [((i * 7919) % 1000) / 7.0 for i in range(20000)]
    return (round(statistics.mean(data), 6), statistics.median(data),
            round(statistics.stdev(data), 6), round(statistics.fmean(data), 6))


if __name__ == "__main__":
    print(globals()["run_" + sys.argv[1]]())
