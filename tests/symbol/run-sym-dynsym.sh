#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stripped shared library, .dynsym only: libsym-dynsym.so has no
# .symtab and no debug file, and exports dynsym_hot. Samples of
# 'sym-usedynsym 1' must name dynsym_hot, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-usedynsym
need_target libsym-dynsym.so
lib=$TARGETS/libsym-dynsym.so
! LC_ALL=C readelf -SW "$lib" | grep -q ' \.symtab ' ||
	fail "libsym-dynsym.so has a .symtab: the test proves nothing"
nm -D --defined-only "$lib" | grep -Eq ' T dynsym_hot$' ||
	fail "libsym-dynsym.so does not export dynsym_hot in .dynsym"

need_perf
record_cmd dynsym -- "$TARGETS/sym-usedynsym" 1
check_user "$tmp/dynsym.folded" dynsym_hot sym-usedynsym 200
check_user "$tmp/dynsym.folded" "main;dynsym_hot" sym-usedynsym 200
