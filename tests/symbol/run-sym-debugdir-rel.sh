#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --debug-dir with a relative DIR: as run-sym-buildid.sh, but the debug
# directory is given as "dbg", relative to the current directory (the
# test's own), the way a person types it. 'perfmini record --debug-dir
# dbg' must name buildid_hot, called from main, and 'perfmini symbolize -e
# sym-buildid --debug-dir dbg ADDR' must print "ADDR buildid_hot+0x0 ...".
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-buildid
need_target sym-buildid.dbg
exe=$TARGETS/sym-buildid
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ "${#id}" -ge 4 ] || fail "sym-buildid has no build-id"
rest=${id#??}
mkdir -p "$tmp/dbg/.build-id/${id%"$rest"}"
cp "$TARGETS/sym-buildid.dbg" "$tmp/dbg/.build-id/${id%"$rest"}/$rest.debug"
hot=$(nm_addr "$TARGETS/sym-buildid.dbg" buildid_hot)
cd "$tmp"

need_perf
record_cmd rel --debug-dir dbg -- "$exe" 1
check_user "$tmp/rel.folded" "main;buildid_hot" sym-buildid 200

rc=0
"$PERFMINI" symbolize -e "$exe" --debug-dir dbg "$hot" >"$tmp/sym.out" 2>"$tmp/sym.err" || rc=$?
cat "$tmp/sym.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini symbolize -e $exe --debug-dir dbg $hot exited $rc"
grep -v '^[[:space:]]' "$tmp/sym.out" >"$tmp/sym.lines" || :
want=$(printf '0x%x buildid_hot+0x0 %s' $((0x$hot)) "$(readlink -f "$exe")")
[ "$(cat "$tmp/sym.lines")" = "$want" ] ||
	fail "perfmini symbolize -e $exe --debug-dir dbg $hot printed '$(cat "$tmp/sym.lines")', not '$want'"
say "symbolize -e --debug-dir dbg: $want"
