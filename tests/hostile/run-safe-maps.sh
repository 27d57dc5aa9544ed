#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The files a target maps are opened inside the target's root, without
# following a link out of it, and never block: the target, fault-maps in
# a chroot (ROOT), maps a file CODE for execution and unmaps it at once,
# so that perfmini learns of the mapping only when it is gone and must
# open CODE by name; then it replaces CODE and spins for 0.5 CPU seconds:
#  1. CODE becomes a symbolic link to an absolute path that exists only
#     outside ROOT, where it is a named pipe;
#  2. CODE becomes a named pipe inside ROOT.
# The same absolute path as CODE exists outside ROOT too, as a named pipe.
# A watch (fault-maps watch) tells whether any of those pipes is opened
# for reading; none may be, and perfmini must end with exit 0 and a file
# that reads back. (Run as root: chroot needs it.)
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_MAPS=$top_builddir/tests/hostile/fault-maps
[ -x "$FAULT_MAPS" ] || fail "no $FAULT_MAPS: build it first (make check)"

need_perf
[ "$(id -u)" -eq 0 ] || skip "chroot needs root (uid $(id -u))"
command -v chroot >/dev/null 2>&1 || fail "no chroot (coreutils)"

root=$tmp/root
mkdir -p "$root$tmp"
cp "$FAULT_MAPS" "$root/fault-maps"
problems=0

# scenario NAME LINK: CODE is $tmp/NAME.code (inside ROOT: a regular file;
# outside: a named pipe); LINK is what the target replaces it with.
scenario() {
	sc_code=$tmp/$1.code
	head -c 8192 "$FAULT_MAPS" >"$root$sc_code"
	mkfifo "$sc_code"
	set -- "$1" "$2" "$sc_code"
	if [ "$2" = fifo ]; then
		sc_watch="$sc_code $root$sc_code"
	else
		mkfifo "$2"
		sc_watch="$sc_code $2"
	fi
	# shellcheck disable=SC2086 # the list of pipes
	"$FAULT_MAPS" watch 60 $sc_watch >"$tmp/$1.watch" 2>&1 &
	sc_wpid=$!
	track "$sc_wpid"
	sleep 0.2
	sc_rc=0
	run_timeout 60 "$PERFMINI" record -q -o "$tmp/$1.data" -- \
		chroot "$root" /fault-maps swap "$sc_code" "$2" 0.5 \
		>"$tmp/$1.out" 2>"$tmp/$1.err" 3>&- || sc_rc=$?
	# The watch reports at once; give it a moment to see a late open.
	sleep 0.3
	kill "$sc_wpid" 2>/dev/null || :
	wait "$sc_wpid" 2>/dev/null || :
	cat "$tmp/$1.out" "$tmp/$1.err" >&3
	grep -q '^fault-maps: swapped' "$tmp/$1.out" || fail "$1: the target did not run"
	sc_before=$problems
	if [ -s "$tmp/$1.watch" ]; then
		cat "$tmp/$1.watch" >&3
		say "FAIL: $1: perfmini opened a named pipe the target pointed it to (above)"
		problems=$((problems + 1))
	fi
	if [ "$sc_rc" -ne 0 ]; then
		say "FAIL: $1: perfmini record exited $sc_rc"
		problems=$((problems + 1))
	elif ! "$PERFMINI" report -i "$tmp/$1.data" --folded >/dev/null 2>"$tmp/$1.rerr"; then
		say "FAIL: $1: the file does not read back: $(cat "$tmp/$1.rerr")"
		problems=$((problems + 1))
	elif [ "$problems" -eq "$sc_before" ]; then
		say "$1: ok"
	fi
}

scenario link-out "$tmp/outside"
scenario fifo-in fifo
[ "$problems" -eq 0 ] || fail "$problems problems (above)"
