#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two executable segments: sym-twox's far_hot is in a section of its own,
# far_text, placed at 0x4000000 (while main is in .text near the start),
# which the linker puts in a second PF_X PT_LOAD. Samples of 'sym-twox 1'
# must name far_hot (in the second executable segment) as their leaf and
# main (in the first) as its caller.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-twox
exe=$TARGETS/sym-twox
load_segments "$exe" >"$tmp/segs"
nx=$(awk '$4 ~ /E/' "$tmp/segs" | wc -l)
[ "$nx" -ge 2 ] ||
	fail "sym-twox has $nx executable PT_LOAD, not 2: the test proves nothing ($(tr '\n' ' ' <"$tmp/segs"))"
far=$((0x$(nm_addr "$exe" far_hot)))
main=$((0x$(nm_addr "$exe" main)))
# which executable segment holds each function
seg_of() {
	i=0
	while read -r _ v sz fl _; do
		case $fl in *E*) i=$((i + 1)) ;; *) continue ;; esac
		if [ "$1" -ge $((v)) ] && [ "$1" -lt $((v + sz)) ]; then
			echo "$i"
			return 0
		fi
	done <"$tmp/segs"
	echo 0
}
far_seg=$(seg_of "$far")
main_seg=$(seg_of "$main")
if [ "$far_seg" -eq 0 ] || [ "$main_seg" -eq 0 ] || [ "$far_seg" -eq "$main_seg" ]; then
	fail "far_hot (executable segment $far_seg) and main ($main_seg) are not in two executable segments"
fi
say "main in executable segment $main_seg, far_hot in $far_seg of $nx"

need_perf
record_cmd twox -- "$exe" 1
check_user "$tmp/twox.folded" far_hot sym-twox 200
check_user "$tmp/twox.folded" "main;far_hot" sym-twox 200
