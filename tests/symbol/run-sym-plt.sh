#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PLT entries named NAME@plt, as objdump labels them, from the dynamic
# relocations of the GOT slots they jump through, in every PLT layout:
# sym-plt (lazy binding: .plt, and .plt.got for a function whose address
# is taken), sym-plt-ibt (IBT and -z now: .plt.sec), sym-plt-stripped (no
# .symtab) and glibc itself. Then samples in them: 'sym-plt 2' spends a
# few percent of its time in the entries for plt_tiny, plt_tiny_got and
# __errno_location; with frame pointers (whose chain skips the caller of
# a PLT entry, which pushes no frame) their leaf must read NAME@plt, never
# _init (the sizeless symbol before .plt); the first entry of .plt, which
# calls the lazy binder, reads .plt. How many samples land in the
# entries varies (see record_plt); sym-plt evicts its PLT and GOT from
# the caches so that more do. Some processors put no sample in the
# entries of a layout at all, perf's neither: there (plt_measurable) the
# check of that layout's samples is left out, never for sym-plt-ibt.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

for t in sym-plt sym-plt-ibt sym-plt-stripped libsym-plt.so; do
	need_target "$t"
done

# check_plt_names FILE NAME...: every entry objdump labels NAME@plt in
# FILE's .plt, .plt.sec and .plt.got is named so by perfmini symbolize,
# at offset 0; each NAME given must be among them.
check_plt_names() {
	cp_file=$1
	shift
	objdump -d -j .plt -j .plt.sec -j .plt.got "$cp_file" 2>/dev/null |
		sed -n 's/^0*\([0-9a-f][0-9a-f]*\) <\([^*+>]*@plt\)>:$/\1 \2/p' >"$tmp/plt.want"
	[ -s "$tmp/plt.want" ] || fail "objdump labels no PLT entry of $cp_file"
	for cp_n; do
		grep -q " $cp_n@plt\$" "$tmp/plt.want" || fail "objdump has no $cp_n@plt in $cp_file"
	done
	# shellcheck disable=SC2046 # one argument per address
	"$PERFMINI" symbolize -e "$cp_file" $(awk '{ print "0x" $1 }' "$tmp/plt.want") \
		>"$tmp/plt.got" 2>&1 || fail "perfmini symbolize -e $cp_file failed"
	awk 'NR == FNR { want["0x" $1] = $2; next }
	/^0x/ {
		if (!($1 in want))
			next
		seen[$1] = 1
		if ($2 != want[$1] "+0x0")
			printf "%s: %s, not %s\n", $1, $2, want[$1]
	}
	END {
		for (a in want)
			if (!(a in seen))
				printf "%s: no answer\n", a
	}' "$tmp/plt.want" "$tmp/plt.got" >"$tmp/plt.bad"
	if [ -s "$tmp/plt.bad" ]; then
		head -n 10 "$tmp/plt.bad" >&3
		fail "$(wc -l <"$tmp/plt.bad") of $(wc -l <"$tmp/plt.want") PLT entries of" \
			"$cp_file are not named as objdump labels them"
	fi
	say "$(wc -l <"$tmp/plt.want") PLT entries of $cp_file named as objdump labels them"
	# The entry that calls the lazy binder, first in .plt, reads .plt, not _init.
	cp_plt0=$(objdump -h "$cp_file" | awk '$2 == ".plt" { print "0x" $4 }')
	if [ -n "$cp_plt0" ] &&
		! "$PERFMINI" symbolize -e "$cp_file" "$cp_plt0" | head -n 1 | grep -q ' \.plt+0x0 '; then
		fail "the first entry of .plt of $cp_file is not named .plt:" \
			"$("$PERFMINI" symbolize -e "$cp_file" "$cp_plt0" 2>&1 | head -n 1)"
	fi
}

plt_re='(^|;)(plt_tiny|plt_tiny_got|__errno_location)@plt$'

check_plt_names "$TARGETS/sym-plt" plt_tiny plt_tiny_got __errno_location
check_plt_names "$TARGETS/sym-plt-ibt" plt_tiny plt_tiny_got __errno_location
check_plt_names "$TARGETS/sym-plt-stripped" plt_tiny plt_tiny_got __errno_location
libc=$(ldd "$TARGETS/sym-plt" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || fail "ldd finds no libc of sym-plt"
check_plt_names "$libc"

need_perf
for t in sym-plt sym-plt-ibt sym-plt-stripped; do
	comm=$(printf '%.15s' "$t")
	record_plt "$t" "$comm" "$plt_re"
	if [ "$plt_in" -lt 5 ]; then
		# The IBT layout holds samples on every processor seen so far;
		# the others only where perf finds some there too.
		if [ "$t" != sym-plt-ibt ] && ! plt_measurable "$t"; then
			say "$t: this processor charges PLT time to the callee, for perf too"
		else
			fail "$t: only $plt_in samples end in a named PLT entry (need >= 5)"
		fi
	fi
	# _init itself runs once at the start (a sample may land there); PLT
	# time charged to it would be a share of the run.
	# shellcheck disable=SC2046 # split into its fields on purpose
	set -- $(sym_shares "$tmp/$t.folded" "$comm" '(^|;)_init$')
	[ $(($1 * 200)) -le "$2" ] ||
		fail "$t: $1 of $2 samples have a user stack ending in _init (PLT time charged to it)"
	say "$t: $1 of $2 samples end in _init (its own run at the start, at most 0.5%)"
done
