#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Failures and stops. Every error must exit non-zero without a crash (an
# exit status below 128, no time-out) and explain itself in exactly one
# line on stderr:
#   report: a missing file, an empty file, random bytes, random bytes
#     behind the magic, a newer version, a real recording cut before its
#     first chunk ended (cut later, it reads with one warning);
#   record: a process that does not exist ("no such process"), a command
#     that does not exist, an unknown event (non-zero; usage may follow);
#     a failed record leaves no data file.
# And what must work: the data file is created 0600 even under umask 0;
# SIGINT or SIGTERM to the recorder of a long command, or -d, stops it
# within a few seconds with exit 0 and a file holding every sample the
# recorder counted.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

# expect_error WHAT PATTERN CMD...: CMD must fail cleanly with one line on
# stderr that matches the extended regex PATTERN (case-insensitive; ""
# for any). If ee_keep names a file, it is kept beside the log on failure.
ee_keep=
expect_error() {
	ee_what=$1
	ee_pat=$2
	shift 2
	ee_rc=0
	run_timeout 30 "$@" >"$tmp/err.out" 2>"$tmp/err.err" || ee_rc=$?
	ee_lines=$(awk 'END { print NR }' "$tmp/err.err")
	say "$ee_what: exit $ee_rc, stderr: $(head -c 300 "$tmp/err.err")"
	if [ "$ee_rc" -eq 0 ]; then
		ee_fail "exit status 0 ($*)"
	elif [ "$ee_rc" -eq 124 ]; then
		ee_fail "hung ($*)"
	elif [ "$ee_rc" -ge 128 ]; then
		ee_fail "killed by signal $((ee_rc - 128)) ($*)"
	elif [ "$ee_lines" -ne 1 ]; then
		ee_fail "$ee_lines lines on stderr, want 1 ($*)"
	elif ! grep -q . "$tmp/err.err"; then
		ee_fail "empty error line ($*)"
	elif [ -n "$ee_pat" ] && ! grep -Eqi "$ee_pat" "$tmp/err.err"; then
		ee_fail "stderr does not say /$ee_pat/ ($*)"
	fi
}

ee_fail() {
	if [ -n "$ee_keep" ] && [ -f "$ee_keep" ]; then
		cp "$ee_keep" "$top_builddir/tests/$test_name.failed-input"
		say "the input is kept as tests/$test_name.failed-input"
	fi
	fail "$ee_what: $*"
}

# report_error WHAT FILE: perfmini report must refuse FILE cleanly.
report_error() {
	ee_keep=$2
	expect_error "$1" "" "$PERFMINI" report -i "$2" --folded
	ee_keep=
}

# Report errors, which need no perf events.
expect_error "report of a missing file" "" \
	"$PERFMINI" report -i "$tmp/nonexistent.data" --folded
: >"$tmp/empty.data"
report_error "report of an empty file" "$tmp/empty.data"
head -c 65536 /dev/urandom >"$tmp/random.data"
report_error "report of random bytes" "$tmp/random.data"
{
	printf 'PERFMINI\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
	head -c 65536 /dev/urandom
} >"$tmp/random2.data"
report_error "report of random bytes after a valid header" "$tmp/random2.data"
printf 'PERFMINI\143\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' \
	>"$tmp/version99.data"
report_error "report of a version 99 file" "$tmp/version99.data"

need_perf

# Record errors.
expect_error "record -p of a process that does not exist" "no such process" \
	"$PERFMINI" record -q -o "$tmp/nopid.data" -p 999999999
[ ! -e "$tmp/nopid.data" ] || fail "record -p 999999999 left $tmp/nopid.data"
expect_error "record of a command that does not exist" "" \
	"$PERFMINI" record -q -o "$tmp/nocmd.data" -- "$tmp/nonexistent/cmd"
[ ! -e "$tmp/nocmd.data" ] || fail "record of a missing command left $tmp/nocmd.data"
rc=0
run_timeout 30 "$PERFMINI" record -q -e bogus -o "$tmp/bogus.data" -- true \
	>"$tmp/bogus.out" 2>"$tmp/bogus.err" || rc=$?
say "record -e bogus: exit $rc, stderr: $(head -c 300 "$tmp/bogus.err")"
if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
	fail "record -e bogus: exit $rc, want 1..123"
fi
grep -q bogus "$tmp/bogus.err" || fail "record -e bogus: the error does not name 'bogus'"
[ ! -e "$tmp/bogus.data" ] || fail "record -e bogus left $tmp/bogus.data"

# The file's mode, whatever the umask.
old_umask=$(umask)
umask 0
run_record 60 "$tmp/mode.data" -- "$TARGETS/spin-pie" 0.3
umask "$old_umask"
mode=$(stat -c %a "$tmp/mode.data")
say "mode of a data file written under umask 0: $mode"
[ "$mode" = 600 ] || fail "the data file has mode $mode, want 600"

