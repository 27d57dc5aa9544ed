#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# JIT code in another PID namespace, as in a container: sym-jit runs as
# pid 1 of a new PID namespace (unshare --pid --fork --mount-proc) with a
# private /tmp, so it writes its map as /tmp/perf-1.map inside its own
# root, where neither the host's pid nor the host's /tmp would find it.
# The frames must be named from that map: >= 90% of the samples end in
# jit_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit
command -v unshare >/dev/null 2>&1 || fail "no unshare program: install the Debian package util-linux"
# As root the namespaces are enough; otherwise a user namespace too.
if unshare -m -p -f --mount-proc true 2>"$tmp/unshare.err"; then
	ns="unshare -m -p -f --mount-proc"
elif unshare -r -m -p -f --mount-proc true 2>>"$tmp/unshare.err"; then
	ns="unshare -r -m -p -f --mount-proc"
else
	fail "cannot create PID and mount namespaces here: $(cat "$tmp/unshare.err")"
fi

need_perf
# The target runs from its directory, which stays reachable as the
# current one when a build under /tmp is hidden by the private /tmp.
# shellcheck disable=SC2016,SC2086 # for the inner shell; $ns is a command and its options
record_cmd pidns -- $ns /bin/sh -c \
	'cd "$1" && mount -t tmpfs -o size=16m perfmini-test /tmp && exec ./sym-jit 1' \
	sh "$TARGETS"
grep -q '^sym-jit: wrote /tmp/perf-1\.map$' "$tmp/record.out" ||
	fail "sym-jit did not run as pid 1 of its namespace: $(cat "$tmp/record.out" "$tmp/record.err")"
[ ! -e /tmp/perf-1.map ] || say "note: the host has a /tmp/perf-1.map (not the test's)"
check_user "$tmp/pidns.folded" jit_hot sym-jit 200
