#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Perf maps (/tmp/perf-PID.map) are files the profiled program controls:
# perfmini may read one only when it is a regular file inside the
# target's root, not a symbolic link, owned by the target's user or by
# root, and it must not block on one. fault-jit runs generated code in
# anonymous memory for 0.4 CPU seconds and describes it in its map:
#  1. good: a correct map, target run as root: >= 90% of its samples are
#     named fault_jit_hot;
#  2. good, target run as user nobody (its own map): named too;
#  3. chown=nobody, target run as root: the map belongs to another user:
#     no sample may be named fault_jit_hot;
#  4. symlink: the map is a symbolic link to the real one: not named;
#  5. dir: the map is a directory: not named, no error; empty: the map
#     names nothing: not named, and the report says so (no advice to
#     install debug symbols);
#  6. fifo: the map is a named pipe nobody writes, and perfmini is attached
#     with -p (no SIGCHLD comes to interrupt a blocked open): perfmini must
#     not block on it: it must end on its own within 10 s of the target's
#     exit, with a complete file in which no sample is named.
#  7. bind (as root): the map is a root-only file bind-mounted over
#     /tmp/perf-PID.map in the target's own mount namespace (what a user
#     may do in a user namespace): not named, and the report says the
#     map was refused (no advice to write one);
#  8. longline: the map's first "line" is 160 MiB without a newline, the
#     good line after it: 'perfmini symbolize -p' names the code from the
#     good line, and its peak memory stays under 64 MiB (a reader that
#     holds a whole line grows past 160 MiB).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_JIT=$top_builddir/tests/hostile/fault-jit
[ -x "$FAULT_JIT" ] || fail "no $FAULT_JIT: build it first (make check)"

need_perf

# named FOLDED MIN: >= 90% of at least MIN samples of fault-jit end in
# fault_jit_hot. unnamed FOLDED WHAT: none does.
named() {
	check_share "$1" fault_jit_hot fault-jit "$2" 90
}
unnamed() {
	if grep -Eq '(^|;)fault_jit_hot( |;)' "$1"; then
		grep -E '(^|;)fault_jit_hot( |;)' "$1" | head -n 3 >&3
		fail "$2: samples named fault_jit_hot (above), from a map that must not be used"
	fi
	un_n=$(awk '/^fault-jit;/ { n += $NF } END { print n + 0 }' "$1")
	[ "$un_n" -ge 100 ] || fail "$2: only $un_n samples of fault-jit"
	say "$2: $un_n samples, none named from the map"
}

run_record 60 "$tmp/good.data" -- "$FAULT_JIT" 0.4 good
run_report "$tmp/good.data" "$tmp/good.folded"
named "$tmp/good.folded" 150

if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || fail "no setpriv (util-linux)"
	nobody=$(id -u nobody 2>/dev/null || echo 65534)
	# A copy nobody can run, wherever the build tree is.
	jtmp=$(mktemp -d /tmp/perfmini-jit.XXXXXX) || fail "mktemp failed"
	trap 'rm -rf "$jtmp"; cleanup' EXIT
	chmod 755 "$jtmp"
	cp "$FAULT_JIT" "$jtmp/fault-jit"
	chmod 755 "$jtmp/fault-jit"
	run_record 60 "$tmp/user.data" -- setpriv --reuid="$nobody" --regid="$nobody" \
		--clear-groups -- "$jtmp/fault-jit" 0.4 good
	run_report "$tmp/user.data" "$tmp/user.folded"
	named "$tmp/user.folded" 150

	run_record 60 "$tmp/owner.data" -- "$FAULT_JIT" 0.4 "chown=$nobody"
	run_report "$tmp/owner.data" "$tmp/owner.folded"
	unnamed "$tmp/owner.folded" "a map owned by another user"

	run_record 60 "$tmp/bind.data" -- "$FAULT_JIT" 0.4 bind
	run_report "$tmp/bind.data" "$tmp/bind.folded"
	unnamed "$tmp/bind.folded" "a root-only file bind-mounted over the map"
	# The report says the map was refused, not that the runtime wrote none.
	"$PERFMINI" report -i "$tmp/bind.data" -n 1 >"$tmp/bind.top" 2>&3 ||
		fail "report of the bind-mounted map's recording failed"
	grep -q 'perf map was refused' "$tmp/bind.top" ||
		fail "bind: the report does not say the map was refused: $(grep -i 'map' "$tmp/bind.top")"
	! grep -q 'have the runtime write' "$tmp/bind.top" ||
		fail "bind: the report advises writing a map that is there"
