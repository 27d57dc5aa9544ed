# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# symlib.sh - what the symbolization tests (tests/symbol/run-sym-*.sh) share on
# top of lib.sh; sourced after it, never run.
#
# The targets are built by 'make check' from tests/targets/sym-* (see
# tests/symbols.am). Stacks are checked on their user part: the frames
# left when the kernel frames at the leaf end ("..._[k]", an interrupt or
# a preemption caught by the sample) are dropped, so that a loaded machine
# does not move the shares.

: "${tmp:?symlib.sh is sourced after lib.sh}"

# No debug file may come from a server the environment happens to name:
# only run-sym-debuginfod.sh sets these, for a server of its own.
unset DEBUGINFOD_URLS
DEBUGINFOD_CACHE_PATH=$tmp/debuginfod-cache
export DEBUGINFOD_CACHE_PATH

# need_target NAME: fails unless tests/targets/NAME was built.
need_target() {
	[ -e "$TARGETS/$1" ] ||
		fail "tests/targets/$1 was not built (run 'make check', which builds it)"
}

# need_lld_target NAME: the same for a target that needs ld.lld, which
# configure looks for; without it those targets are not built.
need_lld_target() {
	[ -e "$TARGETS/$1" ] ||
		fail "tests/targets/$1 was not built: it needs ld.lld, which configure" \
			"did not find (install the Debian package lld, then configure again)"
}

# sym_shares FOLDED COMM ERE [full]: prints "MATCHED TOTAL": of the
# samples of thread name COMM ("" for all), how many have a user stack
# (the frames after the comm, ";"-joined with a leading ";", less the
# kernel frames at the leaf end) matching the extended regex ERE; with
# "full", the whole stack, kernel frames included.
sym_shares() {
	SYM_RE=$3 awk -v comm="$2" -v full="${4-}" '
	BEGIN { re = ENVIRON["SYM_RE"] }
	{
		n = $NF
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		c = stack
		sub(/;.*/, "", c)
		if (comm != "" && c != comm)
			next
		total += n
		frames = substr(stack, length(c) + 1)
		if (full != "full")
			while (frames ~ /;[^;]*_\[k\]$/)
				sub(/;[^;]*_\[k\]$/, "", frames)
		if (frames ~ re)
			matched += n
	}
	END { printf "%d %d\n", matched, total }' "$1"
}

