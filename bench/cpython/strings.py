"""strings.py - string processing: building a text, splitting, counting
words, formatting, case changes and a Caesar cipher.  A workload of
bench/quality/rediscover_cpython.sh."""
import sys

WORDS = ("interpreter bytecode dispatch opcode macro fusion profile sample loop branch "
         "register stack frame call return constant local global attribute method").split()


def make_text(n):
    out = []
    for i in range(n):
        w = WORDS[(i * 7 + i // 3) % len(WORDS)]
        if i % 11 == 0:
            w = w.capitalize()
        out.append(w)
        if i % 13 == 12:
            out.append(".")
    return " ".join(out)


def word_counts(text):
    counts = {}
    for word in text.lower().replace(".", " ").split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def caesar(text, shift):
    chars = []
    for ch in text:
        if "a" <= ch <= "z":
            ch = chr((ord(ch) - 97 + shift) % 26 + 97)
        chars.append(ch)
    return "".join(chars)


def report(counts):
    lines = []
    for word, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"{word:>12} {n:6d} {'#' * (n // 200)}")
    return "\n".join(lines)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
    text = make_text(n)
    secret = caesar(text, 3)
    assert caesar(secret, 23) == text
    print(report(word_counts(text)).count("\n"), len(secret))
