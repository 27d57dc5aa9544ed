#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini symbolize -p PID ADDR...' on JIT code, as 'record' names it:
# sym-jit -w writes /tmp/perf-PID.map ("START SIZE jit_hot") for its
# anonymous executable code and waits; its first address must print
# "ADDR jit_hot+0x0 MODULE" and the address 5 bytes in "ADDR jit_hot+0x5
# MODULE", MODULE not empty.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit
start_ready "$tmp/target.out" "$TARGETS/sym-jit" -w 0
map=$(sed -n 's/^sym-jit: wrote //p' "$tmp/target.out")
[ "$map" = "/tmp/perf-$tpid.map" ] || fail "sym-jit wrote its map at '$map', not /tmp/perf-$tpid.map"
remove_at_exit "$map"
start=$(awk 'NR == 1 { print $1 }' "$map")
[ -n "$start" ] || fail "sym-jit's map $map is empty"
a0=$(printf '0x%x' $((0x$start)))
a5=$(printf '0x%x' $((0x$start + 5)))

rc=0
"$PERFMINI" symbolize -p "$tpid" "$a0" "$a5" >"$tmp/got.all" 2>"$tmp/got.err" || rc=$?
cat "$tmp/got.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini symbolize -p $tpid $a0 $a5 exited $rc"
grep -v '^[[:space:]]' "$tmp/got.all" >"$tmp/got" || :
cat "$tmp/got" >&3
sed -n 1p "$tmp/got" | grep -Eq "^$a0 jit_hot\\+0x0 [^ ]+\$" ||
	fail "perfmini symbolize -p $tpid $a0 printed '$(sed -n 1p "$tmp/got")', not '$a0 jit_hot+0x0 MODULE'"
sed -n 2p "$tmp/got" | grep -Eq "^$a5 jit_hot\\+0x5 [^ ]+\$" ||
	fail "perfmini symbolize -p $tpid $a5 printed '$(sed -n 2p "$tmp/got")', not '$a5 jit_hot+0x5 MODULE'"
say "symbolize -p: $(tr '\n' '|' <"$tmp/got")"

kill -USR1 "$tpid"
finish_target 10
[ ! -e "$map" ] || fail "sym-jit left its perf map $map behind"
