#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Programs deleted as soon as they ran, as configure checks and test
# runners make them: a shell copies sym-short to a new directory 40 times,
# runs the copy for 25 ms of CPU time (short_hot) and deletes it. The
# recorder is woken by each new mapping and opens the program's file
# while it runs, and an inode number the file system gives again to the
# next copy is another program (its generation differs): at least 80% of
# the copies' samples must name short_hot, called from main. The samples
# of the exec and of the dynamic loader's start are left out of that
# share (the program's code has not run yet; each run's 25 ms include
# them, and on a loaded machine their TLB flushes take a fifth of it).
# Before, 0 to 10% were named.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-short

need_perf
mkdir "$tmp/runs"
# shellcheck disable=SC2016 # for the inner shell
record_cmd gone -- /bin/sh -c '
	i=0
	while [ $i -lt 40 ]; do
		mkdir "$2/$i" && cp "$1" "$2/$i/conftest" || exit 1
		"$2/$i/conftest" 0.025 || exit 1
		rm -rf "$2/$i"
		i=$((i + 1))
	done' sh "$TARGETS/sym-short" "$tmp/runs"
# conftest's samples: named in short_hot under main, and all but the exec's
# (the kernel's execve) and ld.so's start (_start;_dl_start, or its _start
# alone).
awk '
$0 !~ /^conftest;/ { next }
{ n = $NF }
/;main;short_hot( |;)/ { named += n }
/__x64_sys_execve_\[k\]/ || /^conftest;_start;_dl_start;/ || /^conftest;_start [0-9]+$/ { next }
{ ran += n }
END { printf "%d %d\n", named, ran }' "$tmp/gone.folded" >"$tmp/gone.counts"
read -r named ran <"$tmp/gone.counts"
say "conftest: $named samples in main;short_hot of $ran after the exec and the loader"
[ "$ran" -ge 400 ] || fail "only $ran samples of conftest after its loader (need >= 400)"
[ $((named * 100)) -ge $((ran * 80)) ] ||
	fail "only $named of $ran samples of conftest after its loader name main;short_hot (need >= 80%)"

