#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Data files that are well-formed but built to make a report cost far
# more than their size (tests/hostile/hostile-gen): a data file comes from
# another machine, and 'perfmini report' must not hang on one.
#   deep   4 MB: 5,000 samples, each with its own stack of 999,999
#          frames (stacks share one frame list);
#   lines  2.5 MB: one stack of 5,000 frames, each claiming an inline
#          chain of 100,000 lines.
#   tall   150 stacks of 1,024 frames, every frame distinct;
#   wide   50,000 stacks under one root, each with a leaf of its own.
# perfmini never writes a stack deeper than about 150 frames
# (PERF_MAX_STACK_DEPTH and a few) or an inline chain longer than 64
# (SRCLINE_MAX_DEPTH), and never lets stacks or frames share entries:
# the reader refuses deep and lines (exit 1, one line on stderr naming
# the offset), and reports tall and wide, which it must take, in every
# format (top, folded, svg, pprof, script, json, and top and folded
# against the file itself with --diff: its noise bars) within 20 s each
# (against a quadratic walk or a recursion per level), without a crash,
# and with a bounded output (under 64 MiB).
# Needs no perf events.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

GEN=$top_builddir/tests/hostile/hostile-gen
[ -x "$GEN" ] || fail "no $GEN: build it first (make check)"
problems=0

for kind in deep lines tall wide; do
	"$GEN" "$kind" "$tmp/$kind.data" || fail "hostile-gen $kind failed"
	for fmt in --folded --top --svg --pprof --script --json --diff=top --diff=folded; do
		rc=0
		set -- "$fmt"
		case $fmt in
		--diff=*) set -- "--${fmt#--diff=}" --diff "$tmp/$kind.data" ;;
		esac
		# A report that runs away stops at 64 MiB (SIGXFSZ), not at a full disk.
		# shellcheck disable=SC2016 # expanded by the inner shell
		run_timeout 20 sh -c 'ulimit -f 65536 && exec "$@" >"$0"' "$tmp/out" \
			"$PERFMINI" report -i "$tmp/$kind.data" "$@" -o - 2>"$tmp/err" || rc=$?
		size=$(stat -c %s "$tmp/out")
		say "$kind ($(stat -c %s "$tmp/$kind.data") bytes), report $fmt: exit $rc," \
			"$size bytes, stderr: $(head -c 200 "$tmp/err")"
		if [ "$rc" -eq 124 ]; then
			say "FAIL: $kind: report $fmt still running after 20 s"
			problems=$((problems + 1))
		elif [ "$rc" -eq $((128 + 25)) ] || [ "$size" -ge 67108864 ]; then
			say "FAIL: $kind: report $fmt printed 64 MiB or more"
			problems=$((problems + 1))
		elif [ "$rc" -ge 128 ]; then
			say "FAIL: $kind: report $fmt killed by signal $((rc - 128))"
			problems=$((problems + 1))
		elif [ "$kind" = deep ] || [ "$kind" = lines ]; then
			if [ "$rc" -ne 1 ] || [ "$(awk 'END { print NR }' "$tmp/err")" -ne 1 ] ||
				! grep -q 'offset [0-9]' "$tmp/err"; then
				say "FAIL: $kind: report $fmt exited $rc, not 1 with one line naming the offset"
				problems=$((problems + 1))
			fi
		elif [ "$rc" -ne 0 ] || [ "$size" -eq 0 ]; then
			say "FAIL: $kind: report $fmt exited $rc with $size bytes of output"
			problems=$((problems + 1))
		fi
	done
done
[ "$problems" -eq 0 ] || fail "$problems reports ran away or failed (above)"
