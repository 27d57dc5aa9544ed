#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A truthful unwinding summary: 'nocfi' spends its time in an assembly
# loop without call frame information, where unwinding stops at once.
# Those stacks did not reach the process entry, and the recorder's summary
# must say so: at most 10% of the user stacks reached the entry, and the
# rest stopped in the nocfi binary for want of unwind info. The report's
# header says the same.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x "$TARGETS/nocfi" ] || fail "no $TARGETS/nocfi: build it first (make check)"
need_perf
rc=0
run_timeout 60 "$PERFMINI" record -o "$tmp/nocfi.data" --call-graph=dwarf -- \
	"$TARGETS/nocfi" 1 >"$tmp/record.out" 2>"$tmp/record.err" || rc=$?
cat "$tmp/record.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini record --call-graph=dwarf exited $rc"
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(sed -n 's/.*unwinding: \([0-9]*\) of \([0-9]*\) user stacks.*/\1 \2/p' "$tmp/record.err")
[ $# -eq 2 ] || fail "no unwinding summary in the record output"
complete=$1 stacks=$2
[ "$stacks" -ge 300 ] || fail "only $stacks user stacks"
[ $((complete * 10)) -le "$stacks" ] ||
	fail "$complete of $stacks user stacks said to reach the entry (want at most 10%)"
grep -q "nocfi: <\?[0-9.]*% of the stacks stopped there: no unwind info" "$tmp/record.err" ||
	fail "the summary does not say the stacks stopped in nocfi for want of unwind info"
rc=0
"$PERFMINI" report -i "$tmp/nocfi.data" >"$tmp/top.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "perfmini report exited $rc: $(cat "$tmp/top.txt")"
grep -q "DWARF unwinding: $complete of $stacks user stacks" "$tmp/top.txt" ||
	fail "the report's header does not give $complete of $stacks: $(grep -i unwinding "$tmp/top.txt")"
