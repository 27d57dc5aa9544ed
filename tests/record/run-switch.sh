#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'record --switch-output' and 'report' of several files:
#   -a at 99 Hz, a new file every second for 5.5 s, the newest 3 kept:
#               3 files named OUTPUT.TIMESTAMP, each a complete file
#               that reads, two at least with samples (the newest may
#               have begun just before the stop); 'report -i DIR' merges them: its samples are
#               the sum of theirs, and so with -i given for each file;
#               each file's Duration is its own slice's (under 1.6 s) and
#               the merge's the three files' span (about 3 s, not 5.5);
#   a command, a new file at every 64 KiB: two files or more, none cut
#               short, and merged they hold every sample the recorder's
#               summary counted; each counts its own unwound stacks, and
#               merged they add up to the summary's; spin_hot is the
#               hottest in the merge;
#               a text file beside them is skipped with a warning, and a
#               file given twice (two spellings) merged once, said;
#   --off-cpu, a new file every second: pingpong's two threads each
#               wait 3.5 s in one call (the pinger in usleep under main,
#               the ponger in read under ponger), spans that begin in
#               the first file and end in the fourth: they keep their
#               stacks, named, in the file they end in;
#   JIT code, a new file every second: every file names sym-jit's
#               generated code (jit_hot, from its perf map), not only
#               the last one;
#   --since and --until (wall-clock times) keep all or none of them when
#               they lie before or after the recording;
#   the example unit contrib/perfmini-record.service: its ExecStart line
#               runs as written but for its output directory, a 1 s
#               SPEC and -d 2.5, and writes files that merge; where
#               systemd-analyze is installed, it finds nothing wrong in
#               the unit but the paths of a perfmini not installed;
#   usage errors: --switch-max-files alone, a bad SPEC, -o -.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
# samples FILE...: the samples of 'report --folded' of -i FILE... (or a directory).
samples() {
	sm_args=
	for f in "$@"; do
		sm_args="$sm_args -i $f"
	done
	sm_rc=0
	# shellcheck disable=SC2086 # one word per option
	"$PERFMINI" report $sm_args --folded >"$tmp/sm.folded" 2>"$tmp/report.err" || sm_rc=$?
	[ "$sm_rc" -eq 0 ] || fail "report $* exited $sm_rc: $(cat "$tmp/report.err")"
	! grep -q 'cut short' "$tmp/report.err" || fail "report $*: $(cat "$tmp/report.err")"
	awk '{ s += $NF } END { print s + 0 }' "$tmp/sm.folded"
}

mkdir "$tmp/a"
rc=0
run_timeout 60 "$PERFMINI" record -q -o "$tmp/a/sys.data" -a -F 99 --switch-output=1s \
	--switch-max-files=3 -d 5.5 >"$tmp/a.out" 2>"$tmp/a.err" || rc=$?
cat "$tmp/a.err" >&3
if [ "$rc" -ne 0 ] || [ -s "$tmp/a.err" ]; then
	fail "record -a --switch-output=1s exited $rc"
fi
n=$(find "$tmp/a" -name 'sys.data.*' | wc -l)
[ "$n" -eq 3 ] || fail "-a --switch-max-files=3: $n files: $(ls "$tmp/a")"
find "$tmp/a" -name 'sys.data.[0-9]*' | grep -Eq 'sys\.data\.[0-9]{17}$' ||
	fail "files not named OUTPUT.YYYYMMDDhhmmssSSS: $(ls "$tmp/a")"
sum=0
with=0
for f in "$tmp"/a/sys.data.*; do
	k=$(samples "$f")
	[ "$k" -eq 0 ] || with=$((with + 1))
	say "$f: $k samples"
	sum=$((sum + k))
done
# The newest may have begun just before the stop.
[ "$with" -ge 2 ] || fail "only $with of the 3 files have samples"
merged=$(samples "$tmp/a")
[ "$merged" -eq "$sum" ] || fail "report -i DIR: $merged samples, the files hold $sum"
# Each file's header says its own slice's length, and the merge of the
# three kept the span of those three: some 3 s, not the 5.5 s recorded.
duration() {
	"$PERFMINI" report -i "$1" -n 1 2>&3 | sed -n 's/^Duration: *\([0-9.]*\) s.*/\1/p'
}
# The newest, begun just before the stop, may have lasted less than the
# header's 10 ms precision.
newest=$(find "$tmp/a" -name 'sys.data.*' | sort | tail -n 1)
for f in "$tmp"/a/sys.data.*; do
	d=$(duration "$f")
	least=0
	[ "$f" = "$newest" ] && least=-1
	awk -v d="$d" -v least="$least" 'BEGIN { exit !(d != "" && d > least && d < 1.6) }' ||
		fail "$f says it lasted ${d:-?} s, for a slice of 1 s"
done
d=$(duration "$tmp/a")
awk -v d="$d" 'BEGIN { exit !(d > 1.5 && d < 3.8) }' ||
	fail "the 3 files merged say they lasted ${d:-?} s, want about 3"
