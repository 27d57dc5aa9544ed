#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A binary in another mount namespace: 'unshare -m' mounts a private
# tmpfs over DIR/ns, copies sym-mntns into it and runs it from there, so
# its path exists only inside that namespace (the test checks that DIR/ns
# is empty outside). 'perfmini record' runs the whole thing; samples must
# name mntns_hot, called from main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-mntns
command -v unshare >/dev/null 2>&1 || fail "no unshare program: install the Debian package util-linux"
# As root a mount namespace is enough; otherwise a user namespace too.
if unshare -m true 2>"$tmp/unshare.err"; then
	ns="unshare -m"
elif unshare -r -m true 2>>"$tmp/unshare.err"; then
	ns="unshare -r -m"
else
	fail "cannot create a mount namespace here ('unshare -m' and 'unshare -r -m' failed: $(cat "$tmp/unshare.err"))"
fi
mkdir "$tmp/ns"

need_perf
# shellcheck disable=SC2016,SC2086 # for the inner shell; $ns is a command and its options
record_bg "$tmp/mntns.data" -- $ns /bin/sh -c \
	'mount -t tmpfs -o size=16m perfmini-test "$1" && cp "$2" "$1/sym-mntns" && exec "$1/sym-mntns" -w 1' \
	sh "$tmp/ns" "$TARGETS/sym-mntns"
wait_line "$tmp/record.out" ': ready, pid [0-9]+' 30 ||
	fail "sym-mntns did not start in its namespace within 30 s: $(cat "$tmp/record.err")"
tpid=$(sed -n 's/.*: ready, pid \([0-9][0-9]*\).*/\1/p' "$tmp/record.out" | head -n 1)
[ -z "$(ls -A "$tmp/ns")" ] || fail "$tmp/ns is not empty outside the namespace: the test proves nothing"
grep -q " $tmp/ns/sym-mntns\$" "/proc/$tpid/maps" ||
	fail "process $tpid does not run $tmp/ns/sym-mntns"
kill -USR1 "$tpid"
record_wait 60 "$tmp/mntns.data"
run_report "$tmp/mntns.data" "$tmp/mntns.folded"
check_user "$tmp/mntns.folded" "main;mntns_hot" sym-mntns 200
