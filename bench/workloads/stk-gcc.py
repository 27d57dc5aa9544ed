#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stk-gcc - a workload for bench/stack-truth: gcc compiling, its time in
cc1 (Debian's, built without frame pointers).

usage: stk-gcc.py SECONDS FILE.c

Compiles FILE.c with gcc -O2 -g to an object in a temporary directory,
again and again, until the compilers have used SECONDS of CPU time (the
children's, so that every recording holds the same work on a busy
machine).
"""
import os
import resource
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: stk-gcc.py SECONDS FILE.c")
    seconds = float(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        obj = os.path.join(d, "out.o")
        while True:
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)
            if ru.ru_utime + ru.ru_stime >= seconds:
                break
            subprocess.run(["gcc", "-O2", "-g", "-c", "-o", obj, sys.argv[2]], check=True)


main()
