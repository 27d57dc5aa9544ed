#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stk-py - a Python workload for bench/stack-truth.

usage: stk-py.py [SECONDS]   (default 3)

SECONDS is CPU time, not wall time: on a busy machine every recording
then covers the same work and gets about as many samples, so two
recordings compare.

A few hot Python functions that call into C: sorted() with a key function,
str.join over generated pieces, and dict inserts and lookups. Run by
Debian's /usr/bin/python3, built without frame pointers: the stacks are
the interpreter's C functions (_PyEval_EvalFrameDefault, list_sort_impl,
dict internals), which only a DWARF unwinder follows.
"""
import sys
import time


def sort_keys(recs, rng):
    # Fresh keys each call: sorted() never gets sorted input.
    for r in recs:
        rng[0] = (rng[0] * 1103515245 + 12345) & 0x7FFFFFFF
        r[0] = rng[0] % 1000000
    return sorted(recs, key=lambda r: r[0])[len(recs) // 2][0]


def join_pieces(n):
    return len(",".join(str(i * 7919 % 100003) for i in range(n)))


def dict_work(n):
    # A fresh dict each call, so that every round does the same work.
    d = {}
    s = 0
    for i in range(n):
        k = (i * 2654435761) % 50021
        d[k] = d.get(k, 0) + 1
        s += d.get(k ^ 1, 0)
    return s


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    recs = [[0, "r%d" % i] for i in range(20000)]
    rng = [12345]
    sink = 0
    end = time.process_time() + seconds
    while time.process_time() < end:
        sink += sort_keys(recs, rng)
        sink += join_pieces(20000)
        sink += dict_work(20000)
    return sink == 42


if __name__ == "__main__":
    sys.exit(main())
