#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini symbolize -p PID ADDR...': runtime addresses of a live process
# to names. Two waiting targets: sym-twox (a PIE whose far_hot is in a
# second executable segment, at a p_vaddr far from its p_offset) and
# sym-uselib (main in the executable, shlib_hot in libsym-shlib.so). The
# runtime address of each function is computed here from nm, the program
# headers and /proc/PID/maps; it must print "ADDR NAME+0x0 PATH", an
# address N bytes inside "ADDR NAME+0xN PATH", and an unmapped address
# "ADDR ?? [no mapping]". (Indented lines that may follow an address
# line, its source lines, are not checked here.)
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-twox
need_target sym-uselib
need_target libsym-shlib.so

# expect PID FILE SYMBOL: appends SYMBOL's lines to $tmp/expected and its
# runtime addresses to $tmp/addrs.
expect() {
	ex_v=$(nm_addr "$2" "$3")
	ex_size=$(nm_size "$2" "$3")
	[ "$ex_size" -ge 2 ] || fail "$3 in $2 is $ex_size bytes long"
	ex_in=$((ex_size / 2))
	ex_a=$(runtime_addr "$1" "$2" "$ex_v")
	ex_path=$(readlink -f "$2")
	printf '0x%x %s+0x0 %s\n' $((ex_a)) "$3" "$ex_path" >>"$tmp/expected"
	printf '0x%x %s+0x%x %s\n' $((ex_a + ex_in)) "$3" "$ex_in" "$ex_path" >>"$tmp/expected"
	printf '0x%x 0x%x ' $((ex_a)) $((ex_a + ex_in)) >>"$tmp/addrs"
}

check_symbolize() {
	cs_rc=0
	# shellcheck disable=SC2046 # one argument per address
	"$PERFMINI" symbolize -p "$1" $(cat "$tmp/addrs") >"$tmp/got.all" 2>"$tmp/got.err" || cs_rc=$?
	cat "$tmp/got.err" >&3
	[ "$cs_rc" -eq 0 ] || fail "perfmini symbolize -p $1 exited $cs_rc"
	# the address lines; indented lines under them give source lines
	grep -v '^[[:space:]]' "$tmp/got.all" >"$tmp/got" || :
	if ! diff -u "$tmp/expected" "$tmp/got" >&3; then
		fail "perfmini symbolize -p $1 printed other names (diff above: - expected, + got)"
	fi
	say "symbolize -p $1: $(wc -l <"$tmp/got") addresses as expected"
	: >"$tmp/expected"
	: >"$tmp/addrs"
}
: >"$tmp/expected"
: >"$tmp/addrs"

start_ready "$tmp/twox.out" "$TARGETS/sym-twox" -w 0
twox_pid=$tpid
twox_bg=$bg_pid
start_ready "$tmp/uselib.out" "$TARGETS/sym-uselib" -w 0
uselib_pid=$tpid
uselib_bg=$bg_pid

expect "$twox_pid" "$TARGETS/sym-twox" main
expect "$twox_pid" "$TARGETS/sym-twox" far_hot
printf '0x10 ?? [no mapping]\n' >>"$tmp/expected"
printf '0x10 ' >>"$tmp/addrs"
check_symbolize "$twox_pid"

expect "$uselib_pid" "$TARGETS/sym-uselib" main
expect "$uselib_pid" "$TARGETS/libsym-shlib.so" shlib_hot
check_symbolize "$uselib_pid"

# Let both go: they exit at once (0 seconds to spin).
kill -USR1 "$twox_pid" "$uselib_pid"
for p in "$twox_bg" "$uselib_bg"; do
	wait_exit "$p" 10 || fail "a target did not exit after SIGUSR1"
	wait "$p" || fail "a target exited with an error"
done
