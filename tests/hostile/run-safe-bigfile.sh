#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'report -i' on a large file that is no data file: a 3 GiB sparse file
# (no disk space used) must be refused from its first bytes, with one line
# that says it is not a perfmini data file, at once and in little memory
# (peak RSS under 64 MiB, where reading it whole would take 3 GiB).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

[ -x /usr/bin/time ] || fail "no /usr/bin/time: install the Debian package time"
truncate -s 3G "$tmp/big.data" || fail "cannot make a sparse file here"
rc=0
/usr/bin/time -f '%M' -o "$tmp/rss" "$PERFMINI" report -i "$tmp/big.data" >"$tmp/out" 2>"$tmp/err" ||
	rc=$?
rss=$(tail -n 1 "$tmp/rss")
say "a 3 GiB file of zeros: exit $rc, peak RSS $rss KiB: $(cat "$tmp/err")"
[ "$rc" -eq 1 ] || fail "exit $rc, want 1"
[ "$(awk 'END { print NR }' "$tmp/err")" -eq 1 ] || fail "not one line on stderr"
grep -q 'not a perfmini data file' "$tmp/err" || fail "the error does not say what is wrong"
case $rss in
'' | *[!0-9]*) fail "no peak RSS from /usr/bin/time: $(cat "$tmp/rss")" ;;
esac
# ASan's shadow memory weighs on RSS; the point is not to read 3 GiB.
limit=65536
[ -z "${ASAN_OPTIONS:-}" ] || limit=262144
[ "$rss" -lt "$limit" ] || fail "peak RSS $rss KiB: the file was read"
