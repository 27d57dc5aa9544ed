# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# lib.sh - what the tests/STAGE/run-*.sh scripts share; sourced, never run.
#
# Under 'make check' a test runs with the top build directory as its
# current directory and with srcdir exported by automake's harness; run by
# hand, it works the same from the top build directory:
#	cd BUILDDIR && sh SRCDIR/tests/record/run-spin-pie.sh
#
# Environment:
#	srcdir        the top source directory (default: the script's ../..)
#	top_builddir  the top build directory (default: the current directory)
#	CI            when "true", a test that would be skipped fails instead
#
# Messages for the log go to fd 3 (the test's stderr as it was when this
# file was sourced), so they are not mixed into files a test redirects
# stderr into.
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip.

exec 3>&2

test_name=$(basename "$0" .sh)
: "${srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
top_builddir=$(cd "${top_builddir:-.}" && pwd)
PERFMINI=$top_builddir/perfmini
# The Python checkers run from the source tree: no __pycache__ left in it.
export PYTHONDONTWRITEBYTECODE=1
# shellcheck disable=SC2034 # for the tests that source this file
TARGETS=$top_builddir/tests/targets
ncpus=$(getconf _NPROCESSORS_ONLN)

say() {
	echo "$test_name: $*" >&3
}

fail() {
	echo "FAIL: $test_name: $*" >&3
	exit 1
}

# A test skips only where perf events are not permitted; CI wants them.
skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $test_name: perf events are required in CI (CI=true), but $*" >&3
		exit 1
	fi
	echo "SKIP: $test_name: $*" >&3
	exit 77
}

[ -x "$PERFMINI" ] || fail "no perfmini in $top_builddir: build it first (make check)"

# The per-test directory under the build directory, removed on exit with
# whatever this test started and left running.
mkdir -p "$top_builddir/tests"
tmp=$(mktemp -d "$top_builddir/tests/$test_name.tmp.XXXXXX") || fail "mktemp failed"
# What perfmini keeps between runs (expanded debug sections, names by
# build-id: PERFMINI_CACHE_DIR) is the test's own: none names from another's.
PERFMINI_CACHE_DIR=$tmp/cache
export PERFMINI_CACHE_DIR
started=

