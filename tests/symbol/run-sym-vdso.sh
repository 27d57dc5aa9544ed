#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The vdso: sym-vdso calls the vdso's clock_gettime directly (found with
# dlsym), so that most samples have their user leaf in the vdso, and
# writes its vdso image to a file. A vdso leaf must be named by the vdso
# symbol whose range holds it, or left as "[vdso+0xOFF]" only where no
# symbol does (kernels since 6.x call local functions that .dynsym does
# not name): checked against nm on the image (whose file offsets are its
# addresses). At least half of all samples must have a vdso leaf, and at
# least 98% of those must be right.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-vdso

need_perf
record_cmd vdso -- "$TARGETS/sym-vdso" 1 "$tmp/vdso.so"
[ -s "$tmp/vdso.so" ] || fail "sym-vdso wrote no vdso image"
# "START END NAME" in decimal, one per function symbol.
nm -D -S --defined-only "$tmp/vdso.so" | awk '
	function hex(s,   i, v) {
		v = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	NF == 4 && $3 ~ /^[TtWw]$/ { n = $4; sub(/@.*/, "", n); print hex($1), hex($1) + hex($2), n }' \
	>"$tmp/vdso.syms"
[ -s "$tmp/vdso.syms" ] || fail "nm finds no function symbol in the vdso image"
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(awk -v comm=sym-vdso '
	FILENAME == ARGV[1] { lo[NR] = $1; hi[NR] = $2; name[NR] = $3; nsym = NR; next }
	function hex(s,   i, v) {
		v = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{
		n = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		c = stack
		sub(/;.*/, "", c)
		if (c != comm)
			next
		total += n
		while (stack ~ /;[^;]*_\[k\]$/)
			sub(/;[^;]*_\[k\]$/, "", stack)
		leaf = stack
		sub(/.*;/, "", leaf)
		if (leaf ~ /^\[vdso\+0x[0-9a-f]+\]$/) {
			off = hex(substr(leaf, 9, length(leaf) - 9))
			invdso += n
			held = 0
			for (i = 1; i <= nsym; i++)
				if (off >= lo[i] && off < hi[i])
					held = 1
			if (held)
				wrong += n
			else
				right += n
			next
		}
		for (i = 1; i <= nsym; i++)
			if (leaf == name[i] || leaf == "__vdso_" name[i] || "__vdso_" leaf == name[i]) {
				invdso += n
				right += n
				next
			}
	}
	END { printf "%d %d %d %d\n", right, wrong, invdso, total }' "$tmp/vdso.syms" "$tmp/vdso.folded")
right=$1 wrong=$2 in_vdso=$3 total=$4
say "of $total samples, $in_vdso have their user leaf in the vdso: $right named as its symbols say," \
	"$wrong unnamed inside a symbol"
if [ "$total" -lt 200 ] || [ $((2 * in_vdso)) -lt "$total" ] ||
	[ $((100 * right)) -lt $((98 * in_vdso)) ]; then
	say "the vdso's symbols (start end name):"
	cat "$tmp/vdso.syms" >&3
	say "the heaviest stacks were:"
	top_stacks "$tmp/vdso.folded" 10 >&3
	[ "$total" -ge 200 ] || fail "only $total samples (need >= 200)"
	[ $((2 * in_vdso)) -ge "$total" ] ||
		fail "only $in_vdso of $total samples have a vdso leaf (need half)"
	fail "only $right of the $in_vdso vdso leaves are right (need >= 98%)"
fi
