#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gen-seeds.sh - seeds for the fuzz harnesses that are made on this
# machine at fuzz time, next to the small ones kept in
# tests/fuzz/corpus-*/: what is too large, or too much this machine's, to
# keep in the repository.
#
# usage: gen-seeds.sh OUTDIR   (run from the top build directory, after
#        'make' built perfmini and fuzz/ring-seeds)
#
#   OUTDIR/record    ring bytes: crafted, and real ones from an event
#                    opened with record's attr (fuzz/ring-seeds)
#   OUTDIR/datafile  real recordings by ./perfmini: a command, a command
#                    with children, DWARF mode
#   OUTDIR/procmaps  /proc/PID/maps of this shell and of a few processes
#   OUTDIR/kallsyms  parts of /proc/kallsyms: its start and module symbols
#   OUTDIR/elf       small ELF files of this machine: the test programs
#                    (when 'make check' built them) and /bin/true
#   OUTDIR/unwind    corpora of the unwinding oracle: a few samples of
#                    programs of this machine (fuzz/unwind-capture)
# A step that cannot run here (no perf events, no kallsyms) is left out
# with a note: the kept seeds still cover it. Always exits 0 unless
# OUTDIR cannot be written.
set -u
out=$1
mkdir -p "$out/record" "$out/datafile" "$out/procmaps" "$out/kallsyms" "$out/elf" \
	"$out/perfmap" "$out/unwind" || exit 1

note() {
	echo "gen-seeds: $*" >&2
}

# Small files only: libFuzzer's default input size limit is the largest seed.
keep_small() {
	ks_size=$(stat -c %s "$1" 2>/dev/null || echo 0)
	if [ "$ks_size" -eq 0 ] || [ "$ks_size" -gt "${2:-65536}" ]; then
		rm -f "$1"
		return 1
	fi
}

if [ -x fuzz/ring-seeds ]; then
	fuzz/ring-seeds "$out/record" || note "ring-seeds failed"
fi

if [ -x ./perfmini ]; then
	spin=tests/targets/spin-pie
	[ -x "$spin" ] || spin=
	if [ -n "$spin" ]; then
		./perfmini record -q -o "$out/datafile/spin.data" -- "$spin" 0.2 2>/dev/null ||
			note "no real recording (perf events not permitted?)"
		./perfmini record -q --call-graph=dwarf,1024 -o "$out/datafile/dwarf.data" \
			-- "$spin" 0.1 2>/dev/null || :
	fi
	# shellcheck disable=SC2016 # for the inner shell
	./perfmini record -q -o "$out/datafile/children.data" -- sh -c \
		'for i in 1 2 3 4 5 6 7 8; do /bin/true; done; i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' \
		2>/dev/null || :
	for f in "$out"/datafile/*.data; do
		[ -f "$f" ] && keep_small "$f" 131072
	done
fi

if [ -x fuzz/unwind-capture ]; then
	# A C program, a shell and Python: a few samples each, kept small.
	[ -x tests/targets/spin-pie ] &&
		fuzz/unwind-capture "$out/unwind/spin" 6 tests/targets/spin-pie 0.2 2>/dev/null
	# shellcheck disable=SC2016 # for the inner shell
	fuzz/unwind-capture "$out/unwind/sh" 6 sh -c \
		'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' 2>/dev/null
	command -v python3 >/dev/null &&
		fuzz/unwind-capture "$out/unwind/python3" 6 python3 -c \
			'import time; t = time.process_time() + 0.2
while time.process_time() < t: sorted(str(i) for i in range(3000))' 2>/dev/null
	for f in "$out"/unwind/*; do
		[ -f "$f" ] && keep_small "$f" 262144
	done
	[ -n "$(ls "$out/unwind")" ] || note "no unwinding corpus (perf events not permitted?)"
fi

cp /proc/self/maps "$out/procmaps/self" 2>/dev/null
cp "/proc/$$/maps" "$out/procmaps/shell" 2>/dev/null
cp /proc/1/maps "$out/procmaps/init" 2>/dev/null
for f in "$out"/procmaps/*; do
	[ -f "$f" ] && keep_small "$f"
done

if [ -r /proc/kallsyms ]; then
	head -n 1500 /proc/kallsyms >"$out/kallsyms/head"
	grep '\[' /proc/kallsyms | head -n 800 >"$out/kallsyms/modules"
	for f in "$out"/kallsyms/*; do
		[ -f "$f" ] && keep_small "$f" 131072
	done
else
	note "no /proc/kallsyms"
fi

for f in tests/targets/spin-pie tests/targets/spin-nopie tests/targets/inline \
	tests/targets/libhot.so tests/targets/sym-lld tests/targets/sym-twox \
	tests/targets/sym-minidebug tests/targets/sym-cxx /bin/true; do
	if [ -f "$f" ]; then
		cp "$f" "$out/elf/$(basename "$f")" && keep_small "$out/elf/$(basename "$f")"
	fi
done
exit 0
