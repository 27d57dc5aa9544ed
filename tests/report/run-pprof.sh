#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The pprof output read by the real 'go tool pprof' (Debian's golang-go),
# on recordings of a PIE, a non-PIE and an lld-linked executable and of a
# program whose time goes to a shared library. For each:
#   -top:     the profile is named after the program (mapping[0]), and the
#             hot function has most of the samples;
#   -traces:  the hot function is called from main;
#   -lines:   the hot function's samples have its source file and a line;
#   -disasm:  pprof finds the hot function in the binary through the
#             mappings (base = start - offset + p_offset - p_vaddr) and
#             puts the samples on its instructions, at the ELF addresses
#             nm gives for it;
#   -raw:     mapping 1 is the program; the hot function's start line is
#             its declaration line in the source.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

command -v go >/dev/null 2>&1 || fail "go is needed (Debian: golang-go)"
command -v objdump >/dev/null 2>&1 || fail "objdump is needed (Debian: binutils)"
export HOME="$tmp/home" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$PPROF_TMPDIR"

need_perf

# check TARGET HOT BINARY SOURCE DECL: TARGET recorded, its hot function
# HOT in BINARY (a path under tests/targets), defined in SOURCE at line
# DECL.
check() {
	ck_t=$1 ck_hot=$2 ck_bin=$TARGETS/$3 ck_src=$4 ck_decl=$5
	[ -x "$TARGETS/$ck_t" ] || fail "tests/targets/$ck_t was not built"
	run_record 60 "$tmp/$ck_t.data" -- "$TARGETS/$ck_t" 1
	"$PERFMINI" report -i "$tmp/$ck_t.data" --pprof -o "$tmp/$ck_t.pb.gz" 2>&3 ||
		fail "$ck_t: report --pprof failed"
	pp() {
		go tool pprof -sample_index=samples "$@" "$tmp/$ck_t.pb.gz" 2>"$tmp/pp.err" ||
			fail "$ck_t: go tool pprof $* failed: $(head -c 500 "$tmp/pp.err")"
	}

	pp -top >"$tmp/top"
	grep -qx "File: $ck_t" "$tmp/top" || fail "$ck_t: pprof names the profile '$(grep File: "$tmp/top")'"
	total=$(sed -n 's/.*Total samples = \([0-9]*\).*/\1/p' "$tmp/top")
	hot=$(awk -v h="$ck_hot" '$6 == h { print $1 }' "$tmp/top")
	say "$ck_t: -top: $ck_hot flat $hot of $total"
	if [ -z "$hot" ] || [ "$((hot * 10))" -lt "$((total * 8))" ]; then
		fail "$ck_t: $ck_hot has ${hot:-no} of $total samples in -top"
	fi

	pp -traces >"$tmp/traces"
	awk -v h="$ck_hot" '$2 == h { getline; if ($1 == "main") found = 1 } END { exit !found }' \
		"$tmp/traces" || fail "$ck_t: no trace with main calling $ck_hot"

	pp -lines -top >"$tmp/lines"
	grep -Eq " $ck_hot [^ ]*/$ck_src:[0-9]+\$" "$tmp/lines" ||
		fail "$ck_t: -lines has no $ck_hot $ck_src:LINE: $(grep " $ck_hot " "$tmp/lines")"

	pp -disasm="$ck_hot" >"$tmp/disasm"
	grep -q "ROUTINE =* $ck_hot\$" "$tmp/disasm" ||
		fail "$ck_t: -disasm does not find $ck_hot: $(head -c 300 "$tmp/disasm")"
	# shellcheck disable=SC2046 # split into its fields on purpose
	set -- $(nm -S "$ck_bin" | awk -v h="$ck_hot" '$4 == h { print $1, $2 }')
	[ $# -eq 2 ] || fail "$ck_t: nm does not know $ck_hot in $ck_bin"
	# Samples on instructions inside [address, address + size) of the symbol.
	on=$(awk -v lo=$((0x$1)) -v size=$((0x$2)) '
		$3 ~ /^[0-9a-f]+:$/ {
			a = $3; sub(/:$/, "", a)
			v = 0
			for (i = 1; i <= length(a); i++)
				v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
			if (v >= lo && v < lo + size && $1 != ".")
				n += $1
		}
		END { print n + 0 }' "$tmp/disasm")
	say "$ck_t: -disasm: $on samples on $ck_hot's instructions at 0x$1 (+0x$2)"
	[ "$((on * 10))" -ge "$((hot * 9))" ] ||
		fail "$ck_t: -disasm put $on of $hot samples on $ck_hot's instructions"

	pp -raw >"$tmp/raw"
	first=$(sed -n '/^Mappings/{n;p;q}' "$tmp/raw")
	case $first in
	"1: "*" $TARGETS/$ck_t "*) ;;
	*) fail "$ck_t: mapping 1 is not the program: $first" ;;
	esac
	grep -Eq " $ck_hot [^ ]*/$ck_src:[0-9]+ s=$ck_decl\$" "$tmp/raw" ||
		fail "$ck_t: $ck_hot has not start line $ck_decl: $(grep -m1 " $ck_hot " "$tmp/raw")"
}

decl() {
	grep -n "$2" "$srcdir/tests/targets/$1" | head -n 1 | cut -d: -f1
}

check spin-pie spin_hot spin-pie spin.c "$(decl spin.c '^HOT uint64_t spin_hot(')"
check spin-nopie spin_hot spin-nopie spin.c "$(decl spin.c '^HOT uint64_t spin_hot(')"
if [ -x "$TARGETS/sym-lld" ]; then
	check sym-lld lld_hot sym-lld sym-spin.c "$(decl sym-spin.c '^SYM_HOT_FN .*SYM_HOT(uint64_t')"
elif [ "${CI:-}" = true ]; then
	fail "tests/targets/sym-lld was not built: configure found no ld.lld (Debian: lld)"
else
	say "no ld.lld: the lld layout is not checked"
fi
check use-lib lib_hot libhot.so libhot.c "$(decl libhot.c '^HOT uint64_t lib_hot(')"
exit 0
