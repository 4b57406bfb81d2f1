"""stdlib_modules.py MODULE - exercise one pure-Python standard-library
module on generated input: tomllib, difflib, textwrap, fractions,
statistics, re (compiling patterns: its parser and compiler are Python),
decimal (the pure-Python _pydecimal), html (html.parser), email (parsing
messages) or ipaddress.  A workload of bench/quality/rediscover_cpython.sh."""
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


def run_re():
    import re
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    compiled = 0
    for k in range(300):
        a, b = words[k % 5], words[(k * 3) % 5]
        pattern = r"(?P<key>%s|%s)\s*[:=]\s*(\d{1,%d}|'[^']*'|\w+)(?:,\s*(?P=key))*$" % (a, b, k % 9 + 1)
        re.purge()
        compiled += re.compile(pattern, re.I if k % 2 else 0).groups
    return compiled


def run_decimal():
    import _pydecimal as decimal
    ctx = decimal.Context(prec=40)
    total = decimal.Decimal(0)
    for k in range(1, 700):
        x = ctx.divide(decimal.Decimal(k), decimal.Decimal(k + 7))
        total = ctx.add(total, ctx.multiply(x, x))
    return str(total)


def run_html():
    from html.parser import HTMLParser

    class Counter(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = self.chars = 0

        def handle_starttag(self, tag, attrs):
            self.tags += 1 + len(attrs)

        def handle_data(self, data):
            self.chars += len(data)

    row = '<tr class="r%d"><td id="a%d">cell &amp; %d</td><td><a href="/x?%d">link</a></td></tr>\n'
    page = "<html><body><table>%s</table></body></html>" % "".join(row % (i, i, i, i) for i in range(3000))
    c = Counter()
    c.feed(page)
    c.close()
    return c.tags, c.chars


def run_email():
    from email.parser import Parser
    from email.policy import default
    text = ("From: a%d@example.org\nTo: b%d@example.org\nSubject: report %d\n"
            "Content-Type: text/plain; charset=utf-8\nX-Id: %d\n\nbody line %d\n")
    parser = Parser(policy=default)
    n = 0
    for i in range(250):
        m = parser.parsestr(text % (i, i, i, i, i))
        n += len(m["Subject"]) + len(m.get_content())
    return n


def run_ipaddress():
    import ipaddress
    net = ipaddress.ip_network("10.0.0.0/16")
    hosts = 0
    for k, sub in enumerate(net.subnets(new_prefix=24)):
        if k % 4 == 0:
            hosts += sum(1 for a in sub.hosts() if a.packed[-1] % 7 == 0)
    v6 = [ipaddress.ip_address("2001:db8::%x" % i).exploded for i in range(2000)]
    return hosts, len(set(v6))


if __name__ == "__main__":
    print(globals()["run_" + sys.argv[1]]())