# Truncated recordings: cut before the end of the first chunk, refused;
# after it, read as cut short, with one warning that says so and where.
size=$(stat -c %s "$tmp/mode.data")
for cut in 100 24 23 8; do
	head -c "$cut" "$tmp/mode.data" >"$tmp/cut.data"
	report_error "report of the first $cut of $size bytes" "$tmp/cut.data"
done
for cut in $((size / 2)) $((size - 1)); do
	head -c "$cut" "$tmp/mode.data" >"$tmp/cut.data"
	rc=0
	"$PERFMINI" report -i "$tmp/cut.data" --folded >/dev/null 2>"$tmp/cut.err" || rc=$?
	say "report of the first $cut of $size bytes: exit $rc, stderr: $(cat "$tmp/cut.err")"
	[ "$rc" -eq 0 ] || fail "a file cut short at $cut of $size bytes is not read"
	if [ "$(awk 'END { print NR }' "$tmp/cut.err")" -ne 1 ] ||
		! grep -Eq "cut short at offset [0-9]+" "$tmp/cut.err"; then
		fail "a file cut short at $cut of $size bytes is not said to be"
	fi
done

# stop_check HOW: records 'spin-pie 30' (30 CPU seconds) without -q and
# stops the recorder with HOW: a signal, sent once the command has used
# 0.6 s of CPU time, or -d 1. It must exit 0 within 5 s of the signal (6 s
# of its start with -d 1), and the file must hold as many samples as the
# recorder's summary line counted, at least MIN of them (200 after a
# signal; with -d 1, whose CPU time a loaded machine may cut, 20), and
# >= 90% of them in spin_hot.
stop_check() {
	if [ "$1" = d ]; then
		sc_how="-d 1"
		sc_min=20
		sc_wait=6
		set -- -d 1
	else
		sc_how="SIG$1"
		sc_min=200
		sc_wait=5
		set --
	fi
	"$PERFMINI" record "$@" -o "$tmp/stop.data" -- "$TARGETS/spin-pie" 30 \
		>"$tmp/stop.out" 2>"$tmp/stop.err" &
	sc_pid=$!
	track "$sc_pid"
	sc_child=
	sc_n=100
	while [ -z "$sc_child" ] && [ "$sc_n" -gt 0 ] && alive "$sc_pid"; do
		sleep 0.1
		sc_n=$((sc_n - 1))
		sc_child=$(children_of "$sc_pid")
	done
	[ -n "$sc_child" ] || fail "perfmini record -- spin-pie 30 started no command"
	if [ "$sc_how" != "-d 1" ]; then
		wait_cpu "$sc_child" 6 30 || fail "spin-pie did not get 0.6 s of CPU in 30 s"
		kill "-${sc_how#SIG}" "$sc_pid"
	fi
	if ! wait_exit "$sc_pid" "$sc_wait"; then
		kill_tree "$sc_pid" KILL
		fail "perfmini record did not stop within $sc_wait s of $sc_how"
	fi
	sc_rc=0
	wait "$sc_pid" || sc_rc=$?
	cat "$tmp/stop.err" >&3
	for sc_c in $sc_child; do
		if alive "$sc_c"; then
			say "note: spin-pie (pid $sc_c) still runs after the recorder exited; killed"
			kill -KILL "$sc_c" 2>/dev/null || :
		fi
	done
	[ "$sc_rc" -eq 0 ] || fail "perfmini record stopped by $sc_how exited $sc_rc"
	run_report "$tmp/stop.data" "$tmp/stop.folded"
	sc_counted=$(sed -n 's/^perfmini: \([0-9][0-9]*\) samples,.*/\1/p' "$tmp/stop.err")
	[ -n "$sc_counted" ] || fail "no 'perfmini: N samples, ...' summary after $sc_how"
	# shellcheck disable=SC2046 # split into its fields on purpose
	set -- $(leaf_share "$tmp/stop.folded" spin_hot spin-pie)
	sc_total=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/stop.folded")
	say "stopped by $sc_how: $sc_total samples in the file (spin_hot leaf in $1 of the" \
		"$2 of spin-pie), $sc_counted counted by the recorder"
	[ "$sc_total" -eq "$sc_counted" ] ||
		fail "after $sc_how the file has $sc_total samples, the recorder counted $sc_counted"
	[ "$2" -ge "$sc_min" ] || fail "after $sc_how only $2 samples of spin-pie (want >= $sc_min)"
	if ! awk -v m="$1" -v t="$2" 'BEGIN { exit !(100 * m >= 90 * t) }'; then
		say "the heaviest stacks were:"
		top_stacks "$tmp/stop.folded" 10 >&3
		fail "after $sc_how only $1 of $2 spin-pie samples are in spin_hot"
	fi
}
stop_check INT
stop_check TERM
stop_check d
