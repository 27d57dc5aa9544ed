#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'record --switch-output' of a program that runs, is gone long enough to
# be let go, and runs again: a copy of spin-pie ('again', a path no other
# program maps) for half a CPU second, then nothing for 18 s, then again.
# A new file every 2 s. Then:
#  - some file begun while 'again' was gone does not hold its path: what
#    the recorder knew of it (path, build-id, segments) is not carried
#    into every later slice (on a busy machine, thousands of programs a
#    minute come and go);
#  - the first file and the last ones that sampled it name spin_hot
#    under main in again; so does the merge of all files, with both runs'
#    samples;
#  - the pprof of the file of its second run maps 'again' with its
#    build-id: its facts came back with it;
#  - 'bare', a stripped spin-nopie run once at the start, is named in the
#    recorder's summary of frames without names, with why, though the
#    last slices keep nothing of it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

for t in spin-pie spin-nopie; do
	[ -x "$TARGETS/$t" ] || fail "no $TARGETS/$t: build it first (make check)"
done
need_perf
command -v go >/dev/null 2>&1 || fail "go is needed (Debian: golang-go)"
cp "$TARGETS/spin-pie" "$tmp/again"
strip -o "$tmp/bare" "$TARGETS/spin-nopie"
id=$(LC_ALL=C readelf -nW "$tmp/again" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "spin-pie has no build-id"
mkdir "$tmp/s"
# A script: the recording's command line (in every file) does not hold again's path.
printf "'%s' 0.2; '%s' 0.5; sleep 18; '%s' 0.5\n" "$tmp/bare" "$tmp/again" "$tmp/again" \
	>"$tmp/run.sh"
rc=0
run_timeout 120 "$PERFMINI" record -F 499 -o "$tmp/s/a.data" --switch-output=2s -- \
	sh "$tmp/run.sh" >"$tmp/rec.out" 2>"$tmp/rec.err" || rc=$?
[ "$rc" -eq 0 ] || fail "record --switch-output=2s exited $rc: $(cat "$tmp/rec.err")"

# Per file, in time order: whether it holds the path, and its samples in spin_hot under main.
gone=0
first=
last=
for f in "$tmp"/s/a.data.*; do
	held=$(grep -o -a -F "$tmp/again" "$f" | wc -l)
	"$PERFMINI" report -i "$f" --folded >"$tmp/f.folded" 2>"$tmp/f.err" ||
		fail "report -i $f failed: $(cat "$tmp/f.err")"
	hot=$(awk '/^again;.*main;spin_hot/ { s += $NF } END { print s + 0 }' "$tmp/f.folded")
	say "$(basename "$f"): path held $held, spin_hot under main $hot"
	if [ "$hot" -gt 0 ]; then
		[ -n "$first" ] || first=$f
		last=$f
		[ "$held" -gt 0 ] || fail "$f samples again but does not name it"
	elif [ -n "$first" ] && [ "$held" -eq 0 ]; then
		gone=$((gone + 1))
	fi
done
[ -n "$first" ] || fail "no file names spin_hot under main in again: $(head -5 "$tmp/f.folded")"
[ "$first" != "$last" ] || fail "only one file sampled again: its second run was not recorded"
[ "$gone" -gt 0 ] || fail "every file after its first run holds again's path: nothing was let go"
! grep -q '\[again+0x' "$tmp/f.folded" || fail "frames of again left unnamed in $last"

# Both runs in the merge.
"$PERFMINI" report -i "$tmp/s" --folded >"$tmp/all.folded" 2>&3 || fail "report -i DIR failed"
all=$(awk '/^again;.*main;spin_hot/ { s += $NF } END { print s + 0 }' "$tmp/all.folded")
"$PERFMINI" report -i "$first" --folded 2>&3 >"$tmp/one.folded"
one=$(awk '/^again;.*main;spin_hot/ { s += $NF } END { print s + 0 }' "$tmp/one.folded")
[ "$all" -gt "$one" ] || fail "the merge has $all samples of spin_hot, the first file alone $one"

# The second run's file: again mapped with its build-id.
"$PERFMINI" report -i "$last" --pprof -o "$tmp/last.pb.gz" 2>&3 || fail "report --pprof $last failed"
run_timeout 120 go tool pprof -raw "$tmp/last.pb.gz" >"$tmp/last.raw" 2>&3 ||
	fail "go tool pprof cannot read the pprof of $last"
grep -q "/again $id " "$tmp/last.raw" ||
	fail "$last: the pprof mapping of again has not its build-id: $(grep again "$tmp/last.raw")"
# The summary names bare, and why.
grep -q "^perfmini: $tmp/bare: .* sampled frames have no name: stripped" "$tmp/rec.err" ||
	fail "the summary does not say bare's frames have no names: $(grep 'no name' "$tmp/rec.err")"
say "$gone file(s) without again's path between its runs; spin_hot $all samples merged, $one in the first"
exit 0
