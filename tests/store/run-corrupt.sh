#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged data files. A real recording of spin-pie (0.3 CPU seconds) is
#  1. swept in-process by tests/store/corrupt-sweep: cut at every offset of its
#     first 4 KiB and at 1,000 random offsets, one bit flipped for every
#     bit of every header and for 10,000 random bits; each copy must be
#     refused with a one-line reason naming the offset of the damage, or
#     read exactly as the undamaged file (only flips in bytes that readers
#     ignore may be), or read as cut short (the file is written a chunk
#     at a time: a copy cut after a chunk ended, or whose damage makes it
#     look so) with the undamaged file's first samples;
#  2. 300 of those copies (a third cut, the rest flipped, half of the
#     flips in headers) are given to 'perfmini report --folded': it must
#     never crash, hang or print a sanitizer report; a copy it refuses
#     gets exit status 1 and exactly one line on stderr naming the file
#     and the offset; a copy it accepts is reported exactly as the
#     undamaged file, and also printed in the top, pprof and svg formats
#     without an error; a copy read as cut short gets exactly one warning
#     naming the file and where it breaks off, and no more samples than
#     the undamaged file (the in-process sweep checks they are its first).
# The random choices come from a seed printed in the log (CORRUPT_SEED=N
# repeats a run); a copy that failed is kept as
# tests/store/run-corrupt.failed-NAME.data.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

SWEEP=$top_builddir/tests/store/corrupt-sweep
[ -x "$SWEEP" ] || fail "no $SWEEP: build it first (make check)"
seed=${CORRUPT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
copies=300

need_perf
run_record 60 "$tmp/orig.data" -- "$TARGETS/spin-pie" 0.3
run_report "$tmp/orig.data" "$tmp/orig.folded"
[ -s "$tmp/orig.folded" ] || fail "the undamaged recording reports no stack"
# The samples of a folded file.
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
say "recorded $(stat -c %s "$tmp/orig.data") bytes, $(wc -l <"$tmp/orig.folded") stacks"

# The bulk runs use timeout(1) where there is one: run_timeout polls every
# tenth of a second, which would be most of the run time here.
bulk_timeout() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -k 5 "$@"
	else
		run_timeout "$@"
	fi
}

failures=0
problem() {
	failures=$((failures + 1))
	say "FAIL: $*"
}

keep() {
	cp "$1" "$top_builddir/tests/$test_name.failed-$(basename "$1")" 2>/dev/null || :
}

# 1. The sweep.
mkdir "$tmp/copies"
rc=0
run_timeout 300 "$SWEEP" -s "$seed" -w "$tmp/copies" -n "$copies" "$tmp/orig.data" \
	>"$tmp/sweep.out" 2>"$tmp/sweep.err" || rc=$?
cat "$tmp/sweep.out" "$tmp/sweep.err" >&3
case $rc in
0) ;;
1) problem "the in-process sweep found copies that break the contract (above)" ;;
*) fail "corrupt-sweep exited $rc" ;;
esac
[ -s "$tmp/copies/expect" ] || fail "corrupt-sweep wrote no copies"

# 2. End to end.
n=0
while read -r name verdict; do
	n=$((n + 1))
	f=$tmp/copies/$name.data
	rc=0
	bulk_timeout 30 "$PERFMINI" report -i "$f" --folded >"$tmp/out" 2>"$tmp/err" || rc=$?
	lines=$(awk 'END { print NR }' "$tmp/err")
	if [ "$rc" -eq 124 ]; then
		problem "report of $name hung"
		keep "$f"
		continue
	elif [ "$rc" -ge 128 ]; then
		problem "report of $name was killed by signal $((rc - 128)): $(head -c 300 "$tmp/err")"
		keep "$f"
		continue
	fi
	if [ "$rc" -eq 0 ] && [ "$verdict" = cut ]; then
		# Read as cut short: one warning naming the file and where it
		# breaks off, and no stack the undamaged file lacks.
		if [ "$lines" -ne 1 ] || ! grep -qF "$f" "$tmp/err" ||
			! grep -Eq 'cut short at offset [0-9]+' "$tmp/err"; then
			problem "report of $name (cut short) said: $(head -c 300 "$tmp/err")"
			keep "$f"
		elif [ "$(total "$tmp/out")" -gt "$(total "$tmp/orig.folded")" ]; then
			problem "report of $name (cut short) has more samples than the undamaged file"
			keep "$f"
		fi
		continue
	fi
	if [ "$rc" -eq 0 ]; then
		if [ "$verdict" = refuse ] || [ "$verdict" = cut ]; then
			problem "report of $name exited 0, but the decoder refuses it"
			keep "$f"
		elif [ -s "$tmp/err" ]; then
			problem "report of $name exited 0 but printed on stderr: $(head -c 300 "$tmp/err")"
			keep "$f"
		elif ! cmp -s "$tmp/out" "$tmp/orig.folded"; then
			problem "report of $name exited 0, but reports other stacks than the undamaged" \
				"file ($(wc -l <"$tmp/out") lines, not $(wc -l <"$tmp/orig.folded"))"
			keep "$f"
		else
			for fmt in --top "--pprof -o -" "--svg -o -"; do
				rc2=0
				# shellcheck disable=SC2086 # $fmt is the option and its argument
				bulk_timeout 30 "$PERFMINI" report -i "$f" $fmt >/dev/null \
					2>"$tmp/err2" || rc2=$?
				if [ "$rc2" -ne 0 ] || [ -s "$tmp/err2" ]; then
					problem "report $fmt of $name (accepted) exited $rc2:" \
						"$(head -c 300 "$tmp/err2")"
					keep "$f"
				fi
			done
		fi
		continue
	fi
	# Refused: exit 1, one line naming the file and the offset.
	if [ "$rc" -ne 1 ]; then
		problem "report of $name exited $rc, want 1: $(head -c 300 "$tmp/err")"
		keep "$f"
	elif [ "$lines" -ne 1 ]; then
		problem "report of $name printed $lines lines on stderr, want 1:" \
			"$(head -c 600 "$tmp/err")"
		keep "$f"
	elif ! grep -qF "$f" "$tmp/err"; then
		problem "the error on $name does not name the file: $(cat "$tmp/err")"
		keep "$f"
	elif ! grep -Eq 'offset [0-9]+|empty file|data file version [0-9]+' "$tmp/err"; then
		problem "the error on $name names no offset: $(cat "$tmp/err")"
		keep "$f"
	elif [ "$verdict" != refuse ]; then
		problem "report of $name refused a copy the decoder accepts: $(cat "$tmp/err")"
		keep "$f"
	fi
done <"$tmp/copies/expect"
say "ran 'perfmini report' on $n damaged copies (seed $seed)"

[ "$failures" -eq 0 ] || fail "$failures problems with damaged data files (seed $seed; see above)"
