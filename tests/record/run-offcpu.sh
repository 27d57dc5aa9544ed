#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Off-CPU spans (record --off-cpu): the waits target measures itself how
# long each thread spends blocked in nanosleep, in a pipe read and on a
# mutex; the off-CPU time 'report --sample-type=off-cpu' gives each of
# those stacks, with the waiting function (sleep_wait, pipe_wait,
# mutex_wait) as the C library's caller on it, must match within 10%
# (+5 ms), and per thread the wall
# view (CPU periods plus off-CPU time) must add up to the thread's life
# within 15% (+20 ms), for the waiting threads and the CPU-bound one. The
# default report stays a CPU profile: no stack of it counts nanoseconds.
# On one CPU (taskset -c 0) the threads also preempt one another:
# --off-cpu-state=blocked must still give each wait as measured, the
# spinner no blocked time but some preempted, blocked plus preempted the
# whole, and the record summary must count the threads the report has.
# A recording without --off-cpu says so (warning, Off-CPU: header line)
# when its off-CPU view is asked for, and a wall diff against it as base
# is refused with one line, exit 1. And the recorder's memory does not
# grow with the number of spans (pingpong, 50,000 against 400,000 rounds).
# --off-cpu-only records the spans alone, and --no-kernel keeps them with
# user frames only: see below.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 120 "$tmp/w.data" --off-cpu -- "$TARGETS/waits" 40
cp "$tmp/record.out" "$tmp/truth"
for t in off-cpu wall; do
	run_timeout 60 "$PERFMINI" report -i "$tmp/w.data" --folded --sample-type=$t \
		>"$tmp/$t.folded" || fail "report --sample-type=$t failed"
done
run_report "$tmp/w.data" "$tmp/cpu.folded"

# near GOT WANT SLACK_PERCENT SLACK_NS WHAT
near() {
	awk -v got="$1" -v want="$2" -v pc="$3" -v abs="$4" 'BEGIN {
		d = got - want; if (d < 0) d = -d
		exit !(want > 0 && d <= want * pc / 100 + abs)
	}' || fail "$5: got $1 ns, want $2 ns (within $3% + $4 ns)"
	say "$5: $1 ns, measured $2 ns"
}

# truth FILE KIND NAME: what the waits target printed in FILE for NAME.
truth() {
	awk -v k="$2" -v n="$3" '$1 == k && $2 == n { print $3 }' "$1"
}

# sum FOLDED THREAD INCLUDE EXCLUDE: the counts of THREAD's stacks (every
# thread's when empty) that match the regex INCLUDE and not EXCLUDE.
sum() {
	awk -v th="$2" -v inc="$3" -v exc="$4" '
		(th == "" || index($0, th ";") == 1) && $0 ~ inc && (exc == "" || $0 !~ exc) { s += $NF }
		END { printf "%.0f\n", s }' "$1"
}

# check_waits FOLDED TRUTH WHAT: each wait the target measured (in TRUTH)
# is on its function's stack in FOLDED for as long.
check_waits() {
	near "$(sum "$1" sleeper ';sleep_wait;[^ ]*nanosleep' 'work_cpu')" \
		"$(truth "$2" wait sleep_wait)" 10 5000000 "${3}sleeper blocked in sleep_wait's nanosleep"
	near "$(sum "$1" reader ';pipe_wait;(__libc_)?read[;_ ]' 'work_cpu')" \
		"$(truth "$2" wait pipe_wait)" 10 5000000 "${3}reader blocked on the pipe in pipe_wait"
	near "$(sum "$1" locker ';mutex_wait;[^ ]*lock_wait' 'work_cpu')" \
		"$(truth "$2" wait mutex_wait)" 10 5000000 "${3}locker blocked on the mutex in mutex_wait"
}

check_waits "$tmp/off-cpu.folded" "$tmp/truth" ""
for th in sleeper reader locker spinner; do
	near "$(sum "$tmp/wall.folded" $th '' '')" "$(truth "$tmp/truth" life $th)" 15 20000000 \
		"$th: CPU plus off-CPU time against its life"
