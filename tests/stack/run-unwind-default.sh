#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The default call graph is right in code without frame pointers.
# 'libcalls' is built with frame pointers but spends its time in Debian's
# libc, built without: its samples in memcpy and strlen must show their
# direct callers (main;copy_part;memcpy, main;len_part;strlen), and its
# comparator qsort's caller (main;sort_part;qsort...;cmp_keys). The same
# program recorded with --call-graph=fp shows that a frame-pointer walk
# loses those callers, so that this test says something.
# 'sigprof' (no frame pointers) runs a SIGPROF handler: its samples must
# read main;spin_main;__restore_rt;on_prof;handler_work, through the signal
# frame.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target libcalls
need_target sigprof
need_perf

# leaf_only FOLDED ERE OUT: the lines of FOLDED whose user leaf matches ERE.
leaf_only() {
	LEAF=";$2\$" awk '{
		s = $0
		sub(/ [0-9]+$/, "", s)
		while (s ~ /;[^;]*_\[k\]$/)
			sub(/;[^;]*_\[k\]$/, "", s)
		if (s ~ ENVIRON["LEAF"])
			print
	}' "$1" >"$3"
}

record_cmd libcalls -- "$TARGETS/libcalls" 1
copy='(^|;)main;copy_part;[^;]*mem(cpy|move)[^;]*$'
# (qsort's own memcpy calls aside)
leaf_only "$tmp/libcalls.folded" '[^;]*mem(cpy|move)[^;]*' "$tmp/leaf.all"
grep -v ';sort_part;' "$tmp/leaf.all" >"$tmp/leaf.folded" || true
check_user_re "$tmp/leaf.folded" "$copy" libcalls 30 90 "read main;copy_part;memcpy"
leaf_only "$tmp/libcalls.folded" '[^;]*strlen[^;]*' "$tmp/leaf.folded"
check_user_re "$tmp/leaf.folded" '(^|;)main;len_part;[^;]*strlen[^;]*$' libcalls 30 90 \
	"read main;len_part;strlen"
leaf_only "$tmp/libcalls.folded" 'cmp_keys' "$tmp/leaf.folded"
check_user_re "$tmp/leaf.folded" '(^|;)main;sort_part;[^;]*qsort[^;]*(;[^;]*)*;cmp_keys$' libcalls \
	20 90 "read main;sort_part;qsort...;cmp_keys"

# Frame pointers alone lose them: the test tells the modes apart.
record_cmd libcalls-fp --call-graph=fp -- "$TARGETS/libcalls" 1
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(sym_shares "$tmp/libcalls-fp.folded" libcalls "$copy")
say "with --call-graph=fp: $1 of $2 samples read main;copy_part;memcpy"
[ "$2" -ge 200 ] || fail "only $2 samples with --call-graph=fp"
[ $(($1 * 10)) -lt "$2" ] ||
	fail "frame pointers alone found copy_part's memcpy in $1 of $2 samples: the test proves nothing"

record_cmd sigprof -- "$TARGETS/sigprof" 1
leaf_only "$tmp/sigprof.folded" handler_work "$tmp/handler.folded"
check_user "$tmp/handler.folded" "main;spin_main;__restore_rt;on_prof;handler_work" sigprof 30 90
