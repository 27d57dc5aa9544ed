#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The noise bars of 'perfmini report --diff' and --series, on a change the
# program itself measures: noise-base and noise-slow are one program
# (tests/targets/noise.c), the second built with nz_a doing 40% more work
# a call, each recorded for 2 s of CPU time at 4999 Hz (about 10,000
# samples), the slow one reported against the base:
#   --top     nz_a's self share grew, marked '*' (beyond its noise); its
#             change is the program's own within the noise bar or 2
#             points (the program times each call with its CPU clock);
#             --diff-significant shows marked rows alone, nz_a among them;
#   --folded  (--no-kernel, as --top) nz_a's frames read nz_a_[+], nz_b's nz_b_[-];
#             --diff-significant keeps only stacks through a function
#             marked on its self share;
#   --svg     nz_a's frame outlined (class "m"), data-noise set;
#   --pprof   a comment names nz_a (go tool pprof -comments);
#   --series  a recording of noise-base whose nz_a doubles its work
#             half-way, in 1 s files (--switch-output=1s): a file marks
#             nz_a grown against the one before.
# Then the errors: --diff-level out of range, --diff-significant without
# --diff or with a view of time, --series of one file.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
# record_noise DATA [RECORD-OPTIONS...] -- TARGET ARGS...: records it at 4999 Hz; its
# own timing into DATA.out.
record_noise() {
	rn_data=$1
	shift
	run_record 120 "$rn_data" -F 4999 "$@"
	grep '^noise:' "$tmp/record.out" >"$rn_data.out" || fail "$* printed no timing"
}
record_noise "$tmp/base.data" -- "$TARGETS/noise-base" 2
record_noise "$tmp/slow.data" -- "$TARGETS/noise-slow" 2

# The program's own change of nz_a's share (of its loop's CPU time), in points.
ref=$(awk '{ s[NR] = 100 * $3 / $7 } END { printf "%.2f", s[2] - s[1] }' \
	"$tmp/base.data.out" "$tmp/slow.data.out")
say "the program's own nz_a share: $(cat "$tmp/base.data.out") -> $(cat "$tmp/slow.data.out"): $ref points"

# --top: rows "B N C NOISE TB TN TC NOISE MODULE FUNCTION", C with '*' when marked.
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --no-kernel -n 0 \
	>"$tmp/top" 2>&3 || fail "report --diff exited $?"
cat "$tmp/top" >&3
# The header wraps: its lines joined before matching.
sed -n '/^Noise:/,/^$/p' "$tmp/top" | tr -s ' \n' '  ' |
	grep -q "^Noise: .*'\*' marks a change beyond it" || fail "--top: no 'Noise:' line"
