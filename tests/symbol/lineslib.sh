# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# lineslib.sh - what the source-line tests of other toolchains
# (tests/symbol/run-lines-*.sh) share on top of lib.sh and symlib.sh; sourced
# after them, never run.
#
# Each target has a hot function whose time is in inlined callees; MARK
# comments in its source name the lines the tests expect.

: "${tmp:?lineslib.sh is sourced after lib.sh}"

# lines_mark SRC NAME: the number of the line of SRC holding "MARK NAME".
lines_mark() {
	lm_n=$(grep -n "MARK $2\$" "$1" | cut -d: -f1 | head -n 1)
	[ -n "$lm_n" ] || fail "no line 'MARK $2' in $1"
	echo "$lm_n"
}

# lines_no_aranges FILE: fails if FILE has .debug_aranges, for the tests
# whose point is code that has none (clang, Go, rustc).
lines_no_aranges() {
	! LC_ALL=C readelf -SW "$1" | grep -q ' \.debug_aranges ' ||
		fail "$1 has .debug_aranges: the test would not show that units are found without it"
}

# lines_fold DATA OUT: 'perfmini report --folded --lines' of DATA into OUT.
lines_fold() {
	run_timeout 60 "$PERFMINI" report -i "$1" --folded --lines >"$2" 2>"$tmp/report.err" ||
		fail "perfmini report -i $1 --folded --lines failed: $(cat "$tmp/report.err")"
}

# lines_symbolize [-i] NMFILE SYMBOL_ERE FILE ERE1 [ERE2...] [-- ARGS]:
# asks 'perfmini symbolize ARGS -e FILE' for every address of the
# function of NMFILE (FILE itself, or an unstripped copy of it) whose
# symbol name matches SYMBOL_ERE, and fails unless one of them is printed
# with its function levels matching ERE1 (the innermost, "  NAME at
# FILE:LINE"), then ERE2 ("  inlined into NAME at ..."), and so on,
# nothing more; with -i, more levels may come before ERE1's (functions
# inlined into it). Prints that address's lines to the log.
lines_symbolize() {
	ls_inner=0
	if [ "$1" = -i ]; then
		ls_inner=1
		shift
	fi
	ls_nm=$1
	ls_sym=$2
	ls_file=$3
	shift 3
	: >"$tmp/levels"
	ls_args=
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			shift
			ls_args="$*"
			break
		fi
		printf '%s\n' "$1" >>"$tmp/levels"
		shift
	done
	nm -S "$ls_nm" | SYM_ERE=$ls_sym awk '
		BEGIN { re = ENVIRON["SYM_ERE"] }
		NF == 4 && ($3 == "T" || $3 == "t") && $4 ~ re { print $1, $2; exit }' >"$tmp/func"
	read -r ls_start ls_size <"$tmp/func" ||
		fail "nm -S finds no function matching '$ls_sym' in $ls_nm"
	awk -v s="$ls_start" -v n="$ls_size" '
	function hex(x,   i, v) {
		v = 0
		x = tolower(x)
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	BEGIN {
		for (a = hex(s); a < hex(s) + hex(n); a++)
			printf "0x%x\n", a
	}' >"$tmp/addrs"
	# shellcheck disable=SC2086 # ls_args is a list of options
	"$PERFMINI" symbolize $ls_args -e "$ls_file" <"$tmp/addrs" >"$tmp/sym.out" 2>"$tmp/sym.err" ||
		fail "perfmini symbolize -e $ls_file failed: $(cat "$tmp/sym.err")"
	awk -v inner="$ls_inner" '
	FILENAME == ARGV[1] { want[++nw] = $0; next }
	function check(   i, k, prefix) {
		if (nl != nw && !(inner && nl > nw))
			return 0
		for (i = 1; i <= nw; i++) {
			k = nl - nw + i
			prefix = i == 1 && nl == nw ? "^  " : "^  inlined into "
			if (lv[k] !~ (prefix want[i]))
				return 0
			if (k == 1 && lv[k] ~ /^  inlined into /)
				return 0
		}
		return 1
	}
	/^0x/ {
		if (head != "" && check()) {
			print head
			for (i = 1; i <= nl; i++)
				print lv[i]
			found = 1
			exit
		}
		head = $0
		nl = 0
		next
	}
	/^  / { lv[++nl] = $0 }
	END {
		if (!found && head != "" && check()) {
			print head
			for (i = 1; i <= nl; i++)
				print lv[i]
			found = 1
		}
		exit !found
	}' "$tmp/levels" "$tmp/sym.out" >"$tmp/sym.match" || {
		say "perfmini symbolize -e $ls_file, the first addresses:"
		head -n 20 "$tmp/sym.out" >&3
		fail "no address of the function matching '$ls_sym' symbolizes to the levels: $(tr '\n' '|' <"$tmp/levels")"
	}
	say "perfmini symbolize -e $ls_file:"
	cat "$tmp/sym.match" >&3
}
