#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile debug information: nest-hot spends its time in nest_hot, whose
# DWARF nests 200,000 lexical blocks (a 416 KB binary anyone can run).
# 'perfmini symbolize -e' on it and a recording of it must neither crash
# (a walk that recurses per level overflows the naming thread's stack and
# takes the whole recorder down) nor take long (a walk that pays for each
# level's subtree takes minutes): each done in under 10 s, exit 0, with
# nest_hot named from its symbol.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

nest=$TARGETS/nest-hot
[ -x "$nest" ] || fail "no $nest: build it first (make check)"
addr=0x$(nm "$nest" | awk '$3 == "nest_hot" { print $1; exit }')
[ "$addr" != 0x ] || fail "nm finds no nest_hot in $nest"

start=$(date +%s)
rc=0
run_timeout 60 "$PERFMINI" symbolize -e "$nest" "$addr" >"$tmp/sym.out" 2>"$tmp/sym.err" || rc=$?
secs=$(($(date +%s) - start))
say "symbolize -e: exit $rc in $secs s: $(head -c 200 "$tmp/sym.out") $(head -c 200 "$tmp/sym.err")"
[ "$rc" -eq 0 ] || fail "symbolize -e exited $rc"
[ "$secs" -lt 10 ] || fail "symbolize -e took $secs s"
grep -q " nest_hot+0x0 " "$tmp/sym.out" || fail "symbolize -e did not name nest_hot"

need_perf
start=$(date +%s)
run_record 60 "$tmp/nest.data" -- "$nest" 0.5
secs=$(($(date +%s) - start))
say "record of 0.5 CPU seconds: done in $secs s"
[ "$secs" -lt 10 ] || fail "recording 0.5 s took $secs s"
run_report "$tmp/nest.data" "$tmp/nest.folded"
check_share "$tmp/nest.folded" nest_hot nest-hot 200
