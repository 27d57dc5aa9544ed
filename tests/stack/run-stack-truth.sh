#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The default call graph against the reference, on programs built
# without frame pointers that nobody here wrote: Debian's python3 running
# a script and Debian's xz -9, and libcalls (built with frame pointers,
# its time in Debian's libc). Each is recorded by 'perf record
# --call-graph dwarf,65528' and by 'perfmini record' in its default mode,
# for the same CPU time; tests/stack/stack-compare.py compares the two: the
# overlap of the innermost three user frames and of whole user stacks,
# leaf by leaf (--given-leaf: how the time falls among the leaves varies
# from run to run on a shared machine, libcalls' memory-bound copy and
# strlen most), must reach what perf against itself reaches here, less a
# margin for sampling noise (about 1,500 samples a recording).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_target() {
	[ -x "$TARGETS/$1" ] || fail "no $TARGETS/$1: build it first (make check)"
}
need_target libcalls
need_perf
command -v python3 >/dev/null || fail "no python3 (scripts/deps.sh installs it)"
PY=/usr/bin/python3
XZ=/usr/bin/xz
if [ ! -x "$PY" ] || [ ! -x "$XZ" ]; then
	fail "no Debian python3 or xz (scripts/deps.sh installs them)"
fi
SECS=1.5

# A script whose time goes to the interpreter, sorting, str and dicts.
cat >"$tmp/work.py" <<'PYEOF'
import sys, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def sort_work():
    data = [((i * 7919) % 10007, str(i)) for i in range(5000)]
    return sorted(data, key=lambda t: t[1])

def dict_work():
    d = {}
    for i in range(20000):
        d[str(i % 997)] = d.get(str(i % 997), 0) + i
    return len(d)

limit = float(sys.argv[1])
while time.process_time() < limit:
    fib(15)
    sort_work()
    dict_work()
PYEOF
# Text that xz -9 works on for a second or two.
"$PY" -c '
import random, sys
r = random.Random(1)
words = ["".join(r.choice("abcdefghij") for _ in range(r.randint(2, 9))) for _ in range(4000)]
out = sys.stdout
for _ in range(30000):
    out.write(" ".join(r.choice(words) for _ in range(12)) + "\n")
' >"$tmp/text"

# compare NAME MIN_INNER3 MIN_WHOLE CMD...: records CMD with both tools
# and compares their user stacks of comm NAME.
compare() {
	cm_name=$1 cm_inner=$2 cm_whole=$3
	shift 3
	rc=0
	run_timeout 120 perf record -q -e cpu-clock -F 999 --call-graph dwarf,65528 \
		-o "$tmp/$cm_name.perf.data" -- "$@" >/dev/null 2>"$tmp/perf.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "perf record of $cm_name exited $rc: $(tail -n 2 "$tmp/perf.err")"
	run_timeout 300 perf script -i "$tmp/$cm_name.perf.data" -F comm,pid,tid,ip,sym,dso \
		>"$tmp/$cm_name.perf.txt" 2>/dev/null || fail "perf script of $cm_name failed"
	run_record 120 "$tmp/$cm_name.data" -- "$@"
	run_timeout 120 "$PERFMINI" report -i "$tmp/$cm_name.data" --json \
		>"$tmp/$cm_name.json" || fail "perfmini report --json of $cm_name failed"
	rc=0
	"$PY" "$srcdir/tests/stack/stack-compare.py" --comm "$cm_name" --root-at __libc_start_call_main \
		--given-leaf --min-inner3 "$cm_inner" --min-whole "$cm_whole" \
		"$tmp/$cm_name.perf.txt" "$tmp/$cm_name.json" >"$tmp/$cm_name.cmp" 2>&1 || rc=$?
	say "$cm_name: $(head -n 1 "$tmp/$cm_name.cmp") (need >= $cm_inner / $cm_whole)"
	if [ "$rc" -ne 0 ]; then
		"$PY" "$srcdir/tests/stack/stack-compare.py" --comm "$cm_name" \
			--root-at __libc_start_call_main --given-leaf --verbose --top 8 \
			"$tmp/$cm_name.perf.txt" "$tmp/$cm_name.json" >&3 2>&1 || true
		fail "$cm_name: perfmini's default stacks are too far from perf's DWARF stacks"
	fi
}

# Leaf by leaf, perf against perf reaches about 99 / 95 (libcalls),
# 90 / 85 (python), 96 / 96 (xz) at 1,500 samples; a frame-pointer walk
# reaches 0.5 / 0.5 on libcalls.
compare libcalls 88 85 "$TARGETS/libcalls" "$SECS"
compare python3 78 74 "$PY" "$tmp/work.py" "$SECS"
# shellcheck disable=SC2016 # for the inner shell
compare xz 85 85 /bin/sh -c 'exec "$0" -9 -T1 -c "$1" >/dev/null' "$XZ" "$tmp/text"
