#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini symbolize -e FILE ADDR...': ELF addresses of a file to names.
# For functions of several files (two executable segments, C++, a
# .dynsym-only library, a stripped binary with --debug-dir), the address
# nm gives must print "ADDR NAME+0x0 FILE" and an address N bytes inside
# "ADDR NAME+0xN FILE"; an address in no function prints "ADDR ?? FILE".
# (Indented lines that may follow an address line, its source lines, are
# not checked here.)
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-twox
need_target sym-cxx
need_target libsym-dynsym.so
need_target sym-buildid
need_target sym-buildid.dbg

# expect FILE NMFILE SYMBOL NAME [nm options]: appends to $tmp/expected
# the lines for SYMBOL of NMFILE's table, printed as NAME, and its two
# addresses to $tmp/addrs.
expect() {
	# shellcheck disable=SC2086 # no option, or one
	ex_addr=$((0x$(nm_addr "$2" "$3" ${5-})))
	# shellcheck disable=SC2086 # no option, or one
	ex_size=$(nm_size "$2" "$3" ${5-})
	[ "$ex_size" -ge 2 ] || fail "$3 in $2 is $ex_size bytes long"
	ex_in=$((ex_size / 2))
	ex_path=$(readlink -f "$1")
	printf '0x%x %s+0x0 %s\n' "$ex_addr" "$4" "$ex_path" >>"$tmp/expected"
	printf '0x%x %s+0x%x %s\n' $((ex_addr + ex_in)) "$4" "$ex_in" "$ex_path" >>"$tmp/expected"
	printf '0x%x 0x%x ' "$ex_addr" $((ex_addr + ex_in)) >>"$tmp/addrs"
}

# check_symbolize FILE [OPTIONS...]: runs 'perfmini symbolize -e FILE
# OPTIONS... ADDRS' and compares with $tmp/expected.
check_symbolize() {
	cs_file=$1
	shift
	cs_rc=0
	# shellcheck disable=SC2046 # one argument per address
	"$PERFMINI" symbolize -e "$cs_file" "$@" $(cat "$tmp/addrs") >"$tmp/got.all" 2>"$tmp/got.err" ||
		cs_rc=$?
	cat "$tmp/got.err" >&3
	[ "$cs_rc" -eq 0 ] || fail "perfmini symbolize -e $cs_file $* exited $cs_rc"
	# the address lines; indented lines under them give source lines
	grep -v '^[[:space:]]' "$tmp/got.all" >"$tmp/got" || :
	if ! diff -u "$tmp/expected" "$tmp/got" >&3; then
		fail "perfmini symbolize -e $cs_file $* printed other names (diff above: - expected, + got)"
	fi
	say "symbolize -e $cs_file: $(wc -l <"$tmp/got") addresses as expected"
	: >"$tmp/expected"
	: >"$tmp/addrs"
}
: >"$tmp/expected"
: >"$tmp/addrs"

# Two executable segments; and an address in the ELF header, in no function.
exe=$TARGETS/sym-twox
expect "$exe" "$exe" main main
expect "$exe" "$exe" far_hot far_hot
printf '0x1 ?? %s\n' "$(readlink -f "$exe")" >>"$tmp/expected"
printf '0x1 ' >>"$tmp/addrs"
check_symbolize "$exe"

# C++: the demangled name.
exe=$TARGETS/sym-cxx
expect "$exe" "$exe" _ZN2ns6WorkerIiE3hotEi 'ns::Worker<int>::hot(int)'
expect "$exe" "$exe" main main
check_symbolize "$exe"

# A stripped library: .dynsym.
lib=$TARGETS/libsym-dynsym.so
expect "$lib" "$lib" dynsym_hot dynsym_hot -D
check_symbolize "$lib"

# A stripped executable, its debug file by build-id under --debug-dir.
exe=$TARGETS/sym-buildid
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ "${#id}" -ge 4 ] || fail "sym-buildid has no build-id"
rest=${id#??}
mkdir -p "$tmp/dbg/.build-id/${id%"$rest"}"
cp "$TARGETS/sym-buildid.dbg" "$tmp/dbg/.build-id/${id%"$rest"}/$rest.debug"
expect "$exe" "$TARGETS/sym-buildid.dbg" buildid_hot buildid_hot
expect "$exe" "$TARGETS/sym-buildid.dbg" main main
check_symbolize "$exe" --debug-dir "$tmp/dbg"
