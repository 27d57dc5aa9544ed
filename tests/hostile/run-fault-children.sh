#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A thousand short-lived children under the recorder, no crash and no
# hang (at most 120 s each), and a complete file:
#  1. a shell running /bin/true 1,000 times: the file must read back and
#     name the shell or true in its samples, if it has any;
#  2. fault-fork, forking 1,000 children one after another, each spending
#     4 ms of CPU time in child_hot() and exiting: no frame of fault-fork's
#     own code left unnamed, child_hot the leaf of >= 10% of the samples
#     of comm fault-fork (fork, page faults and exit cost most of the CPU
#     time on some loaded virtual machines: with 2 ms, child_hot had 8% of
#     them on one), sampled in >= 100 distinct processes.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_FORK=$top_builddir/tests/hostile/fault-fork
[ -x "$FAULT_FORK" ] || fail "no $FAULT_FORK: build it first (make check)"

need_perf
# shellcheck disable=SC2016 # for the inner shell
run_record 120 "$tmp/sh.data" -- /bin/sh -c \
	'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i + 1)); done'
run_report "$tmp/sh.data" "$tmp/sh.folded"
say "sh and 1,000 /bin/true: $(awk '{ n += $NF } END { print n + 0 }' "$tmp/sh.folded") samples"
if grep -Ev '^(sh|true);' "$tmp/sh.folded" | grep . >&3; then
	fail "samples of another command than sh and true (above)"
fi

run_record 120 "$tmp/fork.data" -- "$FAULT_FORK" 1000 4
run_report "$tmp/fork.data" "$tmp/fork.folded"
check_share "$tmp/fork.folded" child_hot fault-fork 300 10
if grep '\[fault-fork+0x' "$tmp/fork.folded" >"$tmp/unnamed"; then
	head -n 5 "$tmp/unnamed" >&3
	fail "$(wc -l <"$tmp/unnamed") stacks have unnamed frames of fault-fork (above)"
fi
rc=0
run_timeout 60 "$PERFMINI" report -i "$tmp/fork.data" --folded --per-pid --comm fault-fork \
	>"$tmp/perpid.folded" 2>"$tmp/perpid.err" || rc=$?
[ "$rc" -eq 0 ] || fail "report --per-pid exited $rc: $(cat "$tmp/perpid.err")"
npids=$(grep ';child_hot ' "$tmp/perpid.folded" | cut -d';' -f1 | sort -u | wc -l)
say "child_hot sampled in $npids distinct processes"
[ "$npids" -ge 100 ] || fail "child_hot sampled in only $npids processes (want >= 100 of 1,000)"