done
# The CPU-bound thread is off the CPU only when preempted: not in a wait.
[ "$(sum "$tmp/off-cpu.folded" spinner 'nanosleep|;(__libc_)?read[;_ ]|lock_wait' '')" -eq 0 ] ||
	fail "spinner has off-CPU time in a wait it never makes"
# The default view counts samples: far fewer than the nanoseconds slept.
cpu=$(sum "$tmp/cpu.folded" sleeper '' '')
if [ "$cpu" -le 0 ] || [ "$cpu" -ge 100000 ]; then
	fail "the default report of sleeper counts $cpu, not samples"
fi
# pprof names the view's sample type; every format takes the option.
run_timeout 60 "$PERFMINI" report -i "$tmp/w.data" --pprof --sample-type=off-cpu \
	-o "$tmp/w.pb.gz" 2>/dev/null || fail "report --pprof --sample-type=off-cpu failed"
gzip -dc "$tmp/w.pb.gz" | grep -aq off-cpu || fail "the pprof profile has no off-cpu sample type"
for f in --top --svg; do
	run_timeout 60 "$PERFMINI" report -i "$tmp/w.data" $f --sample-type=wall -o "$tmp/w.out" \
		2>/dev/null || fail "report $f --sample-type=wall failed"
done
# Time reads as time: top in milliseconds, the SVG's hover and subtitle too.
run_timeout 60 "$PERFMINI" report -i "$tmp/w.data" --sample-type=off-cpu -o "$tmp/oc.top" \
	2>/dev/null || fail "report --sample-type=off-cpu failed"
grep -q '^Weight: .* ms off CPU' "$tmp/oc.top" || fail "top: no Weight line in ms"
grep -q 'Self ms  *Total ms' "$tmp/oc.top" || fail "top: the columns are not in ms"
run_timeout 60 "$PERFMINI" report -i "$tmp/w.data" --sample-type=off-cpu --svg -o "$tmp/oc.svg" \
	2>/dev/null || fail "report --svg --sample-type=off-cpu failed"
if ! grep -q 'data-unit="ns"' "$tmp/oc.svg" || ! grep -q 'ms off CPU' "$tmp/oc.svg"; then
	fail "svg: the off-CPU graph does not say its unit"
fi
say "off-CPU top and SVG in milliseconds"

# Blocked or preempted, on one CPU. Not run through run_record: the
# summary line (no -q) is checked too.
run_timeout 120 "$PERFMINI" record -o "$tmp/p.data" --off-cpu -- taskset -c 0 "$TARGETS/waits" 20 \
	>"$tmp/ptruth" 2>"$tmp/p.err" || fail "record --off-cpu -- taskset -c 0 waits failed"
cat "$tmp/p.err" >&3
for st in any blocked preempted sleeping runnable; do
	run_timeout 60 "$PERFMINI" report -i "$tmp/p.data" --folded --sample-type=off-cpu \
		--off-cpu-state=$st >"$tmp/p-$st.folded" || fail "report --off-cpu-state=$st failed"
done
check_waits "$tmp/p-blocked.folded" "$tmp/ptruth" "one CPU: "
spun=$(sum "$tmp/p-preempted.folded" spinner '' '')
[ "$(sum "$tmp/p-blocked.folded" spinner '' '')" -le 5000000 ] ||
	fail "one CPU: the spinner, which never waits, has blocked time"
[ "$spun" -gt 0 ] || fail "one CPU: the spinner was never preempted"
say "one CPU: spinner preempted $spun ns"
for th in sleeper reader locker spinner; do
	all=$(sum "$tmp/p-any.folded" $th '' '')
	parts=$(($(sum "$tmp/p-blocked.folded" $th '' '') + $(sum "$tmp/p-preempted.folded" $th '' '')))
	[ "$all" -eq "$parts" ] || fail "$th: blocked plus preempted is $parts ns, all $all ns"
	parts=$(($(sum "$tmp/p-sleeping.folded" $th '' '') + $(sum "$tmp/p-runnable.folded" $th '' '')))
	[ "$all" -eq "$parts" ] || fail "$th: sleeping plus runnable is $parts ns, all $all ns"
