#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Debug files from a debuginfod server: sym-dinfod is stripped (no .symtab,
# no debug link) and its debug file exists only in a directory that a
# debuginfod server started here (debuginfod -F, on a free port, reached
# through 127.0.0.1) serves. The recording runs with DEBUGINFOD_URLS
# naming the server and an empty DEBUGINFOD_CACHE_PATH; its samples must
# name dinfod_hot, called from main, and the debug file must then be in
# that cache (fetched from the server). The server also serves the debug
# file of inline-zstd-bid, whose DWARF is compressed with zstd: 'perfmini
# symbolize -e' must give the inline chain and lines of its hot loop
# through it. Without DEBUGINFOD_URLS, the recorder must not load
# libdebuginfod at all. The server is stopped at the end.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"
. "$srcdir/tests/symbol/lineslib.sh"

need_target sym-dinfod
need_target sym-dinfod.dbg
exe=$TARGETS/sym-dinfod
command -v debuginfod >/dev/null 2>&1 ||
	fail "no debuginfod program: install the Debian package debuginfod"
command -v debuginfod-find >/dev/null 2>&1 ||
	fail "no debuginfod-find program: install the Debian package debuginfod"
LC_ALL=C readelf -SW "$exe" >"$tmp/sections"
! grep -q ' \.symtab ' "$tmp/sections" || fail "sym-dinfod has a .symtab: the test proves nothing"
! grep -q ' \.gnu_debuglink ' "$tmp/sections" || fail "sym-dinfod has a .gnu_debuglink"
id=$(LC_ALL=C readelf -nW "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "sym-dinfod has no build-id"
need_target inline-zstd-bid
need_target inline-zstd-bid.dbg
zid=$(LC_ALL=C readelf -nW "$TARGETS/inline-zstd-bid" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$zid" ] || fail "inline-zstd-bid has no build-id"

mkdir -p "$tmp/srv" "$tmp/probe-cache"
cp "$TARGETS/sym-dinfod.dbg" "$tmp/srv/sym-dinfod.dbg"
cp "$TARGETS/inline-zstd-bid.dbg" "$tmp/srv/inline-zstd-bid.dbg"

# Whether TCP port $1 is in use (listening or connected) here.
port_busy() {
	pb_hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$pb_hex" '$2 ~ p "$" { found = 1 } END { exit !found }'
}

# A free port: tried in turn from one derived from the pid; the server
# failing to start (another took the port meanwhile) moves on to the next.
port=
srv_pid=
tries=0
cand=$((20000 + ($$ * 7919) % 40000))
while [ -z "$port" ] && [ "$tries" -lt 8 ]; do
	tries=$((tries + 1))
	cand=$((20000 + (cand - 20000 + 1009) % 40000))
	port_busy "$cand" && continue
	debuginfod -F -p "$cand" -d "$tmp/srv.sqlite" -c 1 -g 0 -t 0 "$tmp/srv" \
		>"$tmp/srv.log" 2>&1 &
	srv_pid=$!
	track "$srv_pid"
	# Ready once it answers for the build-id (its first scan is done); a
	# new cache each time, as the client caches "not found" for minutes.
	n=0
	while [ "$n" -lt 150 ]; do
		alive "$srv_pid" || break
		if DEBUGINFOD_URLS="http://127.0.0.1:$cand" DEBUGINFOD_TIMEOUT=5 \
			DEBUGINFOD_CACHE_PATH="$tmp/probe-cache/$cand.$n" \
			debuginfod-find debuginfo "$id" >/dev/null 2>&1 &&
			DEBUGINFOD_URLS="http://127.0.0.1:$cand" DEBUGINFOD_TIMEOUT=5 \
				DEBUGINFOD_CACHE_PATH="$tmp/probe-cache/$cand.$n" \
				debuginfod-find debuginfo "$zid" >/dev/null 2>&1; then
			port=$cand
			break
		fi
		n=$((n + 1))
		sleep 0.2
	done
	if [ -z "$port" ]; then
		kill_tree "$srv_pid" TERM
		wait_exit "$srv_pid" 5 || kill_tree "$srv_pid" KILL
		wait "$srv_pid" 2>/dev/null || :
		if [ "$n" -ge 150 ]; then
			cat "$tmp/srv.log" >&3
			fail "debuginfod on port $cand did not serve $id within 30 s"
		fi
		say "debuginfod could not start on port $cand: $(tail -n 2 "$tmp/srv.log")"
	fi
done
[ -n "$port" ] || fail "could not start debuginfod on a free port in $tries tries"
say "debuginfod serves $tmp/srv at http://127.0.0.1:$port"

need_perf
DEBUGINFOD_URLS="http://127.0.0.1:$port"
DEBUGINFOD_CACHE_PATH=$tmp/cache
DEBUGINFOD_TIMEOUT=10
export DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT
record_cmd dinfod -- "$exe" 1
unset DEBUGINFOD_URLS
[ -s "$tmp/cache/$id/debuginfo" ] ||
	fail "perfmini did not fetch the debug file into DEBUGINFOD_CACHE_PATH ($tmp/cache/$id/debuginfo)"
check_user "$tmp/dinfod.folded" "main;dinfod_hot" sym-dinfod 200

src=$srcdir/tests/targets/inline.c
DEBUGINFOD_URLS="http://127.0.0.1:$port"
export DEBUGINFOD_URLS
lines_symbolize "$TARGETS/inline" '^work_outer$' "$TARGETS/inline-zstd-bid" \
	"inline_leaf at [^ ]*/inline\\.c:($(lines_mark "$src" 'leaf-loop \*/')|$(lines_mark "$src" 'leaf-body \*/'))(:[0-9]+)?\$" \
	"inline_mid at [^ ]*/inline\\.c:$(lines_mark "$src" 'mid-call \*/')(:[0-9]+)?\$" \
	"work_outer at [^ ]*/inline\\.c:$(lines_mark "$src" 'outer-call \*/')(:[0-9]+)?\$"
unset DEBUGINFOD_URLS
[ -s "$tmp/cache/$zid/debuginfo" ] ||
	fail "perfmini symbolize did not fetch inline-zstd-bid's debug file from the server"

# libdw 0.188 loads its debuginfod client (libcurl, a TLS library:
# megabytes of the recorder's memory) at its first search that finds
# nothing locally; without DEBUGINFOD_URLS perfmini searches locally
# itself, so it is never loaded. The loader's log (LD_DEBUG=files) of a
# recording of sym-dinfod, whose debug file is nowhere local: with the
# server, libdebuginfod is loaded; without, it is not.
for urls in "http://127.0.0.1:$port" ""; do
	rc=0
	DEBUGINFOD_URLS=$urls LD_DEBUG=files run_timeout 60 "$PERFMINI" record \
		-o "$tmp/ld.data" -- "$exe" 1 >/dev/null 2>"$tmp/ld.log" || rc=$?
	[ "$rc" -eq 0 ] || fail "perfmini record with DEBUGINFOD_URLS='$urls' exited $rc"
	grep -q 'file=libelf' "$tmp/ld.log" || fail "no loader log (LD_DEBUG=files) to read"
	if [ -n "$urls" ]; then
		grep -q 'file=libdebuginfod' "$tmp/ld.log" ||
			fail "with DEBUGINFOD_URLS set, libdw did not load libdebuginfod"
	elif grep -q 'file=libdebuginfod' "$tmp/ld.log"; then
		fail "without DEBUGINFOD_URLS, the recorder loaded libdebuginfod"
	fi
done
say "libdebuginfod loaded with DEBUGINFOD_URLS set, not without"

kill_tree "$srv_pid" TERM
wait_exit "$srv_pid" 10 || fail "debuginfod did not stop within 10 s of SIGTERM"
wait "$srv_pid" 2>/dev/null || :
