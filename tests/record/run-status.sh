#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The live status line never mixes with a program's output. Under a
# pseudo-terminal (script(1)):
#  1. 'record -- sh -c "echo progress N..."': the command shares the
#     terminal, so there is no status line, and its lines come out whole;
#  2. 'record -p PID -d 1' of a process whose output goes to a file: the
#     status line is drawn, redrawn in place, and cleared before the
#     summary, which starts on a clean line;
#  3. 'record -p PID -d 1' of a process that writes to the same terminal:
#     no status line;
# and 4. with standard error not a terminal, no status line either.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

command -v script >/dev/null 2>&1 || fail "no script program: install the Debian package bsdutils"
need_target sym-short
need_perf
spin=$TARGETS/spin-pie
waiter=$TARGETS/sym-short # with -w: says it is ready, spins once told (SIGUSR1)

# under_pty OUT CMD: runs the shell command CMD on a pseudo-terminal, all
# that the terminal showed into OUT.
under_pty() {
	run_timeout 60 script -qfec "$2" /dev/null >"$1" 2>&1 </dev/null ||
		fail "script -c '$2' failed: $(tr -d '\r' <"$1" | tail -n 5)"
}

# 1. A command.
under_pty "$tmp/cmd.tty" "'$PERFMINI' record -o '$tmp/cmd.data' -- sh -c 'for i in 1 2 3 4 5; do echo progress \$i; sleep 0.2; done'"
for i in 1 2 3 4 5; do
	tr -d '\r' <"$tmp/cmd.tty" | grep -qx "progress $i" ||
		fail "a command's line 'progress $i' did not come out whole: $(tr -d '\r' <"$tmp/cmd.tty" | head -c 400)"
done
! grep -q 'perfmini: recording' "$tmp/cmd.tty" ||
	fail "a status line was drawn over a command's output"
say "a command on the terminal: its lines whole, no status line"

# 2. An attached process that writes elsewhere.
"$waiter" -w 30 >"$tmp/quiet.out" 2>&1 &
qpid=$!
track "$qpid"
wait_line "$tmp/quiet.out" ': ready, pid' 30 || fail "sym-short did not start"
kill -USR1 "$qpid"
under_pty "$tmp/attach.tty" "'$PERFMINI' record -o '$tmp/attach.data' -p $qpid -d 1.2"
grep -q 'perfmini: recording [0-9.]* s, [0-9]* samples' "$tmp/attach.tty" ||
	fail "no status line while attached to a silent process: $(head -c 300 "$tmp/attach.tty")"
# The last status line is cleared ("\r" and erase to the end of the line) before the summary.
esc=$(printf '\033')
tr '\r' '\n' <"$tmp/attach.tty" | grep -a -A1 'perfmini: recording' | tail -n 1 |
	grep -aq "^$esc\[Kperfmini: [0-9]* samples" ||
	fail "the status line was not cleared before the summary: $(od -c "$tmp/attach.tty" | tail -n 8)"
kill "$qpid" 2>/dev/null || :
say "attached to a silent process: the status line drawn, then cleared"

# 3. An attached process writing to the same terminal.
under_pty "$tmp/shared.tty" "'$waiter' -w 30 & p=\$!; sleep 0.5; kill -USR1 \$p; '$PERFMINI' record -o '$tmp/shared.data' -p \$p -d 1; kill \$p"
! grep -q 'perfmini: recording' "$tmp/shared.tty" ||
	fail "a status line was drawn on the terminal an attached process writes to"
say "attached to a process on the same terminal: no status line"

# 4. Standard error not a terminal.
"$PERFMINI" record -o "$tmp/file.data" -- "$spin" 0.3 >/dev/null 2>"$tmp/file.err"
! grep -q 'perfmini: recording' "$tmp/file.err" || fail "a status line in a file"
say "standard error in a file: no status line"
