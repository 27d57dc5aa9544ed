#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The top table on a real C++ recording whose hot function has a name of
# 122 characters (tests/targets/cxx-long.cc):
#   to a pipe, whatever COLUMNS says, the name is whole;
#   on an 80-column terminal (script(1) gives one) no table line is wider, and
#     the name keeps its own part, "...::balance(...) const" or more;
#   --sort module puts the program first, with the hot function's samples.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

exe=$TARGETS/cxx-long
[ -x "$exe" ] || fail "tests/targets/cxx-long was not built (make check builds it)"
name='shop::detail::ledger<std::pair<int, long>, std::less<std::pair<int, long> > >::balance(std::pair<int, long> const&) const'

need_perf
run_record 60 "$tmp/cxx.data" -- "$exe" 1

COLUMNS=60 "$PERFMINI" report -i "$tmp/cxx.data" >"$tmp/pipe.txt" 2>&3 || fail "report failed"
# The hottest row: self share, then "cxx-long  NAME" whole.
row=$(sed -n '/Self%/{n;p;q}' "$tmp/pipe.txt")
say "hottest row to a pipe: $row"
case $row in
*"  cxx-long  "*" $name") ;;
*) fail "the hottest row to a pipe is not the whole name in cxx-long: $row" ;;
esac

command -v script >/dev/null 2>&1 || fail "script is needed (Debian: bsdutils)"
script -qec "stty cols 80 rows 50; \"$PERFMINI\" report -i \"$tmp/cxx.data\"" /dev/null |
	tr -d '\r' >"$tmp/tty.txt" || fail "report on a terminal failed"
# The table (the header wraps at spaces, and a long path is one word).
long=$(sed -n '/Self%/,$p' "$tmp/tty.txt" | awk 'length($0) > 80')
[ -z "$long" ] || fail "table lines wider than the 80-column terminal: $long"
row=$(sed -n '/Self%/{n;p;q}' "$tmp/tty.txt")
say "hottest row on 80 columns: $row"
case $row in
*"  cxx-long  "*"::balance(std::pair<int, long> const&) const" | \
	*"  cxx-long  "*"::balance(...) const") ;;
*) fail "on a terminal the hottest row lost the function's own name: $row" ;;
esac

"$PERFMINI" report -i "$tmp/cxx.data" --sort module >"$tmp/module.txt" 2>&3 ||
	fail "report --sort module failed"
row=$(sed -n '/Self%/{n;p;q}' "$tmp/module.txt")
say "hottest module: $row"
case $row in
*"  cxx-long") ;;
*) fail "--sort module does not put cxx-long first: $row" ;;
esac
self=$(printf '%s\n' "$row" | awk '{ print $3 }')
fn_self=$(sed -n '/Self%/{n;p;q}' "$tmp/pipe.txt" | awk '{ print $3 }')
[ "$self" -ge "$fn_self" ] ||
	fail "the module's self samples ($self) are fewer than its hottest function's ($fn_self)"
exit 0
