#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A fixed-address (non-PIE) executable: samples of 'spin-nopie 1' (one CPU second in spin_hot,
# called from main) must name spin_hot as their leaf, and main as its
# caller (frame-pointer call chains, return addresses symbolized).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 60 "$tmp/spin.data" -- "$TARGETS/spin-nopie" 1
run_report "$tmp/spin.data" "$tmp/spin.folded"
check_share "$tmp/spin.folded" spin_hot spin-nopie 200
check_share "$tmp/spin.folded" "main;spin_hot" spin-nopie 200
