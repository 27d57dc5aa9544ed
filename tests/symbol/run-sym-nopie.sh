#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A fixed-address (non-PIE) executable: its load bias is 0. Samples of
# 'sym-nopie 1' must name nopie_hot as their leaf and main as its caller.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-nopie
exe=$TARGETS/sym-nopie
LC_ALL=C readelf -hW "$exe" | grep -Eq 'Type:[[:space:]]+EXEC' ||
	fail "sym-nopie is not a fixed-address executable (ELF type EXEC)"

need_perf
record_cmd nopie -- "$exe" 1
check_user "$tmp/nopie.folded" nopie_hot sym-nopie 200
check_user "$tmp/nopie.folded" "main;nopie_hot" sym-nopie 200
