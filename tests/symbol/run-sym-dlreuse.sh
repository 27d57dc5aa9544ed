#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dlclose + dlopen of another library at the same address: sym-dl loads
# libsym-a.so and spends 0.6 CPU seconds in its liba_hot (under run_a),
# closes it, loads libsym-b.so (same size, so the loader puts it where
# libsym-a.so was: the test checks that it did) and spends 0.6 s in its
# libb_hot (under run_b). The same addresses ran different code: samples
# under run_a must name liba_hot, those under run_b libb_hot, and none
# may have the other library's name.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-dl
need_target libsym-a.so
need_target libsym-b.so

need_perf
start_ready "$tmp/target.out" "$TARGETS/sym-dl" 0.6 \
	"$TARGETS/libsym-a.so" liba_hot "$TARGETS/libsym-b.so" libb_hot
attach_and_start "$tmp/reuse.data"
finish_target 60
record_wait 10 "$tmp/reuse.data"

base1=$(sed -n 's/^sym-dl: library 1 at //p' "$tmp/target.out")
base2=$(sed -n 's/^sym-dl: library 2 at //p' "$tmp/target.out")
if [ -z "$base1" ] || [ -z "$base2" ]; then
	fail "sym-dl did not print both load addresses: $(cat "$tmp/target.out")"
fi
[ "$base1" = "$base2" ] ||
	fail "the loader put libsym-b.so at $base2, not where libsym-a.so was ($base1): the test proves nothing"
say "both libraries were loaded at $base1"

run_report "$tmp/reuse.data" "$tmp/reuse.folded"
only_under "$tmp/reuse.folded" run_a "$tmp/a.folded"
only_under "$tmp/reuse.folded" run_b "$tmp/b.folded"
check_user "$tmp/a.folded" "main;run_a;liba_hot" sym-dl 150
check_user "$tmp/b.folded" "main;run_b;libb_hot" sym-dl 150
check_none "$tmp/reuse.folded" '(^|;)run_a;(.*;)?libb_hot(;|$)' sym-dl "with libb_hot under run_a"
check_none "$tmp/reuse.folded" '(^|;)run_b;(.*;)?liba_hot(;|$)' sym-dl "with liba_hot under run_b"
