#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Rust names, demangled as rustfilt and perf print them: sym-rust spends
# its time in a method of a generic type in a module and in a closure
# inlined into a generic function. Built with rustc's default (legacy)
# mangling, whose symbols end in a hash (::h0123456789abcdef) and spell
# generics with $LT$ escapes, and with v0 mangling (_R...). Each must be
# named exactly, with no hash, no escape and no raw mangled name left:
#   legacy  sym_rust::main;sym_rust::module::Type<T>::hot
#           sym_rust::main;sym_rust::apply;sym_rust::main::{{closure}}_[i]
#   v0      sym_rust::main;<sym_rust::module::Type<u32>>::hot
#           sym_rust::main;sym_rust::apply::<sym_rust::main::{closure#0}>;
#               sym_rust::main::{closure#0}_[i]
# (each leaf followed by the inlined helpers of its loop, *_[i]).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

for t in sym-rust-legacy sym-rust-v0; do
	[ -e "$TARGETS/$t" ] ||
		fail "tests/targets/$t was not built: it needs rustc, which configure did not" \
			"find (install the Debian package rustc, then configure again)"
done
# shellcheck disable=SC2016 # the \$ are grep's literal dollars
nm "$TARGETS/sym-rust-legacy" | grep -Eq ' _ZN8sym_rust6module13Type\$LT\$T\$GT\$3hot17h[0-9a-f]{16}E$' ||
	fail "sym-rust-legacy has no legacy-mangled symbol for Type<T>::hot"
nm "$TARGETS/sym-rust-v0" | grep -Eq ' _RNvMNtCs[0-9A-Za-z]+_8sym_rust6module' ||
	fail "sym-rust-v0 has no v0-mangled symbol for Type<u32>::hot"

need_perf
# The helpers inlined into the hot loops, after the function checked.
inl='(;[^;]*_\[i\])*$'
q() { sym_re_quote "$1"; }

record_cmd legacy -- "$TARGETS/sym-rust-legacy" 1
check_user_re "$tmp/legacy.folded" \
	";$(q 'sym_rust::main;sym_rust::module::Type<T>::hot')$inl" sym-rust-legacy 200 40 \
	"end in sym_rust::main;sym_rust::module::Type<T>::hot"
check_user_re "$tmp/legacy.folded" \
	";$(q 'sym_rust::main;sym_rust::apply;sym_rust::main::{{closure}}_[i]')$inl" \
	sym-rust-legacy 200 40 "end in sym_rust::main;sym_rust::apply;sym_rust::main::{{closure}}_[i]"

record_cmd v0 -- "$TARGETS/sym-rust-v0" 1
check_user_re "$tmp/v0.folded" \
	";$(q 'sym_rust::main;<sym_rust::module::Type<u32>>::hot')$inl" sym-rust-v0 200 40 \
	"end in sym_rust::main;<sym_rust::module::Type<u32>>::hot"
check_user_re "$tmp/v0.folded" \
	";$(q 'sym_rust::main;sym_rust::apply::<sym_rust::main::{closure#0}>;sym_rust::main::{closure#0}_[i]')$inl" \
	sym-rust-v0 200 40 \
	"end in sym_rust::main;sym_rust::apply::<sym_rust::main::{closure#0}>;sym_rust::main::{closure#0}_[i]"

# Nowhere a hash, an escape or a mangled name: std's frames are legacy
# even in the v0 program.
for f in legacy v0; do
	# shellcheck disable=SC2016 # a regular expression: \$ and $ are its own
	check_none "$tmp/$f.folded" '::h[0-9a-f]{16}($|;)|\$(LT|GT|u7b|C)\$|(^|;)_(R|ZN)[0-9A-Za-z]' \
		"" "with a hash, an escape or a mangled Rust name ($f)"
done
