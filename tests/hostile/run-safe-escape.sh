#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No terminal control codes from other people's names: a program whose
# file name (and so its thread name) holds an OSC 52 clipboard write, a
# colour change, a bell and a C1 CSI, stripped so that the recorder's
# summary names its file, is recorded and reported. Nothing perfmini
# prints (the record summary, the top table, folded stacks, symbolize -e)
# may hold an ESC, BEL or C1 control byte; the names show '?' instead.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
esc=$(printf '\033')
bel=$(printf '\007')
csi=$(printf '\302\233')
name="x${esc}]52;c;SGVsbG8=${bel}${esc}[31m${csi}2J"
mkdir "$tmp/dir"
strip -o "$tmp/dir/$name" "$TARGETS/spin-pie" || fail "strip failed"

# clean WHAT FILE: FILE holds no ESC, BEL or C1 control (in UTF-8 or raw).
clean() {
	if od -An -v -tx1 "$2" | tr -s ' ' '\n' | grep -Eqx '1b|07|9b'; then
		od -c "$2" | head -n 20 >&3
		fail "$1: a control code reached the output (above)"
	fi
}

rc=0
"$PERFMINI" record -o "$tmp/x.data" -- "$tmp/dir/$name" 0.3 >"$tmp/rec.out" 2>"$tmp/rec.err" || rc=$?
[ "$rc" -eq 0 ] || fail "record exited $rc: $(cat "$tmp/rec.err")"
grep -q 'sampled frames have no name' "$tmp/rec.err" ||
	fail "the stripped program is not in the record summary: $(cat "$tmp/rec.err")"
clean "record summary" "$tmp/rec.err"
"$PERFMINI" report -i "$tmp/x.data" >"$tmp/top.txt" 2>&1 || fail "report failed"
clean "top table" "$tmp/top.txt"
grep -q '?]52;c;SGVsbG8=' "$tmp/top.txt" || fail "the top table does not show the name made printable"
"$PERFMINI" report -i "$tmp/x.data" --folded >"$tmp/x.folded" 2>&1 || fail "report --folded failed"
clean "folded" "$tmp/x.folded"
"$PERFMINI" symbolize -e "$tmp/dir/$name" 0x1000 >"$tmp/sym.txt" 2>&1 || :
clean "symbolize -e" "$tmp/sym.txt"
say "record, top, folded and symbolize outputs hold no control code"