else
	say "not root: maps of other users cannot be made here, not checked"
fi

run_record 60 "$tmp/symlink.data" -- "$FAULT_JIT" 0.4 symlink
run_report "$tmp/symlink.data" "$tmp/symlink.folded"
unnamed "$tmp/symlink.folded" "a map that is a symbolic link"

run_record 60 "$tmp/dir.data" -- "$FAULT_JIT" 0.4 dir
run_report "$tmp/dir.data" "$tmp/dir.folded"
unnamed "$tmp/dir.folded" "a map that is a directory"

# An empty map: unnamed, and the report says why without advising debug
# symbols (a perf map has none to install).
run_record 60 "$tmp/empty.data" -- "$FAULT_JIT" 0.4 empty
run_report "$tmp/empty.data" "$tmp/empty.folded"
unnamed "$tmp/empty.folded" "an empty map"
COLUMNS=200 "$PERFMINI" report -i "$tmp/empty.data" >"$tmp/empty.top" 2>&3 ||
	fail "report of the empty map's recording failed"
grep -q 'perf map names no function' "$tmp/empty.top" ||
	fail "the report does not say the perf map names nothing: $(grep -A2 '^Symbols:' "$tmp/empty.top")"
if grep 'perf map names no function' "$tmp/empty.top" | grep -q 'debug symbols'; then
	fail "the report advises debug symbols for an empty perf map"
fi

"$FAULT_JIT" 1 fifo >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^fault-jit: fifo' 30 ||
	fail "fault-jit did not start: $(cat "$tmp/target.err")"
record_bg "$tmp/fifo.data" -p "$tpid"
wait_exit "$tpid" 60 || fail "fault-jit still running after 60 s"
wait "$tpid" || :
if ! wait_exit "$rec_pid" 10; then
	say "perfmini is blocked in: $(cat "/proc/$rec_pid/wchan" 2>/dev/null)"
	kill_tree "$rec_pid" TERM
	fail "perfmini record -p still running 10 s after the target exited: blocked on the" \
		"named pipe at /tmp/perf-$tpid.map"
fi
record_wait 1 "$tmp/fifo.data"
run_report "$tmp/fifo.data" "$tmp/fifo.folded"
unnamed "$tmp/fifo.folded" "a map that is a named pipe"

"$FAULT_JIT" 5 longline >"$tmp/long.out" 2>"$tmp/long.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/long.out" '^fault-jit: longline' 30 ||
	fail "fault-jit did not start: $(cat "$tmp/long.err")"
addr=$(tail -n 1 "/tmp/perf-$tpid.map" | cut -d' ' -f1)
# The peak resident size of symbolize (KiB), as its parent sees it.
hwm=$(python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as err:
    rc = subprocess.run(sys.argv[3:], stdout=out, stderr=err).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "rc=%d" % rc)
' "$tmp/sym.out" "$tmp/sym.err" "$PERFMINI" symbolize -p "$tpid" "$addr")
grep -q ' fault_jit_hot+0x0 ' "$tmp/sym.out" ||
	fail "symbolize -p did not name $addr past the long line: $(cat "$tmp/sym.out" "$tmp/sym.err")"
kill "$tpid" 2>/dev/null || :
wait "$tpid" 2>/dev/null || :
case $hwm in
'' | *[!0-9]*) fail "symbolize -p failed ($hwm): $(cat "$tmp/sym.err")" ;;
esac
[ "$hwm" -lt 65536 ] || fail "symbolize -p grew to $hwm KiB reading a map with a 160 MiB line"
say "a 160 MiB line before the good one: named, peak memory $hwm KiB"
exit 0
