#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen-text - write SIZE megabytes of pseudo-random but compressible text.

usage: gen-text.py MEGABYTES OUT [SEED]

Words are drawn from a fixed, seeded vocabulary with a Zipf-like
distribution and set in sentences, lines and paragraphs, with the odd
number, so the text compresses roughly like prose or logs (xz -9 reaches
about a third of the size). Same arguments, same bytes: nothing is
downloaded.
"""
import random
import sys


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: gen-text.py MEGABYTES OUT [SEED]\n")
        return 2
    size = int(float(sys.argv[1]) * 1024 * 1024)
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 42)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    lweights = [26 - i for i in range(26)]
    vocab = []
    for _ in range(20000):
        n = max(1, min(14, int(rng.gauss(6, 2.5))))
        vocab.append("".join(rng.choices(letters, lweights, k=n)))
    cum, total = [], 0.0
    for i in range(len(vocab)):
        total += 1.0 / (i + 1) ** 1.05
        cum.append(total)
    written = 0
    with open(out, "w") as f:
        while written < size:
            words = rng.choices(vocab, cum_weights=cum, k=20000)
            parts, line = [], 0
            for i, w in enumerate(words):
                if i % 13 == 0:
                    w = w.capitalize()
                if i % 97 == 5:
                    w = str(rng.randrange(100000))
                parts.append(w)
                line += len(w) + 1
                if i % 13 == 12:
                    parts[-1] += "."
                if line > 72:
                    parts.append("\n")
                    line = 0
                    if rng.random() < 0.1:
                        parts.append("\n")
            chunk = " ".join(parts).replace(" \n ", "\n")
            f.write(chunk)
            written += len(chunk)
        f.truncate(size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
