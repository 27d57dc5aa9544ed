#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# perfmini's stepper against an independent unwinder, libunwind, on the
# same bytes. unwind-capture records samples (user registers, 16 KiB of
# user stack, the callchain) and the executable mappings of real
# programs: Debian's libc (libcalls: memcpy, strlen, qsort), a SIGPROF
# handler's stack (sigprof), PLT entries (sym-plt), the vDSO (sym-vdso),
# libstdc++'s and libgcc's exception handling (cxx-throw), Rust
# (sym-rust-legacy), Go (go-bigframe; its clock loop calls the vDSO with
# the stack pointer moved), Debian's python3 and xz. The
# corpus is captured here, from the binaries this machine has and make
# check built, so that it is the same on a fresh machine; 300 samples a
# program. unwind-oracle replays each sample through unwind_sample (the
# tables alone) and through libunwind's remote unwinder (accessors over
# the same registers, stack copy and files; .eh_frame_hdr searched with
# dwarf_search_unwind_table), and counts the samples both unwound to the
# same frames. A difference must be one it documents as libunwind's
# (tests/stack/oracle-diff.c: Go's code, which libunwind walks by frame
# pointers; a frame in no mapping): any other fails the test, shown frame
# by frame. Where the stacks are the same on nearly every sample, the
# comparison says something: at least 90% of each program's but Go's.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

CAPTURE=$top_builddir/tests/stack/unwind-capture
ORACLE=$top_builddir/tests/stack/unwind-oracle
[ -x "$CAPTURE" ] || fail "no $CAPTURE: build it first (make check)"
[ -x "$ORACLE" ] || fail "tests/stack/unwind-oracle was not built: it needs libunwind," \
	"which configure did not find (install the Debian package libunwind-dev, then" \
	"configure again)"
for t in libcalls sigprof sym-plt sym-vdso cxx-throw sym-rust-legacy go-bigframe; do
	[ -e "$TARGETS/$t" ] || fail "tests/targets/$t was not built (make check builds it;" \
		"sym-rust-legacy needs rustc, go-bigframe go)"
done
for p in /usr/bin/python3 /usr/bin/xz; do
	[ -x "$p" ] || fail "no $p (scripts/deps.sh installs python3 and xz-utils)"
done
need_perf

cat >"$tmp/work.py" <<'EOF'
import sys, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def sort_work():
    data = [((i * 7919) % 10007, str(i)) for i in range(5000)]
    return sorted(data, key=lambda t: t[1])

limit = float(sys.argv[1])
while time.process_time() < limit:
    fib(15)
    sort_work()
EOF
head -c 1500000 /usr/bin/python3 >"$tmp/data"

# capture NAME CMD...: the corpus of CMD in $tmp/NAME.uc.
corpora=
capture() {
	cp_name=$1
	shift
	rc=0
	run_timeout 120 "$CAPTURE" "$tmp/$cp_name.uc" 300 "$@" >/dev/null 2>"$tmp/capture.err" ||
		rc=$?
	cat "$tmp/capture.err" >&3
	[ "$rc" -ne 77 ] || skip "perf events are not permitted: $(cat "$tmp/capture.err")"
	[ "$rc" -eq 0 ] || fail "unwind-capture of $cp_name exited $rc"
	corpora="$corpora $cp_name=$tmp/$cp_name.uc"
}

capture libc "$TARGETS/libcalls" 1
capture signal "$TARGETS/sigprof" 1
capture plt "$TARGETS/sym-plt" 1
capture vdso "$TARGETS/sym-vdso" 1
capture cxx-throw "$TARGETS/cxx-throw" 1
capture rust "$TARGETS/sym-rust-legacy" 1
capture go "$TARGETS/go-bigframe" main 1
capture go-clock "$TARGETS/go-bigframe" clock 1
capture python3 /usr/bin/python3 "$tmp/work.py" 1
capture xz /usr/bin/xz -9 -T1 -c "$tmp/data"

rc=0
# shellcheck disable=SC2086 # the corpora, one word each
"$ORACLE" --show 10 $corpora >"$tmp/oracle.out" 2>&1 || rc=$?
cat "$tmp/oracle.out" >&3
[ "$rc" -eq 0 ] || fail "perfmini and libunwind differ where no known limit of libunwind explains it"
awk '
/^[^ ]+: [0-9]+ samples: / {
	name = $1
	sub(/:$/, "", name)
	n = $2
	same = $4
	if (n < 100) {
		printf "FAIL: %s: only %d samples captured\n", name, n
		bad = 1
	} else if (name !~ /^go/ && same * 10 < n * 9) {
		printf "FAIL: %s: the same frames in only %d of %d samples\n", name, same, n
		bad = 1
	} else if (name == "go-clock" && same * 3 < n * 2) {
		# Most of its samples are in the vDSO or runtime.nanotime1, whose
		# frames both find only by rbp past the moved stack pointer.
		printf "FAIL: %s: the same frames in only %d of %d samples\n", name, same, n
		bad = 1
	}
	total += n
	agree += same
	corpora++
}
END {
	if (corpora != 10) {
		printf "FAIL: %d corpora compared, not 10\n", corpora
		bad = 1
	}
	printf "the same frames in %d of %d samples\n", agree, total
	exit bad
}' "$tmp/oracle.out" >"$tmp/verdict" 2>&1 || {
	cat "$tmp/verdict" >&3
	fail "the oracle compared too little"
}
say "$(cat "$tmp/verdict")"
