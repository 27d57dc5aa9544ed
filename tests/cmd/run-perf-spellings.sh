#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# perf's spellings of what perfmini does, each on a real recording:
#   record -e sched:sched_switch, -e syscalls:sys_enter_write (where
#       tracefs has it): tracepoints as sampling events, each hit a
#       sample; perfmini records perf recording tpcalls, so both see the
#       same run: as many samples of tpcalls as perf has, and the 50
#       sleeps (300 writes) under tp_sleep (tp_write);
#   record -e cpu-clock:k on sym-syscall: every sample's innermost frame
#       is the kernel's; -e cpu-clock:u on sym-syscall: no kernel frame,
#       and about as many samples as perf -e cpu-clock:u takes (both
#       against the same run), well under the unmodified event's;
#   record -F max: the frequency is kernel.perf_event_max_sample_rate
#       (recorded where that is 20000 or less, else only taken);
#   report -s KEYS, report --stdio, perfmini script, perfmini annotate
#       (on the :k and :u recordings):
#       what report --sort KEYS, report, report --script (--json) and
#       report --annotate=FUNCTION print;
#   a perf option perfmini does not have: one line that names it and
#       what to use instead, exit 2; so do a bad modifier and a missing
#       tracepoint.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

command -v perf >/dev/null || fail "no perf (scripts/deps.sh installs linux-perf)"
for t in tpcalls sym-syscall spin-pie; do
	[ -x "$TARGETS/$t" ] || fail "no $TARGETS/$t: build it first (make check)"
done
need_perf

# samples DATA COMM [FRAME]: the samples of thread name COMM (whose stack has FRAME).
samples() {
	"$PERFMINI" report -i "$1" --comm "$2" --folded 2>&3 |
		awk -v f="${3-}" 'f == "" || index($0, ";" f ";") { n += $NF } END { print n + 0 }'
}

# perf_samples DATA COMM: the samples of COMM in perf's recording.
perf_samples() {
	perf script -i "$1" -F comm 2>/dev/null | awk -v c="$2" '$1 == c { n++ } END { print n + 0 }'
}

# One message line (and the pointer to --help), exit 2: usage_error WANT ARGS...
usage_error() {
	ue_want=$1
	shift
	ue_rc=0
	"$PERFMINI" "$@" >/dev/null 2>"$tmp/usage.err" || ue_rc=$?
	[ "$ue_rc" -eq 2 ] || fail "perfmini $* exited $ue_rc, not 2"
	grep -v "^Try 'perfmini [a-z]* --help'" "$tmp/usage.err" >"$tmp/usage.said" || :
	[ "$(wc -l <"$tmp/usage.said")" -eq 1 ] || fail "perfmini $* did not say one line"
	grep -q -e "$ue_want" "$tmp/usage.said" ||
		fail "perfmini $* said '$(cat "$tmp/usage.said")', not /$ue_want/"
	say "perfmini $*: $(cat "$tmp/usage.said")"
}

# Tracepoints: perfmini and perf sample the same run of tpcalls.
tracepoint() {
	tp_event=$1 tp_mode=$2 tp_n=$3 tp_frame=$4
	run_record 60 "$tmp/tp.data" -e "$tp_event" -- perf record -q -g -e "$tp_event" \
		-o "$tmp/tp.perf" -- "$TARGETS/tpcalls" "$tp_mode" "$tp_n"
	ours=$(samples "$tmp/tp.data" tpcalls)
	under=$(samples "$tmp/tp.data" tpcalls "$tp_frame")
	theirs=$(perf_samples "$tmp/tp.perf" tpcalls)
	say "-e $tp_event: $ours samples of tpcalls ($under under $tp_frame), perf $theirs"
	[ "$ours" -eq "$theirs" ] || fail "-e $tp_event: $ours samples of tpcalls, perf has $theirs"
	[ "$under" -ge "$tp_n" ] || fail "-e $tp_event: $under samples under $tp_frame, not $tp_n"
	"$PERFMINI" report -i "$tmp/tp.data" | grep -q "^Event: *$tp_event, one sample every 1 " ||
		fail "-e $tp_event: the header does not say each hit was sampled"
}
tracepoint sched:sched_switch sleep 50 tp_sleep
if [ -e /sys/kernel/tracing/events/syscalls/sys_enter_write ] ||
	[ -e /sys/kernel/debug/tracing/events/syscalls/sys_enter_write ]; then
	tracepoint syscalls:sys_enter_write write 300 tp_write
	[ "$under" -eq 300 ] || fail "-e syscalls:sys_enter_write: $under writes in tp_write, not 300"
else
	say "this kernel's tracefs has no syscalls:sys_enter_write: not tried"
fi
usage_error "sched:no_such_thing: no such tracepoint" record -e sched:no_such_thing -- true
usage_error "'cpu-clock:p' is not a known event" record -e cpu-clock:p -- true

# Modifiers: sym-syscall spends most of its time in the kernel, reading.
run_record 60 "$tmp/k.data" -e cpu-clock:k -- "$TARGETS/sym-syscall" 0.5
"$PERFMINI" report -i "$tmp/k.data" --folded >"$tmp/k.folded" 2>&3
awk '{ n += $NF; stack = $0; sub(/ [0-9]+$/, "", stack)
	if (stack !~ /_\[k\]$/) { user += $NF; if (!shown++) print } }
	END { print user + 0, n + 0 > "/dev/stderr" }' "$tmp/k.folded" >&3 2>"$tmp/k.count"
