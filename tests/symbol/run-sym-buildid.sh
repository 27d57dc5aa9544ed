#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A stripped executable whose debug file is found only by its build-id,
# under 'record --debug-dir DIR': sym-buildid has no .symtab and no
# .gnu_debuglink; the test puts its debug file at
# DIR/.build-id/xx/rest.debug. Samples must name buildid_hot, called from
# main. 'perfmini symbolize -e' without --debug-dir shows first that the
# binary alone does not name buildid_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-buildid
need_target sym-buildid.dbg
exe=$TARGETS/sym-buildid
LC_ALL=C readelf -SW "$exe" >"$tmp/sections"
! grep -q ' \.symtab ' "$tmp/sections" || fail "sym-buildid has a .symtab: the test proves nothing"
! grep -q ' \.gnu_debuglink ' "$tmp/sections" ||
	fail "sym-buildid has a .gnu_debuglink: the test would not prove the build-id is used"
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ "${#id}" -ge 4 ] || fail "sym-buildid has no build-id"
rest=${id#??}
mkdir -p "$tmp/dbg/.build-id/${id%"$rest"}"
cp "$TARGETS/sym-buildid.dbg" "$tmp/dbg/.build-id/${id%"$rest"}/$rest.debug"
say "debug file at $tmp/dbg/.build-id/${id%"$rest"}/$rest.debug"

hot=$(nm_addr "$TARGETS/sym-buildid.dbg" buildid_hot)
"$PERFMINI" symbolize -e "$exe" "$hot" >"$tmp/nodir.out" 2>"$tmp/nodir.err" || :
if grep -q buildid_hot "$tmp/nodir.out"; then
	fail "sym-buildid names buildid_hot without the debug directory: the test proves nothing"
fi

need_perf
record_cmd buildid --debug-dir "$tmp/dbg" -- "$exe" 1
check_user "$tmp/buildid.folded" "main;buildid_hot" sym-buildid 200
