#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# DWARF unwinding through a PLT entry keeps every caller: a stack sampled
# in an entry of sym-plt's PLT must still read main;plt_loop;NAME@plt.
# The FDE of .plt gives the CFA as a DWARF expression of the entry's
# address, evaluated at every step, also for an address whose row is
# cached (sym-plt: lazy .plt; sym-plt-ibt: IBT .plt.sec, -z now).
# At most 5% of the samples in PLT entries, or one, may lose their callers
# (a sample at an entry's very first byte, of a few dozen, now and then).
# A layout in whose entries this processor puts no sample, perf's neither
# (plt_measurable), is left out; sym-plt-ibt never.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-plt
need_target sym-plt-ibt

need_perf
for t in sym-plt sym-plt-ibt; do
	record_plt "$t" "$t" '(^|;)[^;]+@plt$' --call-graph=dwarf
	in_plt=$plt_in
	# shellcheck disable=SC2046 # split into its fields on purpose
	set -- $(sym_shares "$tmp/$t.folded" "$t" ';main;plt_loop;[^;]+@plt$')
	kept=$1
	say "$t: $in_plt samples in a PLT entry, $kept of them with main;plt_loop as callers"
	lost=$((in_plt - kept))
	if [ "$in_plt" -lt 5 ] && [ "$t" != sym-plt-ibt ] && ! plt_measurable "$t"; then
		say "$t: this processor charges PLT time to the callee, for perf too"
		continue
	fi
	if [ "$in_plt" -lt 5 ] || { [ "$lost" -gt 1 ] && [ $((kept * 100)) -lt $((in_plt * 95)) ]; }; then
		say "the heaviest stacks were:"
		top_stacks "$tmp/$t.folded" 10 >&3
		[ "$in_plt" -ge 5 ] || fail "$t: only $in_plt samples in a PLT entry (need >= 5)"
		fail "$t: only $kept of $in_plt samples in a PLT entry keep their callers (need >= 95%, or all but one)"
	fi
done
