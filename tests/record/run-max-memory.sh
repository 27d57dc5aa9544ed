#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A memory budget small enough to force every step (--max-memory=1M, under
# what the recorder holds at its start): nothing recorded is lost, and
# report still names every frame right, late, from the files.
# 'sh -c "spin-pie 0.3; sleep 2; exec use-lib 2"', copies of use-lib and
# libhot.so: naming spin-pie's frames takes the recorder past the budget
# (a recorder that starts with less than three quarters of 1 MiB does not
# hold the budget at its first look), so it lets lines go then and names
# a second later, and use-lib's frames, met after the sleep, are left with
# their build-id and offset. Then:
#  - the recorder says so: its summary ("memory reached ... budget"),
#    the header's "Memory:" line with N > 0 frames "left for report to
#    name" (the test fails if the budget is not acted on);
#  - none lost, and as many samples of use-lib as a recording without a
#    budget (at least 80% of them);
#  - report names them: at least 90% of use-lib's samples end in
#    main;lib_hot (run-shlib's check), their lines in libhot.c within
#    lib_hot's body (lines 10 to 16), no [use-lib+0x...] or
#    [libhot.so+0x...] frame;
#  - with libhot.so moved away, lib_hot's frames are [libhot.so+0x...]:
#    the recording itself did not name them.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x "$TARGETS/spin-pie" ] || fail "no $TARGETS/spin-pie: build it first (make check)"
need_perf
cp "$TARGETS/use-lib" "$TARGETS/libhot.so" "$tmp/"

rc=0
run_timeout 60 "$PERFMINI" record --max-memory=1M -o "$tmp/mem.data" -- \
	sh -c "'$TARGETS/spin-pie' 0.3; sleep 2; exec '$tmp/use-lib' 2" >"$tmp/rec.out" \
	2>"$tmp/rec.err" || rc=$?
cat "$tmp/rec.out" "$tmp/rec.err" >&3
[ "$rc" -eq 0 ] || fail "record --max-memory=1M exited $rc"
grep -q "memory reached .* budget (--max-memory)" "$tmp/rec.err" ||
	fail "the summary says nothing of the memory budget"

run_timeout 60 "$PERFMINI" report -i "$tmp/mem.data" --no-kernel >"$tmp/top" 2>&3 ||
	fail "report exited $?"
sed -n '/^Memory:/,/^[A-Z][a-z]*:/p' "$tmp/top" >&3
left=$(tr '\n' ' ' <"$tmp/top" | sed -n 's/.*Memory: .* \([0-9][0-9]*\) *left for report to name.*/\1/p')
[ -n "$left" ] || fail "the header has no Memory: line with the frames left for report"
[ "$left" -gt 0 ] || fail "no frame was left for report to name: the budget was not acted on"
grep -q '^Lost: *none' "$tmp/top" || fail "records or samples were lost"

run_report "$tmp/mem.data" "$tmp/mem.folded"
check_share "$tmp/mem.folded" "main;lib_hot" use-lib 1000
if grep -q '\[use-lib+0x\|\[libhot.so+0x' "$tmp/mem.folded"; then
	grep '\[use-lib+0x\|\[libhot.so+0x' "$tmp/mem.folded" | head -n 3 >&3
	fail "report left frames of use-lib or libhot.so unnamed"
fi

# Lines: lib_hot's, within its body in libhot.c.
"$PERFMINI" report -i "$tmp/mem.data" --folded --lines --no-kernel >"$tmp/lines" 2>&3 ||
	fail "report --lines exited $?"
awk '{ n = split($1, f, ";"); if (f[n] ~ /^lib_hot:/) print f[n], $2 }' "$tmp/lines" |
	sort -k2 -rn | head -n 5 >&3
awk '{ n = split($1, f, ";"); if (f[n] ~ /^lib_hot:/) { t += $2; if (f[n] ~ /:libhot\.c:(1[0-6])$/) ok += $2 } }
	END { exit !(t > 0 && ok >= 0.9 * t) }' "$tmp/lines" ||
	fail "lib_hot's leaves are not at libhot.c lines 10 to 16"

# Without a budget: as many samples.
run_record 60 "$tmp/free.data" --max-memory=0 -- \
	sh -c "'$TARGETS/spin-pie' 0.3; sleep 2; exec '$tmp/use-lib' 2"
run_report "$tmp/free.data" "$tmp/free.folded"
n_mem=$(awk '$1 ~ /^use-lib;/ { s += $NF } END { print s + 0 }' "$tmp/mem.folded")
n_free=$(awk '$1 ~ /^use-lib;/ { s += $NF } END { print s + 0 }' "$tmp/free.folded")
say "use-lib: $n_mem samples under the budget, $n_free without"
[ "$((n_mem * 10))" -ge "$((n_free * 8))" ] || fail "fewer samples under the budget"

# The names came from the file: without it, none.
mv "$tmp/libhot.so" "$tmp/libhot.so.away"
run_report "$tmp/mem.data" "$tmp/gone.folded"
awk '{ n = split($1, f, ";") } f[1] == "use-lib" && f[n] ~ /^lib_hot$/ { s += $2 } END { exit !(s == 0) }' \
	"$tmp/gone.folded" || fail "lib_hot was named with its file gone: the recording named it"
grep -q ';\[libhot\.so+0x[0-9a-f]*\] [0-9]*$' "$tmp/gone.folded" ||
	fail "no [libhot.so+0x...] leaf with the library gone"
