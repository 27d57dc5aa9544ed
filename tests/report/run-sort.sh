#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report --sort=KEYS', perf report's keys, over a shell running two
# programs at once (spin-pie 1 and twobuilds-O2 1, a CPU second each):
#   --sort=comm         a row per program, each at least 30% of the
#                       samples (their own and total shares alike), the
#                       shell's row under 5%; a Command column, no Module;
#   --sort=comm,symbol  spin-pie's row for spin_hot at least 30%,
#                       twobuilds-O2's for tb_step_[i] (inlined) 25%;
#   --sort=pid,module   a row for spin-pie-PID in its module spin-pie, PID
#                       the one its samples have in --script;
#   --sort=module       the old per-module rows, same counts as before;
#   --folded --sort=pid the root frames 'comm-PID', as --per-pid gives;
#   bad keys, and keys a format has no place for: exit 2.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 60 "$tmp/sort.data" -- sh -c \
	"'$TARGETS/spin-pie' 1 & '$TARGETS/twobuilds-O2' 1; wait"

# top KEYS FILE: 'report --sort=KEYS -n 0' into FILE; the table alone.
top() {
	"$PERFMINI" report -i "$tmp/sort.data" --sort="$1" -n 0 >"$tmp/top.all" 2>&3 ||
		fail "report --sort=$1 exited $?"
	sed -n '/^ Self%/,$p' "$tmp/top.all" >"$2"
	cat "$2" >&3
}

# share FILE FIELDS...: the self share (without '%') of the row whose text columns are FIELDS.
share() {
	sh_file=$1
	shift
	awk -v want="$*" 'NR > 1 {
		self = $1
		sub(/%$/, "", self)
		text = ""
		for (i = 5; i <= NF; i++)
			text = text (i > 5 ? " " : "") $i
		if (text == want) { print self; found = 1; exit }
	} END { if (!found) print -1 }' "$sh_file"
}

# at_least FILE PCT FIELDS...
at_least() {
	al_file=$1
	al_min=$2
	shift 2
	al_got=$(share "$al_file" "$@")
	awk -v g="$al_got" -v m="$al_min" 'BEGIN { exit !(g >= m) }' ||
		fail "--sort $(head -n 1 "$al_file" | awk '{ $1 = $2 = $3 = $4 = ""; print }'):" \
			"row '$*' has $al_got%, not $al_min% or more"
}

top comm "$tmp/comm.txt"
head -n 1 "$tmp/comm.txt" | grep -Eq '^ Self% +Total% +Self +Total +Command$' ||
	fail "--sort=comm: the heading is not Self% Total% Self Total Command"
at_least "$tmp/comm.txt" 30 spin-pie
at_least "$tmp/comm.txt" 30 twobuilds-O2
sh_share=$(share "$tmp/comm.txt" sh)
awk -v s="$sh_share" 'BEGIN { exit !(s < 5) }' || fail "--sort=comm: the shell has $sh_share%"
# Without a symbol key, a row's self and total are its samples: equal.
awk 'NR > 1 && $1 != "..." && $3 != $4 { print; bad = 1 } END { exit bad }' "$tmp/comm.txt" >&3 ||
	fail "--sort=comm: a row whose self and total samples differ"

top comm,symbol "$tmp/comm-sym.txt"
at_least "$tmp/comm-sym.txt" 30 spin-pie spin_hot
at_least "$tmp/comm-sym.txt" 25 twobuilds-O2 "tb_step_[i]"

"$PERFMINI" report -i "$tmp/sort.data" --script >"$tmp/script.txt" 2>&3 ||
	fail "report --script exited $?"
spin_pid=$(awk -F'\t' '$2 ~ /spin_hot/ { split($1, f, " "); print f[2]; exit }' "$tmp/script.txt")
[ -n "$spin_pid" ] || fail "--script: no sample in spin_hot"
top pid,module "$tmp/pid-mod.txt"
head -n 1 "$tmp/pid-mod.txt" | grep -Eq 'Process +Module$' ||
	fail "--sort=pid,module: the heading does not end with Process Module"
at_least "$tmp/pid-mod.txt" 30 "spin-pie-$spin_pid" spin-pie

# --sort=module keeps the per-module table it always was.
top module "$tmp/mod.txt"
"$PERFMINI" report -i "$tmp/sort.data" --sort module -n 0 >"$tmp/mod2.all" 2>&3 ||
	fail "report --sort module exited $?"
sed -n '/^ Self%/,$p' "$tmp/mod2.all" | cmp -s - "$tmp/mod.txt" ||
	fail "--sort=module and --sort module differ"
at_least "$tmp/mod.txt" 30 spin-pie

"$PERFMINI" report -i "$tmp/sort.data" --folded --sort=pid >"$tmp/pid.folded" 2>&3 ||
	fail "report --folded --sort=pid exited $?"
"$PERFMINI" report -i "$tmp/sort.data" --folded --per-pid >"$tmp/perpid.folded" 2>&3 ||
	fail "report --folded --per-pid exited $?"
cmp -s "$tmp/pid.folded" "$tmp/perpid.folded" ||
	fail "--folded --sort=pid differs from --per-pid"
grep -q "^spin-pie-$spin_pid;" "$tmp/pid.folded" || fail "--folded --sort=pid: no root spin-pie-$spin_pid"

for bad in "--sort=bogus" "--sort=comm,bogus" "--folded --sort=module" "--svg --sort=comm" \
	"--sort=pid --per-tid"; do
	rc=0
	# shellcheck disable=SC2086 # the options are split on purpose
	"$PERFMINI" report -i "$tmp/sort.data" $bad >/dev/null 2>"$tmp/bad.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "report $bad: exit $rc, not 2: $(cat "$tmp/bad.err")"
done
exit 0
