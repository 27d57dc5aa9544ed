#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The summary of unnamed frames: sym-nodebug is stripped, with no debug
# file anywhere, so its nodebug_hot has no name. Recorded without -q,
# perfmini must say so after the recording, on a line that names the
# module and gives the reason ("stripped" or "no symbol table"); in the
# folded report the unnamed frames must say where they are
# ("[sym-nodebug+0x...]").
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-nodebug
exe=$TARGETS/sym-nodebug
LC_ALL=C readelf -SW "$exe" >"$tmp/sections"
! grep -Eq ' \.(symtab|gnu_debuglink|gnu_debugdata) ' "$tmp/sections" ||
	fail "sym-nodebug has a symbol table or a way to a debug file: the test proves nothing"

need_perf
rc=0
run_timeout 60 "$PERFMINI" record -o "$tmp/nodebug.data" -- "$exe" 1 \
	>"$tmp/record.out" 2>"$tmp/record.err" || rc=$?
cat "$tmp/record.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini record -- sym-nodebug exited $rc"
grep -E '^perfmini: [^ ]*sym-nodebug: .*have no name.*(stripped|no symbol table)' \
	"$tmp/record.err" >"$tmp/summary" ||
	fail "perfmini's summary has no line that names sym-nodebug and says it is stripped or has no symbol table"
say "summary: $(cat "$tmp/summary")"

run_report "$tmp/nodebug.data" "$tmp/nodebug.folded"
check_user_re "$tmp/nodebug.folded" '(^|;)\[sym-nodebug\+0x[0-9a-f]+\]$' sym-nodebug 200 90 \
	"end in an unnamed frame of sym-nodebug, [sym-nodebug+0x...]"
