#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Naming late: a stripped program recorded before its debug file was
# there, named by report once it is, found by build-id. noise-base
# (tests/targets/noise.c) is copied, its debug info split off
# (objcopy --only-keep-debug) and the copy stripped; it runs recorded
# for 1 s of CPU time, its own functions left unnamed ([prog+0x...]).
# Then, with the debug file under DIR/.build-id/XX/REST.debug:
#  - 'report --debug-dir DIR' names no frame [prog+0x...] any more, and
#    its leaves nz_a and nz_b under main have the counts of the unnamed
#    leaves that addr2line names so in the unstripped program;
#  - with the program itself gone, the debug file alone names them too,
#    with their source lines (noise.c, addr2line's line);
#  - a debug file of another build at that path names nothing;
#  - a --debug-dir that is no directory: one line, exit 1.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
for t in objcopy strip addr2line readelf; do
	command -v "$t" >/dev/null 2>&1 || fail "$t is needed (Debian: binutils)"
done
cp "$TARGETS/noise-base" "$tmp/full"
cp "$TARGETS/noise-base" "$tmp/prog"
objcopy --only-keep-debug "$tmp/prog" "$tmp/prog.debug"
strip --strip-all "$tmp/prog"
id=$(readelf -n "$tmp/prog" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "the program has no build-id"
ddir=$tmp/dbg/.build-id/$(echo "$id" | cut -c1-2)
dfile=$ddir/$(echo "$id" | cut -c3-).debug

run_record 60 "$tmp/late.data" -- "$tmp/prog" 1
"$PERFMINI" report -i "$tmp/late.data" --folded --no-kernel >"$tmp/bare" 2>&3 ||
	fail "report exited $?"
grep -q ';\[prog+0x[0-9a-f]*\] [0-9]*$' "$tmp/bare" || fail "the program's frames were named when recorded"
! grep -q ';nz_a ' "$tmp/bare" || fail "nz_a was named when recorded: nothing is left to name late"

# The unnamed leaves "OFFSET COUNT", offsets in the program's file.
awk '{ n = split($1, f, ";"); if (f[n] ~ /^\[prog\+0x/) { sub(/^\[prog\+/, "", f[n]); sub(/\]$/, "", f[n]); c[f[n]] += $2 } }
END { for (o in c) print o, c[o] }' "$tmp/bare" | sort >"$tmp/leaves"
# File offset to ELF address: the executable segment's difference.
seg=$(readelf -lW "$tmp/full" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
[ -n "$seg" ] || fail "the program has no executable segment"
delta=$((${seg#* } - ${seg% *}))
# addr2line's function and line of each leaf: "FUNCTION LINE COUNT".
while read -r off count; do
	addr=$(printf '0x%x' $((off + delta)))
	addr2line -f -e "$tmp/full" "$addr" | paste - - | awk -v c="$count" '{ n = split($2, l, ":"); print $1, l[n] + 0, c }'
done <"$tmp/leaves" >"$tmp/want.lines"
awk '$1 ~ /^nz_[ab]$/ { c[$1] += $3 } END { for (f in c) print f, c[f] }' "$tmp/want.lines" |
	sort >"$tmp/want"
cat "$tmp/want" >&3
[ "$(grep -c '^nz_[ab] ' "$tmp/want")" -eq 2 ] || fail "addr2line names no nz_a and nz_b leaf"

# leaves_of FOLDED: "FUNCTION COUNT" of the leaves nz_a and nz_b under main.
leaves_of() {
	awk '{ n = split($1, f, ";"); sub(/:.*/, "", f[n]) }
	n >= 2 && f[n - 1] ~ /^main(:|$)/ && f[n] ~ /^nz_[ab]$/ { c[f[n]] += $2 }
	END { for (x in c) print x, c[x] }' "$1" | sort
}

# 1. The debug file found by build-id under --debug-dir.
mkdir -p "$ddir"
cp "$tmp/prog.debug" "$dfile"
"$PERFMINI" report -i "$tmp/late.data" --folded --no-kernel --debug-dir "$tmp/dbg" >"$tmp/named" \
	2>"$tmp/err" || fail "report --debug-dir exited $?: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "report --debug-dir printed: $(cat "$tmp/err")"
! grep -q '\[prog+0x' "$tmp/named" || fail "frames left unnamed: $(grep -m 3 '\[prog+0x' "$tmp/named")"
leaves_of "$tmp/named" >"$tmp/got"
cat "$tmp/got" >&3
cmp -s "$tmp/want" "$tmp/got" || fail "the leaves under main are not addr2line's: $(cat "$tmp/got")"
say "named late: $(tr '\n' ' ' <"$tmp/got")"

# 2. The program gone: its debug file alone, with lines.
rm "$tmp/prog"
"$PERFMINI" report -i "$tmp/late.data" --folded --no-kernel --lines --debug-dir "$tmp/dbg" \
	>"$tmp/lines" 2>&3 || fail "report --lines --debug-dir exited $?"
awk '$1 == "nz_a" || $1 == "nz_b" { print $1 ":noise.c:" $2 }' "$tmp/want.lines" | sort -u >"$tmp/want.at"
awk '{ n = split($1, f, ";"); print f[n] }' "$tmp/lines" | grep -E '^nz_[ab]:' | sort -u >"$tmp/got.at"
cmp -s "$tmp/want.at" "$tmp/got.at" ||
	fail "without the program, the lines are not addr2line's: want $(cat "$tmp/want.at"), got $(cat "$tmp/got.at")"
say "the debug file alone: $(tr '\n' ' ' <"$tmp/got.at")"

# 3. Another build's debug file at that path: nothing named.
objcopy --only-keep-debug "$TARGETS/noise-slow" "$dfile"
"$PERFMINI" report -i "$tmp/late.data" --folded --no-kernel --debug-dir "$tmp/dbg" >"$tmp/other" \
	2>&3 || fail "report with another build's debug file exited $?"
! grep -q ';nz_[ab] ' "$tmp/other" || fail "another build's debug file named the frames"

# 4. A --debug-dir that is not a directory.
rc=0
"$PERFMINI" report -i "$tmp/late.data" --debug-dir "$tmp/late.data" >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
	fail "--debug-dir FILE: exit $rc, $(cat "$tmp/err")"
fi
say "--debug-dir FILE: $(cat "$tmp/err")"
exit 0
