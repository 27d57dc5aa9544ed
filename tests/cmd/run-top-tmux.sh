#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini top' in a real terminal: tmux, 80 columns by 24 lines, over
# mix 70 (a program whose calls go 70% to mix_a and 30% to mix_b, both
# from mix_round: its source says so), the screen read with capture-pane
# and keys pressed with send-keys, as a user would:
#   the screen: 24 lines of at most 80 columns, the three lines on what is
#     shown, the heading, mix_a first and mix_b second at 70:30 (within
#     10 points), the keys on the last line; under NO_COLOR the cursor is
#     a '>' and no attribute is drawn, without it reverse video;
#   s: ordered by Total%, main above mix_a; s again: by Self%;
#   c on mix_a: its caller mix_round in all of its samples; e there:
#     mix_round's callees mix_a and mix_b at 70:30; b: the table again;
#   space: paused, the window's count stays; space: it moves again;
#   p and t: only mix's process, its thread, and back;
#   q: exit 0, the main screen given back, the command stopped;
#   Control-C: exit 0 too.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
command -v tmux >/dev/null 2>&1 || skip "no tmux (Debian: tmux)"

sock=$tmp/tmux.sock
tm() {
	tmux -S "$sock" "$@"
}
trap 'tm kill-server 2>/dev/null || :; cleanup' EXIT

# screen [-e]: the pane now, in $tmp/screen (-e: with its attributes).
screen() {
	tm capture-pane -p "$@" -t pm >"$tmp/screen"
}

# wait_screen RE SECONDS: until the screen has a line matching RE.
wait_screen() {
	ws_n=$(($2 * 10))
	while screen && ! grep -Eq "$1" "$tmp/screen"; do
		if [ "$ws_n" -le 0 ]; then
			cat "$tmp/screen" >&3
			return 1
		fi
		ws_n=$((ws_n - 1))
		sleep 0.1
	done
}

# field ROW N: of the table's ROWth row (1: the first), field N, the
# cursor's '>' taken off.
field() {
	awk -v i="$1" -v n="$2" 'f && ++k == i { sub(/^>/, ""); print $n; exit }
		/^>? *(Self%|Share) / { f = 1 }' "$tmp/screen"
}

# near70 A B: A and B are 70:30 within 10 points.
near70() {
	awk -v a="$1" -v b="$2" 'BEGIN { r = 100 * a / (a + b); exit !(r >= 60 && r <= 80) }'
}

# press KEYS...: keys sent, and a moment for the view to redraw.
press() {
	tm send-keys -t pm "$@"
	sleep 0.3
}

# count: the samples in the window, from the first line.
count() {
	screen
	sed -n '1s/.* \([0-9]*\) in the last .*/\1/p' "$tmp/screen"
}

tm -f /dev/null new-session -d -s pm -x 80 -y 24 \
	"NO_COLOR=1 '$PERFMINI' top -- sh -c 'echo \$\$ >\"$tmp/pid\"; exec \"$TARGETS/mix\" 70 120'; echo \$? >'$tmp/rc'; sleep 600"

# The table once both functions are named, in their order.
n=600
until screen && [ "$(field 1 4)" = mix_a ] && [ "$(field 2 4)" = mix_b ]; do
	[ "$n" -gt 0 ] || {
		cat "$tmp/screen" >&3
		fail "no screen with mix_a then mix_b in 60 s"
	}
	n=$((n - 1))
	sleep 0.1
done
pid=$(cat "$tmp/pid")
cat "$tmp/screen" >&3
[ "$(wc -l <"$tmp/screen")" -eq 24 ] || fail "the screen has $(wc -l <"$tmp/screen") lines, not 24"
awk 'length($0) > 80 { exit 1 }' "$tmp/screen" || fail "a line is wider than 80 columns"
sed -n 1p "$tmp/screen" | grep -Eq '^perfmini top: [0-9]+ samples/s, [0-9]+ in the last ' ||
	fail "line 1 does not say the rate and the window: $(sed -n 1p "$tmp/screen")"
# (the command's line is long: cut at 80 columns, its end marked)
sed -n 2p "$tmp/screen" | grep -Eq "^command 'sh -c echo .*(' runs; cpu-clock at 999 Hz|\.\.\.)\$" ||
	fail "line 2 does not say what is recorded: $(sed -n 2p "$tmp/screen")"
sed -n 3p "$tmp/screen" | grep -qx 'functions by self share; no zoom' ||
	fail "line 3 does not say the rows and the order: $(sed -n 3p "$tmp/screen")"
sed -n 4p "$tmp/screen" | grep -Eq '^ +Self% +Total% +Module +Function$' ||
	fail "no heading on line 4: $(sed -n 4p "$tmp/screen")"
sed -n 5p "$tmp/screen" | grep -Eq '^> .* mix +mix_a$' ||
	fail "under NO_COLOR the cursor is not a '>' on mix_a: $(sed -n 5p "$tmp/screen")"
sed -n 24p "$tmp/screen" | grep -q 'q quit' || fail "no keys on the last line"
a=$(field 1 1 | tr -d %)
b=$(field 2 1 | tr -d %)
say "screen: mix_a $a%, mix_b $b%"
near70 "$a" "$b" || fail "mix_a $a% and mix_b $b% are not 70:30 within 10 points"
screen -e
if grep -q "$(printf '\033')\[" "$tmp/screen"; then
	fail "NO_COLOR: the screen has attributes"