done
run_timeout 60 "$PERFMINI" report -i "$tmp/p.data" --sample-type=off-cpu -o "$tmp/p.top" \
	2>/dev/null || fail "report --sample-type=off-cpu failed"
sed -n '/^Off-CPU:/,/^[A-Z]/p' "$tmp/p.top" | tr -s ' \n' '  ' |
	grep -q '^Off-CPU: .* ms sleeping .* ms runnable .* ms blocked, .* ms preempted' ||
	fail "top: no Off-CPU line with sleeping, runnable, blocked and preempted time"
# The summary counts every thread the wall view has (those that only waited too).
threads=$(run_timeout 60 "$PERFMINI" report -i "$tmp/p.data" --folded --per-tid \
	--sample-type=wall | cut -d';' -f1 | sort -u | wc -l)
grep -q "1 process, $threads threads in" "$tmp/p.err" ||
	fail "the record summary does not count the $threads threads: $(cat "$tmp/p.err")"
say "one CPU: blocked and preempted apart; $threads threads counted"

# --off-cpu-only: the spans alone, no CPU samples. Its view is off-CPU
# time by default, every wait as measured; a CPU or wall view and
# --annotate are refused in one line, exit 1; --script and --json list
# the spans, whose periods add up to the folded view's time.
run_timeout 120 "$PERFMINI" record -o "$tmp/o.data" --off-cpu-only -- "$TARGETS/waits" 20 \
	>"$tmp/otruth" 2>"$tmp/o.err" || fail "record --off-cpu-only failed: $(cat "$tmp/o.err")"
cat "$tmp/o.err" >&3
grep -q '^perfmini: [0-9]* off-CPU spans, ' "$tmp/o.err" || fail "the summary counts no spans"
run_timeout 60 "$PERFMINI" report -i "$tmp/o.data" --folded >"$tmp/o.folded" ||
	fail "report --folded of an --off-cpu-only recording failed"
check_waits "$tmp/o.folded" "$tmp/otruth" "--off-cpu-only: "
run_timeout 60 "$PERFMINI" report -i "$tmp/o.data" -o "$tmp/o.top" 2>/dev/null ||
	fail "report --top of an --off-cpu-only recording failed"
grep -q '^Event: *none: off-CPU spans only' "$tmp/o.top" || fail "top: the Event line is not spans only"
grep -q '^Spans: *[1-9]' "$tmp/o.top" || fail "top: no Spans line"
for a in --sample-type=cpu --sample-type=wall --annotate; do
	rc=0
	"$PERFMINI" report -i "$tmp/o.data" $a >/dev/null 2>"$tmp/oa.err" || rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/oa.err")" -ne 1 ] ||
		! grep -q 'recorded with --off-cpu-only' "$tmp/oa.err"; then
		fail "report $a of an --off-cpu-only recording: exit $rc, $(cat "$tmp/oa.err")"
	fi
done
# script_sum DATA ARGS...: the periods --script lists, added up.
script_sum() {
	ss_data=$1
	shift
	run_timeout 60 "$PERFMINI" report -i "$ss_data" --script "$@" |
		awk -F'\t' '{ split($1, f, " "); s += f[5] } END { printf "%.0f\n", s }'
}
[ "$(script_sum "$tmp/o.data")" -eq "$(sum "$tmp/o.folded" '' '' '')" ] ||
	fail "--script's spans add up to $(script_sum "$tmp/o.data") ns, the folded view to $(sum "$tmp/o.folded" '' '' '')"
[ "$(script_sum "$tmp/w.data" --sample-type=wall)" -eq "$(sum "$tmp/wall.folded" '' '' '')" ] ||
	fail "--script --sample-type=wall does not add up to the wall view"
if run_timeout 60 "$PERFMINI" report -i "$tmp/o.data" --json | grep -qv '"off_cpu":true,'; then
	fail "--json of an --off-cpu-only recording has a line that is not a span"
fi
say "--off-cpu-only: every wait as measured; script and json list the spans"

