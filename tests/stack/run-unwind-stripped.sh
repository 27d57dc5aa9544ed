#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stripped program's stacks reach its entry: 'bare' (spin-nopie with no
# symbol table) names no function, so only its ELF entry point tells that
# a stack ends at _start. That is asked of the naming thread, which alone
# reads the symbolizer while it runs, and the slices of --switch-output
# are finished while it runs. The recorder's summary and the header of
# every slice file must say that at least 90% of the user stacks reached
# the entry.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x "$TARGETS/spin-nopie" ] || fail "no $TARGETS/spin-nopie: build it first (make check)"
need_perf
strip -o "$tmp/bare" "$TARGETS/spin-nopie"
mkdir "$tmp/slices"
rc=0
run_timeout 60 "$PERFMINI" record --switch-output=1s -o "$tmp/slices/pm.data" -- \
	"$tmp/bare" 3.5 >"$tmp/record.out" 2>"$tmp/record.err" || rc=$?
cat "$tmp/record.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini record exited $rc"
grep -q "^perfmini: $tmp/bare: .* sampled frames have no name: stripped" "$tmp/record.err" ||
	fail "bare's frames have names: it was meant to be stripped"
share=$(sed -n 's/.*unwinding: [0-9]* of [0-9]* user stacks (\([0-9.]*\)%) reached the entry.*/\1/p' \
	"$tmp/record.err")
[ -n "$share" ] || fail "no unwinding summary in the record output"
awk -v s="$share" 'BEGIN { exit !(s >= 90) }' ||
	fail "only $share% of the user stacks reached the entry (need >= 90%)"
n=0
for f in "$tmp"/slices/pm.data.*; do
	"$PERFMINI" report -i "$f" >"$tmp/head.txt" 2>&1 || fail "perfmini report -i $f failed"
	s=$(sed -n 's/.*unwinding: [0-9]* of [0-9]* user stacks (\([0-9.]*\)%) reached the entry.*/\1/p' \
		"$tmp/head.txt")
	[ -n "$s" ] || fail "no unwinding line in the header of $f: $(head -8 "$tmp/head.txt")"
	awk -v s="$s" 'BEGIN { exit !(s >= 90) }' ||
		fail "$f: only $s% of the user stacks reached the entry (need >= 90%)"
	n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n slice files"
