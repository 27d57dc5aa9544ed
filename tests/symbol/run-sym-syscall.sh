#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A syscall-heavy loop: syscall_hot reads /dev/zero with an inline system
# call, so most samples are taken in the kernel. The user function that
# made the call must be named: at least 90% of the user stacks end in
# syscall_hot (after main, or right under the C library's start where a
# sample caught syscall_hot before it had made its frame). The kernel part
# must be there: at least half of all stacks are main;syscall_hot
# followed by kernel frames ("_[k]"), and at least 90% of the stacks that
# have kernel frames have them right under main;syscall_hot. Where
# /proc/kallsyms shows addresses, those kernel frames must be named (not
# "[kernel.kallsyms+0x...]").
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-syscall

need_perf
record_cmd sys -- "$TARGETS/sym-syscall" 1
check_user_re "$tmp/sys.folded" '(^|;)syscall_hot$' sym-syscall 200 90 "end in syscall_hot"
check_user_re "$tmp/sys.folded" '(^|;)main;syscall_hot(;[^;]+_\[k\])+$' sym-syscall 200 50 \
	"are main;syscall_hot and then kernel frames" full
grep '_\[k\] [0-9]*$' "$tmp/sys.folded" >"$tmp/sys-kernel.folded" || :
check_user_re "$tmp/sys-kernel.folded" '(^|;)main;syscall_hot(;[^;]+_\[k\])+$' sym-syscall \
	100 90 "with kernel frames have them under main;syscall_hot" full
if awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms 2>/dev/null; then
	check_user_re "$tmp/sys-kernel.folded" '(^|;)main;syscall_hot(;[^[;][^;]*_\[k\])+$' \
		sym-syscall 100 90 "with kernel frames have named ones under main;syscall_hot" full
else
	say "/proc/kallsyms shows no addresses here: kernel frame names not checked"
fi