# shellcheck disable=SC2046 # one file per -i
each=$(samples $(ls "$tmp"/a/sys.data.*))
[ "$each" -eq "$sum" ] || fail "report -i F -i G -i H: $each samples, the files hold $sum"
# --since and --until: wall-clock times, placed by the recording's start.
window() {
	"$PERFMINI" report -i "$tmp/a" --folded "$@" 2>&3 | awk '{ s += $NF } END { print s + 0 }'
}
later=$(($(date +%s) + 3600))
[ "$(window --since=@0)" -eq "$sum" ] || fail "--since=@0 left samples out"
[ "$(window --since=@$later)" -eq 0 ] || fail "--since an hour from now kept samples"
[ "$(window --until=@$later)" -eq "$sum" ] || fail "--until an hour from now left samples out"
[ "$(window --until=@0)" -eq 0 ] || fail "--until=@0 kept samples"
say "-a: 3 files kept, $sum samples, merged alike"

mkdir "$tmp/c"
rc=0
run_timeout 60 "$PERFMINI" record -o "$tmp/c/cmd.data" --switch-output=64K -- \
	"$TARGETS/spin-pie" 2 >"$tmp/c.out" 2>"$tmp/c.err" || rc=$?
cat "$tmp/c.err" >&3
[ "$rc" -eq 0 ] || fail "record --switch-output=64K exited $rc"
n=$(find "$tmp/c" -name 'cmd.data.*' | wc -l)
[ "$n" -ge 2 ] || fail "--switch-output=64K: $n file(s)"
counted=$(sed -n 's/^perfmini: \([0-9]*\) samples,.*/\1/p' "$tmp/c.err")
merged=$(samples "$tmp/c")
if [ -z "$counted" ] || [ "$merged" -ne "$counted" ]; then
	fail "--switch-output=64K: the $n files hold $merged samples, the recorder counted $counted"
fi
# Each file counts its own unwinds: a "Stacks:" line of no more stacks
# than its samples, and the merge's count is the files' sum, the one the
# recorder's summary gave.
stacks() {
	"$PERFMINI" report -i "$1" -n 1 2>&3 |
		sed -n 's/^Stacks: .* [0-9]* of \([0-9]*\) user stacks.*/\1/p'
}
unwound=0
for f in "$tmp"/c/cmd.data.*; do
	u=$(stacks "$f")
	k=$(samples "$f")
	if [ -z "$u" ] || [ "$u" -gt "$k" ] || { [ "$k" -gt 0 ] && [ "$u" -eq 0 ]; }; then
		fail "$f: ${u:-no} unwound stacks counted, for its $k samples"
	fi
	unwound=$((unwound + u))
done
said=$(sed -n 's/^perfmini: unwinding: [0-9]* of \([0-9]*\) user stacks.*/\1/p' "$tmp/c.err")
merged_u=$(stacks "$tmp/c")
if [ "$merged_u" != "$unwound" ] || [ "$said" != "$unwound" ]; then
	fail "the files count $unwound unwound stacks, merged ${merged_u:-none}, the summary ${said:-none}"
fi
say "--switch-output=64K: $unwound unwound stacks, each file its own"
"$PERFMINI" report -i "$tmp/c" -n 1 >"$tmp/c.top" 2>&3 || fail "report -i DIR exited $?"
sed -n "/^ Self%/,\$p" "$tmp/c.top" >&3
grep -Eq 'spin-pie +spin_hot$' "$tmp/c.top" || fail "report -i DIR: spin_hot is not the hottest"
say "a command: $n files of 64 KiB, $merged samples as counted"
# A file of another kind beside them is skipped, said; a file given twice
# (by two spellings) is merged once, said.
printf 'notes on the recording\n' >"$tmp/c/notes.txt"
rc=0
"$PERFMINI" report -i "$tmp/c" --folded >"$tmp/c2.folded" 2>"$tmp/c2.err" || rc=$?
[ "$rc" -eq 0 ] || fail "report -i DIR with a text file in it exited $rc: $(cat "$tmp/c2.err")"
grep -q "notes.txt is not a perfmini data file: skipped" "$tmp/c2.err" ||
	fail "report -i DIR: the text file was not said skipped: $(cat "$tmp/c2.err")"
[ "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/c2.folded")" -eq "$merged" ] ||
	fail "report -i DIR with a text file: not the samples of the recordings"
rm "$tmp/c/notes.txt"
one=$(find "$tmp/c" -name 'cmd.data.*' | sort | head -n 1)
alone=$(samples "$one")
"$PERFMINI" report -i "$one" -i "$tmp/c/../c/${one##*/}" --folded >"$tmp/c3.folded" \
	2>"$tmp/c3.err" || fail "report -i F -i F exited $?: $(cat "$tmp/c3.err")"
grep -q "is a file read already: it is merged once" "$tmp/c3.err" ||
	fail "report -i F -i F: not said: $(cat "$tmp/c3.err")"
[ "$(awk '{ s += $NF } END { print s + 0 }' "$tmp/c3.folded")" -eq "$alone" ] ||
	fail "report -i F -i F: not the samples of F alone ($alone)"

