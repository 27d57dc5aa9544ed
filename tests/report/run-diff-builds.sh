#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report --diff' of two builds of one program under other file
# names, as perf diff's users compare them: twobuilds built -O0
# (twobuilds-O0: tb_step a function of its own, called from tb_hot) and
# -O2 (twobuilds-O2: tb_step inlined into tb_hot), each recorded, and the
# -O2 recording reported against the -O0 one:
#   --top       one row per function: tb_hot once, its total share above
#               90% in Base and in New; tb_step (Base) and tb_step_[i]
#               (New) rows of their own (shares of user frames, here and
#               below: --no-kernel);
#   --folded    no thread name first; the stack main;tb_hot one line with
#               a BASE and a NEW count;
#   --merge-inline  tb_hot's self share above 80% in both, tb_step's time
#               counted in it, no tb_step row; folded, main;tb_hot one line
#               with 80% of both totals, tb_step nowhere; on the -O2
#               recording alone, the same share and no inlined level left;
#   --diff-key  module: tb_hot a row per build; thread: the stacks start
#               with the thread's name, one per build;
#   the example of perfmini-report(1), DIFFERENTIAL REPORTS, as written:
#               app-old and app recorded, compared in --top and --svg.
# First, that the builds differ as the test needs: in the -O2 recording
# most samples end in tb_hot;tb_step_[i], in the -O0 one in tb_hot;tb_step.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 120 "$tmp/o0.data" -- "$TARGETS/twobuilds-O0" 1
run_record 120 "$tmp/o2.data" -- "$TARGETS/twobuilds-O2" 1
run_report "$tmp/o0.data" "$tmp/o0.folded"
run_report "$tmp/o2.data" "$tmp/o2.folded"
check_share "$tmp/o0.folded" "main;tb_hot;tb_step" "" 200 50
check_share "$tmp/o2.folded" "main;tb_hot;tb_step_[i]" "" 200 50

# The shares below are of user frames (--no-kernel): on a loaded machine a
# third of a program's samples can land in the kernel under its leaf
# (interrupts), which moves self shares without changing what is compared.
# diff_top FILE ARGS...: 'report -i o2.data --diff o0.data -n 0 --no-kernel ARGS...' into FILE.
diff_top() {
	dt_out=$1
	shift
	"$PERFMINI" report -i "$tmp/o2.data" --diff "$tmp/o0.data" -n 0 --no-kernel "$@" >"$dt_out" 2>&3 ||
		fail "report --diff $* exited $?"
	cat "$dt_out" >&3
}
# rows TOP FUNCTION: the table's rows of FUNCTION, "B N C NOISE TB TN TC NOISE MODULE
# FUNCTION" each, C and TC without their mark ('*': beyond the noise).
rows() {
	awk -v f="$2" '/^ *Base +New +Change/ { t = 1; next }
	t && NF == 10 && $10 == f { sub(/\*$/, "", $3); sub(/\*$/, "", $7); print }' "$1"
}

# --top: tb_hot one row, in both.
diff_top "$tmp/top"
[ "$(rows "$tmp/top" tb_hot | wc -l)" -eq 1 ] ||
	fail "--top --diff: tb_hot is not one row but: $(rows "$tmp/top" tb_hot | tr '\n' '|')"
rows "$tmp/top" tb_hot | awk '{ exit !($5 > 90 && $6 > 90) }' ||
	fail "--top --diff: tb_hot's total share is not above 90% in both: $(rows "$tmp/top" tb_hot)"
rows "$tmp/top" tb_step | awk '{ exit !($1 > 50 && $2 == 0) }' ||
	fail "--top --diff: no tb_step row of the -O0 build alone: $(rows "$tmp/top" tb_step)"
rows "$tmp/top" 'tb_step_[i]' | awk '{ exit !($1 == 0 && $2 > 50) }' ||
	fail "--top --diff: no tb_step_[i] row of the -O2 build alone"
say "--top: tb_hot one row, $(rows "$tmp/top" tb_hot)"

# --folded: no root frame, main;tb_hot matched.
"$PERFMINI" report -i "$tmp/o2.data" --diff "$tmp/o0.data" --folded >"$tmp/folded" 2>&3 ||
	fail "report --diff --folded exited $?"
! grep -q '^twobuilds' "$tmp/folded" || fail "--folded --diff: stacks start with a thread name"
hot=$(grep -E ';main;tb_hot(_\[[-+]\])? [0-9]+ [0-9]+$' "$tmp/folded" || :)
[ "$(printf '%s\n' "$hot" | grep -c .)" -eq 1 ] || fail "--folded --diff: main;tb_hot is not one line: $hot"
printf '%s\n' "$hot" | awk '{ exit !($(NF - 1) > 0 && $NF > 0) }' ||
	fail "--folded --diff: main;tb_hot is not in both: $hot"