awk -v ref="$ref" '
function abs(x) { return x < 0 ? -x : x }
/^ *Base +New +Change +Noise/ { t = 1; next }
t && NF == 10 && $10 == "nz_a" {
	found = 1
	c = $3
	marked = sub(/\*$/, "", c)
	tol = $4 > 2 ? $4 : 2
	printf "nz_a: %s%% -> %s%%, change %s, noise %s; the program: %s\n", $1, $2, $3, $4, ref
	if (!marked || c + 0 <= 0) { print "nz_a: its growth is not marked"; exit 1 }
	if (abs(c - ref) > tol) { print "nz_a: the change is not the program'"'"'s"; exit 1 }
}
END { if (!found) { print "nz_a: no row"; exit 1 } }' "$tmp/top" >&3 ||
	fail "--top --diff: nz_a's change is wrong or unmarked: see above"
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --no-kernel -n 0 \
	--diff-significant >"$tmp/sig" 2>&3 || fail "report --diff --diff-significant exited $?"
awk '/^ *Base +New +Change +Noise/ { t = 1; next }
t && NF == 10 { rows++; if ($10 == "nz_a") a = 1; if ($3 !~ /\*$/ && $7 !~ /\*$/) bad++ }
END { exit !(rows && a && !bad) }' "$tmp/sig" ||
	fail "--diff-significant: not the marked rows alone, nz_a among them: $(cat "$tmp/sig")"
say "--top: nz_a marked; --diff-significant: $(grep -c '\*' "$tmp/sig") marked rows alone"

# --folded: the marks on the frames; --diff-significant, the marked stacks alone.
# Without the kernel's frames, as --top above (and --svg, --pprof below): the
# two recordings, made one after the other on a busy machine, can differ in
# their kernel time by more than nz_a's change (interrupts, the clock's
# system calls).
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --folded --no-kernel >"$tmp/folded" 2>&3 ||
	fail "report --diff --folded exited $?"
grep -q ';nz_a_\[+\] [0-9]* [0-9]*$' "$tmp/folded" || fail "--folded: no nz_a_[+] stack"
grep -q ';nz_b_\[-\] [0-9]* [0-9]*$' "$tmp/folded" || fail "--folded: no nz_b_[-] stack"
! grep -q ';nz_a [0-9]* [0-9]*$' "$tmp/folded" || fail "--folded: an nz_a frame without its mark"
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --folded --no-kernel --diff-significant \
	>"$tmp/folded.sig" 2>&3 || fail "report --diff --folded --diff-significant exited $?"
[ -s "$tmp/folded.sig" ] || fail "--folded --diff-significant: no stack"
! grep -v '_\[[-+]\]' "$tmp/folded.sig" >&3 || fail "--folded --diff-significant: unmarked stacks"
say "--folded: nz_a_[+], nz_b_[-]; $(wc -l <"$tmp/folded.sig") marked stacks of $(wc -l <"$tmp/folded")"

# --svg: nz_a outlined.
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --no-kernel --svg \
	-o "$tmp/diff.svg" 2>&3 || fail "report --diff --svg exited $?"
xmllint --noout "$tmp/diff.svg" 2>&3 || fail "the flame graph is not well-formed XML"
grep -q '<title>nz_a ([^<]*beyond the noise)</title><rect class="m" ' "$tmp/diff.svg" ||
	fail "--svg: nz_a is not outlined as beyond the noise"
grep -q 'data-noise="marks"' "$tmp/diff.svg" || fail "--svg: no data-noise"

# --pprof: the comments.
command -v go >/dev/null 2>&1 || fail "go is needed (Debian: golang-go)"
"$PERFMINI" report -i "$tmp/slow.data" --diff "$tmp/base.data" --no-kernel --pprof \
	-o "$tmp/diff.pb.gz" 2>&3 || fail "report --diff --pprof exited $?"
run_timeout 120 go tool pprof -comments "$tmp/diff.pb.gz" >"$tmp/comments" 2>&3 ||
	fail "go tool pprof -comments failed"
cat "$tmp/comments" >&3
grep -q '^nz_a: self +[0-9.]* (noise [0-9.]*)' "$tmp/comments" || fail "--pprof: no comment on nz_a"

# --series: nz_a doubles its work after 2 s of CPU time, the files 1 s apart.
mkdir "$tmp/slices"
rc=0
run_timeout 120 "$PERFMINI" record -q -o "$tmp/slices/noise.data" -F 4999 --switch-output=1s -- \
	"$TARGETS/noise-base" 4 2 >&3 2>&3 || rc=$?
[ "$rc" -eq 0 ] || fail "record --switch-output=1s exited $rc"
ls "$tmp/slices" >&3
"$PERFMINI" report -i "$tmp/slices" --series --no-kernel >"$tmp/series" 2>&3 ||
	fail "report --series exited $?"
cat "$tmp/series" >&3
grep -Eq '^noise\.data\.[0-9]+ .* nz_a \+[0-9.]+ \([0-9.]+\)' "$tmp/series" ||
	fail "--series: no file marks nz_a grown against the one before"
"$PERFMINI" report -i "$tmp/slices" --series --no-kernel --diff-significant >"$tmp/series.sig" \
	2>&3 || fail "report --series --diff-significant exited $?"
[ "$(grep -c '^noise\.data\.' "$tmp/series.sig")" -lt "$(grep -c '^noise\.data\.' "$tmp/series")" ] ||
	fail "--series --diff-significant: every file is shown"

# Errors: one line and exit 2 (usage) or 1.
for args in "--diff $tmp/base.data --diff-level=40" "--diff-significant" \
	"--diff $tmp/base.data --diff-significant --sample-type=wall" "--series --diff $tmp/base.data"; do
	rc=0
	# shellcheck disable=SC2086 # the words of args, split
	"$PERFMINI" report -i "$tmp/slow.data" $args >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 2 ] || [ "$(grep -vc '^Try' "$tmp/err")" -ne 1 ]; then
		fail "report $args: exit $rc, $(cat "$tmp/err")"
	fi
	say "report $args: $(head -n 1 "$tmp/err")"
done
rc=0
"$PERFMINI" report -i "$tmp/slow.data" --series >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
	fail "--series of one file: exit $rc, $(cat "$tmp/err")"
fi
say "--series of one file: $(cat "$tmp/err")"
exit 0
