#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# DWARF unwinding: 'deep' is built -O2 -fomit-frame-pointer, with call
# chains in the executable, in a shared library and through libc's qsort
# into a comparator. With --call-graph=dwarf every chain must be whole,
# from main (and on to _start) down to the leaf; the recorder's summary
# must say that at least 90% of the user stacks reached the entry.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
rc=0
run_timeout 60 "$PERFMINI" record -o "$tmp/deep.data" --call-graph=dwarf -- \
	"$TARGETS/deep" 1 >"$tmp/record.out" 2>"$tmp/record.err" || rc=$?
cat "$tmp/record.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini record --call-graph=dwarf exited $rc"
share=$(sed -n 's/.*unwinding: [0-9]* of [0-9]* user stacks (\([0-9.]*\)%) reached the entry.*/\1/p' \
	"$tmp/record.err")
[ -n "$share" ] || fail "no unwinding summary in the record output"
awk -v s="$share" 'BEGIN { exit !(s >= 90) }' ||
	fail "only $share% of the user stacks reached the entry (need >= 90%)"

run_report "$tmp/deep.data" "$tmp/deep.folded"
# Every sample of the three chains, each whole from main.
exe=$(leaf_share "$tmp/deep.folded" "main;deep_a;deep_b;deep_c;deep_leaf" deep)
lib=$(leaf_share "$tmp/deep.folded" "main;lib_deep_a;lib_deep_b;lib_deep_leaf" deep)
# shellcheck disable=SC2086 # split into its fields on purpose
set -- $exe
exe_n=$1 total=$2
# shellcheck disable=SC2086 # split into its fields on purpose
set -- $lib
lib_n=$1
cmp_n=$(awk '$0 ~ /^deep;.*;main;[^;]*qsort[^;]*;.*;deep_cmp;deep_leaf [0-9]+$/ { n += $NF } END { print n + 0 }' \
	"$tmp/deep.folded")
start_n=$(awk '$0 ~ /^deep;_start;/ { n += $NF } END { print n + 0 }' "$tmp/deep.folded")
say "of $total samples: $exe_n main;deep_a;deep_b;deep_c;deep_leaf," \
	"$lib_n main;lib_deep_a;lib_deep_b;lib_deep_leaf, $cmp_n main;qsort...;deep_cmp;deep_leaf," \
	"$start_n from _start"
[ "$total" -ge 300 ] || fail "only $total samples"
[ "$exe_n" -ge $((total / 10)) ] || fail "too few whole stacks in the executable"
[ "$lib_n" -ge $((total / 10)) ] || fail "too few whole stacks in the shared library"
[ "$cmp_n" -ge $((total / 10)) ] || fail "too few whole stacks through qsort"
[ $(((exe_n + lib_n + cmp_n) * 100)) -ge $((total * 90)) ] ||
	fail "fewer than 90% of the samples have one of the whole chains"
[ $((start_n * 100)) -ge $((total * 90)) ] || fail "fewer than 90% of the stacks reach _start"

# The data file says how the stacks were taken, and how many were whole.
"$PERFMINI" report -i "$tmp/deep.data" --folded >/dev/null || fail "report failed"

# Unwinding reads nothing per frame: the unwind tables are read once per
# module, the stack copy is in the sample. strace without -f follows the
# recorder's main thread, which unwinds.
command -v strace >/dev/null || fail "no strace (scripts/deps.sh installs it)"
rc=0
# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	run_timeout 60 strace -qq -o "$tmp/strace.out" -e trace=pread64,read,rt_sigprocmask \
	"$PERFMINI" record -o "$tmp/deep2.data" --call-graph=dwarf -- "$TARGETS/deep" 2 \
	>/dev/null 2>"$tmp/record2.err" || rc=$?
[ "$rc" -eq 0 ] || fail "perfmini record under strace exited $rc: $(tail -n 1 "$tmp/record2.err")"
samples=$(sed -n 's/^perfmini: \([0-9]*\) samples.*/\1/p' "$tmp/record2.err")
calls=$(grep -c '^\(pread64\|read\|rt_sigprocmask\)(' "$tmp/strace.out" || true)
say "under strace: $samples samples unwound, $calls reads and signal masks by the recorder"
[ "${samples:-0}" -ge 100 ] || fail "only ${samples:-no} samples under strace"
[ "$calls" -lt $((samples / 4)) ] ||
	fail "$calls reads and signal masks for $samples samples: unwinding makes system calls"
