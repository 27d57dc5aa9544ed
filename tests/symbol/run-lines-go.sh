#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Source lines and inline chains of Go code: go-lines, built by Debian's
# Go toolchain (its DWARF zlib-compressed, without .debug_aranges), spends
# its time in main.mix inlined into main.work. Every sample of the loop
# must read main.work;main.mix_[i], with --lines main.work at the line of
# the call and main.mix at a line of its loop, and 'perfmini symbolize -e'
# must print the same chain for an address of the loop.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"
. "$srcdir/tests/symbol/lineslib.sh"

exe=$TARGETS/go-lines
[ -e "$exe" ] || fail "tests/targets/go-lines was not built: it needs go, which configure" \
	"did not find (install the Debian package golang-go, then configure again)"
lines_no_aranges "$exe"
src=$srcdir/tests/targets/go-lines.go
call=$(lines_mark "$src" go-call)
loop=$(lines_mark "$src" go-loop)
body=$(lines_mark "$src" go-body)

need_perf
record_cmd go -- "$exe" 1
# The runtime's own threads (the garbage collector, sysmon) take a little.
check_user_re "$tmp/go.folded" '(^|;)main\.work;main\.mix_\[i\]$' go-lines 500 80 \
	"end in main.work;main.mix_[i]"
lines_fold "$tmp/go.data" "$tmp/go-lines.folded"
check_user_re "$tmp/go-lines.folded" \
	"(^|;)main\\.work:go-lines\\.go:$call;main\\.mix:go-lines\\.go:($loop|$body)_\\[i\\]\$" \
	go-lines 500 80 "end in main.work:go-lines.go:$call;main.mix:go-lines.go:{$loop,$body}_[i]"

lines_symbolize "$exe" '^main\.work$' "$exe" \
	"main\\.mix at [^ ]*/go-lines\\.go:($loop|$body)\$" \
	"main\\.work at [^ ]*/go-lines\\.go:$call\$"
