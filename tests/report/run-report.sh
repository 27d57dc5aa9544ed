#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every report format through the command, on the synthetic recording of
# tests/report/report-synth.c (written as a data file by tests/report/report-gen), with
# no perf events needed:
#   top and folded: the output equals tests/report/golden/NAME, for each filter,
#     root variant and sort (COLUMNS fixes the width; stdout is not a tty,
#     so top prints every row);
#   pprof: gunzipped by gzip, decoded by protoc --decode_raw and checked
#     field by field by report-pprof.py, for several filters; decoded by
#     protoc --decode with tests/report/report-profile.proto, for the wire types;
#   svg: parsed as XML and checked frame by frame by report-svg.py
#     (and by xmllint when it is there);
#   output files: the default names, -o FILE, -o -, the mode;
#   data file versions: a version 1 file kept in tests/report/golden still reads
#     the same; a newer version is refused in one line;
#   usage errors exit 2 with one message.
# Set PM_UPDATE_GOLDEN=1 to rewrite the goldens from this build instead.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

golden=$srcdir/tests/report/golden
data=$tmp/synth.data
"$top_builddir/tests/report/report-gen" "$data" || fail "report-gen could not write $data"

for tool in python3 protoc gzip; do
	command -v "$tool" >/dev/null 2>&1 ||
		fail "$tool is needed (Debian: python3, protobuf-compiler, gzip)"
done

# report OUT ARGS...: perfmini report of the synthetic file into OUT; it
# must succeed with nothing on stderr.
report() {
	rp_out=$1
	shift
	rp_rc=0
	COLUMNS=${cols:-100} "$PERFMINI" report -i "$data" "$@" >"$rp_out" 2>"$tmp/report.err" ||
		rp_rc=$?
	[ "$rp_rc" -eq 0 ] || fail "report $* exited $rp_rc: $(head -c 300 "$tmp/report.err")"
	[ ! -s "$tmp/report.err" ] || fail "report $* wrote to stderr: $(head -c 300 "$tmp/report.err")"
}

# golden NAME ARGS...: the report with ARGS must equal tests/report/golden/NAME.
golden() {
	gd_name=$1
	shift
	report "$tmp/$gd_name" "$@"
	if [ -n "${PM_UPDATE_GOLDEN:-}" ]; then
		cp "$tmp/$gd_name" "$golden/$gd_name"
		say "updated tests/report/golden/$gd_name"
		return 0
	fi
	[ -f "$golden/$gd_name" ] || fail "no tests/report/golden/$gd_name"
	diff -u "$golden/$gd_name" "$tmp/$gd_name" >&3 ||
		fail "report $* differs from tests/report/golden/$gd_name"
}

# tty_golden NAME COLS ARGS...: the report with ARGS on a terminal COLS
# wide (script(1) gives it a pseudo-terminal) must equal tests/report/golden/NAME.
tty_golden() {
	tg_name=$1 tg_cols=$2
	shift 2
	script -qec "stty cols $tg_cols rows 50; \"$PERFMINI\" report -i \"$data\" $*" /dev/null |
		tr -d '\r' >"$tmp/$tg_name" || fail "report $* on a terminal failed"
	if [ -n "${PM_UPDATE_GOLDEN:-}" ]; then
		cp "$tmp/$tg_name" "$golden/$tg_name"
		say "updated tests/report/golden/$tg_name"
		return 0
	fi
	diff -u "$golden/$tg_name" "$tmp/$tg_name" >&3 ||
		fail "report $* on a $tg_cols-column terminal differs from tests/report/golden/$tg_name"
}

# Top. Off a terminal nothing is cut, whatever COLUMNS says (only the
# header wraps at it); on a terminal the table fits its width, names cut
# in the middle so that a C++ function keeps its own name.
cols=100
golden top.txt
golden top.txt --top
golden top-lines.txt --lines
golden top-total.txt --sort total -n 5
golden top-filtered.txt --pid 100 --time 1, --no-kernel
golden top-module.txt --sort module
cols=60
golden top-narrow.txt
golden top-narrow-lines.txt --lines
cols=300
golden top-full-paths.txt --lines --full-paths
cols=100
command -v script >/dev/null 2>&1 || fail "script is needed (Debian: bsdutils)"
tty_golden top-tty-80.txt 80 --lines
tty_golden top-tty-60.txt 60
tty_golden top-tty-full-paths.txt 100 --lines --full-paths
tty_golden top-tty-module.txt 60 --sort module -n 3

