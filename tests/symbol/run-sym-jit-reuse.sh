#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# JIT code whose address is reused: 'sym-jit 1 reuse' names its code
# jit_hot for the whole page, spends half a CPU second in it, then copies
# it again to the same address, appends "START SIZE jit_again" to its
# perf map (as V8 does when it compiles new code where old code was) and
# spends the other half there. A perf map's line takes effect from when
# it was written: the first half of the samples must read jit_hot, the
# second jit_again, in that order in time. Read at the end as a whole,
# the map would name every sample by one of the two lines (the larger,
# older one: every sample jit_hot).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit
need_perf
record_cmd jit -- "$TARGETS/sym-jit" 1 reuse
grep -qx 'sym-jit: reused' "$tmp/record.out" || fail "sym-jit did not reuse its code's address"
check_user "$tmp/jit.folded" jit_hot sym-jit 300 30
check_user "$tmp/jit.folded" jit_again sym-jit 300 30
map=$(sed -n 's/^sym-jit: wrote //p' "$tmp/record.out")
remove_at_exit "$map"

# In time: no jit_again before the last jit_hot but for a few samples (a
# line takes effect from the recorder's last look at the map before it
# saw it, at most 5 ms earlier).
run_timeout 60 "$PERFMINI" report -i "$tmp/jit.data" --script >"$tmp/jit.script" ||
	fail "perfmini report --script failed"
# shellcheck disable=SC2046 # split into its two fields on purpose
set -- $(awk -F'\t' '
	{ split($1, f, " "); n = split($2, fr, ";"); leaf = fr[n] }
	leaf == "jit_hot" { last_hot = f[1] }
	leaf == "jit_again" { t[++na] = f[1] }
	END {
		early = 0
		for (i = 1; i <= na; i++)
			if (t[i] < last_hot)
				early++
		print early, na
	}' "$tmp/jit.script")
say "$1 of $2 jit_again samples come before the last jit_hot sample"
[ "$1" -le 10 ] || fail "$1 samples named jit_again before the code was reused"
