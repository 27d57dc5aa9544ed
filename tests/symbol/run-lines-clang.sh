#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Source lines and inline chains of clang-built code: inline.c built by
# clang -O2 -g (DWARF 5: address, range and line-string tables of their
# own, and no .debug_aranges) as inline-clang. Every sample must read
# work_outer;inline_mid_[i];inline_leaf_[i], with --lines each level at
# its own place (work_outer and inline_mid where they call the next
# level, inline_leaf at a line of its loop), and 'perfmini symbolize -e'
# must print the same chain for an address of the loop.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"
. "$srcdir/tests/symbol/lineslib.sh"

exe=$TARGETS/inline-clang
[ -e "$exe" ] || fail "tests/targets/inline-clang was not built: it needs clang, which" \
	"configure did not find (install the Debian package clang, then configure again)"
lines_no_aranges "$exe"
src=$srcdir/tests/targets/inline.c
oc=$(lines_mark "$src" 'outer-call \*/')
mc=$(lines_mark "$src" 'mid-call \*/')
l1=$(lines_mark "$src" 'leaf-loop \*/')
l2=$(lines_mark "$src" 'leaf-body \*/')

need_perf
record_cmd clang -- "$exe" 1
check_user "$tmp/clang.folded" "work_outer;inline_mid_[i];inline_leaf_[i]" inline-clang 500
lines_fold "$tmp/clang.data" "$tmp/clang-lines.folded"
check_user_re "$tmp/clang-lines.folded" \
	"(^|;)work_outer:inline\\.c:$oc;inline_mid:inline\\.c:${mc}_\\[i\\];inline_leaf:inline\\.c:($l1|$l2)_\\[i\\]\$" \
	inline-clang 500 90 "end in work_outer:inline.c:$oc;inline_mid:inline.c:${mc}_[i];inline_leaf:inline.c:{$l1,$l2}_[i]"

lines_symbolize "$exe" '^work_outer$' "$exe" \
	"inline_leaf at [^ ]*/inline\\.c:($l1|$l2)(:[0-9]+)?\$" \
	"inline_mid at [^ ]*/inline\\.c:$mc(:[0-9]+)?\$" \
	"work_outer at [^ ]*/inline\\.c:$oc(:[0-9]+)?\$"