# sym_re_quote STRING: STRING as an extended regex that matches it exactly.
sym_re_quote() {
	printf '%s\n' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# check_user FOLDED PATH COMM MIN_SAMPLES [MIN_PERCENT]: fails unless COMM
# ("" for all) has at least MIN_SAMPLES samples and at least MIN_PERCENT
# (default 90) of them have a user stack ending in PATH ("leaf" or
# "caller;leaf", exact frame names).
check_user() {
	cu_re="(^|;)$(sym_re_quote "$2")\$"
	check_user_re "$1" "$cu_re" "$3" "$4" "${5:-90}" "end in '$2'"
}

# check_user_re FOLDED ERE COMM MIN_SAMPLES MIN_PERCENT WHAT [full]: as
# check_user, for user stacks (whole stacks with "full") matching ERE;
# WHAT says what that means.
check_user_re() {
	cu_full=${7-}
	cu_n=$(sym_shares "$1" "$3" "$2" "$cu_full")
	[ -n "$cu_n" ] || fail "no sample count from $1"
	cu_matched=${cu_n% *}
	cu_total=${cu_n#* }
	cu_share=$(awk -v m="$cu_matched" -v t="$cu_total" 'BEGIN { printf "%.1f", t ? 100 * m / t : 0 }')
	cu_who=
	[ -z "$3" ] || cu_who="of comm '$3' "
	cu_what="user stacks"
	[ "$cu_full" != full ] || cu_what=stacks
	say "$cu_what $6 in $cu_matched of $cu_total samples ${cu_who}($cu_share%; need >= $5% of >= $4)"
	if [ "$cu_total" -lt "$4" ] || awk -v m="$cu_matched" -v t="$cu_total" -v p="$5" \
		'BEGIN { exit !(100 * m < p * t) }'; then
		say "the heaviest stacks were:"
		top_stacks "$1" 10 >&3
		[ "$cu_total" -ge "$4" ] || fail "only $cu_total samples ${cu_who}(need >= $4)"
		fail "only $cu_share% of the samples ${cu_who}have $cu_what that $6 (need >= $5%)"
	fi
}

# check_none FOLDED ERE COMM WHAT: fails if any sample of COMM ("" for
# all) has a user stack matching ERE; WHAT says what that means, as in
# "a user stack WHAT" ("with new_hot").
check_none() {
	cn_n=$(sym_shares "$1" "$3" "$2")
	[ -n "$cn_n" ] || fail "no sample count from $1"
	cn_matched=${cn_n% *}
	cn_total=${cn_n#* }
	if [ "$cn_matched" -ne 0 ]; then
		say "the heaviest stacks were:"
		top_stacks "$1" 10 >&3
		fail "$cn_matched of $cn_total samples have a user stack $4"
	fi
	say "no sample of $cn_total has a user stack $4"
}

# only_under FOLDED FRAME OUT: writes to OUT the lines of FOLDED whose
# stack holds the frame FRAME (exactly, anywhere but as the comm).
only_under() {
	SYM_FRAME=$2 awk '
	BEGIN { f = ENVIRON["SYM_FRAME"] }
	{
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		n = split(stack, fr, ";")
		for (i = 2; i <= n; i++)
			if (fr[i] == f) {
				print
				next
			}
	}' "$1" >"$3"
}

# record_cmd NAME ARGS...: records 'perfmini record -q -o $tmp/NAME.data
# ARGS...' with a time limit and folds it into $tmp/NAME.folded.
record_cmd() {
	rc_name=$1
	shift
	run_record 60 "$tmp/$rc_name.data" "$@"
	run_report "$tmp/$rc_name.data" "$tmp/$rc_name.folded"
}

# start_ready OUT CMD ARGS...: starts a target that prints "PROG: ready,
# pid PID" and waits for SIGUSR1 (sym-hot.h), its output in OUT; sets
# tpid to the pid it printed (the pid of the program, perhaps not of CMD
# if CMD starts it) and bg_pid to the pid of CMD.
start_ready() {
	sr_out=$1
	shift
	"$@" >"$sr_out" 2>"$sr_out.err" &
	bg_pid=$!
	track "$bg_pid"
	wait_line "$sr_out" ': ready, pid [0-9]+' 30 ||
		fail "$1 did not start within 30 s: $(cat "$sr_out.err")"
	tpid=$(sed -n 's/.*: ready, pid \([0-9][0-9]*\).*/\1/p' "$sr_out" | head -n 1)
	track "$tpid"
}

# finish_target SECONDS: waits for the target started by start_ready to
# exit with status 0, at most SECONDS.
finish_target() {
	wait_exit "$bg_pid" "$1" || fail "the target is still running after $1 s"
	ft_rc=0
	wait "$bg_pid" || ft_rc=$?
	[ "$ft_rc" -eq 0 ] || fail "the target exited $ft_rc: $(cat "$sr_out.err")"
}

# attach_and_start DATA: 'perfmini record -p $tpid' in the background,
# waits until it holds its events, then sends SIGUSR1 to the target.
attach_and_start() {
	record_bg "$1" -p "$tpid"
	# shellcheck disable=SC2154 # rec_pid is set by record_bg, in lib.sh
	wait_attached "$rec_pid" 30 ||
		fail "perfmini record -p $tpid did not attach within 30 s: $(cat "$tmp/record.err")"
	kill -USR1 "$tpid"
}

# load_segments FILE: the PT_LOAD headers of FILE, one a line:
# "OFFSET VADDR FILESZ FLAGS ALIGN", numbers in hex with 0x, FLAGS such as
# "R", "RE", "RW".
load_segments() {
	LC_ALL=C readelf -lW "$1" | awk '
	$1 == "LOAD" {
		flags = ""
		for (i = 7; i < NF; i++)
			flags = flags $i
		print $2, $3, $5, flags, $NF
	}'
}

# nm_addr FILE SYMBOL [nm options]: the address (hex, no 0x) of SYMBOL in
# FILE's symbol table; fails if it has none.
nm_addr() {
	na_file=$1
	na_sym=$2
	shift 2
	na_a=$(nm "$@" "$na_file" | SYM_NAME=$na_sym awk '$NF == ENVIRON["SYM_NAME"] && NF == 3 { print $1; exit }')
	[ -n "$na_a" ] || fail "nm finds no symbol $na_sym in $na_file"
	echo "$na_a"
}

# nm_size FILE SYMBOL [nm options]: its size, in decimal.
nm_size() {
	ns_file=$1
	ns_sym=$2
	shift 2
	ns_s=$(nm -S "$@" "$ns_file" | SYM_NAME=$ns_sym awk '$NF == ENVIRON["SYM_NAME"] && NF == 4 { print $2; exit }')
	[ -n "$ns_s" ] || fail "nm finds no size for $ns_sym in $ns_file"
	echo $((0x$ns_s))
}

# runtime_addr PID FILE VADDR: the address at which the ELF address VADDR
# (hex, with or without 0x) of FILE is mapped in process PID, computed
# from FILE's program headers and /proc/PID/maps (file offset = VADDR -
# p_vaddr + p_offset in the PT_LOAD that holds it; address = start +
# offset - pgoff in the mapping of FILE's inode that holds the offset).
runtime_addr() {
	ra_v=$((0x${3#0x}))
	ra_off=
	for ra_seg in $(load_segments "$2" | awk '{ print $1 "," $2 "," $3 }'); do
		IFS=, read -r ra_o ra_va ra_sz <<EOF
$ra_seg
EOF
		if [ "$ra_v" -ge $((ra_va)) ] && [ "$ra_v" -lt $((ra_va + ra_sz)) ]; then
			ra_off=$((ra_v - ra_va + ra_o))
			break
		fi
	done
	[ -n "$ra_off" ] || fail "no PT_LOAD of $2 holds the address $3"
	ra_ino=$(stat -L -c %i "$2")
	ra_line=$(awk -v ino="$ra_ino" -v off="$ra_off" '
	function hex(s,   i, c, v) {
		v = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	$5 == ino {
		split($1, r, "-")
		if (off >= hex($3) && off < hex($3) + hex(r[2]) - hex(r[1])) {
			print r[1], $3
			exit
		}
	}' "/proc/$1/maps")
	[ -n "$ra_line" ] || fail "no mapping of $2 in process $1 holds the file offset $ra_off"
	ra_start=${ra_line% *}
	ra_pgoff=${ra_line#* }
	printf '0x%x\n' $((0x$ra_start + ra_off - 0x$ra_pgoff))
}

# remove_at_exit PATH...: removes PATH... when the test exits, after
# lib.sh's cleanup (for files a target leaves outside $tmp if it is
# killed, such as a JIT's /tmp/perf-PID.map).
sym_leftovers=
remove_at_exit() {
	sym_leftovers="$sym_leftovers $*"
	trap sym_cleanup EXIT
}
sym_cleanup() {
	cleanup
	for sym_f in $sym_leftovers; do
		rm -f "$sym_f"
	done
}

# record_plt TARGET COMM ERE [OPTION]: records 'TARGET 1' (with the
# record option OPTION, if given), again up to 4 times while fewer than 5
# samples of COMM in all its runs have a user stack matching ERE; the
# runs' folded stacks together go to $tmp/TARGET.folded, and plt_in is
# set to the number of those samples. For a loop that calls through the
# PLT: how many of the timer's samples land in a PLT entry rather than
# in the function it jumps to depends on the machine, the load addresses
# and the load, from none to most (a handful a run, for perf as well, on
# some processors: counted over the runs, not in the best one).
record_plt() {
	: >"$tmp/$1.runs"
	for rp_try in 1 2 3 4; do
		# shellcheck disable=SC2086 # no option, or one
		record_cmd "$1" ${4-} -F 2999 -- "$TARGETS/$1" 1
		cat "$tmp/$1.folded" >>"$tmp/$1.runs"
		rp_share=$(sym_shares "$tmp/$1.runs" "$2" "$3")
		plt_in=${rp_share% *}
		say "$1, after run $rp_try: $plt_in of ${rp_share#* } samples in a PLT entry"
		[ "$plt_in" -lt 5 ] || break
	done
	mv "$tmp/$1.runs" "$tmp/$1.folded"
}

# plt_measurable TARGET: whether this processor lets timer samples land in
# TARGET's PLT entries, as perf sees them: 'perf record' of 'TARGET 1'
# with the same frequency must put at least 5 samples in entries it names
# NAME@plt. Some processors charge the time a call waits in an entry
# (for the entry's code or for its GOT slot) to the function it jumps to,
# for one PLT layout and not another; there no profiler can see the
# entries, and a test can only check the naming on what lands there.
plt_measurable() {
	pm_n=$(cd "$tmp" && run_timeout 60 perf record -q -e cpu-clock -F 2999 -o "$tmp/plt-perf.data" \
		-- "$TARGETS/$1" 1 >/dev/null 2>&1 &&
		perf script -i "$tmp/plt-perf.data" -F ip,sym 2>/dev/null | awk '
			{ n++ } $2 ~ /@plt$/ { p++ } END { print p + 0, n + 0 }') ||
		fail "perf record of $1 failed"
	say "$1: perf puts ${pm_n% *} of ${pm_n#* } samples in a PLT entry"
	[ "${pm_n% *}" -ge 5 ]
}

# slow_debuginfod ID FILE DELAY: starts a debuginfod server on localhost
# that answers only for build-id ID, with FILE, after DELAY seconds (and
# 404 for anything else); gone after two minutes at most. Sets port; the
# server writes its port, then "served" for each answer, to $tmp/srv.
slow_debuginfod() {
	python3 -c '
import http.server, sys, time
bid, path, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
class Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/buildid/%s/debuginfo" % bid:
            self.send_error(404)
            return
        time.sleep(delay)
        data = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        print("served", flush=True)
    def log_message(self, *args):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
s.timeout = 1
print(s.server_address[1], flush=True)
end = time.time() + 120
while time.time() < end:
    s.handle_request()
' "$1" "$2" "$3" >"$tmp/srv" &
	track $!
	wait_line "$tmp/srv" '^[0-9]+$' 10 || fail "the slow debuginfod server did not start"
	# shellcheck disable=SC2034 # the caller's, as the comment above says
	port=$(head -n 1 "$tmp/srv")
}