# --no-kernel leaves the kernel's frames out of the spans' stacks, not the
# spans: threads are switched out in the kernel.
run_record 120 "$tmp/nk.data" --off-cpu --no-kernel -- "$TARGETS/waits" 20
cp "$tmp/record.out" "$tmp/nktruth"
run_timeout 60 "$PERFMINI" report -i "$tmp/nk.data" --folded --sample-type=off-cpu \
	>"$tmp/nk.folded" || fail "report of --off-cpu --no-kernel failed"
! grep -q '_\[k\]' "$tmp/nk.folded" || fail "--no-kernel: kernel frames in the off-CPU stacks"
check_waits "$tmp/nk.folded" "$tmp/nktruth" "--no-kernel: "

# A recording without --off-cpu: its off-CPU view says there is nothing to
# show (stderr and the header), and an off-CPU diff against it is refused.
run_record 60 "$tmp/n.data" -- "$TARGETS/waits" 5
rc=0
"$PERFMINI" report -i "$tmp/n.data" --sample-type=off-cpu >"$tmp/n.top" 2>"$tmp/n.err" || rc=$?
[ "$rc" -eq 0 ] || fail "report --sample-type=off-cpu of a plain recording exited $rc: $(cat "$tmp/n.err")"
grep -q 'recorded without --off-cpu' "$tmp/n.err" ||
	fail "report --sample-type=off-cpu of a plain recording says nothing: $(cat "$tmp/n.err")"
grep -q '^Off-CPU: *not recorded' "$tmp/n.top" || fail "the header does not say off-CPU was not recorded"
rc=0
"$PERFMINI" report -i "$tmp/w.data" --diff "$tmp/n.data" --sample-type=wall --folded \
	>/dev/null 2>"$tmp/nd.err" || rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/nd.err")" -ne 1 ] ||
	! grep -q 'recorded without --off-cpu' "$tmp/nd.err"; then
	fail "a wall diff against a plain base: exit $rc, $(cat "$tmp/nd.err")"
fi
say "without --off-cpu: $(cat "$tmp/nd.err")"

# Spans go to the file as they come: a recording of 8 times the rounds of
# a pipe ping-pong (two spans a round) holds no more memory at its peak
# than one of 1 time, within 8 MiB, while the extra spans would take 24
# bytes or more each (16 MiB and up) if they were kept. Small rings (-m
# 16), so that the rings' pages, touched as they fill, do not count, and
# no source lines (whose reading at the stop varies by some MiB from run
# to run); not compared in a sanitizer build, whose allocator keeps what
# is freed.
peak() {
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "rc=%d" % rc)
' "$tmp/peak.err" "$PERFMINI" record -q --off-cpu --no-lines -m 16 -o "$tmp/pp.data" -- \
		"$TARGETS/pingpong" "$1"
}
# The least of three peaks of each size, taken in turn: one recording's
# peak is now and then several MiB above the others' (the time-ordering
# queue and the naming thread's heap at the moment of the peak, on a
# machine running other tests), which the least leaves out; kept spans
# would raise every peak of the larger size.
small=
big=
for _ in 1 2 3; do
	s=$(peak 50000)
	b=$(peak 400000)
	case $s$b in
	*[!0-9]*) fail "record --off-cpu of pingpong failed ($s, $b): $(cat "$tmp/peak.err")" ;;
	esac
	say "pingpong: peak $s KiB at 50,000 rounds, $b KiB at 400,000"
	if [ -z "$small" ] || [ "$s" -lt "$small" ]; then small=$s; fi
	if [ -z "$big" ] || [ "$b" -lt "$big" ]; then big=$b; fi
done
say "pingpong: least peaks $small KiB at 50,000 rounds, $big KiB at 400,000"
if ldd "$PERFMINI" 2>/dev/null | grep -q 'libasan'; then
	say "a sanitizer build: the peaks are not compared"
elif [ "$big" -gt $((small + 8192)) ]; then
	fail "the recorder grew from $small to $big KiB with the rounds: spans are kept in memory"
fi
