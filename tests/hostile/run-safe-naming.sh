#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Naming that cannot finish: a debuginfod server that accepts connections
# and never answers (a black hole on 127.0.0.1, started here, gone after
# two minutes at most), and sym-dinfod, stripped, whose debug file the
# recorder asks that server for while naming its frames.
#  1. 'record --name-timeout 2': the stop names for at most 2 s, then
#     writes the file with the frames not named shown as [module+0x...],
#     and says so: the whole run takes far less than the server's wait
#     (DEBUGINFOD_TIMEOUT, 90 s), exit 0, the file reads back, and its
#     metadata says naming was cut short.
#  2. 'record --name-timeout 0' (no limit), stopped by SIGINT, then a
#     second SIGINT a second later: it ends at once, exit 0, file written.
#  3. The same, but the command ends by itself: the first SIGINT, in the
#     stop's naming, ends it at once.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-dinfod
need_perf
command -v python3 >/dev/null 2>&1 || fail "no python3: install the Debian package python3"

# The black hole: accepts, keeps every connection open, answers nothing.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
s.settimeout(1)
print(s.getsockname()[1], flush=True)
kept, end = [], time.time() + 120
while time.time() < end:
    try:
        kept.append(s.accept()[0])
    except socket.timeout:
        pass
' >"$tmp/port" &
track $!
wait_line "$tmp/port" '^[0-9]+$' 10 || fail "the silent server did not start"
DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$tmp/port")"
export DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH="$tmp/cache"
export DEBUGINFOD_TIMEOUT=90

# 1. A time limit.
start=$(date +%s)
rc=0
run_timeout 120 "$PERFMINI" record -o "$tmp/t.data" --name-timeout 2 -- "$TARGETS/sym-dinfod" 0.5 \
	>"$tmp/t.out" 2>"$tmp/t.err" || rc=$?
secs=$(($(date +%s) - start))
say "record --name-timeout 2: exit $rc in $secs s: $(grep -i 'cut short' "$tmp/t.err")"
[ "$rc" -eq 0 ] || fail "exit $rc: $(cat "$tmp/t.err")"
[ "$secs" -lt 20 ] || fail "the recording took $secs s: naming was not cut short"
grep -q 'naming was cut short by --name-timeout' "$tmp/t.err" || fail "the cut is not said"
run_report "$tmp/t.data" "$tmp/t.folded"
grep -q '\[sym-dinfod+0x' "$tmp/t.folded" || fail "the unnamed frames are not [sym-dinfod+0x...]"
"$PERFMINI" report -i "$tmp/t.data" >"$tmp/t.top"
[ -n "$(awk '{ print }' "$tmp/t.top")" ] || fail "the report is empty"

# 2. A second signal.
"$PERFMINI" record -o "$tmp/s.data" --name-timeout 0 -- "$TARGETS/sym-dinfod" 30 \
	>"$tmp/s.out" 2>"$tmp/s.err" &
rec=$!
track "$rec"
wait_attached "$rec" 30 || fail "the recorder did not start"
sleep 1
kill -INT "$rec"
sleep 1
alive "$rec" || fail "the recorder ended on the first SIGINT: nothing was cut short, the test proves nothing"
start=$(date +%s)
kill -INT "$rec"
wait_exit "$rec" 10 || fail "the recorder did not end within 10 s of a second SIGINT"
rc=0
wait "$rec" || rc=$?
say "a second SIGINT: exit $rc after $(($(date +%s) - start)) s: $(grep -i 'cut short' "$tmp/s.err")"
[ "$rc" -eq 0 ] || fail "exit $rc after a second SIGINT: $(cat "$tmp/s.err")"
grep -q 'naming was cut short by a signal during the stop' "$tmp/s.err" || fail "the cut is not said"
run_report "$tmp/s.data" "$tmp/s.folded"

# 3. The command ends by itself; the stop's naming waits on the server; one
# SIGINT ends it.
"$PERFMINI" record -o "$tmp/e.data" --name-timeout 0 -- "$TARGETS/sym-dinfod" 0.3 \
	>"$tmp/e.out" 2>"$tmp/e.err" &
rec=$!
track "$rec"
wait_attached "$rec" 30 || fail "the recorder did not start"
# The target spins for 0.3 s of CPU; then the stop names, and waits.
sleep 3
alive "$rec" || fail "the recorder ended before the signal: naming did not wait, the test proves nothing"
start=$(date +%s)
kill -INT "$rec"
wait_exit "$rec" 10 || fail "the recorder did not end within 10 s of a SIGINT during its naming"
rc=0
wait "$rec" || rc=$?
say "one SIGINT in the stop: exit $rc after $(($(date +%s) - start)) s: $(grep -i 'cut short' "$tmp/e.err")"
[ "$rc" -eq 0 ] || fail "exit $rc after a SIGINT in the stop: $(cat "$tmp/e.err")"
grep -q 'naming was cut short by a signal during the stop' "$tmp/e.err" || fail "the cut is not said"
run_report "$tmp/e.data" "$tmp/e.folded"
