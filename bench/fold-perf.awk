# SPDX-License-Identifier: GPL-2.0-or-later
# fold-perf.awk - fold 'perf script' output into folded stacks, the
# perf side of the benchmark's stop-to-folded comparison.
#
# usage: perf script [-F comm,tid,ip,sym,dso[,srcline]] [--inline] | awk -f fold-perf.awk
#
# Input: one block per sample, a header line (COMM PID[/TID] ...) and then
# one line per frame, leaf first ("\tADDR SYM+OFF (DSO)"), with the frame's
# source line on the next line ("  FILE:LINE") when srcline is asked for;
# a blank line ends the block. Output: "comm;outermost;...;leaf COUNT", one
# line per distinct stack, as perfmini report prints it: kernel frames
# end in _[k], inlined frames in _[i], with srcline a frame is
# FUNCTION:FILE:LINE. Unresolved frames are [DSO+0xADDR].
# Written for this benchmark (POSIX awk, runs under mawk and gawk).

function flush(   key, i) {
	if (comm == "")
		return
	key = comm
	for (i = n; i >= 1; i--)
		key = key ";" frame[i]
	count[key]++
	comm = ""
	n = 0
}

function basename(p) {
	sub(/.*\//, "", p)
	return p
}

/^$/ { flush(); next }

# A frame: a tab, spaces, the address, then symbol and (dso).
/^\t/ {
	line = $0
	sub(/^[ \t]+/, "", line)
	sp = index(line, " ")
	addr = substr(line, 1, sp - 1)
	rest = substr(line, sp + 1)
	inl = 0
	if (rest ~ / \(inlined\)$/) {
		inl = 1
		sub(/ \(inlined\)$/, "", rest)
	}
	dso = ""
	if (match(rest, / \([^()]*\)$/)) {
		dso = substr(rest, RSTART + 2, RLENGTH - 3)
		rest = substr(rest, 1, RSTART - 1)
	}
	sub(/\+0x[0-9a-f]+$/, "", rest)
	if (rest == "[unknown]" || rest == "")
		rest = "[" (dso == "" || dso == "[unknown]" ? "unknown" : basename(dso)) "+0x" addr "]"
	gsub(/;/, ":", rest)
	if (dso ~ /^\[kernel/ || dso ~ /\.ko$/)
		rest = rest "_[k]"
	else if (inl)
		rest = rest "_[i]"
	frame[++n] = rest
	next
}

# A source line under the frame before it.
/^  / {
	src = $0
	sub(/^ +/, "", src)
	if (src ~ / \(inlined\)$/) {
		sub(/ \(inlined\)$/, "", src)
		if (n > 0 && frame[n] !~ /_\[i\]$/)
			frame[n] = frame[n] "_[i]"
	}
	if (n > 0 && src ~ /[^?]:[0-9]+$/ && src !~ /^\[/) {
		sfx = ""
		if (match(frame[n], /_\[[ik]\]$/)) {
			sfx = substr(frame[n], RSTART)
			frame[n] = substr(frame[n], 1, RSTART - 1)
		}
		frame[n] = frame[n] ":" src sfx
	}
	next
}

# A header: the comm is everything before the pid/tid field.
{
	flush()
	if (match($0, / +[0-9]+(\/[0-9]+)? /))
		comm = substr($0, 1, RSTART - 1)
	else
		comm = $1
	gsub(/;/, ":", comm)
	if (comm == "")
		comm = "[unknown]"
	n = 0
}

END {
	flush()
	for (k in count)
		print k, count[k]
}
