#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report --diff BASE': two recordings of mix, whose hot-function
# mix its argument sets (mix_a 70% and mix_b 30% of the calls in the
# base, 30/70 in the new one, which runs for a shorter time), compared in
# every format that compares:
#   --top     mix_a and mix_b lead (the largest changes), each with its
#             share in both (70 and 30 within 6 points), the change, and
#             a mark: beyond the noise;
#   --folded  "STACK BASE NEW" lines; NEW sums to the new recording's
#             samples, BASE (normalized) to the same total within
#             rounding, and the mix_a and mix_b stacks have the shares
#             and the marks (mix_a_[-], mix_b_[+]);
#   --pprof   'go tool pprof -top' of the file gives the same flat shares
#             as 'go tool pprof -normalize -diff_base' of the two
#             recordings' own pprof files;
#   --svg     well-formed, mix_a blue (shrank), mix_b red (grew), both
#             outlined as beyond the noise, the base's share in the
#             hover text; in chromium the script's
#             colours after a zoom are the file's (tests/report/svg-diff.js).
# Then a second build of mix (non-PIE, -O2, other addresses) against the
# first with the same mix: frames match by name, nothing changes beyond
# noise. Last, the errors: --diff with a format that does not compare, a
# base that does not exist, --per-pid with --diff, --diff-key without it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 120 "$tmp/base.data" -- "$TARGETS/mix" 70 1.5
run_record 120 "$tmp/new.data" -- "$TARGETS/mix" 30 1
run_record 120 "$tmp/moved.data" -- "$TARGETS/moved/mix" 30 1

# --top: the rows of mix_a and mix_b.
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/base.data" -n 0 >"$tmp/top" 2>&3 ||
	fail "report --diff exited $?"
cat "$tmp/top" >&3
# The header wraps long paths onto indented lines: join them before matching.
sed -n '/^Base:/,/^Compared:/p' "$tmp/top" | tr -s ' \n' '  ' |
	grep -q "^Base: .*base.data, [0-9]* samples" || fail "no 'Base:' line naming the base"
# The table: the two heading lines, then rows "B N C NOISE TB TN TC NOISE MODULE
# FUNCTION", C and TC with a '*' when beyond the noise.
awk '/^ *Base +New +Change/ { t = 1; next } t && NF >= 10 && n < 2 { print $10; n++ }' \
	"$tmp/top" >"$tmp/first"
[ "$(sort "$tmp/first" | tr '\n' ' ')" = "mix_a mix_b " ] ||
	fail "the largest changes are not mix_a and mix_b but: $(tr '\n' ' ' <"$tmp/first")"
check_row() { # TOP FUNCTION BASE NEW [MARKED]: within 6 points, the change their difference
	cr_top=$1
	shift
	awk -v f="$1" -v b="$2" -v n="$3" -v marked="${4:-}" '
	function abs(x) { return x < 0 ? -x : x }
	$10 == f && $9 == "mix" {
		found = 1
		c = $3
		m = sub(/\*$/, "", c)
		if (abs($1 - b) > 6 || abs($2 - n) > 6 || abs(c - ($2 - $1)) > 0.15) {
			printf "%s: base %s new %s change %s (want about %s, %s)\n", f, $1, $2, $3, b, n
			exit 1
		}
		if (marked != "" && !m) {
			printf "%s: change %s, noise %s: not marked\n", f, $3, $4
			exit 1
		}
	}
	END { if (!found) { print f ": no row"; exit 1 } }' "$cr_top" >&3 ||
		fail "--top --diff: $1 is not about $2% -> $3%"
}
check_row "$tmp/top" mix_a 70 30 marked
check_row "$tmp/top" mix_b 30 70 marked
say "--top: mix_a 70 -> 30, mix_b 30 -> 70 within 6 points, both marked"

# --folded: two counts per line.
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/base.data" --folded >"$tmp/folded" 2>&3 ||
	fail "report --diff --folded exited $?"
run_report "$tmp/new.data" "$tmp/new.folded"
bad=$(grep -Evc '^[^;]+(;[^;]+)* [0-9]+ [0-9]+$' "$tmp/folded" || :)
[ "$bad" -eq 0 ] || fail "$bad lines of --folded --diff are not 'STACK BASE NEW'"
awk -v want="$(awk '{ n += $NF } END { print n }' "$tmp/new.folded")" '
function abs(x) { return x < 0 ? -x : x }
{ b += $(NF - 1); n += $NF; lines++ }
/;mix_round;mix_a_\[-\] [0-9]+ [0-9]+$/ { ab = $(NF - 1); an = $NF }
/;mix_round;mix_b_\[\+\] [0-9]+ [0-9]+$/ { bb = $(NF - 1); bn = $NF }
END {
	printf "folded: base %d new %d (new alone %d) in %d lines; mix_a %d -> %d, mix_b %d -> %d\n",
		b, n, want, lines, ab, an, bb, bn
	if (n != want) { print "the NEW counts do not sum to the new recording"; exit 1 }
	if (abs(b - n) > lines) { print "the BASE counts are not normalized"; exit 1 }
	if (!an || !bn) { print "no mix_a_[-] or mix_b_[+] stack"; exit 1 }
	if (abs(100 * ab / b - 70) > 6 || abs(100 * an / n - 30) > 6 ||
	    abs(100 * bb / b - 30) > 6 || abs(100 * bn / n - 70) > 6) {
		print "the shares of mix_a and mix_b are off"; exit 1
	}
}' "$tmp/folded" >&3 || fail "--folded --diff is wrong: see above"

# --pprof: as pprof's own -diff_base.
command -v go >/dev/null 2>&1 || fail "go is needed (Debian: golang-go)"
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/base.data" --pprof -o "$tmp/diff.pb.gz" 2>&3 ||
	fail "report --diff --pprof exited $?"
