#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A shared library mapped at load time: samples of 'use-lib 1' (one CPU
# second in libhot.so's lib_hot, called from the executable's main) must
# name lib_hot as their leaf and main as its caller.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 60 "$tmp/lib.data" -- "$TARGETS/use-lib" 1
run_report "$tmp/lib.data" "$tmp/lib.folded"
check_share "$tmp/lib.folded" lib_hot use-lib 200
check_share "$tmp/lib.folded" "main;lib_hot" use-lib 200