read -r k_user k_all <"$tmp/k.count"
say "-e cpu-clock:k: $k_user of $k_all samples with a user leaf"
if [ "$k_all" -lt 100 ] || [ "$k_user" -ne 0 ]; then
	fail "-e cpu-clock:k: $k_user of $k_all samples in user code"
fi
"$PERFMINI" report -i "$tmp/k.data" | grep -q '^Event: *cpu-clock:k,' ||
	fail "-e cpu-clock:k: the header does not name the event so"

# :u against perf :u on one run (perfmini records perf recording sym-syscall).
run_record 60 "$tmp/u.data" -e cpu-clock:u -- perf record -q -F 999 -e cpu-clock:u -o "$tmp/u.perf" \
	-- "$TARGETS/sym-syscall" 1
u_ours=$(samples "$tmp/u.data" sym-syscall)
u_perf=$(perf_samples "$tmp/u.perf" sym-syscall)
u_kernel=$("$PERFMINI" report -i "$tmp/u.data" --folded | grep -c '_\[k\]' || :)
say "-e cpu-clock:u: $u_ours samples of sym-syscall, perf $u_perf; $u_kernel stacks with kernel frames"
[ "$u_kernel" -eq 0 ] || fail "-e cpu-clock:u: $u_kernel stacks have kernel frames"
[ "$u_ours" -lt $((k_all / 2)) ] || fail "-e cpu-clock:u: $u_ours samples, as many as the kernel's $k_all"
awk -v a="$u_ours" -v b="$u_perf" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 10 + b / 4) }' ||
	fail "-e cpu-clock:u: $u_ours samples against perf's $u_perf"

# -F max: the kernel's highest rate, read before and after (the kernel may
# lower it). Above 20000 Hz a recording here spends tens of seconds in the
# kernel however short its command (as -F 100000 does): then -F max is
# only shown to be taken, by the option checks that follow the parse.
max_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
if [ "$max_before" -le 20000 ]; then
	run_record 60 "$tmp/max.data" -F max -- "$TARGETS/tpcalls" write 10
	max_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	hz=$("$PERFMINI" report -i "$tmp/max.data" |
		sed -n 's/^Event: *cpu-clock, \([0-9]*\) samples per second.*/\1/p')
	say "-F max: $hz samples per second (kernel.perf_event_max_sample_rate $max_before, then $max_after)"
	[ "$hz" = "$max_before" ] || [ "$hz" = "$max_after" ] ||
		fail "-F max: $hz per second, not kernel.perf_event_max_sample_rate ($max_before)"
else
	say "-F max: kernel.perf_event_max_sample_rate is $max_before: not recorded at it"
	usage_error "off-cpu-only takes no CPU samples" record -F max --off-cpu-only -- true
fi
usage_error "'fast' is not a frequency from 1 to 1000000, or max" record -F fast -- true

# same WHAT FILE_A FILE_B: the two outputs are the same.
same() {
	cmp -s "$2" "$3" || fail "$1 differs: $(diff "$2" "$3" | head -n 4 | tr '\n' ' ')"
}
report() {
	"$PERFMINI" "$@" 2>&3 || fail "perfmini $* exited $?"
}
d=$tmp/k.data
report report -i "$d" -s comm,symbol >"$tmp/a"
report report -i "$d" --sort comm,symbol >"$tmp/b"
same "report -s comm,symbol against --sort comm,symbol" "$tmp/a" "$tmp/b"
report report -i "$d" --stdio >"$tmp/a"
report report -i "$d" >"$tmp/b"
same "report --stdio against report" "$tmp/a" "$tmp/b"
report report -i "$d" --stdio -g callee >"$tmp/a"
report report -i "$d" --tree -g callee >"$tmp/b"
same "report --stdio -g callee against report --tree -g callee" "$tmp/a" "$tmp/b"
report script -i "$d" >"$tmp/a"
report report -i "$d" --script >"$tmp/b"
[ -s "$tmp/a" ] || fail "perfmini script printed nothing"
same "perfmini script against report --script" "$tmp/a" "$tmp/b"
report script -i "$d" --json --comm sym-syscall >"$tmp/a"
report report -i "$d" --json --comm sym-syscall >"$tmp/b"
same "perfmini script --json against report --json" "$tmp/a" "$tmp/b"
report annotate -i "$tmp/u.data" syscall_hot >"$tmp/a"
report report -i "$tmp/u.data" --annotate=syscall_hot >"$tmp/b"
grep -q '^Function: syscall_hot' "$tmp/a" || fail "perfmini annotate syscall_hot does not annotate it"
same "perfmini annotate syscall_hot against report --annotate=syscall_hot" "$tmp/a" "$tmp/b"
report annotate -i "$tmp/u.data" --stdio -s syscall_hot >"$tmp/a"
same "perfmini annotate --stdio -s syscall_hot against report --annotate" "$tmp/a" "$tmp/b"
usage_error "unexpected argument 'b'" annotate -i "$d" a b
usage_error "option '--diff' is unknown" script -i "$d" --diff "$d"

# perf's options that perfmini has not: what to use instead.
usage_error "--tui is perf's, not perfmini report's: .*--tree" report -i "$d" --tui
usage_error "-G is perf's, not perfmini report's: -g caller" report -i "$d" -G
usage_error "-F is perf's, not perfmini script's: .*--json" script -i "$d" -F ip,sym
usage_error "--print-line is perf's, not perfmini annotate's" annotate -i "$d" --print-line
usage_error "-b is perf's, not perfmini record's: .*--call-graph" record -b -- true
