#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGKILL at many moments. 'perfmini record -F 999 -o OUT -- spin-pie 30'
# runs in a process group of its own, and the whole group (the recorder
# and its command) gets SIGKILL:
#   - during the recording, at 0.9, 1.7, 2.6 and 3.5 s: OUT must be there,
#     under its name, with nothing beside it, and 'perfmini report' must
#     read it (exit 0) with one warning that says it is cut short; the
#     samples it holds are counted against those taken, the command's CPU
#     time read just before the kill times 999 per second: at most about a
#     second of them may be missing (the file is written every second,
#     the records of the last 20 ms a round later), and none may be more
#     than were taken;
#   - during the stop: SIGINT, then SIGKILL 0, 40, 150 and 400 ms later
#     (the final drain, the naming, the last chunk): OUT must read, whole
#     or cut short, with every sample up to about a second before the
#     kill;
#   - with -o FIFO (the recording streamed to a reader, as -o - into a
#     pipe is), killed at 2.6 s: what the reader got reads the same way.
# And at 0.02 s, while perfmini starts, it may leave no file at all, but
# never a temporary one.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
dir=$tmp/out
mkdir "$dir"
out=$dir/k.data
hz=$(getconf CLK_TCK)

# kill_at MS [INT_MS] [OUTPUT]: records into OUTPUT (default $out), and
# kills the group after MS ms (after a SIGINT at INT_MS ms, if given);
# sets taken (samples the command's CPU time makes at 999 per second).
kill_at() {
	ka_out=${3:-$out}
	setsid "$PERFMINI" record -q -F 999 -o "$ka_out" -- "$TARGETS/spin-pie" 30 \
		>"$tmp/rec.out" 2>"$tmp/rec.err" &
	ka_pid=$!
	track "$ka_pid"
	if [ -n "${2:-}" ]; then
		sleep "$(echo "$2" | awk '{ printf "%.3f", $1 / 1000 }')"
		ka_kid=$(children_of "$ka_pid" | head -n 1)
		taken=$(($(cpu_ticks "${ka_kid:-0}") * 999 / hz))
		kill -INT "$ka_pid" 2>/dev/null || :
		sleep "$(echo "$1" | awk '{ printf "%.3f", $1 / 1000 }')"
	else
		sleep "$(echo "$1" | awk '{ printf "%.3f", $1 / 1000 }')"
		ka_kid=$(children_of "$ka_pid" | head -n 1)
		taken=$(($(cpu_ticks "${ka_kid:-0}") * 999 / hz))
	fi
	kill -KILL "-$ka_pid" 2>/dev/null || :
	[ -z "$ka_kid" ] || kill -KILL "$ka_kid" 2>/dev/null || :
	wait_exit "$ka_pid" 10 || fail "the recorder outlived SIGKILL"
	wait "$ka_pid" 2>/dev/null || :
}

# check_file WHAT FILE: FILE reads, whole or cut short (one warning), with
# the samples taken but for about a second's; prints what it found.
check_file() {
	rc=0
	"$PERFMINI" report -i "$2" --folded >"$tmp/k.folded" 2>"$tmp/k.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: report exited $rc: $(cat "$tmp/k.err")"
	n=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/k.folded")
	if [ -s "$tmp/k.err" ]; then
		if [ "$(awk 'END { print NR }' "$tmp/k.err")" -ne 1 ] ||
			! grep -Eq "cut short at offset [0-9]+" "$tmp/k.err"; then
			fail "$1: report said: $(cat "$tmp/k.err")"
		fi
		how="cut short"
	else
		how=whole
	fi
	say "$1: $how, $n samples of $taken taken"
	[ "$n" -le $((taken + taken / 10 + 20)) ] || fail "$1: more samples than were taken"
	[ "$n" -ge $((taken - 1600)) ] || fail "$1: $((taken - n)) of $taken samples lost"
}

for ms in 900 1700 2600 3500; do
	kill_at "$ms"
	left=$(ls -A "$dir")
	[ "$left" = k.data ] || fail "killed at $ms ms: left '$left' in the output directory"
	check_file "killed at $ms ms" "$out"
	grep -q spin-pie "$tmp/k.folded" || fail "killed at $ms ms: no stack of spin-pie"
	rm -f "$out"
done

for ms in 0 40 150 400; do
	kill_at "$ms" 2000
	left=$(ls -A "$dir")
	[ "$left" = k.data ] || fail "killed $ms ms into the stop: left '$left' in the output directory"
	check_file "killed $ms ms into the stop" "$out"
	rm -f "$out"
done

# Streamed: a reader at the other end of a FIFO.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/stream.data" &
cat_pid=$!
track "$cat_pid"
kill_at 2600 "" "$tmp/fifo"
wait_exit "$cat_pid" 10 || fail "the reader of the FIFO did not see its end"
check_file "streamed, killed at 2600 ms" "$tmp/stream.data"

# While it starts: no file, or one that reads; never a temporary one.
kill_at 20
left=$(ls -A "$dir")
case $left in
'') say "killed at 20 ms: no file" ;;
k.data)
	rc=0
	"$PERFMINI" report -i "$out" --folded >/dev/null 2>"$tmp/k.err" || rc=$?
	say "killed at 20 ms: a file, report exit $rc: $(cat "$tmp/k.err")"
	;;
*) fail "killed at 20 ms: left '$left' in the output directory" ;;
esac
