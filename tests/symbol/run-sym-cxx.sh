#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# C++ names, demangled: sym-cxx spends its time in
# ns::Worker<int>::hot(int) (the symbol _ZN2ns6WorkerIiE3hotEi), a member
# of a class template in a namespace. Samples must carry exactly that
# demangled name, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-cxx
exe=$TARGETS/sym-cxx
nm_addr "$exe" _ZN2ns6WorkerIiE3hotEi >/dev/null

need_perf
record_cmd cxx -- "$exe" 1
check_user "$tmp/cxx.folded" 'ns::Worker<int>::hot(int)' sym-cxx 200
check_user "$tmp/cxx.folded" 'main;ns::Worker<int>::hot(int)' sym-cxx 200
