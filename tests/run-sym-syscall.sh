#!/bin/sh
# A syscall-heavy loop: syscall_hot reads /dev/zero with an inline system
# call, so nearly all samples are taken in the kernel. Their stacks must
# be "...;main;syscall_hot" followed by kernel frames ("_[k]") at the leaf
# end: the user function that made the call is named, and the kernel part
# is there. Where /proc/kallsyms shows addresses, the kernel frames must
# be named too (not "[kernel.kallsyms+0x...]").
set -eu
. "${srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$srcdir/tests/symlib.sh"

need_target sym-syscall

need_perf
record_cmd sys -- "$TARGETS/sym-syscall" 1
check_user_re "$tmp/sys.folded" '(^|;)main;syscall_hot(;[^;]+_\[k\])+$' sym-syscall 200 90 \
	"are main;syscall_hot and then kernel frames" full
if awk '$1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms 2>/dev/null; then
	check_user_re "$tmp/sys.folded" '(^|;)main;syscall_hot(;[^[;][^;]*_\[k\])+$' sym-syscall \
		200 90 "are main;syscall_hot and then named kernel frames" full
else
	say "/proc/kallsyms shows no addresses here: kernel frame names not checked"
fi
