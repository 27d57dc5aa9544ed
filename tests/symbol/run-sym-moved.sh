#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Code moved to anonymous memory at the binary's own address (servers that
# back their text with huge pages copy it and mremap the copy over the
# original): attached with -p after the move, perfmini must name and unwind
# that code as the binary's, main;moved_outer;moved_hot, not as anonymous
# JIT code. The neighbouring mappings of the file give its load base.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-moved
need_perf
start_ready "$tmp/moved.out" "$TARGETS/sym-moved" -w 1
# The move is real: the code runs from an anonymous executable mapping.
grep -Eq '^[0-9a-f]+-[0-9a-f]+ r-xp 00000000 00:00 0 *$' "/proc/$tpid/maps" ||
	fail "sym-moved shows no anonymous executable mapping: $(cat "/proc/$tpid/maps")"
attach_and_start "$tmp/moved.data"
finish_target 60
record_wait 60 "$tmp/moved.data"
run_report "$tmp/moved.data" "$tmp/moved.folded"
check_user "$tmp/moved.folded" "main;moved_outer;moved_hot" sym-moved 200
