#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'record --switch-output': a file left behind gets the names of its
# frames even when they are found after the next file began.
# sym-dinfod is stripped; its debug file comes from a debuginfod server
# started here that answers only after DELAY seconds. Recorded for 4 s
# with a new file every second, the files started before the answer
# hold frames that have no name yet when the next file begins: each of
# those files must still read whole (not cut short) and name
# dinfod_hot under main, with no [sym-dinfod+0x...] frame left; so must
# every later file. Each file's pprof maps sym-dinfod with its build-id
# (found while recording, not only at the stop).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-dinfod
need_target sym-dinfod.dbg
need_perf
command -v python3 >/dev/null 2>&1 || fail "no python3: install the Debian package python3"
command -v go >/dev/null 2>&1 || fail "go is needed (Debian: golang-go)"
exe=$TARGETS/sym-dinfod
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "sym-dinfod has no build-id"
DELAY=2.5

# The slow server: the debug file of one build-id, after DELAY seconds.
slow_debuginfod "$id" "$TARGETS/sym-dinfod.dbg" "$DELAY"

mkdir "$tmp/s"
rc=0
DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_TIMEOUT=30 \
	DEBUGINFOD_CACHE_PATH="$tmp/cache" run_timeout 60 "$PERFMINI" record -q \
	-o "$tmp/s/n.data" --switch-output=1s -- "$exe" 4 >"$tmp/rec.out" 2>"$tmp/rec.err" || rc=$?
cat "$tmp/rec.err" >&3
[ "$rc" -eq 0 ] || fail "record --switch-output=1s exited $rc"
grep -q '^served' "$tmp/srv" || fail "the recorder never fetched the debug file"
n=$(find "$tmp/s" -name 'n.data.*' | wc -l)
[ "$n" -ge 4 ] || fail "--switch-output=1s over 4 s: $n file(s)"
early=0
for f in "$tmp"/s/n.data.*; do
	rc=0
	"$PERFMINI" report -i "$f" --folded >"$tmp/f.folded" 2>"$tmp/f.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "report -i $f exited $rc: $(cat "$tmp/f.err")"
	! grep -q 'cut short' "$tmp/f.err" || fail "$f: $(cat "$tmp/f.err")"
	user=$(grep -c 'sym-dinfod' "$tmp/f.folded" || :)
	[ "$user" -gt 0 ] || continue
	! grep -q '\[sym-dinfod+0x' "$tmp/f.folded" ||
		fail "$f: frames of sym-dinfod left unnamed: $(grep -m 3 '\[sym-dinfod+0x' "$tmp/f.folded")"
	grep -q ';main;dinfod_hot' "$tmp/f.folded" || fail "$f: no main;dinfod_hot"
	# The files begun before the answer came: their first sample's time
	# (from the recording's start) in ms.
	start=$("$PERFMINI" report -i "$f" --json 2>&3 |
		sed -n '1s/^{"time":[0-9.]*,"time_ns":\([0-9]*\),.*/\1/p')
	[ -n "$start" ] || fail "$f: no time in its first --json line"
	start=$((start / 1000000))
	[ "$start" -ge 2000 ] || early=$((early + 1))
	# Its modules as the back ends see them: sym-dinfod's build-id.
	"$PERFMINI" report -i "$f" --pprof -o "$tmp/f.pb.gz" 2>&3 || fail "report --pprof $f failed"
	run_timeout 120 go tool pprof -raw "$tmp/f.pb.gz" >"$tmp/f.raw" 2>&3 ||
		fail "go tool pprof cannot read the pprof of $f"
	grep -q "/sym-dinfod $id " "$tmp/f.raw" ||
		fail "$f: the pprof mapping of sym-dinfod has not its build-id: $(grep sym-dinfod "$tmp/f.raw")"
	say "$f: begun at $start ms, $user distinct stacks of sym-dinfod, dinfod_hot named"
done
[ "$early" -ge 2 ] || fail "only $early file(s) begun before the debug file came"
exit 0
