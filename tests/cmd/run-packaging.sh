#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What a packager and a new user meet before profiling anything:
#   the licence: COPYING holds the GPL version 2 text, and every source
#     file (C, shell, Python, Makefile.am, man page) names it in an SPDX
#     line among its first three;
#   configure refuses a CPU other than x86-64, in one clear message,
#     before it looks for a compiler;
#   configure without Check succeeds and says the unit tests need it;
#     make check then stops with the same advice;
#   the bash completion completes commands, every option of each
#     command's --help, and the values of options with a fixed set
#     (loaded after the bash-completion package when it is installed, as
#     a shell has it); make installs it under the configured directory;
#   every option of each command's --help is in its manual page.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
# configure runs in directories of its own below: an absolute source path.
srcdir=$(cd "$srcdir" && pwd)

# Licence.
if ! grep -q "GNU GENERAL PUBLIC LICENSE" "$srcdir/COPYING" ||
	! grep -q "Version 2, June 1991" "$srcdir/COPYING"; then
	fail "COPYING is not the GPL version 2"
fi
unlicensed=$(find "$srcdir/src" "$srcdir/tests" "$srcdir/scripts" "$srcdir/man" "$srcdir/bench" \
	-type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.sh' -o -name '*.py' -o \
	-name '*.am' -o -name '*.[15]' -o -name '*.js' \) ! -path '*/_build*' -print |
	while read -r f; do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || echo "$f"
	done)
[ -z "$unlicensed" ] || fail "no SPDX line in: $(echo "$unlicensed" | head -n 5 | tr '\n' ' ')"

# Another CPU: refused, saying why.
mkdir "$tmp/arm"
rc=0
(cd "$tmp/arm" && "$srcdir/configure" --host=aarch64-linux-gnu >out 2>err) || rc=$?
[ "$rc" -ne 0 ] || fail "configure --host=aarch64-linux-gnu succeeded"
grep -q "x86-64 only.*host CPU is aarch64" "$tmp/arm/err" ||
	fail "configure for aarch64 does not say it needs x86-64: $(tail -n 3 "$tmp/arm/err")"
say "aarch64: $(grep 'x86-64 only' "$tmp/arm/err")"

# No Check: pkg-config sees every .pc file but check's.
mkdir "$tmp/pc" "$tmp/nocheck"
for dir in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
	for pc in "$dir"/*.pc; do
		[ -e "$pc" ] || continue
		case ${pc##*/} in
		check.pc) ;;
		*) [ -e "$tmp/pc/${pc##*/}" ] || ln -s "$pc" "$tmp/pc/" ;;
		esac
	done
done
PKG_CONFIG_LIBDIR=$tmp/pc pkg-config --exists check && fail "check.pc still visible"
rc=0
(cd "$tmp/nocheck" && PKG_CONFIG_LIBDIR=$tmp/pc "$srcdir/configure" -C >out 2>err) || rc=$?
[ "$rc" -eq 0 ] || fail "configure without Check failed: $(tail -n 3 "$tmp/nocheck/err")"
grep -q "make check' needs it for the unit tests; install the Debian package check" \
	"$tmp/nocheck/err" || fail "configure without Check does not say make check needs it"
# make check, the builds left out (they are tested elsewhere): it must stop
# on the missing Check, saying so, before running any test.
rc=0
make -C "$tmp/nocheck" check bin_PROGRAMS= noinst_PROGRAMS= noinst_LIBRARIES= \
	check_PROGRAMS= check_SCRIPTS= TESTS= >"$tmp/nocheck/make.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "make check without Check succeeded"
grep -q "the unit tests need Check.*install the Debian package check" "$tmp/nocheck/make.out" ||
	fail "make check without Check does not say why: $(tail -n 3 "$tmp/nocheck/make.out")"
say "no Check: $(grep -m1 'need Check' "$tmp/nocheck/make.out")"

# Bash completion, in bash as a shell has it: bash-completion first.
command -v bash >/dev/null 2>&1 || fail "bash is needed (Debian: bash)"
bc=/usr/share/bash-completion/bash_completion
if [ ! -f "$bc" ]; then
	[ "${CI:-}" = true ] && fail "bash-completion is not installed (scripts/deps.sh installs it)"
	bc=
