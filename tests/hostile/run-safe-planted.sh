#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs that someone else prepared, and outputs nobody reads. As root,
# with another user (uid 65533, by setpriv) planting in a sticky,
# world-writable directory:
#  1. FIFOs under every name a --switch-output slice may get in the next
#     seconds (OUTPUT.YYYYMMDDhhmmssSSS, each millisecond): 'record -d 3
#     --switch-output=1s' ends in time, exit 0, and every slice is a
#     regular 0600 file of root's that reads back with spin_hot in it;
#     what the user's readers got is nothing;
#  2. the user's FIFO at the -o name, a reader of theirs waiting on it:
#     refused at once, exit 1, one line naming it; the reader gets
#     nothing and the FIFO stays;
#  3. root's own FIFO whose reader opens it and never reads (a pipe of one
#     page): 'record -d 2' ends within -d and the grace of
#     OUTPUT_GRACE seconds, exit 1, one line naming the output; a SIGINT
#     ends it the same way;
#  4. an older recording at the -o name and a recorder killed (SIGKILL) at
#     20, 150 and 300 ms, before it holds a sample: the older file is
#     still there, whole; a recording that completes replaces it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
command -v setpriv >/dev/null 2>&1 || fail "setpriv (util-linux) is needed"
[ "$(id -u)" -eq 0 ] || skip "planting as another user needs root"
spin=$TARGETS/spin-pie
OUTPUT_GRACE=5
chmod 755 "$tmp"
pub=$tmp/pub
mkdir -m 1777 "$pub"
as_user() {
	setpriv --reuid=65533 --regid=65533 --clear-groups "$@"
}

# 1. FIFOs under the coming slice names, each with a reader of the user's
# on the first ones (a reader makes root's open succeed at once).
as_user /usr/bin/python3 - "$pub/slices.data" 7 <<'EOF' &
import os, sys, time
base, secs = sys.argv[1], float(sys.argv[2])
now = time.time()
for i in range(int(secs * 1000)):
    t = now + i / 1000.0
    name = "%s.%s%03d" % (base, time.strftime("%Y%m%d%H%M%S", time.localtime(t)),
                          int(t * 1000) % 1000)
    try:
        os.mkfifo(name)
    except FileExistsError:
        pass
open(base + ".planted", "w").close()
EOF
planter=$!
track "$planter"
n=0
while [ ! -e "$pub/slices.data.planted" ]; do
	n=$((n + 1))
	[ "$n" -lt 300 ] || fail "slices: the FIFOs were not planted in 30 s"
	sleep 0.1
done
wait "$planter"
nfifo=$(find "$pub" -type p | wc -l)
say "slices: $nfifo FIFOs planted under the coming names"
start=$(date +%s)
rc=0
run_timeout 60 "$PERFMINI" record -q -d 3 --switch-output=1s -o "$pub/slices.data" \
	-- "$spin" 30 >"$tmp/slices.out" 2>"$tmp/slices.err" || rc=$?
secs=$(($(date +%s) - start))
say "slices: exit $rc after $secs s: $(head -c 300 "$tmp/slices.err")"
[ "$rc" -eq 0 ] || fail "slices: exit $rc, want 0"
[ "$secs" -lt 15 ] || fail "slices: the recorder ran $secs s with -d 3"
nslice=0
for f in "$pub"/slices.data.2*; do
	[ -p "$f" ] && continue
	if [ ! -f "$f" ] || [ -L "$f" ]; then
		fail "slices: $f is neither a FIFO nor a regular file"
	fi
	[ "$(stat -c '%u %a' "$f")" = "0 600" ] ||
		fail "slices: $f is not root's 0600 file: $(stat -c '%u %a' "$f")"
	run_report "$f" "$tmp/slice.folded"
	nslice=$((nslice + 1))
	grep -q ';spin_hot ' "$tmp/slice.folded" || fail "slices: $f has no spin_hot"
done
say "slices: $nslice regular files of root's, each with spin_hot"
[ "$nslice" -ge 3 ] || fail "slices: $nslice slice files for 3 s of 1 s slices"
find "$pub" -type p -delete

# 2. The user's FIFO at the -o name, their reader on it.
as_user mkfifo "$pub/prof.data"
# shellcheck disable=SC2016 # expanded by the user's shell, from its arguments
as_user sh -c 'exec cat "$1" >"$2"' sh "$pub/prof.data" "$pub/stolen" &
reader=$!
track "$reader"
start=$(date +%s)
rc=0
run_timeout 60 "$PERFMINI" record -q -o "$pub/prof.data" -- "$spin" 30 \
	>"$tmp/fifo.out" 2>"$tmp/fifo.err" || rc=$?