# Folded, and each filter and root variant on it.
golden folded.txt --folded
golden folded-pid.txt --folded --pid 100
golden folded-tid.txt --folded --tid 101,300
golden folded-comm.txt --folded --comm other,java
golden folded-time.txt --folded --time 1.5,2
golden folded-time-from.txt --folded --time 2.9,
golden folded-time-to.txt --folded --time ,0.5
golden folded-no-kernel.txt --folded --no-kernel
golden folded-kernel-only.txt --folded --kernel-only
golden folded-per-pid.txt --folded --per-pid
golden folded-per-tid.txt --folded --per-tid
golden folded-per-pid-time.txt --folded --per-pid --time 1,2.5 --kernel-only

# pprof and svg: decoded independently, and compared with the folded
# report of the same filters.
check_pprof_svg() {
	cs_extra=$1
	shift
	report "$tmp/cs.folded" --folded "$@"
	report "$tmp/cs.pb.gz" --pprof -o - "$@"
	gzip -dc "$tmp/cs.pb.gz" >"$tmp/cs.pb" || fail "pprof $*: not gzip"
	protoc --decode_raw <"$tmp/cs.pb" >"$tmp/cs.decoded" 2>"$tmp/cs.protoc" ||
		fail "pprof $*: protoc --decode_raw failed: $(head -c 300 "$tmp/cs.protoc")"
	case " $* " in
	*" --per-pid "* | *" --per-tid "*) cs_roots=--roots-in-stack ;;
	*) cs_roots= ;;
	esac
	protoc --proto_path="$srcdir/tests/report" --decode=perftools.profiles.Profile \
		report-profile.proto <"$tmp/cs.pb" >"$tmp/cs.typed" 2>"$tmp/cs.protoc" ||
		fail "pprof $*: not a Profile by the schema: $(head -c 300 "$tmp/cs.protoc")"
	[ "$(grep -c '^sample {' "$tmp/cs.typed")" = "$(grep -c '^2 {' "$tmp/cs.decoded")" ] ||
		fail "pprof $*: the typed and the raw decoding disagree"
	# shellcheck disable=SC2086 # no option, or one
	python3 "$srcdir/tests/report/report-pprof.py" "$tmp/cs.decoded" "$tmp/cs.folded" \
		$cs_roots $cs_extra 2>&3 || fail "pprof $*: see above"
	report "$tmp/cs.svg" --svg -o - "$@"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$tmp/cs.svg" 2>&3 || fail "svg $*: xmllint refuses it"
	fi
	# shellcheck disable=SC2086 # no option, or one
	python3 "$srcdir/tests/report/report-svg.py" "$tmp/cs.svg" "$tmp/cs.folded" $cs_extra 2>&3 ||
		fail "svg $*: see above"
}
check_pprof_svg --synth
check_pprof_svg "" --per-pid
check_pprof_svg "" --per-tid
check_pprof_svg "" --no-kernel
check_pprof_svg "" --kernel-only
check_pprof_svg "" --time 1.5,2
check_pprof_svg "" --tid 101 --comm work\;er
check_pprof_svg "" --no-inline
check_pprof_svg "" --pid 999

# The per-sample exports: --script against its golden, then --script and
# --json read back and folded, for several filters.
golden script.txt --script
check_script() {
	cs_extra=$1
	shift
	report "$tmp/sc.folded" --folded "$@"
	report "$tmp/sc.txt" --script "$@"
	report "$tmp/sc.json" --json "$@"
	# shellcheck disable=SC2086 # no option, or one
	python3 "$srcdir/tests/report/report-script.py" "$tmp/sc.txt" "$tmp/sc.json" "$tmp/sc.folded" \
		$cs_extra "$@" 2>&3 || fail "--script/--json $*: see above"
}
check_script --synth
check_script "" --no-kernel
check_script "" --kernel-only
check_script "" --time 1.5,2 --pid 100
check_script "" --no-inline
check_script "" --lines
check_script "" --pid 999

