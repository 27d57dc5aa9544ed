#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pyloop - a CPU-bound, interpreter-heavy pure-Python workload.

usage: pyloop.py [ROUNDS]

Each round compiles a small arithmetic language to stack-machine code and
runs it with a dispatch loop written in Python, then does some dictionary,
string and object work: the time goes to the bytecode interpreter, the
object allocator, dicts and str, not to C extensions.
"""
import sys


class Tok:
    __slots__ = ("kind", "val")

    def __init__(self, kind, val):
        self.kind = kind
        self.val = val


def lex(src):
    toks, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < n and src[j].isdigit():
                j += 1
            toks.append(Tok("num", int(src[i:j])))
            i = j
        elif c.isalpha():
            j = i
            while j < n and src[j].isalnum():
                j += 1
            toks.append(Tok("name", src[i:j]))
            i = j
        else:
            toks.append(Tok("op", c))
            i += 1
    return toks


def parse(toks):
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def atom():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t.kind == "op" and t.val == "(":
            code = expr()
            pos += 1
            return code
        if t.kind == "num":
            return [("push", t.val)]
        return [("load", t.val)]

    def term():
        nonlocal pos
        code = atom()
        while peek() is not None and peek().val in ("*", "%"):
            op = toks[pos].val
            pos += 1
            code += atom() + [("mul" if op == "*" else "mod", None)]
        return code

    def expr():
        nonlocal pos
        code = term()
        while peek() is not None and peek().val in ("+", "-"):
            op = toks[pos].val
            pos += 1
            code += term() + [("add" if op == "+" else "sub", None)]
        return code

    return expr()


def run(code, env):
    stack = []
    for op, arg in code:
        if op == "push":
            stack.append(arg)
        elif op == "load":
            stack.append(env[arg])
        else:
            b = stack.pop()
            a = stack.pop()
            if op == "add":
                stack.append(a + b)
            elif op == "sub":
                stack.append(a - b)
            elif op == "mul":
                stack.append(a * b)
            else:
                stack.append(a % b if b else 0)
    return stack[-1]


PROGRAM = "(x * 31 + y * 17 - 5) % 1009 + (x % 7) * (y % 11) + (x + y) * (x - y) % 97"


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def one_round(r):
    code = parse(lex(PROGRAM))
    acc = 0
    for x in range(60):
        for y in range(20):
            acc += run(code, {"x": x + r, "y": y})
    words = {}
    for i in range(3000):
        k = "w%d" % ((i * 7919 + r) % 701)
        words[k] = words.get(k, 0) + 1
    text = ",".join("%s=%d" % kv for kv in sorted(words.items()))
    return acc + len(text) + fib(15)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    total = 0
    for r in range(rounds):
        total += one_round(r)
    print(total)


if __name__ == "__main__":
    main()