say "--folded: $hot"

# --merge-inline: tb_step counted in tb_hot, in both.
diff_top "$tmp/merged" --merge-inline
rows "$tmp/merged" tb_hot | awk '{ exit !($1 > 80 && $2 > 80) }' ||
	fail "--merge-inline: tb_hot's self share is not above 80% in both: $(rows "$tmp/merged" tb_hot)"
! grep -q 'tb_step' "$tmp/merged" || fail "--merge-inline: tb_step still has a row"
say "--merge-inline --top: $(rows "$tmp/merged" tb_hot)"
"$PERFMINI" report -i "$tmp/o2.data" --diff "$tmp/o0.data" --folded --merge-inline --no-kernel \
	>"$tmp/merged.folded" 2>&3 || fail "report --diff --folded --merge-inline exited $?"
! grep -q 'tb_step' "$tmp/merged.folded" || fail "--merge-inline --folded: tb_step is left"
awk '{ b += $(NF - 1); n += $NF } /;main;tb_hot(_\[[-+]\])? [0-9]+ [0-9]+$/ { hb = $(NF - 1); hn = $NF }
END {
	printf "merged folded: main;tb_hot %d of %d (base), %d of %d (new)\n", hb, b, hn, n
	exit !(hb >= 0.8 * b && hn >= 0.8 * n)
}' "$tmp/merged.folded" >&3 || fail "--merge-inline --folded: main;tb_hot has under 80% of a total"

# --merge-inline without --diff: the -O2 recording alone.
"$PERFMINI" report -i "$tmp/o2.data" --merge-inline -n 0 --no-kernel >"$tmp/plain" 2>&3 ||
	fail "report --merge-inline exited $?"
awk '$NF == "tb_hot" { sub(/%/, "", $1); found = 1; exit !($1 > 80) } END { exit !found }' \
	"$tmp/plain" || fail "--merge-inline: tb_hot's self share is not above 80%: $(grep tb_hot "$tmp/plain")"
"$PERFMINI" report -i "$tmp/o2.data" --merge-inline --folded >"$tmp/plain.folded" 2>&3 ||
	fail "report --merge-inline --folded exited $?"
! grep -q '_\[i\]' "$tmp/plain.folded" || fail "--merge-inline --folded: an inlined level is left"
say "--merge-inline alone: $(grep -E ' tb_hot$' "$tmp/plain")"

# --diff-key: the stricter matches.
diff_top "$tmp/bymodule" --diff-key=module
[ "$(rows "$tmp/bymodule" tb_hot | wc -l)" -eq 2 ] ||
	fail "--diff-key=module: tb_hot is not a row per build"
"$PERFMINI" report -i "$tmp/o2.data" --diff "$tmp/o0.data" --folded --diff-key=thread \
	>"$tmp/bythread" 2>&3 || fail "report --diff --folded --diff-key=thread exited $?"
roots=$(sed 's/;.*//' "$tmp/bythread" | sort -u | tr '\n' ' ')
[ "$roots" = "twobuilds-O0 twobuilds-O2 " ] || fail "--diff-key=thread: the roots are $roots"
say "--diff-key=module: tb_hot in 2 rows; --diff-key=thread: roots $roots"

# The manual's example, as written there (with -q, in a directory of its own).
mkdir "$tmp/man"
cp "$TARGETS/twobuilds-O0" "$tmp/man/app-old"
cp "$TARGETS/twobuilds-O2" "$tmp/man/app"
(
	cd "$tmp/man"
	run_record 120 old.data -- ./app-old 1
	run_record 120 new.data -- ./app 1
	"$PERFMINI" report -i new.data --diff old.data >top 2>&3 || fail "the example's report exited $?"
	"$PERFMINI" report -i new.data --diff old.data --svg -o diff.svg 2>&3 ||
		fail "the example's --svg exited $?"
)
cat "$tmp/man/top" >&3
[ "$(rows "$tmp/man/top" tb_hot | wc -l)" -eq 1 ] ||
	fail "the manual's example: tb_hot is not one row in --top"
rows "$tmp/man/top" tb_hot | awk '{ exit !($5 > 90 && $6 > 90) }' ||
	fail "the manual's example: tb_hot is not in both: $(rows "$tmp/man/top" tb_hot)"
grep -Eq '<title>tb_hot \([^<]*; base [0-9.]+%' "$tmp/man/diff.svg" ||
	fail "the manual's example: tb_hot has no base share in the flame graph"
say "the manual's example: tb_hot matched in --top and --svg"
exit 0
