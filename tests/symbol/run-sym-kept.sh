#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names kept between recordings by build-id (PERFMINI_CACHE_DIR/names):
# copies of use-lib and libhot.so (built with -g) recorded four times.
#  1. The first names main;lib_hot (at least 90% of use-lib's samples)
#     with lib_hot's lines in libhot.c (10 to 16, its body), and keeps
#     libhot.so's names in names/BUILD-ID.n.
#  2. The second names them the same, from what was kept: its header's
#     "Kept:" line counts frames named so, more than the first's (which
#     counts only modules read again after being let go: none, mostly).
#  3. The kept file replaced by garbage: as if there were none, names
#     still right, and the file written anew, whole.
#  4. A names directory others may write to: not used (no more "Kept:"
#     than the first recording's), names still right.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
command -v readelf >/dev/null 2>&1 || fail "readelf is needed (Debian: binutils)"
cp "$TARGETS/use-lib" "$TARGETS/libhot.so" "$tmp/"
id=$(readelf -n "$tmp/libhot.so" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] || fail "libhot.so has no build-id"
kept=$PERFMINI_CACHE_DIR/names/$id.n

# check_names N: recording N's stacks and lines as use-lib's source says.
check_names() {
	run_report "$tmp/r$1.data" "$tmp/r$1.folded"
	check_share "$tmp/r$1.folded" "main;lib_hot" use-lib 500
	"$PERFMINI" report -i "$tmp/r$1.data" --folded --lines --no-kernel >"$tmp/r$1.lines" 2>&3 ||
		fail "report --lines of recording $1 exited $?"
	awk '{ n = split($1, f, ";"); if (f[n] ~ /^lib_hot:/) { t += $2; if (f[n] ~ /:libhot\.c:(1[0-6])$/) ok += $2 } }
		END { exit !(t > 0 && ok >= 0.9 * t) }' "$tmp/r$1.lines" ||
		fail "recording $1: lib_hot's leaves are not at libhot.c lines 10 to 16"
	"$PERFMINI" report -i "$tmp/r$1.data" --no-kernel >"$tmp/r$1.top" 2>&3 ||
		fail "report of recording $1 exited $?"
	kept_n=$(sed -n 's/^Kept: *\([0-9][0-9]*\) frames.*/\1/p' "$tmp/r$1.top")
	kept_n=${kept_n:-0}
	say "recording $1: $kept_n frames named from kept names"
}

run_record 60 "$tmp/r1.data" -- "$tmp/use-lib" 1
check_names 1
[ -f "$kept" ] || fail "libhot.so's names were not kept in $kept"
first=$kept_n

run_record 60 "$tmp/r2.data" -- "$tmp/use-lib" 1
check_names 2
[ "$kept_n" -gt "$first" ] || fail "the second recording named no more from the kept names than the first"

head -c 300 /dev/urandom >"$kept"
run_record 60 "$tmp/r3.data" -- "$tmp/use-lib" 1
check_names 3
[ "$(head -c 8 "$kept")" = PMNAMES1 ] || fail "the damaged file was not written anew"

chmod 0777 "$PERFMINI_CACHE_DIR/names"
run_record 60 "$tmp/r4.data" -- "$tmp/use-lib" 1
check_names 4
[ "$kept_n" -le "$first" ] || fail "names were taken from a directory others may write to"
chmod 0700 "$PERFMINI_CACHE_DIR/names"
