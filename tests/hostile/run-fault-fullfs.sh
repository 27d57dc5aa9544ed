#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Output on a full file system: a 64 KiB tmpfs, mounted in a mount
# namespace of the test's own (unshare -m, so that nothing is left mounted
# if the test dies), holds an older data file OLD.data and a filler that
# leaves about 4 KiB free. 'perfmini record -q -o DIR/out.data -- spin-pie
# 30' and the same with -o DIR/OLD.data must each notice the full disk
# within seconds (the file is written a chunk every half second), stop,
# exit 1, print exactly one line on stderr that names the output file and
# says the space ran out, and keep what was written: the file under the
# output name reads back as cut short (or, when not even the first chunk
# fit, there is none, and OLD.data is unchanged); no temporary file is
# left in DIR. Then, with the filler removed, the same recording into DIR
# must succeed: the failure was the space, nothing else. And 'record -o -'
# into a pipe, with TMPDIR on the full file system, must succeed with
# every sample: nothing waits in a temporary file.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
[ "$(id -u)" -eq 0 ] || skip "mounting a small file system needs root (uid $(id -u))"
command -v unshare >/dev/null 2>&1 || fail "no unshare (util-linux)"
mnt=$tmp/full
mkdir "$mnt"
run_record 60 "$tmp/old.data" -- "$TARGETS/spin-pie" 0.1

# The part that runs in the private mount namespace; its findings go to
# $tmp/ns.log, one "FAIL: ..." line per failure.
cat >"$tmp/ns.sh" <<'NS'
set -u
mnt=$1 perfmini=$2 spin=$3 old=$4 log=$5
bad() { echo "FAIL: $*" >>"$log"; }
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=64k,mode=0755 perfmini-full "$mnt" || { bad "cannot mount a tmpfs"; exit 0; }
cp "$old" "$mnt/OLD.data"
# Fill all but about 4 KiB.
dd if=/dev/zero of="$mnt/filler" bs=1024 count=$((64 - 4 - $(du -k "$mnt/OLD.data" | cut -f1))) \
	2>/dev/null
echo "tmpfs: $(df -k --output=avail "$mnt" | tail -n 1 | tr -d ' ') KiB free" >>"$log"
for name in out.data OLD.data; do
	before=$(cksum <"$mnt/OLD.data")
	rc=0
	t0=$(date +%s)
	timeout -k 5 60 "$perfmini" record -q -o "$mnt/$name" -- "$spin" 30 \
		>"$mnt.out" 2>"$mnt.err" 3>&- || rc=$?
	t1=$(date +%s)
	echo "record -o $mnt/$name: exit $rc after $((t1 - t0)) s, stderr: $(cat "$mnt.err")" >>"$log"
	[ "$rc" -eq 1 ] || bad "record into a full file system exited $rc, want 1"
	[ $((t1 - t0)) -le 10 ] || bad "the full disk was noticed after $((t1 - t0)) s"
	lines=$(awk 'END { print NR }' "$mnt.err")
	[ "$lines" -eq 1 ] || bad "$lines lines on stderr, want 1"
	grep -qF "$mnt/$name" "$mnt.err" || bad "the error does not name $mnt/$name"
	grep -Eqi 'space|full' "$mnt.err" || bad "the error does not say the space ran out"
	if [ "$name" = OLD.data ] && [ "$(cksum <"$mnt/OLD.data")" = "$before" ]; then
		echo "$name: unchanged (the first chunk did not fit)" >>"$log"
	elif [ -e "$mnt/$name" ]; then
		n=$("$perfmini" report -i "$mnt/$name" --folded 2>"$mnt.rerr" |
			awk '{ n += $NF } END { print n + 0 }')
		grep -q 'cut short' "$mnt.rerr" ||
			bad "$name does not read as cut short: $(cat "$mnt.rerr")"
		echo "$name: cut short, $n samples kept" >>"$log"
	fi
	left=$(ls -A "$mnt" | grep -Ev '^(OLD\.data|out\.data|filler)$' || :)
	[ -z "$left" ] || bad "files left behind: $left"
	rm -f "$mnt/out.data"
done
rm -f "$mnt/filler"
rc=0
timeout -k 5 60 "$perfmini" record -q -o "$mnt/out.data" -- "$spin" 0.3 \
	>"$mnt.out" 2>"$mnt.err" 3>&- || rc=$?
[ "$rc" -eq 0 ] && [ -s "$mnt/out.data" ] ||
	bad "with room again, record exited $rc: $(cat "$mnt.err")"
"$perfmini" report -i "$mnt/out.data" --folded >/dev/null 2>"$mnt.err" ||
	bad "with room again, the file does not read back: $(cat "$mnt.err")"
# -o - into a pipe with TMPDIR on the full file system: the chunks go
# straight to the pipe; the recording is whole.
dd if=/dev/zero of="$mnt/filler" bs=1024 count=64 2>/dev/null
{
	rc=0
	TMPDIR=$mnt timeout -k 5 60 "$perfmini" record -q -F 4999 -o - -- "$spin" 0.5 \
		2>"$mnt.err" 3>&- || rc=$?
	echo "$rc" >"$mnt.rc"
} | cat >"$mnt.pipe.data"
rc=$(cat "$mnt.rc")
[ "$rc" -eq 0 ] || bad "record -o - with a full TMPDIR exited $rc: $(cat "$mnt.err")"
n=$("$perfmini" report -i "$mnt.pipe.data" --folded 2>"$mnt.err" | awk '{ n += $NF } END { print n + 0 }')
[ "$n" -ge 1000 ] || bad "record -o - with a full TMPDIR: $n samples read back: $(cat "$mnt.err")"
echo "-o - with a full TMPDIR ($(df -k --output=avail "$mnt" | tail -n 1 | tr -d ' ') KiB free): $n samples" >>"$log"
umount "$mnt"
echo done >>"$log"
NS

: >"$tmp/ns.log"
rc=0
run_timeout 240 unshare -m sh "$tmp/ns.sh" "$mnt" "$PERFMINI" "$TARGETS/spin-pie" \
	"$tmp/old.data" "$tmp/ns.log" || rc=$?
cat "$tmp/ns.log" >&3
[ "$rc" -eq 0 ] || skip "cannot make a private mount namespace here (unshare -m exited $rc)"
if grep -q '^FAIL: cannot mount' "$tmp/ns.log"; then
	skip "cannot mount a tmpfs here"
fi
grep -q '^done$' "$tmp/ns.log" || fail "the full file system part did not finish"
! grep -q '^FAIL:' "$tmp/ns.log" || fail "$(grep -c '^FAIL:' "$tmp/ns.log") problems (above)"