fi

# s: by Total%, descending, main above mix_a; s again: by Self%.
press s
wait_screen '^functions by total share' 10 || fail "s: not ordered by total share"
cat "$tmp/screen" >&3
awk '/^>? *Self% +Total%/ { f = 1; next }
	f && NF >= 4 { sub(/^>/, ""); t = $2 + 0; if (seen && t > prev) bad = 1; prev = t; seen = 1
		if ($4 == "main" && !m) m = NR; if ($4 == "mix_a" && !x) x = NR }
	END { exit !(seen && !bad && m && x && m < x) }' "$tmp/screen" ||
	fail "s: the rows are not by Total% with main above mix_a"
press s
wait_screen '^functions by self share' 10 || fail "s again: not back to self share"
wait_screen '^> .* mix +mix_a$' 10 || fail "s again: the cursor is not on mix_a"

# c: mix_a's callers; e on mix_round: its callees; b: back.
press c
wait_screen '^Callers of mix_a \(mix\)' 10 || fail "c: no callers of mix_a"
cat "$tmp/screen" >&3
[ "$(field 1 4)" = mix_round ] || fail "c: mix_a's first caller is not mix_round: $(field 1 4)"
share=$(field 1 1 | tr -d %)
awk -v s="$share" 'BEGIN { exit !(s >= 95) }' || fail "c: mix_round is in $share% of mix_a's samples"
press e
wait_screen '^Callees of mix_round \(mix\)' 10 || fail "e: no callees of mix_round"
cat "$tmp/screen" >&3
if [ "$(field 1 4)" != mix_a ] || [ "$(field 2 4)" != mix_b ]; then
	fail "e: mix_round's callees are not mix_a then mix_b"
fi
a=$(field 1 1 | tr -d %)
b=$(field 2 1 | tr -d %)
say "callees of mix_round: mix_a $a%, mix_b $b%"
near70 "$a" "$b" || fail "e: mix_a $a% and mix_b $b% of mix_round are not 70:30"
press b
press b
wait_screen '^ +Self% +Total% +Module +Function$' 10 || fail "b: not back to the table"

# space: paused, the window's count stays; space again: it moves.
press Space
wait_screen '\[paused: space goes on\]' 10 || fail "space: not paused"
c1=$(count)
sleep 2.5
c2=$(count)
say "paused: $c1 then $c2 samples in the window"
if [ -z "$c1" ] || [ "$c1" != "$c2" ]; then
	fail "paused, the window's count moved: $c1 then $c2"
fi
press Space
n=100
while [ "$(count)" = "$c2" ] || grep -q paused "$tmp/screen"; do
	[ "$n" -gt 0 ] || fail "space again: the table does not move"
	n=$((n - 1))
	sleep 0.1
done

# p, t: zoom into mix's process, its thread (the same id), and back.
wait_screen '^> .* mix +mix_a$' 10 || fail "the cursor is not on mix_a before the zoom"
press p
wait_screen "^functions by self share; only process $pid \\(mix\\)\$" 10 ||
	fail "p: no zoom into process $pid"
[ "$(field 1 4)" = mix_a ] || fail "p: mix_a is not first in mix's process"
press p
wait_screen '^functions by self share; no zoom$' 10 || fail "p again: the zoom stays"
press t
wait_screen "^functions by self share; only thread $pid \\(mix\\)\$" 10 ||
	fail "t: no zoom into thread $pid"
press t
wait_screen '^functions by self share; no zoom$' 10 || fail "t again: the zoom stays"

# q: exit 0, the main screen back, mix stopped.
press q
n=100
while [ ! -s "$tmp/rc" ]; do
	[ "$n" -gt 0 ] || fail "q: top did not end in 10 s"
	n=$((n - 1))
	sleep 0.1
done
[ "$(cat "$tmp/rc")" = 0 ] || fail "q: exit $(cat "$tmp/rc"), not 0"
screen
if grep -q '^perfmini top: ' "$tmp/screen"; then
	fail "q: the view's screen is still shown"
fi
n=50
while alive "$pid"; do
	[ "$n" -gt 0 ] || fail "q: mix ($pid) still runs"
	n=$((n - 1))
	sleep 0.1
done
tm kill-session -t pm

# Colours: the cursor in reverse video, no '>'; Control-C ends it, exit 0.
rm -f "$tmp/rc"
tm -f /dev/null new-session -d -s pm -x 80 -y 24 \
	"env -u NO_COLOR '$PERFMINI' top -- '$TARGETS/mix' 70 120; echo \$? >'$tmp/rc'; sleep 600"
wait_screen '^ +Self% +Total% +Module +Function$' 60 || fail "no table without NO_COLOR"
sleep 1.5
screen -e
sed -n 5p "$tmp/screen" | grep -Eq "$(printf '\033')\\[([0-9]*;)*7m" ||
	fail "without NO_COLOR the cursor's row is not in reverse video: $(sed -n 5p "$tmp/screen")"
screen
if grep -q '^>' "$tmp/screen"; then
	fail "without NO_COLOR the cursor is a '>'"
fi
press C-c
n=100
while [ ! -s "$tmp/rc" ]; do
	[ "$n" -gt 0 ] || fail "Control-C: top did not end in 10 s"
	n=$((n - 1))
	sleep 0.1
done
[ "$(cat "$tmp/rc")" = 0 ] || fail "Control-C: exit $(cat "$tmp/rc"), not 0"
exit 0
