#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report --annotate' on a program built -O1 and -O2 (annotate.c:
# an_work's loop calls an_mix, inlined from annotate-mix.h). For each build:
#   the source view: the hottest of an_work's own lines is one of the
#               loop's (the lines marked "loop"); under the loop, an_mix's
#               lines at annotate-mix.h, together at least half of the
#               function's samples;
#   --asm       the instructions hold every sample of the function, the
#               three hottest lie in the loop (between the backward
#               branch's target and the branch), and each source line to
#               which 'perf annotate --stdio -l' gives 5% or more, perf
#               recording the same run at the same time (-p), has a share
#               within 5 points of it among perfmini's instructions;
#   -n 1        without a function: one function, an_work;
# then --source-dir (with --force, sources are read only there), a name
# that has no samples (one line, exit 1) and options that need --annotate
# (exit 2).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
command -v perf >/dev/null || fail "no perf (scripts/deps.sh installs linux-perf)"
src=$(cd "${srcdir:-$(dirname "$0")/../..}/tests/targets" && pwd)/annotate.c
loop_lines=$(grep -n '/\* loop \*/' "$src" | cut -d: -f1 | tr '\n' ' ')

# rows FILE: the source view's rows of the function's own lines: "COUNT LINE".
rows() {
	awk '/^ Percent +Samples +Address/ { exit }
		/^ +[0-9.]+% +[0-9]+ +[0-9]+  / {
			if (substr($0, 28, 2) != "| ")
				print $2, $3
		}' "$1"
}

# inlined_share FILE: the samples of the rows under "+ inlined an_mix (...annotate-mix.h)".
inlined_share() {
	awk '/^ Percent +Samples +Address/ { exit }
		/\+ inlined an_mix \(.*annotate-mix\.h\)$/ { inl = 1; next }
		/^ +[0-9.]+% +[0-9]+ +[0-9]+  / {
			if (substr($0, 28, 2) != "| ")
				inl = 0
			else if (inl)
				s += $2
		}
		END { print s + 0 }' "$1"
}

# insns FILE: the instructions: "COUNT ADDRESS MNEMONIC TARGET".
insns() {
	awk '/^ Percent +Samples +Address/ { on = 1; next }
		on && /^ +[0-9.]+% +[0-9]+ 0x/ { print $2, $3, $4, $5; next }
		on && substr($0, 1, 19) ~ /^ *$/ && $1 ~ /^0x/ { print 0, $1, $2, $3 }' "$1"
}

