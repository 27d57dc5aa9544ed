#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The output file is made safely. 'perfmini record -q -o DIR/out.data --
# spin-pie 0.1' run as root, with, planted beforehand by someone else:
#  1. nothing: the file is a regular file of mode 0600 (under umask 022
#     and 077 as under 0), and reads back;
#  2. an older file of mode 0644 under the name: replaced by a 0600 file;
#  3. a symbolic link at the name to a file outside DIR: the file outside
#     is untouched (same content, mode and owner), and the name is now a
#     regular 0600 file;
#  4. a dangling symbolic link at the name to a path outside DIR: nothing
#     is created there;
#  5. a hard link at the name to a file outside DIR: that file is
#     untouched (rename replaces the name, never writes the old inode);
#  6. symbolic links at 200 plausible temporary names (out.data.tmp,
#     out.data.tmp.XXXXXX with random Xs, out.data~, .out.data.tmp,
#     out.data.new, out.data.part...), all to the file outside: it is
#     untouched and every link is still there, a link;
#  7. a directory at the name: exit 1, one line on stderr naming it, the
#     directory unchanged, no temporary file left.
# And 'perfmini report --svg -o NAME' with a symbolic link at NAME to the
# file outside: the file outside is untouched.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
dir=$tmp/out
outside=$tmp/outside
mkdir "$dir" "$outside"
printf 'precious: not a perfmini file\n' >"$outside/victim"
chmod 640 "$outside/victim"
victim_state() {
	echo "$(cksum <"$outside/victim") $(stat -c '%a %u %g %h' "$outside/victim")"
}
before=$(victim_state)

# rec: records into $dir/out.data, must succeed.
rec() {
	run_record 60 "$dir/out.data" -- "$TARGETS/spin-pie" 0.1
}

# check_output WHAT: out.data is a regular 0600 file that reads back, the
# victim is untouched and no temporary file is left.
check_output() {
	[ ! -L "$dir/out.data" ] || fail "$1: out.data is still a symbolic link"
	[ -f "$dir/out.data" ] || fail "$1: out.data is not a regular file"
	co_mode=$(stat -c %a "$dir/out.data")
	[ "$co_mode" = 600 ] || fail "$1: out.data has mode $co_mode, want 600"
	[ "$(stat -c %u "$dir/out.data")" = "$(id -u)" ] || fail "$1: out.data is not ours"
	"$PERFMINI" report -i "$dir/out.data" --folded >/dev/null 2>"$tmp/rep.err" ||
		fail "$1: out.data does not read back: $(cat "$tmp/rep.err")"
	[ "$(victim_state)" = "$before" ] ||
		fail "$1: the file outside was changed: $(victim_state), was $before"
	# shellcheck disable=SC2010 # the names are ours or mkostemp's
	co_left=$(ls -A "$dir" | grep -v '^out\.data$' || :)
	[ -z "$co_left" ] || fail "$1: left in the directory: $co_left"
	say "$1: ok"
}

# 1. Mode, whatever the umask.
old_umask=$(umask)
for m in 022 077 000; do
	umask "$m"
	rec
	umask "$old_umask"
	check_output "umask $m"
	rm -f "$dir/out.data"
done

# 2. An older, more open file.
printf 'old\n' >"$dir/out.data"
chmod 644 "$dir/out.data"
rec
check_output "older 0644 file"
rm -f "$dir/out.data"

# 3. A symbolic link to a file outside.
ln -s "$outside/victim" "$dir/out.data"
rec
check_output "symbolic link to a file outside"
rm -f "$dir/out.data"

# 4. A dangling symbolic link.
ln -s "$outside/created" "$dir/out.data"
rec
if [ -e "$outside/created" ] || [ -L "$outside/created" ]; then
	fail "dangling link: $outside/created was created through it"
fi
check_output "dangling symbolic link"
rm -f "$dir/out.data"

# 5. A hard link.
ln "$outside/victim" "$dir/out.data"
before=$(victim_state) # the link count is 2 now
rec
before=$(echo "$before" | awk '{ $NF = 1; print }')
check_output "hard link to a file outside"
rm -f "$dir/out.data"

# 6. Plausible temporary names.
names="out.data.tmp out.data~ .out.data.tmp .out.data.swp out.data.new out.data.part
out.data.partial out.data.swp out.data.tmp.0 out.data.tmp.000000 out.data.tmp.XXXXXX
out.data.XXXXXX .out.data.XXXXXX out.data.1 out.data.bak"
chars=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789
i=0
while [ "$i" -lt 185 ]; do
	suffix=$(od -An -N6 -tu1 /dev/urandom | awk -v c="$chars" '{
		s = ""
		for (k = 1; k <= NF; k++)
			s = s substr(c, $k % 62 + 1, 1)
		print s
	}')
	names="$names out.data.tmp.$suffix"
	i=$((i + 1))
done
n=0
for name in $names; do
	ln -s "$outside/victim" "$dir/$name" 2>/dev/null && n=$((n + 1))
done
say "planted $n symbolic links at temporary names"
rec
for name in $names; do
	[ -L "$dir/$name" ] || fail "temporary names: the link $name was replaced or removed"
done
[ "$(victim_state)" = "$before" ] || fail "temporary names: the file outside was changed"
for name in $names; do
	rm -f "$dir/$name"
done
check_output "links at temporary names"
rm -f "$dir/out.data"

# 7. A directory at the name.
mkdir "$dir/out.data"
: >"$dir/out.data/inside"
rc=0
run_timeout 60 "$PERFMINI" record -q -o "$dir/out.data" -- "$TARGETS/spin-pie" 0.1 \
	>"$tmp/dir.out" 2>"$tmp/dir.err" || rc=$?
say "a directory at the output name: exit $rc: $(head -c 300 "$tmp/dir.err")"
[ "$rc" -eq 1 ] || fail "a directory at the output name: exit $rc, want 1"
[ "$(awk 'END { print NR }' "$tmp/dir.err")" -eq 1 ] ||
	fail "a directory at the output name: not exactly one line on stderr"
grep -qF "$dir/out.data" "$tmp/dir.err" || fail "a directory at the output name: not named"
if [ ! -d "$dir/out.data" ] || [ ! -f "$dir/out.data/inside" ]; then
	fail "a directory at the output name: the directory was changed"
fi
# shellcheck disable=SC2010 # the names are ours or mkostemp's
left=$(ls -A "$dir" | grep -v '^out\.data$' || :)
[ -z "$left" ] || fail "a directory at the output name: left $left"
rm -rf "$dir/out.data"

# The report's own output file.
run_record 60 "$tmp/rec.data" -- "$TARGETS/spin-pie" 0.1
ln -s "$outside/victim" "$dir/report.svg"
rc=0
run_timeout 60 "$PERFMINI" report -i "$tmp/rec.data" --svg -o "$dir/report.svg" \
	>/dev/null 2>"$tmp/svg.err" || rc=$?
[ "$rc" -eq 0 ] || fail "report --svg -o over a link: exit $rc: $(cat "$tmp/svg.err")"
[ "$(victim_state)" = "$before" ] || fail "report --svg -o: the file outside was changed"
if [ ! -f "$dir/report.svg" ] || [ -L "$dir/report.svg" ]; then
	fail "report --svg -o: the output is not a regular file"
fi
