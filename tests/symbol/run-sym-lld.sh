#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An lld-linked PIE: lld lays the executable segment out at a p_vaddr
# different from its p_offset, so a file offset is not an ELF address.
# Samples of 'sym-lld 1' (one CPU second in lld_hot, called from main) must
# name lld_hot as their leaf and main as its caller.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_lld_target sym-lld
exe=$TARGETS/sym-lld
LC_ALL=C readelf -hW "$exe" | grep -Eq 'Type:[[:space:]]+DYN' || fail "sym-lld is not a PIE"
load_segments "$exe" >"$tmp/segs"
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(awk '$4 ~ /E/' "$tmp/segs")
[ $# -ge 2 ] || fail "sym-lld has no executable PT_LOAD: $(cat "$tmp/segs")"
[ $(($1)) -ne $(($2)) ] ||
	fail "lld put sym-lld's code at p_vaddr == p_offset ($2): the test proves nothing"
say "executable PT_LOAD at p_offset $1, p_vaddr $2"

need_perf
record_cmd lld -- "$exe" 1
check_user "$tmp/lld.folded" lld_hot sym-lld 200
check_user "$tmp/lld.folded" "main;lld_hot" sym-lld 200
