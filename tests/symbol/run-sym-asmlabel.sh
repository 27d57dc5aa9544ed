#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hand-written assembly whose symbol has no type and no size (zstd's
# decoding loops, ld.so's _start): the samples of 'sym-asmlabel 1' must be
# named asm_label_loop, from the label up to the next symbol, as
# llvm-symbolizer names them, with run_loop and main as its callers.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-asmlabel
exe=$TARGETS/sym-asmlabel
LC_ALL=C readelf -sW "$exe" | grep -Eq 'NOTYPE +GLOBAL +DEFAULT +[0-9]+ asm_label_loop$' ||
	fail "asm_label_loop is not an untyped symbol in sym-asmlabel"
if command -v llvm-symbolizer >/dev/null; then
	# The reference names the loop's second instruction so too.
	addr=$(nm_addr "$exe" asm_label_loop)
	ref=$(llvm-symbolizer --obj="$exe" "$(printf '0x%x' $((0x$addr + 3)))" | head -n 1)
	[ "$ref" = asm_label_loop ] || fail "llvm-symbolizer names asm_label_loop+3 '$ref'"
fi

need_perf
record_cmd asmlabel -- "$exe" 1
check_user "$tmp/asmlabel.folded" "main;run_loop;asm_label_loop" sym-asmlabel 200
