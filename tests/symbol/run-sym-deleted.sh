#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A deleted binary: a copy of sym-deleted is started from the test's
# directory, deleted, and only then recorded with 'record -p' (its maps
# say "(deleted)"). Samples must still name deleted_hot, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-deleted
cp "$TARGETS/sym-deleted" "$tmp/sym-deleted"

need_perf
start_ready "$tmp/target.out" "$tmp/sym-deleted" -w 1
rm -f "$tmp/sym-deleted"
grep -q 'sym-deleted (deleted)$' "/proc/$tpid/maps" ||
	fail "the maps of process $tpid do not show the binary as deleted"
attach_and_start "$tmp/deleted.data"
finish_target 60
record_wait 10 "$tmp/deleted.data"
run_report "$tmp/deleted.data" "$tmp/deleted.folded"
check_user "$tmp/deleted.folded" "main;deleted_hot" sym-deleted 200