# A span carried from file to file keeps its stack: each slice numbers its
# stacks and frames anew.
mkdir "$tmp/o"
rc=0
run_timeout 60 "$PERFMINI" record -q -o "$tmp/o/pp.data" --off-cpu --switch-output=1s -- \
	"$TARGETS/pingpong" 1 3500 >"$tmp/o.out" 2>"$tmp/o.err" || rc=$?
[ "$rc" -eq 0 ] || fail "record --off-cpu --switch-output=1s exited $rc: $(cat "$tmp/o.err")"
last=$(find "$tmp/o" -name 'pp.data.*' | sort | tail -n 1)
n=$(find "$tmp/o" -name 'pp.data.*' | wc -l)
[ "$n" -ge 3 ] || fail "--off-cpu --switch-output=1s: $n file(s)"
"$PERFMINI" report -i "$last" --folded --sample-type=off-cpu >"$tmp/o.folded" 2>&3 ||
	fail "report --sample-type=off-cpu of $last exited $?"
# (The ponger thread may block before pingpong names it: its span keeps the name it had.)
for w in ';main;usleep;[^ ]*nanosleep' ';start_thread;ponger;(__libc_)?read[;_ ]'; do
	ns=$(awk -v re="$w" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$tmp/o.folded")
	if [ "$ns" -lt 3000000000 ]; then
		sort -k2 -n "$tmp/o.folded" | tail -n 4 >&3
		fail "the last of $n files has $ns ns off the CPU in $w, not the 3.5 s wait begun in the first"
	fi
done
say "--off-cpu: the 3.5 s waits carried through $n files, stacks named in the last"

# JIT frames are named in each file, from the perf map as it is when the
# file's slice ends (at most four files wait for names: three here).
mkdir "$tmp/j"
rc=0
run_timeout 60 "$PERFMINI" record -q -o "$tmp/j/j.data" --switch-output=1s -- \
	"$TARGETS/sym-jit" 2.5 >"$tmp/j.out" 2>"$tmp/j.err" || rc=$?
[ "$rc" -eq 0 ] || fail "record --switch-output=1s of sym-jit exited $rc: $(cat "$tmp/j.err")"
n=0
for f in "$tmp"/j/j.data.*; do
	"$PERFMINI" report -i "$f" --folded >"$tmp/j.folded" 2>&3 || fail "report -i $f exited $?"
	jit=$(awk '/\[anon\]|;jit_hot( |;)/ { s += $NF } END { print s + 0 }' "$tmp/j.folded")
	named=$(awk '/;jit_hot( |;)/ { s += $NF } END { print s + 0 }' "$tmp/j.folded")
	[ "$named" -eq "$jit" ] ||
		fail "$f: $named of $jit samples in JIT code named jit_hot: $(sort -k2 -n "$tmp/j.folded" | tail -n 1)"
	[ "$jit" -eq 0 ] || n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "sym-jit: $n files with samples in JIT code"
say "JIT code named in each of the $n files that sampled it"

unit=$top_builddir/contrib/perfmini-record.service
[ -f "$unit" ] || fail "no $unit: make check builds it"
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
case $exec_line in
*"/perfmini record -a "*"-o /var/lib/perfmini/perfmini.data") ;;
*) fail "the unit's ExecStart is not a 'perfmini record -a' into /var/lib/perfmini: $exec_line" ;;
esac
mkdir "$tmp/u"
# The unit's arguments, with the output directory, the SPEC and the length changed.
u_args=$(echo "${exec_line#*/perfmini }" | sed -e "s|/var/lib/perfmini|$tmp/u|" \
	-e 's/--switch-output=[^ ]*/--switch-output=1s/')
u_rc=0
# shellcheck disable=SC2086 # the unit's words, split as systemd splits them
run_timeout 60 "$PERFMINI" $u_args -d 2.5 >"$tmp/u.out" 2>&1 || u_rc=$?
[ "$u_rc" -eq 0 ] || fail "the unit's command exited $u_rc: $(head -n 3 "$tmp/u.out")"
n=$(find "$tmp/u" -name 'perfmini.data.*' | wc -l)
[ "$n" -ge 2 ] || fail "the unit's command wrote $n file(s) in 2.5 s"
[ "$(samples "$tmp/u")" -gt 0 ] || fail "the unit's files hold no samples"
if command -v systemd-analyze >/dev/null 2>&1; then
	systemd-analyze verify "$unit" >"$tmp/verify" 2>&1 || :
	if grep -v -e 'is not executable' -e "Command 'man " "$tmp/verify" | grep -q .; then
		cat "$tmp/verify" >&3
		fail "systemd-analyze verify finds fault with the unit"
	fi
fi
say "the example unit: $n files in 2.5 s"

for bad in "--switch-max-files=2" "--switch-output=5x" "--switch-output=10 " \
	"--switch-output=1s -o -"; do
	rc=0
	# shellcheck disable=SC2086 # the options are split on purpose
	"$PERFMINI" record $bad -- true >/dev/null 2>"$tmp/bad.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "record $bad: exit $rc, not 2: $(cat "$tmp/bad.err")"
done
exit 0