for opt in O1 O2; do
	prog=$TARGETS/annotate-$opt
	# perfmini and perf record the same run at once (-p): their shares compare.
	"$prog" 2.5 >/dev/null &
	target=$!
	track "$target"
	wait_cpu "$target" 1 10 ||
		fail "$opt: the target used no CPU"
	record_bg "$tmp/$opt.data" -p "$target"
	perf record -q -e cpu-clock -p "$target" -o "$tmp/$opt.perf.data" >/dev/null \
		2>"$tmp/perf.err" &
	perf_pid=$!
	track "$perf_pid"
	wait "$target" || fail "$opt: the target failed"
	record_wait 60 "$tmp/$opt.data"
	wait "$perf_pid" || fail "perf record -p ($opt) failed: $(tail -n 2 "$tmp/perf.err")"
	"$PERFMINI" report -i "$tmp/$opt.data" --annotate=an_work --asm >"$tmp/$opt.txt" \
		2>"$tmp/$opt.err" || fail "report --annotate=an_work --asm ($opt) exited $?"
	cat "$tmp/$opt.txt" "$tmp/$opt.err" >&3
	total=$(sed -n 's/^Function: an_work (annotate-'$opt'): \([0-9]*\) samples.*/\1/p' \
		"$tmp/$opt.txt")
	if [ -z "$total" ] || [ "$total" -lt 500 ]; then
		fail "$opt: no 'Function: an_work' heading with 500 samples or more"
	fi

	hot=$(rows "$tmp/$opt.txt" | sort -rn | head -n 1 | cut -d' ' -f2)
	case " $loop_lines" in
	*" $hot "*) ;;
	*) fail "$opt: the hottest own line of an_work is $hot, not one of the loop's ($loop_lines)" ;;
	esac
	mixed=$(inlined_share "$tmp/$opt.txt")
	[ $((mixed * 2)) -ge "$total" ] ||
		fail "$opt: the lines of an_mix inlined from annotate-mix.h hold $mixed of $total samples"

	insns "$tmp/$opt.txt" >"$tmp/$opt.insns"
	placed=$(awk '{ s += $1 } END { print s + 0 }' "$tmp/$opt.insns")
	[ "$placed" -eq "$total" ] ||
		fail "$opt: the instructions hold $placed of the function's $total samples"
	# The loop: the first branch back to an earlier instruction; the hottest lie in it.
	loop=
	while read -r _ a m t; do
		case $m:$t in
		j*:0x*) if [ $((t)) -lt $((a)) ]; then
			loop="$t $a"
			break
		fi ;;
		esac
	done <"$tmp/$opt.insns"
	[ -n "$loop" ] || fail "$opt: --asm shows no branch back (the loop)"
	sort -rn "$tmp/$opt.insns" | head -n 3 | cut -d' ' -f2 >"$tmp/$opt.top3"
	lo=${loop% *}
	hi=${loop#* }
	while read -r a; do
		if [ $((a)) -lt $((lo)) ] || [ $((a)) -gt $((hi)) ]; then
			fail "$opt: hot instruction $a lies outside the loop ($loop)"
		fi
	done <"$tmp/$opt.top3"

	# perf on the same run: each source line perf annotate gives 5% or more
	# (its innermost lines, as --asm heads its instructions with) within 5
	# points of perfmini's share of that line.
	run_timeout 120 perf annotate --stdio -l -i "$tmp/$opt.perf.data" an_work \
		>"$tmp/$opt.perf.txt" 2>/dev/null || :
	awk '/^ +[0-9.]+ [^ ]+:[0-9]+$/ && $1 >= 5 { print $2, $1 }' "$tmp/$opt.perf.txt" \
		>"$tmp/$opt.perf.lines"
	[ -s "$tmp/$opt.perf.lines" ] || fail "$opt: perf annotate --stdio -l gave no source line"
	awk '/^ Percent +Samples +Address/ { on = 1; next }
		on && substr($0, 1, 19) ~ /^ *$/ && $1 ~ /:[0-9]+$/ { at = $1; next }
		on && /^ +[0-9.]+% +[0-9]+ 0x/ { n[at] += $2; t += $2 }
		END { for (a in n) printf "%s %.1f\n", a, 100 * n[a] / t }' "$tmp/$opt.txt" \
		>"$tmp/$opt.pm.lines"
	cat "$tmp/$opt.perf.lines" "$tmp/$opt.pm.lines" >&3
	while read -r at pct; do
		pm=$(awk -v at="$at" '$1 == at { print $2 }' "$tmp/$opt.pm.lines")
		[ -n "$pm" ] || fail "$opt: perf annotate gives $at $pct%, perfmini nothing"
		awk -v a="$pct" -v b="$pm" 'BEGIN { d = a - b; exit !(d <= 5 && d >= -5) }' ||
			fail "$opt: $at: perf annotate $pct%, perfmini $pm%"
	done <"$tmp/$opt.perf.lines"
	perf_hot=$(sort -k2 -rn "$tmp/$opt.perf.lines" | head -n 1)
	say "$opt: hottest own line $hot, an_mix $mixed of $total; perf's hottest line $perf_hot," \
		"perfmini $(awk -v at="${perf_hot% *}" '$1 == at { print $2 }' "$tmp/$opt.pm.lines")%"
done

# Without a function: the hottest one alone with -n 1.
"$PERFMINI" report -i "$tmp/O2.data" --annotate -n 1 >"$tmp/hottest.txt" 2>&3 ||
	fail "report --annotate -n 1 exited $?"
if [ "$(grep -c '^Function: ' "$tmp/hottest.txt")" -ne 1 ] ||
	! grep -q '^Function: an_work ' "$tmp/hottest.txt"; then
	fail "report --annotate -n 1 shows not an_work alone: $(grep '^Function: ' "$tmp/hottest.txt")"
fi

# --force: the recorded paths are not read; --source-dir is, path tails included.
mkdir -p "$tmp/src/deep/targets"
sed 's|/\* loop \*/|/* loop, from the source dir */|' "$src" >"$tmp/src/deep/targets/annotate.c"
"$PERFMINI" report -i "$tmp/O2.data" --force --annotate=an_work >"$tmp/forced.txt" 2>&3 ||
	fail "report --force --annotate exited $?"
grep -q "not read where recorded: the data file is another user's" "$tmp/forced.txt" ||
	fail "with --force and no --source-dir, the recorded source was read"
"$PERFMINI" report -i "$tmp/O2.data" --force --annotate=an_work --source-dir "$tmp/src/deep" \
	>"$tmp/dir.txt" 2>&3 || fail "report --annotate --source-dir exited $?"
grep -q 'loop, from the source dir' "$tmp/dir.txt" ||
	fail "--source-dir: the copy under $tmp/src/deep was not read"

# A name without samples: one line naming the hottest, exit 1.
rc=0
"$PERFMINI" report -i "$tmp/O2.data" --annotate=no_such_function >"$tmp/none.out" \
	2>"$tmp/none.err" || rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/none.err")" -ne 1 ] ||
	! grep -q "no samples in a function named 'no_such_function'; the hottest: an_work" \
		"$tmp/none.err"; then
	fail "--annotate=no_such_function: exit $rc, $(cat "$tmp/none.err")"
fi
for bad in --asm "--source-dir $tmp" "--annotate --sample-type=wall"; do
	rc=0
	# shellcheck disable=SC2086 # the options are split on purpose
	"$PERFMINI" report -i "$tmp/O2.data" $bad >/dev/null 2>"$tmp/bad.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "report $bad: exit $rc, not 2: $(cat "$tmp/bad.err")"
done
exit 0
