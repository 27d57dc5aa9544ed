#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stripped executable with a .gnu_debuglink: sym-debuglink has no
# .symtab and no build-id; its link names sym-debuglink-syms.debug (not
# "sym-debuglink.debug", which libdwfl would try without a link), with the
# CRC of that file. Recorded twice: with the debug file beside the binary
# (as 'make check' builds it), then from a copy whose debug file is in
# .debug/ beside it. Both times the samples must name debuglink_hot,
# called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-debuglink
need_target sym-debuglink-syms.debug
exe=$TARGETS/sym-debuglink
LC_ALL=C readelf -SW "$exe" >"$tmp/sections"
! grep -q ' \.symtab ' "$tmp/sections" || fail "sym-debuglink has a .symtab: the test proves nothing"
grep -q ' \.gnu_debuglink ' "$tmp/sections" || fail "sym-debuglink has no .gnu_debuglink"
! grep -q ' \.note\.gnu\.build-id ' "$tmp/sections" ||
	fail "sym-debuglink has a build-id: the test would not prove the link is followed"
LC_ALL=C readelf -p .gnu_debuglink "$exe" | grep -q 'sym-debuglink-syms\.debug' ||
	fail "sym-debuglink's .gnu_debuglink does not name sym-debuglink-syms.debug"
nm_addr "$TARGETS/sym-debuglink-syms.debug" debuglink_hot >/dev/null

# the second layout: DIR/sym-debuglink and DIR/.debug/sym-debuglink-syms.debug
mkdir -p "$tmp/sub/.debug"
cp "$exe" "$tmp/sub/sym-debuglink"
cp "$TARGETS/sym-debuglink-syms.debug" "$tmp/sub/.debug/"

need_perf
record_cmd beside -- "$exe" 1
check_user "$tmp/beside.folded" "main;debuglink_hot" sym-debuglink 200
record_cmd sub -- "$tmp/sub/sym-debuglink" 1
check_user "$tmp/sub.folded" "main;debuglink_hot" sym-debuglink 200
