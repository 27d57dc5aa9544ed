#!/bin/sh
# The vdso: sym-vdso calls the vdso's clock_gettime directly (found with
# dlsym), so that most samples have their user leaf in the vdso. Those
# leaves must be named (__vdso_clock_gettime, or an alias), not
# "[vdso+0x...]": of the samples whose user leaf is in the vdso, named or
# not, at least 90% must be named clock_gettime's way, and they must be at
# least half of all samples (a vdso frame given another name would make
# them fewer).
set -eu
. "${srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$srcdir/tests/symlib.sh"

need_target sym-vdso

need_perf
record_cmd vdso -- "$TARGETS/sym-vdso" 1
named='(^|;)(__vdso_clock_gettime|__kernel_clock_gettime|clock_gettime)$'
unnamed='(^|;)\[vdso\+0x[0-9a-f]+\]$'
set -- $(sym_shares "$tmp/vdso.folded" sym-vdso "$named")
n_named=$1
total=$2
set -- $(sym_shares "$tmp/vdso.folded" sym-vdso "$unnamed")
n_unnamed=$1
in_vdso=$((n_named + n_unnamed))
say "of $total samples, $in_vdso have their user leaf in the vdso: $n_named named, $n_unnamed not"
if [ "$total" -lt 200 ] || [ $((2 * in_vdso)) -lt "$total" ] ||
	[ $((100 * n_named)) -lt $((90 * in_vdso)) ]; then
	say "the heaviest stacks were:"
	top_stacks "$tmp/vdso.folded" 10 >&3
	[ "$total" -ge 200 ] || fail "only $total samples (need >= 200)"
	[ $((2 * in_vdso)) -ge "$total" ] ||
		fail "only $in_vdso of $total samples have a vdso leaf named clock_gettime or [vdso+0x...] (need half)"
	fail "only $n_named of the $in_vdso vdso leaves are named (need >= 90%)"
fi