"$PERFMINI" report -i "$tmp/new.data" --pprof -o "$tmp/new.pb.gz" 2>&3 || fail "--pprof failed"
"$PERFMINI" report -i "$tmp/base.data" --pprof -o "$tmp/base.pb.gz" 2>&3 || fail "--pprof failed"
flat() { # PPROF-TOP-OUTPUT FUNCTION: its flat value's sign and flat%
	awk -v f="$2" '$NF == f { v = $1; sub(/[a-z]+$/, "", v); print (v < 0 ? "-" : "+") $2; exit }' "$1"
}
run_timeout 120 go tool pprof -top "$tmp/diff.pb.gz" >"$tmp/ours" 2>&3 ||
	fail "go tool pprof cannot read the --diff file"
run_timeout 120 go tool pprof -top -normalize -diff_base "$tmp/base.pb.gz" "$tmp/new.pb.gz" \
	>"$tmp/theirs" 2>&3 || fail "go tool pprof -diff_base failed"
for f in mix_a mix_b; do
	ours=$(flat "$tmp/ours" $f)
	theirs=$(flat "$tmp/theirs" $f)
	say "pprof: $f $ours in the --diff file, $theirs by -normalize -diff_base"
	if [ -z "$ours" ] || [ "$ours" != "$theirs" ]; then
		fail "pprof: $f is $ours in the --diff file but $theirs by pprof's own -diff_base"
	fi
done
[ "$(flat "$tmp/ours" mix_a | cut -c1)" = "-" ] || fail "pprof: mix_a did not shrink"

# --svg: colours and hover text.
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/base.data" --svg -o "$tmp/diff.svg" 2>&3 ||
	fail "report --diff --svg exited $?"
xmllint --noout "$tmp/diff.svg" 2>&3 || fail "the --diff flame graph is not well-formed XML"
python3 - "$tmp/diff.svg" >&3 <<'PY' || fail "the --diff flame graph is wrong: see above"
import re, sys
svg = open(sys.argv[1], encoding="utf-8").read()
frames = re.findall(r'<g class="f"><title>([^<]*)</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
# The frame of a name with the most samples: a stray sample may draw it elsewhere too.
seen, most = {}, {}
for title, r, g, b in frames:
    name = title.split(" (")[0]
    m = re.search(r"\(([\d,]+) samples?", title)
    n = int(m.group(1).replace(",", "")) if m else 0
    if n >= most.get(name, -1):
        seen[name], most[name] = (title, int(r), int(g), int(b)), n
bad = []
for name, grew in (("mix_a", False), ("mix_b", True)):
    if name not in seen:
        bad.append(name + ": not drawn")
        continue
    title, r, g, b = seen[name]
    print(name, title, (r, g, b))
    if grew != (r > b + 100) or (not grew) != (b > r + 100):
        bad.append(name + ": rgb(%d,%d,%d) is not %s" % (r, g, b, "red" if grew else "blue"))
    if not re.search(r"; base [\d.]+%, [+-][\d.]+ points; its function changed beyond the noise\)$", title):
        bad.append(name + ": no base share or mark in '" + title + "'")
    if not re.search(r'<g class="f"><title>' + re.escape(title) + r'</title><rect class="m" ', svg):
        bad.append(name + ": not outlined (class m)")
if 'data-base-samples="' not in svg:
    bad.append("no data-base-samples")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
command -v node >/dev/null 2>&1 || fail "node is needed (Debian: nodejs)"
CHROMIUM=${CHROMIUM:-$(command -v chromium || :)}
[ -n "$CHROMIUM" ] || fail "chromium is needed (Debian: chromium)"
export CHROMIUM
# shellcheck source=scripts/deps.sh
. "$srcdir/scripts/deps.sh"
pm_install_node_deps >&3 2>&1 || fail "cannot install puppeteer-core into $PM_NODE_DIR"
NODE_PATH=$PM_NODE_DIR/node_modules run_timeout 120 node "$srcdir/tests/report/svg-diff.js" \
	"$tmp/diff.svg" 2>&3 >&3 || fail "the --diff flame graph misbehaves in chromium: see above"

# Two builds of one program: matched by name, not address.
"$PERFMINI" report -i "$tmp/moved.data" --diff "$tmp/new.data" -n 0 >"$tmp/moved.top" 2>&3 ||
	fail "report --diff of two builds exited $?"
cat "$tmp/moved.top" >&3
check_row "$tmp/moved.top" mix_a 30 30
check_row "$tmp/moved.top" mix_b 70 70
say "two builds (PIE -O1, non-PIE -O2): mix_a and mix_b matched, unchanged within 6 points"

# Errors: one line, exit 2 for a usage error, 1 for a file that is not there.
rc=0
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/base.data" --script >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q -- "--diff applies to" "$tmp/err"; then
	fail "--diff with --script: exit $rc, $(cat "$tmp/err")"
fi
rc=0
"$PERFMINI" report -i "$tmp/new.data" --diff "$tmp/none.data" >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
	fail "--diff with a missing base: exit $rc, $(cat "$tmp/err")"
fi
say "errors: $(cat "$tmp/err")"
for args in "--diff $tmp/base.data --per-pid" "--diff-key=module" \
	"--diff $tmp/base.data --diff-key=name"; do
	rc=0
	# shellcheck disable=SC2086 # the words of args, split
	"$PERFMINI" report -i "$tmp/new.data" $args >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 2 ]; then
		fail "report $args: exit $rc, $(cat "$tmp/err")"
	fi
	say "report $args: $(head -n 1 "$tmp/err")"
done
exit 0
