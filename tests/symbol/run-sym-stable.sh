#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Frames without a name are named alike in every run: two recordings of
# the same program must fold to the same stacks. sym-jit runs its code in
# anonymous memory that no perf map names (mmap puts it at another address
# each run) and sym-stripped is a stripped binary whose hot loop is named
# by module and file offset. Of the samples of each second recording, at
# least 90% must have a stack (as folded text) that the first recording
# has too; the unnamed frames read "[anon]" and "[sym-stripped+0x...]".
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-jit
need_target sym-short

# matched A B: "MATCHED TOTAL" for the samples of B whose stack A has.
matched() {
	awk 'FNR == NR { s = $0; sub(/ [0-9]+$/, "", s); seen[s] = 1; next }
	{ s = $0; sub(/ [0-9]+$/, "", s); t += $NF; if (s in seen) m += $NF }
	END { printf "%d %d\n", m, t }' "$1" "$2"
}

# twice NAME COMM ERE ARGS...: records ARGS twice, checks that COMM's
# stacks end in a frame matching ERE and that the runs match.
twice() {
	tw_name=$1 tw_comm=$2 tw_re=$3
	shift 3
	record_cmd "$tw_name.1" "$@"
	record_cmd "$tw_name.2" "$@"
	check_user_re "$tmp/$tw_name.2.folded" "$tw_re" "$tw_comm" 150 90 "end in an unnamed frame"
	# shellcheck disable=SC2046 # split into its fields on purpose
	set -- $(matched "$tmp/$tw_name.1.folded" "$tmp/$tw_name.2.folded")
	say "$tw_name: $1 of $2 samples of the second run have a stack of the first"
	if [ $((100 * $1)) -lt $((90 * $2)) ]; then
		say "first run:"
		top_stacks "$tmp/$tw_name.1.folded" 5 >&3
		say "second run:"
		top_stacks "$tmp/$tw_name.2.folded" 5 >&3
		fail "$tw_name: only $1 of $2 samples fold alike in two runs (need >= 90%)"
	fi
}

need_perf
twice jit sym-jit '(^|;)\[anon\]$' -- "$TARGETS/sym-jit" 0.5 nomap
strip -o "$tmp/sym-stripped" "$TARGETS/sym-short"
twice stripped sym-stripped '(^|;)\[sym-stripped\+0x[0-9a-f]+\]$' -- "$tmp/sym-stripped" 0.5
