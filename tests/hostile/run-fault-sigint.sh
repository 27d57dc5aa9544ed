#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT at random moments. 20 times: 'perfmini record -o OUT -- spin-pie
# 30' (or '-a', every fourth time) is started, and after a random 0 to 1.5
# s (0 to 20 ms every fifth time: during its start) it gets SIGINT, in one
# of three ways in turn:
#   once, sent to the recorder;
#   twice, the second 0 to 0.3 s after the first, so that it often lands
#     during the final drain, the symbolization or the write;
#   once to its whole process group, as Ctrl-C in a terminal does (the
#     command gets it too).
# Each time the recorder must end within 15 s, and either
#   - exit 0 with OUT complete: 'perfmini report' reads it (exit 0,
#     nothing on stderr); or
#   - have been ended by the signal itself (before it installed its
#     handler: status 130), with no OUT at all;
# never anything else, never a temporary file left beside OUT, and never
# a command left running.
# Last, a command that ignores SIGTERM (which the recorder sends its
# command when it stops): one SIGINT to the recorder after 1 s, and it
# must still end within 15 s with OUT complete, whatever the command does.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
command -v setsid >/dev/null 2>&1 || fail "no setsid (util-linux)"

# A random number below $1, from /dev/urandom.
random_below() {
	echo $(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % $1))
}

# Whether process $1 catches SIGINT (bit 1 of the last digit of SigCgt).
catches_int() {
	ci_mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$ci_mask" ] || return 1
	ci_last=$(printf '%s' "$ci_mask" | tail -c 1)
	[ $((0x$ci_last & 2)) -ne 0 ]
}

written=0
unwritten=0
for i in $(seq 1 20); do
	out=$tmp/int$i.data
	case $((i % 4)) in
	0) set -- -a ;;
	*) set -- -- "$TARGETS/spin-pie" 30 ;;
	esac
	how=$((i % 3))
	# Its own process group, so that the group signal reaches only it and
	# its command.
	setsid "$PERFMINI" record -q -o "$out" "$@" >"$tmp/int.out" 2>"$tmp/int.err" &
	rpid=$!
	track "$rpid"
	# An asynchronous list of a non-interactive shell starts with SIGINT
	# ignored: a signal before perfmini's handler is lost, not a stop.
	# Counted from the handler, the early runs still fall in its start.
	n=0
	while ! catches_int "$rpid" && [ "$n" -lt 500 ] && alive "$rpid"; do
		n=$((n + 1))
		sleep 0.01
	done
	ms=$(random_below 1500)
	# Every fifth run early, while perfmini starts up.
	[ $((i % 5)) -ne 1 ] || ms=$(random_below 20)
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kids=$(children_of "$rpid")
	case $how in
	0)
		kill -INT "$rpid" 2>/dev/null || :
		what="SIGINT after $ms ms"
		;;
	1)
		kill -INT "$rpid" 2>/dev/null || :
		ms2=$(random_below 300)
		sleep "0.$(printf '%03d' "$ms2")"
		kill -INT "$rpid" 2>/dev/null || :
		what="SIGINT after $ms ms, again $ms2 ms later"
		;;
	2)
		kill -INT "-$rpid" 2>/dev/null || :
		what="SIGINT to the process group after $ms ms"
		;;
	esac
	if ! wait_exit "$rpid" 15; then
		# Where it is stuck, thread by thread, and what its command is doing.
		for t in /proc/"$rpid"/task/*; do
			say "thread ${t##*/}: $(cat "$t/wchan" 2>/dev/null) $(cut -d' ' -f3 "$t/stat" 2>/dev/null)"
		done
		say "its children: $(ps -o pid=,stat=,wchan:20=,args= --ppid "$rpid" 2>/dev/null | tr '\n' ';')"
		say "$(grep -E '^Sig(Pnd|Blk|Cgt)|^ShdPnd' "/proc/$rpid/status" 2>/dev/null | tr '\n' ' ')"
		kill_tree "$rpid" KILL
		fail "run $i ($*): perfmini still running 15 s after $what"
	fi
	rc=0
	wait "$rpid" || rc=$?
	cat "$tmp/int.out" "$tmp/int.err" >&3
	for k in $kids; do
		if ! wait_exit "$k" 5; then
			kill -KILL "$k" 2>/dev/null || :
			fail "run $i ($*): its command (pid $k) still running 5 s after the recorder ended"
		fi
	done
	leftover=$(ls "$out".* 2>/dev/null || :)
	[ -z "$leftover" ] || fail "run $i ($*, $what): left $leftover"
	if [ "$rc" -eq 0 ]; then
		[ -f "$out" ] || fail "run $i ($*, $what): exit 0 but no $out"
		[ ! -s "$tmp/int.err" ] || fail "run $i ($*, $what): printed on stderr with -q"
		rrc=0
		run_timeout 60 "$PERFMINI" report -i "$out" --folded >"$tmp/int.folded" \
			2>"$tmp/int.rerr" || rrc=$?
		if [ "$rrc" -ne 0 ] || [ -s "$tmp/int.rerr" ]; then
			fail "run $i ($*, $what): report of the file exited $rrc: $(cat "$tmp/int.rerr")"
		fi
		say "run $i ($*): $what: exit 0, $(awk '{ n += $NF } END { print n + 0 }' \
			"$tmp/int.folded") samples"
		written=$((written + 1))
	elif [ "$rc" -eq 130 ]; then
		[ ! -e "$out" ] || fail "run $i ($*, $what): ended by SIGINT, yet wrote $out"
		say "run $i ($*): $what: ended by the signal before its handler, no file"
		unwritten=$((unwritten + 1))
	else
		fail "run $i ($*, $what): exit $rc: $(head -c 300 "$tmp/int.err")"
	fi
	rm -f "$out"
done
say "$written complete files, $unwritten runs ended before anything was written"

out=$tmp/ignore.data
# shellcheck disable=SC2016 # for the inner shell
"$PERFMINI" record -q -o "$out" -- sh -c 'trap "" TERM; exec "$0" 30' "$TARGETS/spin-pie" \
	>"$tmp/int.out" 2>"$tmp/int.err" &
rpid=$!
track "$rpid"
sleep 1
kids=$(children_of "$rpid")
for k in $kids; do
	track "$k"
done
kill -INT "$rpid"
stopped=yes
wait_exit "$rpid" 15 || stopped=no
if [ "$stopped" = no ]; then
	say "perfmini is blocked in: $(cat "/proc/$rpid/wchan" 2>/dev/null);" \
		"$(ls "$out"* 2>/dev/null || echo no file yet)"
	for k in $kids; do
		kill -KILL "$k" 2>/dev/null || :
	done
	wait_exit "$rpid" 10 || kill_tree "$rpid" KILL
	fail "a command that ignores SIGTERM: perfmini still running 15 s after SIGINT," \
		"its recording not written"
fi
rc=0
wait "$rpid" || rc=$?
for k in $kids; do
	kill -KILL "$k" 2>/dev/null || :
done
[ "$rc" -eq 0 ] || fail "a command that ignores SIGTERM: exit $rc: $(cat "$tmp/int.err")"
"$PERFMINI" report -i "$out" --folded >/dev/null 2>"$tmp/int.rerr" ||
	fail "a command that ignores SIGTERM: the file does not read back: $(cat "$tmp/int.rerr")"
