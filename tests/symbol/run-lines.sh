#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Source lines and inline chains from DWARF: 'inline' (built -O2 -g) spends
# its time in a loop inlined through two levels. Every sample must read
# work_outer;inline_mid_[i];inline_leaf_[i], with --lines each level at its
# own place: work_outer and inline_mid at the lines where they call the
# next level, inline_leaf at a line of its loop. --no-inline folds the
# chain back into work_outer; 'perfmini symbolize' prints the same chain
# for an address of the loop. A recording made with --no-lines names the
# same samples work_outer from the symbol table, with no inlined levels, no
# lines and its meta saying so, and report --lines warns.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

src=$srcdir/tests/targets/inline.c
mark() {
	grep -n "MARK $1 \*/" "$src" | cut -d: -f1
}
outer_call=$(mark outer-call)
mid_call=$(mark mid-call)
leaf_loop=$(mark leaf-loop)
leaf_body=$(mark leaf-body)

need_perf
run_record 60 "$tmp/inline.data" -- "$TARGETS/inline" 1
run_report "$tmp/inline.data" "$tmp/plain.folded"
check_share "$tmp/plain.folded" "work_outer;inline_mid_[i];inline_leaf_[i]" inline 500

"$PERFMINI" report -i "$tmp/inline.data" --folded --lines >"$tmp/lines.folded" ||
	fail "report --lines failed"
# The leaf's line is where the sample was: a line of its loop.
awk -v oc="$outer_call" -v mc="$mid_call" -v l1="$leaf_loop" -v l2="$leaf_body" '
	{
		n = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		if (stack !~ /^inline;/)
			next
		total += n
		want = ";work_outer:inline.c:" oc ";inline_mid:inline.c:" mc "_\\[i\\];" \
		       "inline_leaf:inline.c:(" l1 "|" l2 ")_\\[i\\]$"
		sub(/(;[^;]*_\[k\])+$/, "", stack)
		if (stack ~ want)
			ok += n
	}
	END {
		printf "%d %d\n", ok, total
	}' "$tmp/lines.folded" >"$tmp/lines.count"
read -r ok total <"$tmp/lines.count"
say "--lines: $ok of $total samples read work_outer:inline.c:$outer_call;" \
	"inline_mid:inline.c:${mid_call}_[i];inline_leaf:inline.c:{$leaf_loop,$leaf_body}_[i]"
if [ "$total" -lt 500 ] || [ $((ok * 100)) -lt $((total * 90)) ]; then
	top_stacks "$tmp/lines.folded" 5 >&3
	fail "too few samples with the expected lines"
fi

# --full-paths: the whole path the compiler recorded, ending in the source's.
"$PERFMINI" report -i "$tmp/inline.data" --folded --lines --full-paths >"$tmp/full.folded" ||
	fail "report --lines --full-paths failed"
grep -q "work_outer:/[^;]*tests/targets/inline.c:$outer_call;" "$tmp/full.folded" ||
	fail "--full-paths did not print the whole path of inline.c"

# --no-inline: only the real function.
"$PERFMINI" report -i "$tmp/inline.data" --folded --no-inline >"$tmp/noinline.folded" ||
	fail "report --no-inline failed"
! grep -q '_\[i\]' "$tmp/noinline.folded" || fail "--no-inline still prints inlined frames"
check_share "$tmp/noinline.folded" "work_outer" inline 500

# symbolize: an address inside the loop, from the ELF symbol of work_outer.
start=$(nm "$TARGETS/inline" | awk '$3 == "work_outer" { print $1 }')
[ -n "$start" ] || fail "no symbol work_outer in inline"
size=$(nm -S "$TARGETS/inline" | awk '$4 == "work_outer" { print $2 }')
found=
for off in $(seq 0 $((0x$size - 1))); do
	addr=$(printf '0x%x' $((0x$start + off)))
	"$PERFMINI" symbolize -e "$TARGETS/inline" "$addr" >"$tmp/sym.out" ||
		fail "symbolize -e failed"
	if grep -q "^  inline_leaf at .*inline.c:\\($leaf_loop\\|$leaf_body\\)" "$tmp/sym.out"; then
		found=$addr
		break
	fi
done
[ -n "$found" ] || fail "no address of work_outer symbolizes to inline_leaf's loop"
cat "$tmp/sym.out" >&3
head -n 1 "$tmp/sym.out" | grep -q "^$found work_outer+0x[0-9a-f]* " ||
	fail "symbolize: first line is not '$found work_outer+0x...'"
sed -n 3p "$tmp/sym.out" | grep -q "^  inlined into inline_mid at .*inline.c:$mid_call" ||
	fail "symbolize: second level is not inline_mid at line $mid_call"
sed -n 4p "$tmp/sym.out" | grep -q "^  inlined into work_outer at .*inline.c:$outer_call" ||
	fail "symbolize: third level is not work_outer at line $outer_call"

# record --no-lines: symbol names only.
run_record 60 "$tmp/nolines.data" --no-lines -- "$TARGETS/inline" 1
run_report "$tmp/nolines.data" "$tmp/nolines.folded"
! grep -q '_\[i\]' "$tmp/nolines.folded" || fail "--no-lines recorded inlined frames"
check_share "$tmp/nolines.folded" "work_outer" inline 500
"$PERFMINI" report -i "$tmp/nolines.data" --folded --lines >"$tmp/nolines-lines.folded" \
	2>"$tmp/nolines.err" || fail "report --lines of a --no-lines recording failed"
cat "$tmp/nolines.err" >&3
! grep -q ':[0-9][0-9]*[;_ ]' "$tmp/nolines-lines.folded" ||
	fail "a --no-lines recording has source lines"
grep -q 'recorded with --no-lines' "$tmp/nolines.err" ||
	fail "report --lines did not warn that the recording has no lines"
"$PERFMINI" report -i "$tmp/nolines.data" --lines >/dev/null 2>"$tmp/nolines.err" ||
	fail "report --top --lines of a --no-lines recording failed"
grep -q 'recorded with --no-lines' "$tmp/nolines.err" || fail "report --top --lines did not warn"
