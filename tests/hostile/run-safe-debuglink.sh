#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A program's .gnu_debuglink is chosen by whoever built the program, and a
# root recorder follows it for every user's programs: it may only name a
# file beside the program in the standard places, that file must be the
# one the link's CRC describes, opening it may not block or open a
# device, and a user's program is never named from a file only root may
# read. sym-debuglink (stripped, no build-id, linked to
# sym-debuglink-syms.debug) is copied into scratch directories with its
# debug file replaced:
#  1. good: an exact copy beside it: named (debuglink_hot under main);
#  2. fifo: a named pipe nobody writes in its place: the recording ends
#     within 20 s of the program (a reader blocked on the pipe would hold
#     the stop for its 60 s naming limit), nothing named from it;
#  3. crc: the debug file with one byte added (still valid ELF, the right
#     names, another CRC): not used;
#  4. dotdot: a program whose link is "../sym-debuglink-syms.debug", the
#     good file there: not used (a link names a file, not a path);
#  5. as root: the program owned by nobody, its debug file (exact) owned by
#     root with mode 0600: not used; the same file mode 0644: named.
# perf, for comparison, reads debug files only when asked to (perf report
# or script, as the user who runs it), with no CRC check of its own.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-debuglink
need_target sym-debuglink-syms.debug
exe=$TARGETS/sym-debuglink
dbg=$TARGETS/sym-debuglink-syms.debug
need_perf

# A world-readable scratch tree, so that nobody can run what is in it.
stmp=$(mktemp -d /tmp/perfmini-dbglink.XXXXXX) || fail "mktemp failed"
trap 'rm -rf "$stmp"; cleanup' EXIT
chmod 755 "$stmp"

# layout NAME: $stmp/NAME/sym-debuglink, a copy of the program.
layout() {
	mkdir -p "$stmp/$1"
	chmod 755 "$stmp/$1"
	cp "$exe" "$stmp/$1/sym-debuglink"
	chmod 755 "$stmp/$1/sym-debuglink"
}

named() {
	check_user "$tmp/$1.folded" "main;debuglink_hot" sym-debuglink 200
}
unnamed() {
	check_none "$tmp/$1.folded" '(^|;)debuglink_hot$' sym-debuglink "named debuglink_hot ($2)"
}

layout good
cp "$dbg" "$stmp/good/"
record_cmd good -- "$stmp/good/sym-debuglink" 1
named good

layout fifo
mkfifo "$stmp/fifo/sym-debuglink-syms.debug"
start=$(date +%s)
run_record 20 "$tmp/fifo.data" -- "$stmp/fifo/sym-debuglink" 1
run_report "$tmp/fifo.data" "$tmp/fifo.folded"
say "fifo: the recording took $(($(date +%s) - start)) s"
unnamed fifo "a named pipe in place of the debug file"

layout crc
cp "$dbg" "$stmp/crc/"
printf 'x' >>"$stmp/crc/sym-debuglink-syms.debug"
record_cmd crc -- "$stmp/crc/sym-debuglink" 1
unnamed crc "a debug file whose CRC is not the link's"

# The link's section: the name, NUL-padded to 4 bytes, then the CRC-32 of
# the debug file, little-endian.
mkdir -p "$stmp/dotdot/sub"
chmod 755 "$stmp/dotdot"
cp "$dbg" "$stmp/dotdot/"
python3 -c '
import struct, sys, zlib
name = b"../sym-debuglink-syms.debug\0"
name += b"\0" * (-len(name) % 4)
crc = zlib.crc32(open(sys.argv[1], "rb").read()) & 0xffffffff
open(sys.argv[2], "wb").write(name + struct.pack("<I", crc))
' "$dbg" "$tmp/link.bin"
objcopy --remove-section=.gnu_debuglink "$exe" "$tmp/nolink" ||
	fail "objcopy could not remove the link"
objcopy --add-section .gnu_debuglink="$tmp/link.bin" "$tmp/nolink" \
	"$stmp/dotdot/sub/sym-debuglink" || fail "objcopy could not add the link"
chmod 755 "$stmp/dotdot/sub" "$stmp/dotdot/sub/sym-debuglink"
LC_ALL=C readelf -p .gnu_debuglink "$stmp/dotdot/sub/sym-debuglink" |
	grep -q '\.\./sym-debuglink-syms\.debug' || fail "the made link is not ../sym-debuglink-syms.debug"
record_cmd dotdot -- "$stmp/dotdot/sub/sym-debuglink" 1
unnamed dotdot "a link that climbs out of the program's directory"

if [ "$(id -u)" -eq 0 ]; then
	nobody=$(id -u nobody 2>/dev/null || echo 65534)
	layout owner
	cp "$dbg" "$stmp/owner/"
	chown "$nobody" "$stmp/owner/sym-debuglink"
	chmod 600 "$stmp/owner/sym-debuglink-syms.debug"
	record_cmd owner -- "$stmp/owner/sym-debuglink" 1
	unnamed owner "a root-only debug file for a program of nobody's"
	chmod 644 "$stmp/owner/sym-debuglink-syms.debug"
	record_cmd owner-readable -- "$stmp/owner/sym-debuglink" 1
	named owner-readable
else
	say "not root: files of other users cannot be made here, not checked"
fi
exit 0
