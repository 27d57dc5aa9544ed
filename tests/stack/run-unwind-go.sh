#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Go stacks in the default call graph are never shorter than frame
# pointers make them, and right where frame pointers are not. go-bigframe
# (tests/targets/go-bigframe.go) spends its time in main.hotFrame and
# main.hotLeaf (a leaf that keeps no frame pointer), both called from
# main.bigFrame, whose frame holds a 64 KiB array: far more than a stack
# copy holds, so the stack beyond it comes from the kernel's frame-pointer
# chain, spliced on where the walk by the tables ends.
#
# The reference is perf's frame-pointer stacks (perf record -g): Go on
# x86-64 keeps frame pointers, and perf's DWARF unwinder cannot unwind Go
# (it reads .eh_frame only, which Go's code has none of). perf's stacks of
# main.hotFrame must read runtime.main;main.main;main.run;main.bigFrame;
# main.hotFrame; perfmini's default must give that, and for main.hotLeaf
# main.bigFrame;main.hotLeaf, which a frame-pointer walk cannot give (the
# leaf's frame pointer is its caller's: the walk skips main.bigFrame, as
# perfmini's --call-graph=fp shows here). The same on a goroutine whose
# stack Go moved to a larger one, 41 calls deep, and in the same program
# stripped of its symbols and DWARF (its names and its frames' sizes from
# .gopclntab). And under the vDSO, called by Go's runtime with its stack
# pointer moved (go-bigframe clock), and past the thread's system stack
# (go-bigframe alloc); and Debian's own go command, stripped
# and linked with cgo, named from .gopclntab as Go's own tools name it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

for t in go-bigframe go-bigframe-s; do
	[ -e "$TARGETS/$t" ] || fail "tests/targets/$t was not built: it needs go, which configure" \
		"did not find (install the Debian package golang-go, then configure again)"
done
need_perf
command -v perf >/dev/null || fail "no perf (scripts/deps.sh installs linux-perf)"
SECS=1.5
outer='(^|;)runtime\.main;main\.main;main\.run;main\.bigFrame'

# perf_folded NAME ARGS...: perf's frame-pointer stacks of go-bigframe
# ARGS, folded as perfmini's are (comm;outermost;...;leaf COUNT), in
# $tmp/perf-NAME.folded.
perf_folded() {
	pf_name=$1
	shift
	rc=0
	run_timeout 60 perf record -q -e cpu-clock:u -F 999 -g -o "$tmp/perf-$pf_name.data" \
		-- "$TARGETS/go-bigframe" "$@" >/dev/null 2>"$tmp/perf.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "perf record exited $rc: $(tail -n 2 "$tmp/perf.err")"
	run_timeout 120 perf script -i "$tmp/perf-$pf_name.data" -F comm,ip,sym >"$tmp/perf.txt" \
		2>/dev/null || fail "perf script failed"
	awk '
function flush(   k, i) {
	if (comm == "")
		return
	k = comm
	for (i = n; i >= 1; i--)
		k = k ";" f[i]
	count[k]++
	comm = ""
	n = 0
}
/^$/ { flush(); next }
/^[ \t]/ { if (comm != "") f[++n] = ($2 == "" ? "[unknown]" : $2); next }
{ flush(); comm = $1 }
END { flush(); for (k in count) print k, count[k] }' "$tmp/perf.txt" >"$tmp/perf-$pf_name.folded"
}

perf_folded main main "$SECS"
only_under "$tmp/perf-main.folded" main.hotFrame "$tmp/perf-frame.folded"
check_user_re "$tmp/perf-frame.folded" "$outer;main\\.hotFrame\$" go-bigframe 200 80 \
	"read main.bigFrame;main.hotFrame (perf -g, the reference)"

record_cmd main -- "$TARGETS/go-bigframe" main "$SECS"
check_user_re "$tmp/main.folded" "$outer;main\\.hot(Frame|Leaf)\$" go-bigframe 500 80 \
	"read runtime.main;main.main;main.run;main.bigFrame;main.hot{Frame,Leaf}"
only_under "$tmp/main.folded" main.hotLeaf "$tmp/leaf.folded"
check_user_re "$tmp/leaf.folded" "$outer;main\\.hotLeaf\$" go-bigframe 200 90 \
	"read main.bigFrame;main.hotLeaf"

# Frame pointers alone skip main.bigFrame under the leaf: the default's
# answer there is the tables', not the chain's.
record_cmd fp --call-graph=fp -- "$TARGETS/go-bigframe" main "$SECS"
only_under "$tmp/fp.folded" main.hotLeaf "$tmp/fp-leaf.folded"
check_user_re "$tmp/fp-leaf.folded" '(^|;)main\.run;main\.hotLeaf$' go-bigframe 200 90 \
	"read main.run;main.hotLeaf with --call-graph=fp (its blind spot)"

record_cmd moved -- "$TARGETS/go-bigframe" moved "$SECS"
grep -qx moved "$tmp/record.out" || fail "the goroutine's stack did not move: the test proves nothing"
grows=$(awk 'BEGIN { for (i = 0; i < 41; i++) printf "main\\.grow;" }')
check_user_re "$tmp/moved.folded" \
	"(^|;)runtime\\.goexit(\\.abi0)?;main\\.main\\.func1;main\\.mover;${grows}main\\.run;main\\.bigFrame;main\\.hot(Frame|Leaf)\$" \
	go-bigframe 500 80 "read goexit;main.mover;main.grow x41;main.run;main.bigFrame;main.hot*"

