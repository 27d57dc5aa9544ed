#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A disk that fills while --switch-output's files wait for names. In a
# mount namespace of the test's own, a 160 KiB tmpfs takes 'perfmini
# record --switch-output=1s -- sym-dinfod 8', whose debug file comes from
# a debuginfod server that answers only after 60 s: every file waits for
# names when its slice ends (at most four wait). The disk fills after a
# few slices. The recorder must stop, exit 1, say the space ran out, and
# leave no file silently unfinished: every file in the directory either
# reads whole (its names and END written at the stop) or is named on
# stderr as cut short (the file being written when the disk filled, and
# any that waited and could not be finished); at least one of the files
# that waited is finished.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_perf
need_target sym-dinfod
need_target sym-dinfod.dbg
[ "$(id -u)" -eq 0 ] || skip "mounting a small file system needs root (uid $(id -u))"
command -v unshare >/dev/null 2>&1 || fail "no unshare (util-linux)"
command -v python3 >/dev/null 2>&1 || fail "no python3: install the Debian package python3"
exe=$TARGETS/sym-dinfod
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "sym-dinfod has no build-id"
slow_debuginfod "$id" "$TARGETS/sym-dinfod.dbg" 60
mnt=$tmp/full
mkdir "$mnt"

cat >"$tmp/ns.sh" <<'NS'
set -u
mnt=$1 perfmini=$2 exe=$3 port=$4 log=$5 cache=$6
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=160k,mode=0755 perfmini-full "$mnt" || { echo "FAIL: no tmpfs" >>"$log"; exit 0; }
rc=0
DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_TIMEOUT=90 DEBUGINFOD_CACHE_PATH="$cache" \
	timeout -k 5 90 "$perfmini" record -q --name-timeout=2 --switch-output=1s \
	-o "$mnt/s.data" -- "$exe" 8 >"$mnt.out" 2>"$mnt.err" 3>&- || rc=$?
echo "rc $rc" >>"$log"
cp "$mnt.err" "$log.err"
for f in "$mnt"/s.data.*; do
	[ -e "$f" ] || continue
	if "$perfmini" report -i "$f" --folded >/dev/null 2>"$mnt.rerr"; then
		if grep -q 'cut short' "$mnt.rerr"; then
			echo "cut $f" >>"$log"
		else
			echo "whole $f" >>"$log"
		fi
	else
		echo "unreadable $f: $(cat "$mnt.rerr")" >>"$log"
	fi
done
umount "$mnt"
NS
: >"$tmp/ns.log"
unshare -m sh "$tmp/ns.sh" "$mnt" "$PERFMINI" "$exe" "$port" "$tmp/ns.log" "$tmp/cache" ||
	fail "the mount namespace part failed"
cat "$tmp/ns.log" "$tmp/ns.log.err" >&3 2>/dev/null || :
! grep -q '^FAIL' "$tmp/ns.log" || fail "$(grep '^FAIL' "$tmp/ns.log")"
rc=$(sed -n 's/^rc //p' "$tmp/ns.log")
[ "$rc" = 1 ] || fail "record into a filling disk exited $rc, want 1"
grep -Eqi 'space|full' "$tmp/ns.log.err" || fail "stderr does not say the space ran out"
! grep -q '^unreadable' "$tmp/ns.log" || fail "$(grep '^unreadable' "$tmp/ns.log")"
nwhole=$(grep -c '^whole' "$tmp/ns.log" || :)
ncut=$(grep -c '^cut' "$tmp/ns.log" || :)
say "$nwhole files whole, $ncut cut short"
[ $((nwhole + ncut)) -ge 3 ] || fail "only $((nwhole + ncut)) files: the disk filled too soon"
sed -n 's/^cut //p' "$tmp/ns.log" | while IFS= read -r f; do
	grep -F "'$f'" "$tmp/ns.log.err" | grep -Eq 'could not finish|keeps what was recorded' ||
		fail "$f reads as cut short, and stderr does not say so"
done
[ "$nwhole" -ge 1 ] || fail "no file that waited for names was finished"
