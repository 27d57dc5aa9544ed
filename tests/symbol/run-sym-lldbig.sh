#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lld with -z max-page-size=0x200000 and 2.5 MiB of read-only data before
# the code: the executable PT_LOAD has p_align 2 MiB and a p_vaddr that is
# neither its p_offset nor aligned to p_align, so a base computed by
# rounding p_vaddr down to p_align (and not to the page) is wrong.
# Samples of 'sym-lldbig 1' must name lldbig_hot, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_lld_target sym-lldbig
exe=$TARGETS/sym-lldbig
load_segments "$exe" >"$tmp/segs"
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(awk '$4 ~ /E/' "$tmp/segs")
[ $# -ge 5 ] || fail "sym-lldbig has no executable PT_LOAD: $(cat "$tmp/segs")"
say "executable PT_LOAD at p_offset $1, p_vaddr $2, p_align $5"
[ $(($5)) -eq $((0x200000)) ] || fail "the code's p_align is $5, not 0x200000"
[ $(($1)) -ne $(($2)) ] || fail "the code's p_vaddr == p_offset: the test proves nothing"
[ $(($2 % 0x200000)) -ne 0 ] || fail "the code's p_vaddr $2 is aligned to 2 MiB: the test proves nothing"
[ $(($2 - $1)) -ge $((0x200000)) ] ||
	fail "the code's p_vaddr - p_offset is under 2 MiB: the test proves nothing"
# the read-only data: a segment before the code, of 2 MiB or more
code_vaddr=$2
big=
while read -r _ v sz fl _; do
	if [ "$fl" = R ] && [ $((v)) -lt $((code_vaddr)) ] && [ $((sz)) -ge $((0x200000)) ]; then
		big=$sz
	fi
done <"$tmp/segs"
[ -n "$big" ] || fail "no read-only PT_LOAD of 2 MiB or more before the code: $(cat "$tmp/segs")"

need_perf
record_cmd big -- "$exe" 1
check_user "$tmp/big.folded" lldbig_hot sym-lldbig 200
check_user "$tmp/big.folded" "main;lldbig_hot" sym-lldbig 200
