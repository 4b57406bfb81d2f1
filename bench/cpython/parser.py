"""parser.py - a tokenizer and recursive-descent parser for arithmetic with
variables, evaluating an AST of tuples.  A workload of
bench/quality/rediscover_cpython.sh."""
import sys


def tokenize(src):
    tokens, i = [], 0
    while i < len(src):
        c = src[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < len(src) and src[j].isdigit():
                j += 1
            tokens.append(("num", int(src[i:j])))
            i = j
        elif c.isalpha():
            j = i
            while j < len(src) and src[j].isalnum():
                j += 1
            tokens.append(("name", src[i:j]))
            i = j
        else:
            tokens.append(("op", c))
            i += 1
    return tokens


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", None)

    def take(self):
        tok = self.peek()
        self.pos += 1
        return tok

    def expr(self):
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = (self.take()[1], node, self.term())
        return node

    def term(self):
        node = self.factor()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            node = (self.take()[1], node, self.factor())
        return node

    def factor(self):
        kind, value = self.take()
        if kind == "num":
            return ("num", value)
        if kind == "name":
            return ("var", value)
        if value == "(":
            node = self.expr()
            self.take()
            return node
        if value == "-":
            return ("neg", self.factor())
        raise SyntaxError("unexpected %r" % (value,))


def evaluate(node, env):
    op = node[0]
    if op == "num":
        return node[1]
    if op == "var":
        return env[node[1]]
    if op == "neg":
        return -evaluate(node[1], env)
    a, b = evaluate(node[1], env), evaluate(node[2], env)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a // b if b else 0
    return a % b if b else 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    total = 0
    for i in range(n):
        src = "(x%d + %d) * (y - %d) %% 97 + -(x%d * 3 - y / (%d + 1))" % (i % 5, i, i % 13, i % 5, i % 7)
        ast = Parser(tokenize(src)).expr()
        env = {"y": i, "x0": 1, "x1": 2, "x2": 3, "x3": 4, "x4": 5}
        for k in range(5):
            env["y"] = i + k
            total += evaluate(ast, env)
    print(total)
