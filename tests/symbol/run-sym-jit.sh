#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# JIT code with a perf map: sym-jit copies a machine-code loop into
# anonymous executable memory, writes /tmp/perf-PID.map ("START SIZE
# jit_hot") and spends one CPU second calling it. Samples must name
# jit_hot (from the map) as their leaf. The program removes its map file
# when it exits: the test checks that it is gone.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit

need_perf
record_cmd jit -- "$TARGETS/sym-jit" 1
check_user "$tmp/jit.folded" jit_hot sym-jit 200
map=$(sed -n 's/^sym-jit: wrote //p' "$tmp/record.out")
[ -n "$map" ] || fail "sym-jit did not say where it wrote its perf map"
remove_at_exit "$map"
[ ! -e "$map" ] || fail "sym-jit left its perf map $map behind"
