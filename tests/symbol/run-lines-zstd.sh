#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Source lines from debug sections compressed with zstd (objcopy
# --compress-debug-sections=zstd), which libelf 0.188 cannot read itself:
# inline (gcc -O2 -g) with its DWARF compressed in the binary
# (inline-zstd), in a separate debug file named by .gnu_debuglink
# (inline-zstd-lnk, stripped), and in a separate debug file found by
# build-id under --debug-dir (inline-zstd-bid, stripped); and with zlib,
# which perfmini expands too, into a temporary file (inline-zlib in the
# binary, inline-zlib-lnk in a debug file by .gnu_debuglink; the first
# with TMPDIR unusable and no cache, so the next place is taken). The
# expanded copies kept for later runs (PERFMINI_CACHE_DIR) are used
# again, made again when damaged, and never kept where others may write. Each must read
# work_outer;inline_mid_[i];inline_leaf_[i] with every level at its own
# line, in a recording and in 'perfmini symbolize -e'. Then a copy of
# inline-zstd whose .debug_info claims more bytes than its data expands
# to: its frames keep their names, and the summary after the recording
# names the file, says its compressed debug sections could not be
# expanded and how to fix it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"
. "$srcdir/tests/symbol/lineslib.sh"

for t in inline inline-zstd inline-zstd-lnk inline-zstd-lnk-syms.debug inline-zstd-bid \
	inline-zstd-bid.dbg inline-zlib inline-zlib-lnk inline-zlib-lnk-syms.debug; do
	need_target "$t"
done
src=$srcdir/tests/targets/inline.c
oc=$(lines_mark "$src" 'outer-call \*/')
mc=$(lines_mark "$src" 'mid-call \*/')
l1=$(lines_mark "$src" 'leaf-loop \*/')
l2=$(lines_mark "$src" 'leaf-body \*/')

# section_offset FILE NAME: the file offset of section NAME, in decimal.
section_offset() {
	so=$(LC_ALL=C readelf -SW "$1" | awk -v n="$2" '$2 == n { print $5 } $3 == n { print $6 }' |
		head -n 1)
	[ -n "$so" ] || fail "$1 has no section $2"
	echo $((0x$so))
}

# The sections really are zstd (ch_type 2 in the compression header).
for f in inline-zstd inline-zstd-lnk-syms.debug inline-zstd-bid.dbg; do
	off=$(section_offset "$TARGETS/$f" .debug_info)
	type=$(od -An -tu4 -j "$off" -N 4 "$TARGETS/$f" | tr -d ' ')
	[ "$type" = 2 ] || fail "$f: .debug_info is not zstd-compressed (ch_type $type)"
done
for f in inline-zlib inline-zlib-lnk-syms.debug; do
	off=$(section_offset "$TARGETS/$f" .debug_info)
	type=$(od -An -tu4 -j "$off" -N 4 "$TARGETS/$f" | tr -d ' ')
	[ "$type" = 1 ] || fail "$f: .debug_info is not zlib-compressed (ch_type $type)"
done