# Output files: default names, -o, and the mode (an ordinary file).
mkdir "$tmp/out"
(
	cd "$tmp/out"
	umask 022
	"$PERFMINI" report -i "$data" --svg 2>"$tmp/out.err" || exit 1
	"$PERFMINI" report -i "$data" --pprof 2>>"$tmp/out.err" || exit 1
	"$PERFMINI" report -i "$data" --folded -o stacks.txt 2>>"$tmp/out.err" || exit 1
) || fail "writing the default output files failed: $(cat "$tmp/out.err")"
[ -f "$tmp/out/perfmini.svg" ] || fail "--svg did not write perfmini.svg"
[ -f "$tmp/out/perfmini.pb.gz" ] || fail "--pprof did not write perfmini.pb.gz"
grep -q "wrote perfmini.svg" "$tmp/out.err" || fail "no 'wrote perfmini.svg' message"
report "$tmp/folded.stdout" --folded -o -
cmp -s "$tmp/out/stacks.txt" "$tmp/folded.stdout" || fail "-o FILE and -o - differ"
for left in "$tmp"/out/*.tmp.*; do
	[ -e "$left" ] && fail "a temporary file was left: $left"
done
mode=$(stat -c %a "$tmp/out/perfmini.svg")
[ "$mode" = 644 ] || fail "perfmini.svg has mode $mode under umask 022, want 644"
gzip -t "$tmp/out/perfmini.pb.gz" || fail "perfmini.pb.gz is not gzip"

# Data file versions: each earlier version reads, a newer one is refused.
v1=$golden/synth-v1.data
if [ -n "${PM_UPDATE_GOLDEN:-}" ] && [ ! -f "$v1" ]; then
	cp "$data" "$v1"
fi
[ "$(od -An -tu4 -j8 -N4 "$v1" | tr -d ' ')" = 1 ] || fail "tests/report/golden/synth-v1.data is not version 1"
"$PERFMINI" report -i "$v1" --folded >"$tmp/v1.folded" 2>&3 || fail "a version 1 file is refused"
diff -u "$golden/folded.txt" "$tmp/v1.folded" >&3 || fail "the version 1 file reads differently"

# expect_error WHAT STATUS PATTERN ARGS...: report ARGS must exit STATUS with
# one line on stderr matching PATTERN, then at most a "Try" hint.
expect_error() {
	ee_what=$1 ee_status=$2 ee_pat=$3
	shift 3
	ee_rc=0
	"$PERFMINI" report "$@" >"$tmp/ee.out" 2>"$tmp/ee.err" || ee_rc=$?
	say "$ee_what: exit $ee_rc: $(head -n 1 "$tmp/ee.err")"
	[ "$ee_rc" -eq "$ee_status" ] || fail "$ee_what: exit $ee_rc, want $ee_status"
	[ "$(grep -vc '^Try ' "$tmp/ee.err")" -eq 1 ] || fail "$ee_what: not one line: $(cat "$tmp/ee.err")"
	grep -Eq -e "$ee_pat" "$tmp/ee.err" || fail "$ee_what: stderr does not say /$ee_pat/"
	[ ! -s "$tmp/ee.out" ] || fail "$ee_what: wrote to stdout"
}

cp "$data" "$tmp/v99.data"
printf '\143' | dd of="$tmp/v99.data" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_error "version 99" 1 "version 99 .*newer perfmini" -i "$tmp/v99.data"
printf '\000' | dd of="$tmp/v99.data" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_error "version 0" 1 "version 0 is not one" -i "$tmp/v99.data" --svg -o -

expect_error "two formats" 2 "choose one format" -i "$data" --top --svg
expect_error "kernel options" 2 "exclude each other" -i "$data" --no-kernel --kernel-only
expect_error "root options" 2 "exclude each other" -i "$data" --per-pid --per-tid
expect_error "bad time" 2 "--time: '2,1'" -i "$data" --time 2,1
expect_error "time without comma" 2 "--time: '1.5'" -i "$data" --time 1.5
expect_error "bad pid" 2 "--pid: 'x'" -i "$data" --pid x
expect_error "bad sort" 2 "--sort: 'name' is not self, total, or keys among comm, pid, tid, cgroup, module, symbol" -i "$data" --sort name
expect_error "-n elsewhere" 2 "applies to --top, --tree and --annotate" -i "$data" --svg -n 3
expect_error "sort total elsewhere" 2 "takes comm, pid, tid or cgroup" -i "$data" --folded --sort total
expect_error "missing file" 1 "cannot open" -i "$tmp/nothing.data"
expect_error "unwritable output" 1 "cannot create" -i "$data" --svg -o "$tmp/no/dir/x.svg"

# --help names every option.
"$PERFMINI" report --help >"$tmp/help" || fail "--help failed"
for opt in --top --folded --pprof --svg --script --json --output --rows --sort --pid --tid --comm --time \
	--no-kernel --kernel-only --per-pid --per-tid --lines --full-paths --no-inline \
	flamegraph.pl "go tool pprof" speedscope; do
	grep -q -- "$opt" "$tmp/help" || fail "--help does not mention $opt"
done
exit 0
