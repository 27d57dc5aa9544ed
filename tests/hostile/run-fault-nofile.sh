#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Too many open files. Under a hard limit on file descriptors (ulimit -n,
# soft and hard: perfmini raises its soft limit to the hard one):
#  1. 'record -p' of a process with 64 threads (one event per thread and
#     CPU: more than 16 descriptors) with the limit at 16: exit 1, exactly
#     one line on stderr that says there are too many open files, no data
#     file, no crash, and the process is left running unharmed;
#  2. 'record -a -d 0.2' and 'record -- spin-pie 0.1' with every limit
#     from 4 to 24 (3: only the three standard ones): each run either succeeds (exit 0, nothing on stderr, a
#     file that reads back) or fails cleanly (exit 1, one line on stderr,
#     no data file) before it records: a recording made and then lost
#     because no descriptor is left for the output file fails the test;
#     and it never crashes or hangs: every place that opens a
#     descriptor meets its failure once. A module that could not be read
#     for want of a descriptor says so, never that it has no symbols. (A run that the dynamic loader
#     cannot start, before any of perfmini's code, is let go.)
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_THREADS=$top_builddir/tests/hostile/fault-threads
[ -x "$FAULT_THREADS" ] || fail "no $FAULT_THREADS: build it first (make check)"

need_perf

# limited N ARGS...: runs 'perfmini record -q ARGS' under ulimit -n N, with
# no descriptor open but 0, 1 and 2; sets lm_rc. In a sanitizer build the
# leak checker is off for these runs only: it needs descriptors of its own
# at exit (to list the threads) and fails for want of them, which says
# nothing of perfmini (every other test checks for leaks).
limited() {
	lm_n=$1
	shift
	lm_rc=0
	# shellcheck disable=SC2016 # expanded by the inner shell
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run_timeout 60 sh -c 'n=$1; shift; ulimit -n "$n" && exec "$@"' sh "$lm_n" \
		"$PERFMINI" record -q "$@" >"$tmp/lim.out" 2>"$tmp/lim.err" 3>&- || lm_rc=$?
}

"$FAULT_THREADS" many 64 120 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^fault-threads: ready' 30 ||
	fail "fault-threads did not start: $(cat "$tmp/target.err")"
limited 16 -o "$tmp/many.data" -p "$tpid"
say "record -p of 64 threads under ulimit -n 16: exit $lm_rc: $(head -c 300 "$tmp/lim.err")"
[ "$lm_rc" -ne 124 ] || fail "record -p under ulimit -n 16 hung"
[ "$lm_rc" -lt 128 ] || fail "record -p under ulimit -n 16 was killed by signal $((lm_rc - 128))"
[ "$lm_rc" -eq 1 ] || fail "record -p under ulimit -n 16 exited $lm_rc, want 1"
[ "$(awk 'END { print NR }' "$tmp/lim.err")" -eq 1 ] ||
	fail "record -p under ulimit -n 16: not exactly one line on stderr"
grep -qi 'too many open files' "$tmp/lim.err" ||
	fail "record -p under ulimit -n 16: the error does not say 'too many open files'"
[ ! -e "$tmp/many.data" ] || fail "record -p under ulimit -n 16 left a data file"
alive "$tpid" || fail "the recorded process did not survive: $(cat "$tmp/target.err")"
kill "$tpid"

ok=0
refused=0
lost=
for n in $(seq 4 24); do
	for what in a cmd; do
		rm -f "$tmp/lim.data"
		if [ "$what" = a ]; then
			limited "$n" -o "$tmp/lim.data" -a -d 0.2
		else
			limited "$n" -o "$tmp/lim.data" -- "$TARGETS/spin-pie" 0.1
		fi
		lines=$(awk 'END { print NR }' "$tmp/lim.err")
		case $lm_rc in
		0)
			[ "$lines" -eq 0 ] || fail "$what, ulimit -n $n: exit 0 but stderr: $(cat "$tmp/lim.err")"
			[ -s "$tmp/lim.data" ] || fail "$what, ulimit -n $n: exit 0 but no data file"
			rrc=0
			run_timeout 60 "$PERFMINI" report -i "$tmp/lim.data" --folded >/dev/null \
				2>"$tmp/rep.err" || rrc=$?
			[ "$rrc" -eq 0 ] || fail "$what, ulimit -n $n: the file does not read back:" \
				"$(cat "$tmp/rep.err")"
			# A module left unnamed for want of descriptors says so, not
			# that it has no symbols (spin-pie has a .symtab, libc its
			# debug symbols in libc6-dbg).
			"$PERFMINI" report -i "$tmp/lim.data" >"$tmp/lim.top" 2>&1 || :
			if grep -E '(spin-pie|libc\.so\.6): .*(no symbol table|stripped|gone or unreadable)' \
				"$tmp/lim.top" >"$tmp/lim.false"; then
				fail "$what, ulimit -n $n: a false reason: $(cat "$tmp/lim.false")"
			fi
			ok=$((ok + 1))
			;;
		1)
			[ "$lines" -eq 1 ] || fail "$what, ulimit -n $n: exit 1 with $lines lines on" \
				"stderr: $(head -c 600 "$tmp/lim.err")"
			[ ! -e "$tmp/lim.data" ] || fail "$what, ulimit -n $n: failed, but left a data file"
			say "$what, ulimit -n $n: $(cat "$tmp/lim.err")"
			# Refusing must come before the recording, not after it.
			if grep -Eq "cannot (create|write|rename) '$tmp/lim\.data" "$tmp/lim.err"; then
				lost="$lost $what:$n"
			else
				refused=$((refused + 1))
			fi
			;;
		124) fail "$what, ulimit -n $n: hung" ;;
		127)
			# The dynamic loader, before perfmini runs, needs a descriptor.
			grep -q 'error while loading shared libraries' "$tmp/lim.err" ||
				fail "$what, ulimit -n $n: exit 127: $(head -c 600 "$tmp/lim.err")"
			say "$what, ulimit -n $n: the loader could not start perfmini"
			;;
		*)
			fail "$what, ulimit -n $n: exit $lm_rc: $(head -c 600 "$tmp/lim.err")"
			;;
		esac
	done
done
say "$ok recordings made under a low limit, $refused refused cleanly"
[ -z "$lost" ] || fail "recordings made, then lost for want of a descriptor for the output file" \
	"(the pinned modules took them all) at (what:limit):$lost"
[ "$refused" -gt 0 ] || fail "no limit from 4 to 24 made a recording fail: the test proves nothing"
