#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# perfmini exports none of its own functions: a function of perfmini's
# that a shared library it loads also calls by name (libdw calls glibc's
# error() when it runs out of memory) would be called in place of the
# library's. No global symbol that src/libperfmini.a defines may be in
# perfmini's dynamic symbol table.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

lib=$top_builddir/src/libperfmini.a
[ -f "$lib" ] || fail "no $lib: build it first"
nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/ours"
[ -s "$tmp/ours" ] || fail "nm lists no symbol of $lib"
nm -D --defined-only "$PERFMINI" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
comm -12 "$tmp/ours" "$tmp/exported" >"$tmp/clash" || true
if [ -s "$tmp/clash" ]; then
	fail "perfmini exports its own symbols: $(tr '\n' ' ' <"$tmp/clash")"
fi
say "$(wc -l <"$tmp/ours") global symbols in libperfmini.a, none exported"
