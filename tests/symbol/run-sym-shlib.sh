#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A shared library mapped at load time: samples of 'sym-uselib 1' (one CPU
# second in libsym-shlib.so's shlib_hot, called from the executable's
# main) must name shlib_hot as their leaf and main as its caller.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-uselib
need_target libsym-shlib.so

need_perf
record_cmd shlib -- "$TARGETS/sym-uselib" 1
check_user "$tmp/shlib.folded" shlib_hot sym-uselib 200
check_user "$tmp/shlib.folded" "main;shlib_hot" sym-uselib 200
