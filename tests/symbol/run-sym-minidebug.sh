#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# MiniDebugInfo, as Fedora builds it: sym-minidebug is stripped (no
# .symtab, no build-id, no debug link) and carries a .gnu_debugdata
# section, an xz-compressed ELF whose .symtab has the functions that
# .dynsym lacks. The test first checks that the section is what it should
# be; the samples must then name minidebug_hot, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-minidebug
exe=$TARGETS/sym-minidebug
LC_ALL=C readelf -SW "$exe" >"$tmp/sections"
! grep -q ' \.symtab ' "$tmp/sections" || fail "sym-minidebug has a .symtab: the test proves nothing"
! grep -Eq ' \.(gnu_debuglink|note\.gnu\.build-id) ' "$tmp/sections" ||
	fail "sym-minidebug has a debug link or a build-id: the test would not prove .gnu_debugdata is read"
grep -q ' \.gnu_debugdata ' "$tmp/sections" || fail "sym-minidebug has no .gnu_debugdata"
objcopy --dump-section .gnu_debugdata="$tmp/mini.xz" "$exe" "$tmp/dump.out"
xz -dc "$tmp/mini.xz" >"$tmp/mini" || fail "sym-minidebug's .gnu_debugdata is not xz data"
nm_addr "$tmp/mini" minidebug_hot >/dev/null

need_perf
record_cmd mini -- "$exe" 1
check_user "$tmp/mini.folded" minidebug_hot sym-minidebug 200
check_user "$tmp/mini.folded" "main;minidebug_hot" sym-minidebug 200
