#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Perf maps perfmini must not trust: sym-jit (as in run-sym-jit.sh) with
#  1. /tmp/perf-PID.map a symbolic link to the real map, and
#  2. as root, /tmp/perf-PID.map owned by another user (nobody),
# for 0.4 CPU seconds each. No sample may name jit_hot; the JIT frames
# stay unnamed ("[anon]") in at least 90% of the samples.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit

# untrusted NAME MODE WHAT: records 'sym-jit 0.4 MODE' and checks its
# samples; WHAT says what is wrong with the map.
untrusted() {
	record_cmd "$1" -- "$TARGETS/sym-jit" 0.4 "$2"
	grep -q '^sym-jit: wrote ' "$tmp/record.out" || fail "sym-jit did not write its map ($2)"
	ut_map=$(sed -n 's/^sym-jit: wrote \([^ ,]*\).*/\1/p' "$tmp/record.out")
	remove_at_exit "$ut_map" "$ut_map.real"
	say "$1: $(grep '^sym-jit: wrote ' "$tmp/record.out")"
	check_none "$tmp/$1.folded" '(^|;)jit_hot(;|$)' sym-jit "with jit_hot, from a map that $3"
	check_user_re "$tmp/$1.folded" '(^|;)\[anon\]$' sym-jit 150 90 \
		"end in an unnamed frame"
}

need_perf
untrusted symlink symlink "is a symbolic link"
if [ "$(id -u)" -eq 0 ]; then
	nobody=$(id -u nobody 2>/dev/null || echo 65534)
	untrusted owner "chown=$nobody" "belongs to another user (uid $nobody)"
else
	say "not root: a map owned by another user cannot be made here, not checked"
fi