# Only children of this shell are killed: a pid that was reaped and reused
# belongs to someone else.
cleanup() {
	for cl_pid in $started; do
		if alive "$cl_pid" && [ "$(ppid_of "$cl_pid")" = "$$" ]; then
			kill_tree "$cl_pid" KILL
		fi
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Remembers a background process for the cleanup; use right after '&'.
track() {
	started="$started $1"
}

# Whether process PID exists and has not exited (a zombie has exited; kill
# -0 cannot tell, and dash leaves its children zombies until 'wait').
alive() {
	al_line=
	read -r al_line 2>/dev/null <"/proc/$1/stat" || return 1
	case ${al_line##*) } in
	Z* | X* | '') return 1 ;;
	esac
	return 0
}

# The parent of process PID (empty if there is no such process).
ppid_of() {
	pp_line=
	read -r pp_line 2>/dev/null <"/proc/$1/stat" || return 0
	pp_rest=${pp_line##*) }
	pp_rest=${pp_rest#* }
	echo "${pp_rest%% *}"
}

# The pids whose parent is PID.
children_of() {
	for co_f in /proc/[0-9]*/stat; do
		co_line=
		read -r co_line 2>/dev/null <"$co_f" || continue
		co_rest=${co_line##*) }
		co_ppid=${co_rest#* }
		co_ppid=${co_ppid%% *}
		if [ "$co_ppid" = "$1" ]; then
			co_p=${co_f#/proc/}
			echo "${co_p%/stat}"
		fi
	done
}

# Sends SIGNAL to PID and its descendants, children first found.
kill_tree() {
	for kt_child in $(children_of "$1"); do
		kill_tree "$kt_child" "$2"
	done
	kill "-$2" "$1" 2>/dev/null || :
}

# Waits until PID has exited, at most SECONDS; returns 1 on the timeout.
wait_exit() {
	we_n=$(($2 * 10))
	while alive "$1"; do
		[ "$we_n" -gt 0 ] || return 1
		we_n=$((we_n - 1))
		sleep 0.1
	done
	return 0
}

# Runs a command with a time limit: its exit status, or 124 when it had to
# be killed. Use as 'rc=0; run_timeout 30 cmd ... || rc=$?'.
run_timeout() {
	rt_secs=$1
	shift
	"$@" &
	rt_pid=$!
	track "$rt_pid"
	if ! wait_exit "$rt_pid" "$rt_secs"; then
		say "still running after $rt_secs s, killed: $*"
		kill_tree "$rt_pid" TERM
		wait_exit "$rt_pid" 5 || kill_tree "$rt_pid" KILL
		wait "$rt_pid" || :
		return 124
	fi
	rt_rc=0
	wait "$rt_pid" || rt_rc=$?
	return "$rt_rc"
}

# The CPU time process PID has used, in clock ticks (getconf CLK_TCK).
cpu_ticks() {
	ct_line=
	read -r ct_line 2>/dev/null <"/proc/$1/stat" || {
		echo 0
		return 0
	}
	# after "pid (comm) ": state is field 3, utime 14 and stime 15
	# shellcheck disable=SC2086 # split into fields; none holds a glob character
	set -- ${ct_line##*) }
	echo $((${12} + ${13}))
}

# Waits until process PID has used CPU_SECONDS (an integer number of
# tenths: 5 for half a second) of CPU time, at most SECONDS of wall time;
# returns 1 on the timeout or if PID exits first.
wait_cpu() {
	wc_want=$(($2 * $(getconf CLK_TCK) / 10))
	wc_n=$(($3 * 10))
	while [ "$(cpu_ticks "$1")" -lt "$wc_want" ]; do
		alive "$1" || return 1
		[ "$wc_n" -gt 0 ] || return 1
		wc_n=$((wc_n - 1))
		sleep 0.1
	done
}

# How many perf event file descriptors process PID holds.
perf_fds() {
	pf_n=0
	for pf_f in /proc/"$1"/fd/*; do
		case $(readlink "$pf_f" 2>/dev/null) in
		*perf_event*) pf_n=$((pf_n + 1)) ;;
		esac
	done
	echo "$pf_n"
}

# Waits until the recorder PID has opened its events on a single-threaded
# target (one per online CPU), then half a second more for it to map the
# rings and read the target's maps. Returns 1 if PID exits or takes longer
# than SECONDS.
wait_attached() {
	wa_n=$(($2 * 10))
	while [ "$(perf_fds "$1")" -lt "$ncpus" ]; do
		alive "$1" || return 1
		[ "$wa_n" -gt 0 ] || return 1
		wa_n=$((wa_n - 1))
		sleep 0.1
	done
	sleep 0.5
}

# Waits until FILE has a line matching the extended regex RE, at most
# SECONDS.
wait_line() {
	wl_n=$(($3 * 10))
	until grep -Eq "$2" "$1" 2>/dev/null; do
		[ "$wl_n" -gt 0 ] || return 1
		wl_n=$((wl_n - 1))
		sleep 0.1
	done
}

# Skips (fails under CI=true) unless perf events can be used: records
# 'true' and looks at why that failed, if it did.
need_perf() {
	np_rc=0
	run_timeout 30 "$PERFMINI" record -q -o "$tmp/probe.data" -- true \
		>"$tmp/probe.out" 2>"$tmp/probe.err" || np_rc=$?
	[ "$np_rc" -eq 0 ] && return 0
	np_why=$(head -n 3 "$tmp/probe.err")
	if grep -Eqi 'permission|not permitted|perf_event_paranoid|not implemented' \
		"$tmp/probe.err"; then
		skip "perf events are not permitted here" \
			"(kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid \
				2>/dev/null || echo none), uid $(id -u)): $np_why"
	fi
	fail "'perfmini record -- true' failed (exit $np_rc): $np_why"
}

# Records: run_record SECONDS DATAFILE ARGS... runs 'perfmini record -q -o
# DATAFILE ARGS...' with a time limit and fails unless it exits 0 with
# nothing on stderr.
run_record() {
	rr_secs=$1
	rr_out=$2
	shift 2
	rr_rc=0
	run_timeout "$rr_secs" "$PERFMINI" record -q -o "$rr_out" "$@" \
		>"$tmp/record.out" 2>"$tmp/record.err" || rr_rc=$?
	cat "$tmp/record.out" "$tmp/record.err" >&3
	[ "$rr_rc" -eq 0 ] || fail "perfmini record $* exited $rr_rc"
	[ -s "$rr_out" ] || fail "perfmini record $* wrote no $rr_out"
	[ ! -s "$tmp/record.err" ] || fail "perfmini record -q $* printed on stderr"
}

# Attaches in the background: record_bg DATAFILE ARGS... starts 'perfmini
# record -q -o DATAFILE ARGS...' and sets rec_pid; record_wait then
# checks how it ended.
record_bg() {
	rb_out=$1
	shift
	rec_args="$*"
	"$PERFMINI" record -q -o "$rb_out" "$@" >"$tmp/record.out" 2>"$tmp/record.err" &
	rec_pid=$!
	track "$rec_pid"
}

# record_wait SECONDS DATAFILE: fails unless the recorder started by
# record_bg exits within SECONDS, with status 0, nothing on stderr, and
# DATAFILE written.
record_wait() {
	if ! wait_exit "$rec_pid" "$1"; then
		kill_tree "$rec_pid" TERM
		fail "perfmini record $rec_args still running $1 s after its targets exited"
	fi
	rw_rc=0
	wait "$rec_pid" || rw_rc=$?
	cat "$tmp/record.out" "$tmp/record.err" >&3
	[ "$rw_rc" -eq 0 ] || fail "perfmini record $rec_args exited $rw_rc"
	[ -s "$2" ] || fail "perfmini record $rec_args wrote no $2"
	[ ! -s "$tmp/record.err" ] || fail "perfmini record -q $rec_args printed on stderr"
}

# Folds: run_report DATAFILE FOLDED writes 'perfmini report --folded' of
# DATAFILE into FOLDED, and fails unless every line has the folded form:
# "comm;frame;...;frame COUNT", no empty name, a count > 0, and the kernel
# frames ("_[k]") after the user frames.
run_report() {
	rp_rc=0
	run_timeout 60 "$PERFMINI" report -i "$1" --folded >"$2" 2>"$tmp/report.err" ||
		rp_rc=$?
	cat "$tmp/report.err" >&3
	[ "$rp_rc" -eq 0 ] || fail "perfmini report -i $1 --folded exited $rp_rc"
	rp_bad=$(grep -Evc '^[^;]+(;[^;]+)* [1-9][0-9]*$' "$2" || :)
	if [ "$rp_bad" -ne 0 ]; then
		grep -Ev '^[^;]+(;[^;]+)* [1-9][0-9]*$' "$2" | head -n 5 >&3
		fail "$rp_bad lines of the folded output are not 'comm;frames COUNT'"
	fi
	# Kernel frames are the innermost: none is followed by a user frame.
	awk '{
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		n = split(stack, f, ";")
		k = 0
		for (i = 2; i <= n; i++) {
			if (f[i] ~ /_\[k\]$/)
				k = 1
			else if (k) {
				print
				next
			}
		}
	}' "$2" >"$tmp/report.bad"
	if [ -s "$tmp/report.bad" ]; then
		head -n 5 "$tmp/report.bad" >&3
		fail "$(wc -l <"$tmp/report.bad") lines of the folded output have a user frame" \
			"after a kernel frame"
	fi
}

# leaf_share FOLDED PATH [COMM]: prints "MATCHED TOTAL": of the samples
# (of thread name COMM, if given), how many have a user stack that ends in
# PATH, one or more frames "outer;...;leaf" (just the leaf function,
# usually). The kernel frames ("_[k]") that end a stack are left out
# first: a sample taken while the kernel served the function (an
# interrupt, a page fault, a preemption on a busy machine) counts for it.
leaf_share() {
	awk -v want="$2" -v comm="${3-}" '
	{
		n = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		c = stack
		sub(/;.*/, "", c)
		if (comm != "" && c != comm)
			next
		total += n
		# the frames only, ";"-framed so that a suffix match is exact
		frames = substr(stack, length(c) + 1) ";"
		while (frames ~ /_\[k\];$/)
			sub(/[^;]*;$/, "", frames)
		tail = ";" want ";"
		if (length(frames) >= length(tail) &&
		    substr(frames, length(frames) - length(tail) + 1) == tail)
			matched += n
	}
	END { printf "%d %d\n", matched, total }' "$1"
}

# check_share FOLDED PATH COMM MIN_SAMPLES [MIN_PERCENT]: fails unless at
# least MIN_SAMPLES samples of COMM ("" for all) were found and at least
# MIN_PERCENT (default 90) of them end in PATH. Says what it found.
check_share() {
	cs_pct=${5:-90}
	cs_n=$(leaf_share "$1" "$2" "$3")
	[ -n "$cs_n" ] || fail "no sample count from $1"
	cs_matched=${cs_n% *}
	cs_total=${cs_n#* }
	cs_share=$(awk -v m="$cs_matched" -v t="$cs_total" 'BEGIN { printf "%.1f", t ? 100 * m / t : 0 }')
	cs_who=
	if [ -n "$3" ]; then
		cs_who="of comm '$3' "
	fi
	say "stack ends in '$2' in $cs_matched of $cs_total samples ${cs_who}($cs_share%; need >= $cs_pct% of >= $4)"
	if [ "$cs_total" -lt "$4" ] || awk -v m="$cs_matched" -v t="$cs_total" -v p="$cs_pct" \
		'BEGIN { exit !(100 * m < p * t) }'; then
		say "the heaviest stacks were:"
		top_stacks "$1" 10 >&3
		[ "$cs_total" -ge "$4" ] || fail "only $cs_total samples ${cs_who}(need >= $4)"
		fail "only $cs_share% of the samples ${cs_who}end in '$2' (need >= $cs_pct%)"
	fi
}

# The N heaviest lines of a folded file, long stacks cut to their last
# 300 characters.
top_stacks() {
	awk '{ print $NF "\t" (length($0) > 300 ? "..." substr($0, length($0) - 299) : $0) }' \
		"$1" | sort -rn | head -n "$2" | cut -f 2-
}
