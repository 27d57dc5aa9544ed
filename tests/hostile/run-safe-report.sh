#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report' refuses a data file that belongs to another user
# (neither the caller nor root) unless given --force, as perf report does:
# a data file from someone else is input they chose. The behaviour tested:
#  - refused: exit status 1, nothing on standard output, no output file
#    (with -o), and exactly one line on stderr that names the file, its
#    owner's uid and the option --force, e.g.
#      perfmini: 'FILE' belongs to uid 65534 (nobody), not to you: use --force to read it
#  - with --force (anywhere among the options), the file is read as if it
#    were one's own: exit 0 and the same report;
#  - one's own files, and root's, need no --force.
# Cases (as root): a file owned by nobody (refused; --force reads it), the
# same file owned by root (read), and, run as nobody through setpriv, a
# 0644 file owned by root (read: root is trusted) and one owned by uid
# 12345 (refused; --force reads it). Needs a recording, hence perf events.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 60 "$tmp/mine.data" -- "$TARGETS/spin-pie" 0.2
run_report "$tmp/mine.data" "$tmp/mine.folded"

# report_as WHO FILE ARGS...: runs 'perfmini report -i FILE --folded ARGS'
# as WHO (me or nobody); sets rp_rc, output in $tmp/rep.out and rep.err.
report_as() {
	ra_who=$1
	ra_file=$2
	shift 2
	rp_rc=0
	if [ "$ra_who" = me ]; then
		run_timeout 60 "$PERFMINI" report "$@" -i "$ra_file" --folded \
			>"$tmp/rep.out" 2>"$tmp/rep.err" 3>&- || rp_rc=$?
	else
		run_timeout 60 setpriv --reuid="$nobody" --regid="$nobody" --clear-groups -- \
			"$ptmp/perfmini" report "$@" -i "$ra_file" --folded \
			>"$tmp/rep.out" 2>"$tmp/rep.err" 3>&- || rp_rc=$?
	fi
}

# refused WHO FILE UID: the report of FILE (owned by UID) is refused.
refused() {
	report_as "$1" "$2"
	say "report of a file of uid $3 as $1: exit $rp_rc: $(head -c 300 "$tmp/rep.err")"
	[ "$rp_rc" -eq 1 ] || fail "a file of uid $3, read as $1: exit $rp_rc, want 1"
	[ "$(awk 'END { print NR }' "$tmp/rep.err")" -eq 1 ] ||
		fail "a file of uid $3, read as $1: not exactly one line on stderr"
	[ ! -s "$tmp/rep.out" ] || fail "a file of uid $3, read as $1: a report was printed"
	grep -qF "$2" "$tmp/rep.err" || fail "a file of uid $3: the error does not name the file"
	grep -q "$3" "$tmp/rep.err" || fail "a file of uid $3: the error does not name the owner"
	grep -q -- '--force' "$tmp/rep.err" || fail "a file of uid $3: the error does not name --force"
	# Nor is an output file made.
	ro_rc=0
	if [ "$1" = me ]; then
		run_timeout 60 "$PERFMINI" report -i "$2" --svg -o "$4/refused.svg" \
			>/dev/null 2>&1 3>&- || ro_rc=$?
	else
		run_timeout 60 setpriv --reuid="$nobody" --regid="$nobody" --clear-groups -- \
			"$ptmp/perfmini" report -i "$2" --svg -o "$4/refused.svg" \
			>/dev/null 2>&1 3>&- || ro_rc=$?
	fi
	[ "$ro_rc" -eq 1 ] || fail "a file of uid $3, --svg -o: exit $ro_rc, want 1"
	[ ! -e "$4/refused.svg" ] || fail "a file of uid $3: --svg -o wrote a report"
}

# read_ok WHO FILE [--force]: the report of FILE is the one of mine.data.
read_ok() {
	ro_who=$1
	ro_file=$2
	shift 2
	report_as "$ro_who" "$ro_file" "$@"
	[ "$rp_rc" -eq 0 ] || fail "report $* of $ro_file as $ro_who: exit $rp_rc: $(cat "$tmp/rep.err")"
	[ ! -s "$tmp/rep.err" ] || fail "report $* of $ro_file as $ro_who: stderr: $(cat "$tmp/rep.err")"
	cmp -s "$tmp/rep.out" "$tmp/mine.folded" ||
		fail "report $* of $ro_file as $ro_who: not the same report as the owner's"
	say "report $* of a file of uid $(stat -c %u "$ro_file") as $ro_who: read"
}

[ "$(id -u)" -eq 0 ] || skip "files of other users can only be made as root (uid $(id -u))"
command -v setpriv >/dev/null 2>&1 || fail "no setpriv (util-linux)"
nobody=$(id -u nobody 2>/dev/null || echo 65534)
ptmp=$(mktemp -d /tmp/perfmini-owner.XXXXXX) || fail "mktemp failed"
trap 'rm -rf "$ptmp"; cleanup' EXIT
chmod 755 "$ptmp"
cp "$PERFMINI" "$ptmp/perfmini"
chmod 755 "$ptmp/perfmini"
mkdir "$ptmp/out"
chown "$nobody" "$ptmp/out"

# As root.
cp "$tmp/mine.data" "$ptmp/theirs.data"
chown "$nobody" "$ptmp/theirs.data"
refused me "$ptmp/theirs.data" "$nobody" "$ptmp/out"
read_ok me "$ptmp/theirs.data" --force
chown 0 "$ptmp/theirs.data"
read_ok me "$ptmp/theirs.data"

# As nobody.
chmod 644 "$ptmp/theirs.data"
read_ok nobody "$ptmp/theirs.data"
chown 12345 "$ptmp/theirs.data"
refused nobody "$ptmp/theirs.data" 12345 "$ptmp/out"
read_ok nobody "$ptmp/theirs.data" --force
cp "$tmp/mine.data" "$ptmp/own.data"
chown "$nobody" "$ptmp/own.data"
read_ok nobody "$ptmp/own.data"
