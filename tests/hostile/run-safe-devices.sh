#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs that are not files, and outputs that cannot be, in a scratch
# directory (nothing touches the real /dev but /dev/stdout, which is only
# written through):
#  1. a character device (a node like /dev/null, made with mknod as root):
#     'record -o' and 'report -o' write into it and leave it a device of
#     the same numbers and mode;
#  2. /dev/stdout, redirected to a file and to a pipe: 'report -o
#     /dev/stdout' writes the report there and /dev/stdout stays a link;
#  3. a FIFO, and a symbolic link to it: 'record -o' and 'report -o'
#     stream into it while a reader reads, and it stays a FIFO (the link a
#     link); the data read back is a whole recording;
#  4. a directory, a socket, and (run as another user) another user's file
#     in a sticky directory: 'record -o' refuses at once, before running
#     the command (which would spin for 30 s), exit 1 and one line naming
#     the output; nothing is left beside it;
#  5. no temporary file is left when the recorder is killed by SIGABRT or
#     SIGILL (a crash: the file it was writing stays, and reads), or when
#     the report outgrows the file size limit;
#     a recorder that gets SIGHUP writes what it sampled, like SIGTERM.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
dir=$tmp/out
mkdir "$dir"
spin=$TARGETS/spin-pie

# rec_to OUT SECONDS: 'perfmini record -q -o OUT -- spin-pie SECONDS' must
# exit 0 with nothing on stderr (OUT need not be a file).
rec_to() {
	rt_rc=0
	run_timeout 60 "$PERFMINI" record -q -o "$1" -- "$spin" "$2" >"$tmp/rt.out" 2>"$tmp/rt.err" ||
		rt_rc=$?
	[ "$rt_rc" -eq 0 ] || fail "record -o $1 exited $rt_rc: $(cat "$tmp/rt.err")"
	[ ! -s "$tmp/rt.err" ] || fail "record -q -o $1 printed: $(cat "$tmp/rt.err")"
}

# no_temp WHAT: nothing but the names given after WHAT is left in $dir.
no_temp() {
	nt_what=$1
	shift
	# shellcheck disable=SC2010 # our own names
	nt_left=$(ls -A "$dir" | grep -v -x -F "$(printf '%s\n' "$@")" || :)
	[ -z "$nt_left" ] || fail "$nt_what: left in the directory: $nt_left"
}

# 1. A character device.
if [ "$(id -u)" -eq 0 ] && mknod "$dir/null" c 1 3 2>/dev/null; then
	chmod 666 "$dir/null"
	rec_to "$dir/null" 0.1
	[ -c "$dir/null" ] || fail "record -o DEVICE: the device was replaced"
	[ "$(stat -c '%t:%T %a' "$dir/null")" = "1:3 666" ] ||
		fail "record -o DEVICE: the device changed: $(stat -c '%t:%T %a' "$dir/null")"
	run_record 60 "$tmp/a.data" -- "$spin" 0.1
	"$PERFMINI" report -i "$tmp/a.data" --svg -o "$dir/null" 2>"$tmp/err" ||
		fail "report -o DEVICE failed: $(cat "$tmp/err")"
	[ -c "$dir/null" ] || fail "report -o DEVICE: the device was replaced"
	no_temp "character device" null
	rm -f "$dir/null"
	say "a character device: written through, left as it was"
else
	say "not root (or no mknod): the character device case is not checked"
	run_record 60 "$tmp/a.data" -- "$spin" 0.1
fi

# 2. /dev/stdout, to a file and to a pipe.
"$PERFMINI" report -i "$tmp/a.data" --folded -o /dev/stdout >"$tmp/stdout.folded" 2>"$tmp/err" ||
	fail "report -o /dev/stdout > FILE failed: $(cat "$tmp/err")"
"$PERFMINI" report -i "$tmp/a.data" --folded >"$tmp/plain.folded"
cmp -s "$tmp/stdout.folded" "$tmp/plain.folded" ||
	fail "report -o /dev/stdout > FILE: not the report (got $(wc -c <"$tmp/stdout.folded") bytes)"
"$PERFMINI" report -i "$tmp/a.data" --folded -o /dev/stdout 2>"$tmp/err" | cat >"$tmp/piped.folded"
cmp -s "$tmp/piped.folded" "$tmp/plain.folded" || fail "report -o /dev/stdout | cat: not the report"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a symbolic link"
say "/dev/stdout: the report went where stdout pointed"

# 3. A FIFO, and a link to it.
mkfifo "$dir/fifo"
ln -s fifo "$dir/link"
for name in fifo link; do
	cat "$dir/fifo" >"$tmp/from-$name.data" &
	reader=$!
	track "$reader"
	rec_to "$dir/$name" 0.2
	wait_exit "$reader" 10 || fail "record -o $name: the reader did not see the end"
	[ -p "$dir/fifo" ] || fail "record -o $name: the FIFO was replaced"
	[ -L "$dir/link" ] || fail "record -o $name: the link was replaced"
	run_report "$tmp/from-$name.data" "$tmp/from-$name.folded"
	grep -q ';spin_hot ' "$tmp/from-$name.folded" ||
		fail "record -o $name: what came through the FIFO has no spin_hot"