secs=$(($(date +%s) - start))
say "another user's FIFO: exit $rc after $secs s: $(head -c 300 "$tmp/fifo.err")"
[ "$rc" -eq 1 ] || fail "another user's FIFO: exit $rc, want 1"
[ "$secs" -lt 10 ] || fail "another user's FIFO: refused only after $secs s"
[ "$(awk 'END { print NR }' "$tmp/fifo.err")" -eq 1 ] ||
	fail "another user's FIFO: not one line on stderr"
grep -qF "$pub/prof.data" "$tmp/fifo.err" || fail "another user's FIFO: the output is not named"
[ -p "$pub/prof.data" ] || fail "another user's FIFO: it was replaced"
# The user's cat still waits in open(2), where a kill of the shell around it
# does not reach: the user's own read-write open (which never waits) lets it
# read an end of file and go.
# shellcheck disable=SC2016 # expanded by the user's shell, from its arguments
as_user sh -c 'exec 9<>"$1"' sh "$pub/prof.data"
kill "$reader" 2>/dev/null || :
wait "$reader" 2>/dev/null || :
[ ! -s "$pub/stolen" ] || fail "another user's FIFO: the reader got $(wc -c <"$pub/stolen") bytes"
rm -f "$pub/prof.data"

# 3. A reader that never reads, through a pipe of one page.
mkfifo "$tmp/stuck"
# stuck_reader: opens the FIFO, shrinks its pipe to a page, reads nothing.
stuck_reader() {
	python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
time.sleep(120)' "$tmp/stuck" &
	stuck=$!
	track "$stuck"
}
for how in duration SIGINT; do
	stuck_reader
	if [ "$how" = duration ]; then
		"$PERFMINI" record -q -d 2 -o "$tmp/stuck" -- "$spin" 60 \
			>"$tmp/stuck.out" 2>"$tmp/stuck.err" &
		limit=$((2 + OUTPUT_GRACE + 20))
	else
		"$PERFMINI" record -q -o "$tmp/stuck" -- "$spin" 60 \
			>"$tmp/stuck.out" 2>"$tmp/stuck.err" &
		limit=$((OUTPUT_GRACE + 20))
	fi
	rec=$!
	track "$rec"
	start=$(date +%s)
	if [ "$how" = SIGINT ]; then
		sleep 2
		kill -INT "$rec"
		start=$(date +%s)
	fi
	wait_exit "$rec" "$((limit + 20))" || fail "stuck reader, $how: the recorder did not end"
	secs=$(($(date +%s) - start))
	rc=0
	wait "$rec" || rc=$?
	say "stuck reader, $how: exit $rc after $secs s: $(head -c 300 "$tmp/stuck.err")"
	[ "$secs" -le "$limit" ] || fail "stuck reader, $how: ended after $secs s, want <= $limit"
	[ "$rc" -eq 1 ] || fail "stuck reader, $how: exit $rc, want 1"
	[ "$(awk 'END { print NR }' "$tmp/stuck.err")" -eq 1 ] ||
		fail "stuck reader, $how: not one line on stderr"
	grep -qF "$tmp/stuck" "$tmp/stuck.err" || fail "stuck reader, $how: the output is not named"
	kill "$stuck" 2>/dev/null || :
	wait "$stuck" 2>/dev/null || :
done

# 4. An older file, a recorder killed before its first sample.
run_record 60 "$tmp/old.data" -- "$spin" 0.3
sum=$(cksum <"$tmp/old.data")
for ms in 20 150 300; do
	"$PERFMINI" record -q -o "$tmp/old.data" -- "$spin" 10 >/dev/null 2>&1 &
	rec=$!
	track "$rec"
	sleep "0.$(printf '%03d' "$ms")"
	kill -KILL "$rec"
	wait "$rec" 2>/dev/null || :
	[ "$(cksum <"$tmp/old.data")" = "$sum" ] ||
		fail "killed at $ms ms: the older file was replaced ($(wc -c <"$tmp/old.data") bytes)"
	# shellcheck disable=SC2010 # our own names
	left=$(ls -A "$tmp" | grep '^old\.data.' || :)
	[ -z "$left" ] || fail "killed at $ms ms: left $left"
done
run_record 60 "$tmp/old.data" -- "$spin" 0.3
[ "$(cksum <"$tmp/old.data")" != "$sum" ] || fail "a complete recording did not replace the file"
say "killed before a sample: the older file stayed; a complete one replaced it"
