#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A storm of new programs under a small limit of open files. Another user
# (uid 65533, by setpriv) runs fault-storm for STORM seconds: fresh
# copies of a program written, run a few milliseconds each and deleted,
# as fast as the machine allows. Root records the whole system under
# 'ulimit -n 1024' with '--switch-output=3s', the recorder's open files
# and memory read every half second. Then:
#  - the recorder ends at -d with exit 0, and every slice it started is a
#    file that reads whole (a rotation never failed for lack of
#    descriptors);
#  - its open files stayed under the modules' budget (half the limit,
#    with the naming thread's copies) and its events', outputs' and
#    naming's (MAX_FDS): the files of programs that ended are closed;
#  - its resident memory settled in the last third (the median of its
#    looks there) stayed within twice its highest of the middle third, and
#    its highest under MAX_RSS_KB: it follows what runs, not what ran.
#    The middle third, not the first: the naming of the first slices (the
#    C library's names and lines, the kernel's) comes with the first
#    rotations, later on a loaded machine. The median, not the highest: a
#    burst that a slow round queues (a loaded machine's stall) is given
#    back within a second. What this catches is a program's state kept
#    after it ended (its files and tables: hundreds of KiB each), not a
#    slow growth, which bench/ measures over minutes;
#  - the storm's programs are in the recording: storm_hot is sampled;
#  - the module table follows the programs that run: a second recorder,
#    at 1 sample a second (the storm's programs are not sampled, so that
#    how far naming lags behind on a loaded machine does not matter),
#    leaves a last slice that holds fewer module records than three
#    quarters of the programs run (the numbers of those gone are given to
#    new ones; each program is a module of its own, so without that it
#    would hold them all).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
[ "$(id -u)" -eq 0 ] || skip "the test plays root and another user"
command -v setpriv >/dev/null 2>&1 || fail "setpriv (util-linux) is needed"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed"
STORM=${STORM:-16}
MAX_FDS=700
MAX_RSS_KB=262144
storm=$top_builddir/tests/hostile/fault-storm
[ -x "$storm" ] || fail "no $storm: build it first (make check)"
chmod 755 "$tmp"
mkdir -m 1777 "$tmp/run"
cp "$storm" "$tmp/fault-storm"
chmod 755 "$tmp/fault-storm"
mkdir "$tmp/out" "$tmp/few"
# In a sanitizer build, freed memory waits in ASan's quarantine (256 MB by
# default) and the resident size follows what was ever allocated: keep it
# small, so that RSS says what the recorder holds.
[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=4"

# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -n
(
	ulimit -n 1024
	exec "$PERFMINI" record -q -a -F 499 --switch-output=3s -d "$((STORM + 3))" \
		-o "$tmp/out/storm.data" >"$tmp/rec.out" 2>"$tmp/rec.err"
) &
rec=$!
track "$rec"
"$PERFMINI" record -q -a -F 1 --switch-output=3s -d "$((STORM + 3))" -o "$tmp/few/storm.data" \
	>/dev/null 2>"$tmp/few.err" &
few=$!
track "$few"
wait_attached "$rec" 30 || fail "the recorder did not start"
wait_attached "$few" 30 || fail "the recorder at 1 Hz did not start"
setpriv --reuid=65533 --regid=65533 --clear-groups -- "$tmp/fault-storm" "$tmp/run" "$STORM" \
	>"$tmp/storm.out" 2>"$tmp/storm.err" &
storm_pid=$!
track "$storm_pid"
: >"$tmp/samples"
while alive "$rec"; do
	fds=$(find "/proc/$rec/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$rec/status" 2>/dev/null || :)
	[ -n "$rss" ] && echo "$fds $rss" >>"$tmp/samples"
	sleep 0.5
done
rc=0
wait "$rec" || rc=$?
wait "$few" || fail "the recorder at 1 Hz failed: $(head -c 400 "$tmp/few.err")"
wait "$storm_pid" || fail "fault-storm failed: $(cat "$tmp/storm.err")"
say "$(cat "$tmp/storm.out"), recorder exit $rc: $(head -c 400 "$tmp/rec.err")"
[ "$rc" -eq 0 ] || fail "record -a under the storm exited $rc"
[ ! -s "$tmp/rec.err" ] || fail "record -q printed: $(cat "$tmp/rec.err")"

n=0
for f in "$tmp"/out/storm.data.*; do
	run_report "$f" "$tmp/slice.folded"
	if grep -q 'cut short' "$tmp/report.err"; then
		fail "$f reads as cut short"
	fi
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "$n slices of 3 s in $((STORM + 3)) s"
"$PERFMINI" report -i "$tmp/out" --folded >"$tmp/all.folded" 2>&3 || fail "report -i DIR failed"
grep -q ';storm_hot' "$tmp/all.folded" || fail "no storm_hot among the slices' stacks"

nsamples=$(awk 'END { print NR }' "$tmp/samples")
[ "$nsamples" -ge 6 ] || fail "only $nsamples looks at the recorder"
max_fds=$(awk '$1 > m { m = $1 } END { print m + 0 }' "$tmp/samples")
third=$((nsamples / 3))
mid_rss=$(awk -v t="$third" -v s="$((nsamples - third))" 'NR > t && NR <= s && $2 > m { m = $2 }
	END { print m + 0 }' "$tmp/samples")
last_rss=$(awk -v s="$((nsamples - third))" 'NR > s { print $2 }' "$tmp/samples" | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }')
max_rss=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$tmp/samples")
say "RSS looks (KiB): $(awk '{ printf "%s ", $2 }' "$tmp/samples")"
say "$n slices; open files at most $max_fds; RSS middle third at most $mid_rss KiB," \
	"last third's median $last_rss KiB, highest $max_rss KiB"
[ "$max_fds" -le "$MAX_FDS" ] || fail "$max_fds open files, want at most $MAX_FDS"
[ "$max_rss" -le "$MAX_RSS_KB" ] || fail "RSS $max_rss KiB, want at most $MAX_RSS_KB"
[ "$last_rss" -le $((2 * mid_rss)) ] ||
	fail "RSS grew from $mid_rss to $last_rss KiB: more than twice"

# Module records in a data file (perfmini-data(5)): the highest index a
# run of modules (a RUN section, type 13, of type 3) reaches.
count_modules() {
	python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
off, n = 24, 0
while off + 16 <= len(b):
    t, _, size = struct.unpack_from("<IIQ", b, off)
    if t == 13 and size >= 16:
        rt, _, first = struct.unpack_from("<IIQ", b, off + 16)
        if rt == 3:
            n = max(n, first + (size - 16) // 16)
    off += 16 + size
    off += -off % 8
print(n)' "$1"
}
programs=$(sed -n 's/^fault-storm: \([0-9]*\) programs.*/\1/p' "$tmp/storm.out")
last=$(find "$tmp/few" -name 'storm.data.*' | sort | tail -n 1)
mods=$(count_modules "$last")
say "$programs programs; the last slice holds $mods module records"
if [ "$mods" -eq 0 ] || [ "$mods" -ge $((programs * 3 / 4)) ]; then
	fail "the last slice holds $mods module records for $programs programs run"
fi
