#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# C++ functions that DWARF names only briefly: GCC gives functions of
# internal linkage (lambdas, members of an anonymous namespace) no
# DW_AT_linkage_name, only "operator()" or "step". sym-lambda spends a
# quarter of its time in each of four; each must be named in full, out
# of line (from the symbol table) and inlined (built from DWARF):
#   main;(anonymous namespace)::Engine::step(unsigned long)
#   main;main::{lambda(unsigned long)#1}::operator()(unsigned long) const
#   main;run_inlined(unsigned long);run_inlined(unsigned long)::{lambda(
#       unsigned long)#1}::operator()(unsigned long) const_[i]
#   main;run_mix((anonymous namespace)::Engine const*, unsigned long);
#       (anonymous namespace)::Engine::mix(unsigned long) const_[i]
# The names of the two inlined ones must also be those that the symbol
# table of sym-lambda-outline, where they are out of line, gives them
# demangled: DWARF's rebuilt name and the mangled one agree.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-lambda
need_target sym-lambda-outline
exe=$TARGETS/sym-lambda

lam='run_inlined(unsigned long)::{lambda(unsigned long)#1}::operator()(unsigned long) const'
mix='(anonymous namespace)::Engine::mix(unsigned long) const'
# The inlined functions are no symbols of sym-lambda, but are of sym-lambda-outline.
for f in "$lam" "$mix"; do
	nm -C "$exe" | SYM_NAME=$f awk 'substr($0, 20) == ENVIRON["SYM_NAME"] { exit 1 }' ||
		fail "sym-lambda was built with '$f' out of line"
	nm -C "$TARGETS/sym-lambda-outline" |
		SYM_NAME=$f awk 'substr($0, 20) == ENVIRON["SYM_NAME"] { found = 1 } END { exit !found }' ||
		fail "sym-lambda-outline has no symbol '$f' (nm -C)"
done

# The inlined levels, without recording: perfmini symbolize names the
# level inlined into run_inlined and run_mix as nm -C names the symbols.
for f in run_inlined run_mix; do
	a=$(nm "$exe" | awk -v f="$f" '$3 ~ f { print $1; exit }')
	[ -n "$a" ] || fail "nm finds no $f in sym-lambda"
	# The hot loop is a few instructions in: every address but the first
	# few is inside the inlined function.
	addrs=
	for i in 8 12 16 20 24 28 32 36; do
		addrs="$addrs $(printf '0x%x' $((0x$a + i)))"
	done
	# shellcheck disable=SC2086 # one argument per address
	"$PERFMINI" symbolize -e "$exe" $addrs >"$tmp/$f.sym" 2>&1 ||
		fail "perfmini symbolize -e sym-lambda failed: $(cat "$tmp/$f.sym")"
done
grep -qF "  $lam at " "$tmp/run_inlined.sym" ||
	fail "no level of run_inlined is named '$lam': $(cat "$tmp/run_inlined.sym")"
grep -qF "  $mix at " "$tmp/run_mix.sym" ||
	fail "no level of run_mix is named '$mix': $(cat "$tmp/run_mix.sym")"
say "the inlined levels are named as their out-of-line symbols"

need_perf
record_cmd lambda -- "$exe" 2
for path in \
	'main;(anonymous namespace)::Engine::step(unsigned long)' \
	'main;main::{lambda(unsigned long)#1}::operator()(unsigned long) const' \
	"main;run_inlined(unsigned long);${lam}_[i]" \
	"main;run_mix((anonymous namespace)::Engine const*, unsigned long);${mix}_[i]"; do
	check_user "$tmp/lambda.folded" "$path" sym-lambda 400 15
done
check_none "$tmp/lambda.folded" '(^|;)(operator\(\)|step|mix)(_\[i\])?$' sym-lambda \
	"ending in a bare operator(), step or mix"
