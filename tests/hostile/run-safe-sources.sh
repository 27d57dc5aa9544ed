#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'report --annotate' as root reads no file that a user's debug
# information names. A program compiled here whose hot function's lines
# say they are in a root-only secret file (#line "SECRET", and the same
# through "../" joined to its compilation directory), its binary owned by
# another user (uid 65533), recorded and annotated by root:
#  1. nothing of the secret is shown, and the report says why (the
#     module belonged to uid 65533); --asm disassembles the program (its
#     build-id checks it) but prints no line of the secret either;
#  2. the same binary owned by root: the secret's lines are shown (the
#     check above can fail);
#  3. a root-owned program whose lines say /proc/self/environ: nothing of
#     the report's environment is shown;
#  4. with --source-dir naming a directory the user controls, a link
#     there to the secret is not followed out of it.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
[ "$(id -u)" -eq 0 ] || skip "the test plays root and another user"
command -v gcc >/dev/null 2>&1 || fail "gcc is needed"
chmod 755 "$tmp"
secret=$tmp/secret
{
	echo 'line 1 of the secret'
	i=2
	while [ "$i" -le 40 ]; do
		echo "SECRET-MARKER-$i"
		i=$((i + 1))
	done
} >"$secret"
chmod 600 "$secret"

# build NAME LINE-FILE: a program whose hot() says its lines are in LINE-FILE.
build() {
	cat >"$tmp/$1.c" <<EOF
#include <stdlib.h>
#include <time.h>
#line 10 "$2"
__attribute__((noinline)) static unsigned long hot(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	return s;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	unsigned long s = 0;
	volatile unsigned long n = 100000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		s += hot(n);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return (int)(s & 1);
}
EOF
	(cd "$tmp" && gcc -g -O1 -fno-omit-frame-pointer -Wl,--build-id -o "$1" "$1.c") ||
		fail "cannot compile $1"
}

# annotate NAME [ARGS...]: root's report --annotate=hot of NAME's recording, into NAME.ann.
annotate() {
	an_name=$1
	shift
	"$PERFMINI" report -i "$tmp/$an_name.data" --annotate=hot "$@" >"$tmp/$an_name.ann" \
		2>"$tmp/$an_name.err" || fail "report --annotate of $an_name: $(cat "$tmp/$an_name.err")"
}

# 1. The user's program names the secret, directly and through "..".
up=$(echo "$tmp" | sed 's|[^/][^/]*|..|g')
build direct "$secret"
build climb "../../../../../../../../..$up$secret"
for name in direct climb; do
	chown 65533:65533 "$tmp/$name"
	run_record 60 "$tmp/$name.data" -- "$tmp/$name" 0.5
	annotate "$name"
	grep -q '^Function: hot' "$tmp/$name.ann" || fail "$name: hot is not annotated"
	if grep -q SECRET-MARKER "$tmp/$name.ann"; then
		fail "$name: the secret was shown: $(grep -m 2 SECRET-MARKER "$tmp/$name.ann")"
	fi
	grep -q 'not read where recorded: the module belonged to uid 65533' "$tmp/$name.ann" ||
		fail "$name: no reason given: $(grep '^Source' "$tmp/$name.ann")"
	say "$name: $(grep '^Source' "$tmp/$name.ann")"
done
if "$PERFMINI" report -i "$tmp/direct.data" --annotate=hot --asm >"$tmp/asm.ann" 2>"$tmp/asm.err"; then
	grep -q 'Instruction' "$tmp/asm.ann" || say "--asm showed no instruction: $(cat "$tmp/asm.ann")"
	if grep -q SECRET-MARKER "$tmp/asm.ann"; then
		fail "--asm: the secret was shown: $(grep -m 2 SECRET-MARKER "$tmp/asm.ann")"
	fi
else
	fail "report --annotate --asm failed: $(cat "$tmp/asm.err")"
fi

# 2. Root's own program: its lines are read (the checks above can fail).
chown 0:0 "$tmp/direct"
run_record 60 "$tmp/direct.data" -- "$tmp/direct" 0.5
annotate direct
grep -q SECRET-MARKER "$tmp/direct.ann" ||
	fail "root's own program: its source lines were not shown: $(cat "$tmp/direct.ann")"

# 3. /proc/self/environ, named by root's own program.
build environ /proc/self/environ
run_record 60 "$tmp/environ.data" -- "$tmp/environ" 0.5
PM_ENV_MARKER=ENVIRON-MARKER annotate environ
if grep -q ENVIRON-MARKER "$tmp/environ.ann"; then
	fail "/proc/self/environ was shown: $(grep -m 1 ENVIRON-MARKER "$tmp/environ.ann")"
fi

# 4. --source-dir of the user's, with a link in it out to the secret.
mkdir "$tmp/usersrc"
ln -s "$tmp" "$tmp/usersrc/up"
chown -h -R 65533:65533 "$tmp/usersrc"
chown 65533:65533 "$tmp/direct"
build linked "/src/up/secret"
chown 65533:65533 "$tmp/linked"
run_record 60 "$tmp/linked.data" -- "$tmp/linked" 0.5
annotate linked --source-dir "$tmp/usersrc"
if grep -q SECRET-MARKER "$tmp/linked.ann"; then
	fail "--source-dir: a link led out to the secret: $(grep -m 1 SECRET-MARKER "$tmp/linked.ann")"
fi
say "no secret shown; root's own program's lines shown"
