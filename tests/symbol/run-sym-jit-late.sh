#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# JIT code that runs before its perf map exists: sym-jit spends 0.4 CPU
# seconds in its generated code, then writes /tmp/perf-PID.map and spends
# 0.6 more. The frames sampled before the map appeared must be named from
# it too (the map is looked for again within milliseconds, and read at
# the stop as it is then): >= 90% of the samples end in jit_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit

need_perf
record_cmd late -- "$TARGETS/sym-jit" 0.6 late=0.4
map=$(sed -n 's/^sym-jit: wrote //p' "$tmp/record.out")
[ -n "$map" ] || fail "sym-jit did not say where it wrote its perf map"
remove_at_exit "$map"
check_user "$tmp/late.folded" jit_hot sym-jit 300