fi
mkdir "$tmp/files"
: >"$tmp/files/app.data"
cat >"$tmp/complete.bash" <<'EOS'
[ -n "$BC" ] && . "$BC"
. "$COMPLETION"
# complete WORD... : the candidates for the last word, one per line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_perfmini perfmini "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
cd "$FILES"
case $1 in
words) shift; complete_words "$PERFMINI" "$@" ;;
options) _perfmini_options "$PERFMINI" "$2" | awk '$1 != "--" { print $1 }' | sort -u ;;
esac
EOS
# comp WORD...: the candidates for the last word into $tmp/comp.out. compopt
# complains outside a real completion (this one is called directly): that
# message alone is allowed.
comp() {
	BC=$bc COMPLETION=$srcdir/completion/perfmini FILES=$tmp/files PERFMINI=$PERFMINI \
		bash "$tmp/complete.bash" words "$@" >"$tmp/comp.out" 2>"$tmp/comp.err" ||
		fail "completing '$*' failed: $(cat "$tmp/comp.err")"
	if grep -v "compopt: not currently executing completion function" "$tmp/comp.err" |
		grep -q .; then
		fail "completing '$*' printed errors: $(cat "$tmp/comp.err")"
	fi
}
# expect "WANT" WORD...: the candidates for WORD... are exactly WANT.
expect() {
	ex_want=$1
	shift
	comp "$@"
	ex_got=$(tr '\n' ' ' <"$tmp/comp.out")
	[ "$ex_got" = "$ex_want " ] || fail "completing '$*': got '$ex_got', want '$ex_want'"
}
expect "--help --version annotate record report script symbolize top" ""
expect "report" rep
expect "--folded --force" report --fo
expect "cgroup comm module pid self symbol tid total" report --sort ""
expect "dwarf" record --call-graph = dw
expect "hybrid" record --call-graph = hy
expect "cpu-clock cpu-cycles" record -e cpu
expect "app.data" report -i ap
expect "sleep" record -F 99 -- slee
expect "cgroup comm module pid self symbol tid total" top -s ""
expect "--delay" top --del
comp record -p "$$"
grep -qx "$$" "$tmp/comp.out" || fail "record -p does not offer process ids"
for cmd in record report script annotate top symbolize; do
	BC=$bc COMPLETION=$srcdir/completion/perfmini FILES=$tmp/files PERFMINI=$PERFMINI \
		bash "$tmp/complete.bash" options "$cmd" >"$tmp/$cmd.opts" ||
		fail "cannot read the options of $cmd"
	# Every option line of --help, independently of the completion's parser.
	"$PERFMINI" "$cmd" --help | grep -E '^ {1,8}-' | grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*' |
		tr -d ' ,' | sort -u >"$tmp/$cmd.help"
	[ "$(wc -l <"$tmp/$cmd.help")" -ge 4 ] || fail "$cmd --help lists too few options"
	cmp -s "$tmp/$cmd.opts" "$tmp/$cmd.help" ||
		fail "the completion's options of $cmd differ from --help: $(diff "$tmp/$cmd.help" "$tmp/$cmd.opts" | tr '\n' ' ')"
	comp "$cmd" -
	sort -u "$tmp/comp.out" >"$tmp/$cmd.offered"
	cmp -s "$tmp/$cmd.offered" "$tmp/$cmd.help" ||
		fail "'perfmini $cmd -<TAB>' does not offer every option: $(diff "$tmp/$cmd.help" "$tmp/$cmd.offered" | tr '\n' ' ')"
	case $cmd in
	record) man=perfmini-record.1 ;;
	report | script | annotate) man=perfmini-report.1 ;;
	top) man=perfmini-top.1 ;;
	symbolize) man=perfmini.1 ;;
	esac
	while read -r opt; do
		# In roff every '-' is '\-'; the option must end there ("--pid" is not "--pid-x").
		grep -qE -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')"'([^a-zA-Z\\]|\\[^-]|$)' \
			"$srcdir/man/$man" ||
			fail "$cmd $opt is not in man/$man"
	done <"$tmp/$cmd.help"
	say "$cmd: $(wc -l <"$tmp/$cmd.help") options completed and documented"
done

# make installs the completion where configure said.
make -s -C "$top_builddir" install-bashcompletionDATA DESTDIR="$tmp/inst" >&3 2>&1 ||
	fail "make install-bashcompletionDATA failed"
installed=$(find "$tmp/inst" -path '*/completions/perfmini' -type f)
[ -n "$installed" ] || fail "the completion was not installed into a completions directory"
cmp -s "$installed" "$srcdir/completion/perfmini" || fail "the installed completion differs"
say "installed ${installed#"$tmp/inst"}"
exit 0