done
cat "$dir/fifo" >"$tmp/fifo.folded" &
reader=$!
track "$reader"
"$PERFMINI" report -i "$tmp/a.data" --folded -o "$dir/link" 2>"$tmp/err" ||
	fail "report -o LINK-TO-FIFO failed: $(cat "$tmp/err")"
wait_exit "$reader" 10 || fail "report -o LINK-TO-FIFO: the reader did not see the end"
cmp -s "$tmp/fifo.folded" "$tmp/plain.folded" || fail "report -o LINK-TO-FIFO: not the report"
no_temp "FIFO" fifo link
say "a FIFO and a link to it: streamed into, left as they were"

# 4. Outputs that cannot be: refused before anything runs.
# refused WHAT NAME [RUNNER...]: 'record -o NAME' must fail at once.
refused() {
	rf_what=$1 rf_name=$2
	shift 2
	rf_start=$(date +%s)
	rf_rc=0
	run_timeout 60 "$@" "$PERFMINI" record -q --no-kernel -o "$rf_name" -- "$spin" 30 \
		>"$tmp/rf.out" 2>"$tmp/rf.err" || rf_rc=$?
	rf_secs=$(($(date +%s) - rf_start))
	say "$rf_what: exit $rf_rc after ${rf_secs} s: $(head -c 300 "$tmp/rf.err")"
	[ "$rf_rc" -eq 1 ] || fail "$rf_what: exit $rf_rc, want 1"
	[ "$rf_secs" -lt 10 ] || fail "$rf_what: refused only after $rf_secs s"
	[ "$(awk 'END { print NR }' "$tmp/rf.err")" -eq 1 ] || fail "$rf_what: not one line on stderr"
	grep -qF "$rf_name" "$tmp/rf.err" || fail "$rf_what: the output is not named"
}
mkdir "$dir/adir"
refused "a directory" "$dir/adir"
[ -d "$dir/adir" ] || fail "a directory: it was replaced"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$dir/sock"
refused "a socket" "$dir/sock"
[ -S "$dir/sock" ] || fail "a socket: it was replaced"
no_temp "refused outputs" fifo link adir sock
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$tmp"
	mkdir -m 1777 "$tmp/sticky"
	printf 'theirs\n' >"$tmp/sticky/theirs.data"
	chown 65534 "$tmp/sticky/theirs.data"
	refused "another user's file in a sticky directory" "$tmp/sticky/theirs.data" \
		setpriv --reuid=65533 --regid=65533 --clear-groups
	[ "$(cat "$tmp/sticky/theirs.data")" = theirs ] || fail "sticky: their file changed"
	# shellcheck disable=SC2010 # our own names
	if ls -A "$tmp/sticky" | grep -qv '^theirs\.data$'; then
		fail "sticky: a file was left"
	fi
else
	say "not root (or no setpriv): the sticky directory case is not checked"
fi

# 5. Killed, hung up, or over the size limit: no temporary file.
for sig in ABRT ILL; do
	"$PERFMINI" record -q -o "$dir/killed.data" -- "$spin" 3 >/dev/null 2>&1 &
	rec=$!
	track "$rec"
	wait_attached "$rec" 30 || fail "SIG$sig: the recorder did not start"
	kill "-$sig" "$rec"
	wait_exit "$rec" 30 || fail "SIG$sig: the recorder did not end"
	# What it wrote before the crash stays, under its name, and reads.
	if [ -e "$dir/killed.data" ]; then
		"$PERFMINI" report -i "$dir/killed.data" --folded >/dev/null 2>"$tmp/killed.err" ||
			fail "SIG$sig: what the recorder left does not read: $(cat "$tmp/killed.err")"
	fi
	no_temp "SIG$sig" fifo link adir sock killed.data
	rm -f "$dir/killed.data"
done
"$PERFMINI" record -q -o "$dir/hup.data" -- "$spin" 30 >/dev/null 2>"$tmp/hup.err" &
rec=$!
track "$rec"
wait_attached "$rec" 30 || fail "SIGHUP: the recorder did not start"
sleep 0.5
kill -HUP "$rec"
wait_exit "$rec" 30 || fail "SIGHUP: the recorder did not end"
rc=0
wait "$rec" || rc=$?
[ "$rc" -eq 0 ] || fail "SIGHUP: the recorder exited $rc: $(cat "$tmp/hup.err")"
run_report "$dir/hup.data" "$tmp/hup.folded"
rm -f "$dir/hup.data"
no_temp "SIGHUP" fifo link adir sock
rc=0
(
	ulimit -f 1
	exec "$PERFMINI" report -i "$tmp/a.data" --svg -o "$dir/big.svg"
) >/dev/null 2>"$tmp/xfsz.err" || rc=$?
say "report over the file size limit: exit $rc: $(head -c 200 "$tmp/xfsz.err")"
[ "$rc" -eq 1 ] || fail "report over the file size limit: exit $rc, want 1"
no_temp "SIGXFSZ" fifo link adir sock
say "killed, hung up, too big: no temporary file left"
