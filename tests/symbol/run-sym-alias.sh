#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One name among aliases, the one a user knows (elf_symbol_rank): glibc's
# __strcoll_l is also strcoll_l (weak) and __GI___strcoll_l (local, the
# name its DWARF gives, from an asm label). perfmini symbolize must name
# the symbol and the function __strcoll_l, as perf does, not
# __GI___strcoll_l (addr2line) or strcoll_l (llvm-symbolizer). The DWARF
# is libc6-dbg's.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

libc=$(ldd "$PERFMINI" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || fail "ldd finds no libc"
a=$(nm -D --defined-only "$libc" | awk '$3 == "__strcoll_l@@GLIBC_2.2.5" { print $1 }')
[ -n "$a" ] || fail "$libc exports no __strcoll_l"
nm -D --defined-only "$libc" | grep -q "^$a W strcoll_l@" ||
	fail "$libc has no weak strcoll_l at the address of __strcoll_l"

"$PERFMINI" symbolize -e "$libc" "0x$a" >"$tmp/sym.out" 2>&1 ||
	fail "perfmini symbolize -e $libc 0x$a failed: $(cat "$tmp/sym.out")"
cat "$tmp/sym.out" >&3
head -n 1 "$tmp/sym.out" | grep -q " __strcoll_l+0x0 " ||
	fail "the symbol at 0x$a of $libc is not named __strcoll_l"
if ! grep -q '^  .* at ' "$tmp/sym.out"; then
	fail "no DWARF for $libc: install the Debian package libc6-dbg"
fi
grep -q '^  __strcoll_l at ' "$tmp/sym.out" ||
	fail "the function at 0x$a of $libc is not named __strcoll_l"
! grep -q __GI___strcoll_l "$tmp/sym.out" || fail "perfmini symbolize names __GI___strcoll_l"
say "__strcoll_l, the global alias, names symbol and function"
