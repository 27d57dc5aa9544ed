#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Descendants of the recorded command: a shell starts spin-pie in the
# background and spin-nopie in the foreground (one CPU second each); the
# samples of each child, told apart by comm, must name spin_hot as their
# leaf. The shell's own few samples are left out by the comm filter.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
# shellcheck disable=SC2016 # for the inner shell
run_record 60 "$tmp/children.data" -- /bin/sh -c \
	'"$1/spin-pie" 1 & "$1/spin-nopie" 1; wait' sh "$TARGETS"
run_report "$tmp/children.data" "$tmp/children.folded"
check_share "$tmp/children.folded" spin_hot spin-pie 200
check_share "$tmp/children.folded" spin_hot spin-nopie 200
check_share "$tmp/children.folded" "main;spin_hot" spin-pie 200
check_share "$tmp/children.folded" "main;spin_hot" spin-nopie 200
