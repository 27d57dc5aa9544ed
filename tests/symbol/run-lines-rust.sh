#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Source lines and inline chains of Rust code built by Debian's rustc
# (1.63 writes .debug_aranges for the program's own unit, not for all of
# the standard library's: bench/srcline-compare covers those), with the default (legacy) symbol mangling as
# rs-lines and with -C symbol-mangling-version=v0 as rs-lines-v0: each
# spends its time in mix_leaf inlined into mix_mid inlined into
# work_outer. Every sample of the loop must show that chain (the standard
# library's integer methods may be inlined below mix_leaf), with --lines
# each level at its own place, and 'perfmini symbolize -e' must print it
# for an address of the loop. Function names are checked only by the
# part any demangling keeps (work_outer, mix_mid, mix_leaf).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"
. "$srcdir/tests/symbol/lineslib.sh"

src=$srcdir/tests/targets/rust-lines.rs
oc=$(lines_mark "$src" rs-outer-call)
mc=$(lines_mark "$src" rs-mid-call)
l1=$(lines_mark "$src" rs-loop)
l2=$(lines_mark "$src" rs-body)
f='[^;]*'
below="(;${f}_\\[i\\])*"

need_perf
for name in rs-lines rs-lines-v0; do
	exe=$TARGETS/$name
	[ -e "$exe" ] || fail "tests/targets/$name was not built: it needs rustc, which" \
		"configure did not find (install the Debian package rustc, then configure again)"
	record_cmd "$name" -- "$exe" 1
	check_user_re "$tmp/$name.folded" \
		"(^|;)${f}work_outer$f;${f}mix_mid${f}_\\[i\\];${f}mix_leaf${f}_\\[i\\]$below\$" \
		"$name" 500 90 "end in work_outer;mix_mid_[i];mix_leaf_[i] (and what is inlined below)"
	lines_fold "$tmp/$name.data" "$tmp/$name-lines.folded"
	check_user_re "$tmp/$name-lines.folded" \
		"(^|;)${f}work_outer$f:rust-lines\\.rs:$oc;${f}mix_mid$f:rust-lines\\.rs:${mc}_\\[i\\];${f}mix_leaf$f:rust-lines\\.rs:($l1|$l2)_\\[i\\]$below\$" \
		"$name" 500 90 "end in work_outer:$oc;mix_mid:${mc}_[i];mix_leaf:{$l1,$l2}_[i] of rust-lines.rs"
	lines_symbolize -i "$exe" 'work_outer' "$exe" \
		"[^ ]*mix_leaf[^ ]* at [^ ]*/rust-lines\\.rs:($l1|$l2)(:[0-9]+)?\$" \
		"[^ ]*mix_mid[^ ]* at [^ ]*/rust-lines\\.rs:$mc(:[0-9]+)?\$" \
		"[^ ]*work_outer[^ ]* at [^ ]*/rust-lines\\.rs:$oc(:[0-9]+)?\$"
done