# Go's runtime calls the vDSO from runtime.nanotime1 with its stack
# pointer aligned, or moved to the thread's system stack: its table's
# frame sizes do not hold there, its frame pointer does. perf -g reads
# main.clockLoop;time.Since;runtime.nanotime;runtime.nanotime1 over the
# vDSO's frames; so must the default.
clock='(^|;)runtime\.main;main\.main;main\.clockLoop;time\.Since;runtime\.nanotime;runtime\.nanotime1(\.abi0)?(;|$)'
perf_folded clock clock "$SECS"
only_under "$tmp/perf-clock.folded" runtime.nanotime1.abi0 "$tmp/perf-nt.folded"
check_user_re "$tmp/perf-nt.folded" "$clock" go-bigframe 300 90 \
	"read main.clockLoop;...;runtime.nanotime1 (perf -g, the reference)"
record_cmd clock -- "$TARGETS/go-bigframe" clock "$SECS"
only_under "$tmp/clock.folded" runtime.nanotime1.abi0 "$tmp/nt.folded"
check_user_re "$tmp/nt.folded" "$clock" go-bigframe 300 90 \
	"read main.clockLoop;time.Since;runtime.nanotime;runtime.nanotime1"

# Go's runtime runs some of a goroutine's work on the thread's system
# stack (runtime.systemstack: the heap's large allocations, the
# collector's marking), its caller waiting. perf -g reaches the
# goroutine's first frame (runtime.goexit) from there; so must the
# default, by the frame pointer runtime.systemstack keeps.
perf_folded alloc alloc 3
only_under "$tmp/perf-alloc.folded" runtime.systemstack.abi0 "$tmp/perf-ss.folded"
check_user_re "$tmp/perf-ss.folded" '(^|;)runtime\.goexit(\.abi0)?;' go-bigframe 30 90 \
	"go on past runtime.systemstack to runtime.goexit (perf -g, the reference)"
record_cmd alloc -- "$TARGETS/go-bigframe" alloc 3
only_under "$tmp/alloc.folded" runtime.systemstack.abi0 "$tmp/ss.folded"
check_user_re "$tmp/ss.folded" '(^|;)runtime\.goexit(\.abi0)?;' go-bigframe 30 90 \
	"go on past runtime.systemstack to runtime.goexit"

record_cmd stripped -- "$TARGETS/go-bigframe-s" main "$SECS"
check_user_re "$tmp/stripped.folded" "$outer;main\\.hot(Frame|Leaf)\$" go-bigframe-s 500 80 \
	"read runtime.main;main.main;main.run;main.bigFrame;main.hot{Frame,Leaf} (stripped)"

# Debian's own go command: stripped, and linked with cgo, so its .dynsym
# names a few C functions and nothing of Go's. Its functions are named
# from .gopclntab all the same, as Go's own reader of that table (go tool
# addr2line) names them: every distinct address of the go command in the
# recording is looked up there.
gobin=$(readlink -f "$(command -v go)")
[ -x "$gobin" ] || fail "no go command (scripts/deps.sh installs golang-go)"
GOCACHE=$tmp/gocache
GOFLAGS=
export GOCACHE GOFLAGS
record_cmd gocmd -- "$gobin" list -deps std
run_timeout 120 "$PERFMINI" report -i "$tmp/gocmd.data" --json >"$tmp/gocmd.json" \
	2>"$tmp/report.err" || fail "perfmini report --json failed: $(tail -n 1 "$tmp/report.err")"
readelf -lW "$gobin" >"$tmp/gocmd.phdrs"
# gocmd.addrs: each distinct ELF address of the go command's frames, and perfmini's name.
python3 - "$gobin" "$tmp/gocmd.json" "$tmp/gocmd.phdrs" >"$tmp/gocmd.addrs" <<'PY' ||
import json, sys
binary, rows, phdrs = sys.argv[1:]
loads = [(int(f[1], 16), int(f[2], 16), int(f[4], 16))
         for f in (line.split() for line in open(phdrs)) if f and f[0] == "LOAD"]
named = {}
for line in open(rows):
    for fr in json.loads(line)["frames"]:
        if fr.get("module") != binary or fr.get("inlined"):
            continue
        off = int(fr["addr"], 16)
        for poff, vaddr, size in loads:
            if poff <= off < poff + size:
                named[off - poff + vaddr] = fr["name"]
for a in sorted(named):
    print("%#x %s" % (a, named[a]))
PY
	fail "could not read perfmini's frames of $gobin"
cut -d' ' -f1 "$tmp/gocmd.addrs" | run_timeout 120 go tool addr2line "$gobin" \
	>"$tmp/gocmd.ref" 2>/dev/null || fail "go tool addr2line failed"
verdict=$(python3 - "$tmp/gocmd.addrs" "$tmp/gocmd.ref" <<'PY'
import sys
ours = [line.split(None, 1) for line in open(sys.argv[1])]
ref = open(sys.argv[2]).read().splitlines()[0::2]
def agree(n, r):
    # An address neither names (the C code cgo links in): "?" and [go+0x...].
    return n.strip() == r or (r == "?" and n.startswith("["))
same = sum(1 for (a, n), r in zip(ours, ref) if agree(n, r))
for (a, n), r in zip(ours, ref):
    if not agree(n, r):
        print("  %s: go tool addr2line %s, perfmini %s" % (a, r, n.strip()), file=sys.stderr)
        break
print(same, len(ours), len(ref))
PY
)
# shellcheck disable=SC2086 # three numbers
set -- $verdict
say "$gobin: $1 of $2 distinct addresses named as go tool addr2line names them"
[ "$3" -eq "$2" ] || fail "go tool addr2line gave $3 names for $2 addresses"
[ "$2" -ge 100 ] || fail "only $2 distinct addresses of $gobin sampled (need >= 100)"
[ "$1" -eq "$2" ] || fail "perfmini names $(($2 - $1)) addresses of $gobin otherwise than Go's table does"