id=$(LC_ALL=C readelf -nW "$TARGETS/inline-zstd-bid" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ "${#id}" -ge 4 ] || fail "inline-zstd-bid has no build-id"
rest=${id#??}
mkdir -p "$tmp/dbg/.build-id/${id%"$rest"}"
cp "$TARGETS/inline-zstd-bid.dbg" "$tmp/dbg/.build-id/${id%"$rest"}/$rest.debug"

need_perf
for name in inline-zstd inline-zstd-lnk inline-zstd-bid inline-zlib inline-zlib-lnk; do
	args=
	[ "$name" != inline-zstd-bid ] || args="--debug-dir $tmp/dbg"
	if [ "$name" = inline-zlib ]; then
		(
			TMPDIR=$tmp/no-such-dir PERFMINI_CACHE_DIR=
			export TMPDIR PERFMINI_CACHE_DIR
			record_cmd "$name" -- "$TARGETS/$name" 1
		)
	else
		# shellcheck disable=SC2086 # args is a list of options
		record_cmd "$name" $args -- "$TARGETS/$name" 1
	fi
	check_user "$tmp/$name.folded" "work_outer;inline_mid_[i];inline_leaf_[i]" "$name" 500
	lines_fold "$tmp/$name.data" "$tmp/$name-lines.folded"
	check_user_re "$tmp/$name-lines.folded" \
		"(^|;)work_outer:inline\\.c:$oc;inline_mid:inline\\.c:${mc}_\\[i\\];inline_leaf:inline\\.c:($l1|$l2)_\\[i\\]\$" \
		"$name" 500 90 "end in work_outer:inline.c:$oc;inline_mid:inline.c:${mc}_[i];inline_leaf:inline.c:{$l1,$l2}_[i]"
	# shellcheck disable=SC2086 # args is a list of options
	lines_symbolize "$TARGETS/inline" '^work_outer$' "$TARGETS/$name" \
		"inline_leaf at [^ ]*/inline\\.c:($l1|$l2)(:[0-9]+)?\$" \
		"inline_mid at [^ ]*/inline\\.c:$mc(:[0-9]+)?\$" \
		"work_outer at [^ ]*/inline\\.c:$oc(:[0-9]+)?\$" -- $args
done

# The expanded copies kept between runs (PERFMINI_CACHE_DIR): made at the
# first recording of inline-zstd-lnk, used at the next (which marks it
# used: its time changes) with the same lines; one cut short is not used
# and is made again; none is kept in a directory others may write to.
lines_cached() { # NAME DIR: record with the cache in DIR, check the lines
	(
		PERFMINI_CACHE_DIR=$2
		export PERFMINI_CACHE_DIR
		record_cmd "$1" -- "$TARGETS/inline-zstd-lnk" 1
	)
	lines_fold "$tmp/$1.data" "$tmp/$1-lines.folded"
	check_user_re "$tmp/$1-lines.folded" \
		"(^|;)work_outer:inline\\.c:$oc;inline_mid:inline\\.c:${mc}_\\[i\\];inline_leaf:inline\\.c:($l1|$l2)_\\[i\\]\$" \
		"inline-zstd-lnk" 500 90 "end in work_outer:inline.c:$oc;inline_mid:inline.c:${mc}_[i];inline_leaf:inline.c:{$l1,$l2}_[i] ($1)"
}
copies() { find "$1" -name '*.x' -type f | sort; }
lines_cached zc1 "$tmp/zc/kept"
[ "$(copies "$tmp/zc/kept" | wc -l)" -ge 1 ] || fail "no expanded copy kept in $tmp/zc/kept"
[ "$(stat -c %a "$tmp/zc/kept")" = 700 ] || fail "the cache directory was made $(stat -c %a "$tmp/zc/kept"), not 700"
copies "$tmp/zc/kept" | xargs stat -c '%n %s %.9Y' >"$tmp/zc.before"
# The names kept by build-id would spare the second recording reading the
# DWARF of every frame the first one named (each, a second of one loop):
# without them, it reads the DWARF, from the copies.
rm -rf "$tmp/zc/kept/names"
lines_cached zc2 "$tmp/zc/kept"
copies "$tmp/zc/kept" | xargs stat -c '%n %s %.9Y' >"$tmp/zc.after"
# Each copy the first recording made is there again, the same size, and
# one at least was marked used. The second may add a copy of a file the
# first did not sample (the dynamic loader's debug file, when only the
# second samples its start-up).
used=$(awk 'NR == FNR { t[$1] = $3; next } ($1 in t) && $3 != t[$1] { n++ } END { print n + 0 }' \
	"$tmp/zc.before" "$tmp/zc.after")
[ "$used" -ge 1 ] ||
	fail "the second recording did not use the expanded copies: $(cat "$tmp/zc.after")"
lost=$(awk 'NR == FNR { s[$1] = $2; next } ($1 in s) && s[$1] == $2 { delete s[$1] }
	END { for (n in s) print n }' "$tmp/zc.before" "$tmp/zc.after")
[ -z "$lost" ] ||
	fail "the second recording lost or resized the first one's copies $lost: $(cat "$tmp/zc.before") / $(cat "$tmp/zc.after")"
big=$(copies "$tmp/zc/kept" | xargs ls -S | head -n 1)
size=$(stat -c %s "$big")
truncate -s 4096 "$big"
# Likewise for the third recording.
rm -rf "$tmp/zc/kept/names"
lines_cached zc3 "$tmp/zc/kept"
[ "$(stat -c %s "$big")" = "$size" ] || fail "a copy cut short was not made again ($(stat -c %s "$big") bytes)"
mkdir -p "$tmp/zc/open"
chmod 777 "$tmp/zc/open"
lines_cached zc4 "$tmp/zc/open"
[ -z "$(copies "$tmp/zc/open")" ] || fail "a copy was kept in a directory anyone may write to"
say "expanded copies kept: $(copies "$tmp/zc/kept" | wc -l), used again"

# Damaged: the compression header of .debug_info claims 4 KiB more.
cp "$TARGETS/inline-zstd" "$tmp/inline-zbad"
off=$(section_offset "$tmp/inline-zbad" .debug_info)
size=$(od -An -tu8 -j $((off + 8)) -N 8 "$tmp/inline-zbad" | tr -d ' ')
# The new size's 8 bytes, least significant first, written through octal
# escapes: dash's printf has no \x.
le_n=$((size + 4096))
for _ in 1 2 3 4 5 6 7 8; do
	printf '%b' "\\0$(printf '%03o' $((le_n & 255)))"
	le_n=$((le_n >> 8))
done | dd of="$tmp/inline-zbad" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
rc=0
# It has inline-zstd's build-id: the names kept of that build would name
# its frames without reading its damaged DWARF. A cache of its own.
run_timeout 60 env PERFMINI_CACHE_DIR="$tmp/zbad-cache" "$PERFMINI" record -o "$tmp/zbad.data" \
	-- "$tmp/inline-zbad" 1 >"$tmp/zbad.out" 2>"$tmp/zbad.err" || rc=$?
cat "$tmp/zbad.err" >&3
[ "$rc" -eq 0 ] || fail "perfmini record -- inline-zbad exited $rc"
run_report "$tmp/zbad.data" "$tmp/zbad.folded"
check_user "$tmp/zbad.folded" "work_outer" inline-zbad 500
grep -E "^perfmini: [^ ]*/inline-zbad: [0-9.]+% of [0-9]+ named frames have no source line: its compressed debug sections could not be expanded.*objcopy --decompress-debug-sections" \
	"$tmp/zbad.err" >"$tmp/summary" ||
	fail "the summary has no line that names inline-zbad and says its compressed debug sections could not be expanded, with the fix"
say "summary: $(cat "$tmp/summary")"
"$PERFMINI" report -i "$tmp/zbad.data" >"$tmp/zbad.top" 2>&1 || fail "report of inline-zbad failed"
# The header wraps its lines: read it as one.
tr '\n' ' ' <"$tmp/zbad.top" | grep -q "Lines: *inline-zbad: .*could not be  *expanded" ||
	fail "the report's header does not say why inline-zbad has no lines"
