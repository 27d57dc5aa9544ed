#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Each sample's cgroup: 'record -a' of a shell that starts spin-pie in a
# cgroup v2 directory made before the recording (found by the walk of the
# hierarchy at the start) and twobuilds-O2 in one it makes while recorded
# (reported by the kernel as it is made), a CPU second each:
#   --sort=cgroup           a row for each of the two cgroups, with 80% or
#                           more of the program's CPU second in samples,
#                           under a Cgroup column;
#   --cgroup=PATH           each program alone in its cgroup's samples
#                           (95% or more), spin_hot and tb_step_[i] on top;
#   --folded --sort=cgroup  the cgroup's path as each stack's root frame;
#   --json                  each sample of that spin-pie (by its pid) in
#                           its cgroup;
#   --pprof                 a "cgroup" label on the samples (go tool pprof
#                           -tags reads it);
#   usage errors: a relative path, cgroup with a thread key: exit 2.
# Needs root and a cgroup2 mount (Debian mounts one; a hybrid setup at
# /sys/fs/cgroup/unified).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
[ "$(id -u)" -eq 0 ] || skip "making a cgroup needs root"
mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
	/proc/self/mountinfo | head -n 1)
[ -n "$mnt" ] || skip "no cgroup2 mount in /proc/self/mountinfo"
a=perfmini-$test_name-$$-a
b=perfmini-$test_name-$$-b
mkdir "$mnt/$a" || skip "cannot make a cgroup under $mnt"
trap 'rmdir "$mnt/$a" "$mnt/$b" 2>/dev/null || :; cleanup' EXIT

cat >"$tmp/two.sh" <<EOF
sh -c 'echo \$\$ >"\$1/cgroup.procs" && echo \$\$ >"\$3" && exec "\$2" 1' x "$mnt/$a" \
	"$TARGETS/spin-pie" "$tmp/a.pid" &
mkdir "$mnt/$b"
sh -c 'echo \$\$ >"\$1/cgroup.procs" && exec "\$2" 1' x "$mnt/$b" "$TARGETS/twobuilds-O2" &
wait
EOF
run_record 60 "$tmp/cg.data" -a -F 499 -- sh "$tmp/two.sh"

# report ARGS...: 'perfmini report -i cg.data ARGS...' into $tmp/out.
report() {
	rp_rc=0
	"$PERFMINI" report -i "$tmp/cg.data" "$@" >"$tmp/out" 2>"$tmp/err" || rp_rc=$?
	[ "$rp_rc" -eq 0 ] || fail "report $* exited $rp_rc: $(head -n 2 "$tmp/err")"
}

# share TEXT: the self share of the --top row whose text columns are TEXT.
share() {
	sed -n '/^ Self%/,$p' "$tmp/out" | awk -v want="$1" 'NR > 1 {
		self = $1
		sub(/%$/, "", self)
		text = ""
		for (i = 5; i <= NF; i++)
			text = text (i > 5 ? " " : "") $i
		if (text == want) { print self; found = 1; exit }
	} END { if (!found) print -1 }'
}

# at_least PCT TEXT: the row TEXT has PCT% or more.
at_least() {
	al_got=$(share "$2")
	sed -n '/^ Self%/,$p' "$tmp/out" | head -n 8 >&3
	awk -v g="$al_got" -v m="$1" 'BEGIN { exit !(g >= m) }' ||
		fail "row '$2' has $al_got%, not $1% or more"
}

report --sort=cgroup -n 0
sed -n '/^ Self%/p' "$tmp/out" | grep -Eq '^ Self% +Total% +Self +Total +Cgroup$' ||
	fail "--sort=cgroup: the heading is not Self% Total% Self Total Cgroup"
# count TEXT: the self samples of the --top row whose text columns are TEXT.
count() {
	sed -n '/^ Self%/,$p' "$tmp/out" | awk -v want="$1" 'NR > 1 {
		text = ""
		for (i = 5; i <= NF; i++)
			text = text (i > 5 ? " " : "") $i
		if (text == want) { print $3; found = 1; exit }
	} END { if (!found) print 0 }'
}
# A CPU second each at 499 Hz, whatever else the machine runs meanwhile.
for cg in "/$a" "/$b"; do
	n=$(count "$cg")
	[ "$n" -ge 400 ] || fail "--sort=cgroup: $cg has $n samples, not 400 or more"
done

report --cgroup="/$a" --sort=comm -n 0
at_least 95 spin-pie
report --cgroup="/$a" -n 1
at_least 50 "spin-pie spin_hot"
report --cgroup="/$b" --sort=comm -n 0
at_least 95 twobuilds-O2
report --cgroup="/$b" -n 1
grep -q 'tb_step' "$tmp/out" || fail "--cgroup=/$b: tb_step is not the hottest function"

report --folded --sort=cgroup
roots=$(cut -d';' -f1 "$tmp/out" | sort -u)
echo "$roots" | grep -qx "/$a" || fail "--folded --sort=cgroup: no root frame /$a"
awk -v a="/$a" 'index($0, a ";") == 1 && /spin_hot/ { n += $NF } END { exit !(n > 0) }' \
	"$tmp/out" || fail "--folded --sort=cgroup: no spin_hot stack under /$a"
if echo "$roots" | grep -Evq '^(/.*|\[unknown\])$'; then
	fail "--folded --sort=cgroup: a root frame is not a cgroup path: $(echo "$roots" | head -n 3)"
fi

report --json
# This spin-pie's samples, by its pid (other tests may run spin-pie meanwhile, which
# -a sees) and its name (the shell it was, before it moved into the cgroup, is not).
python3 - "$tmp/out" "/$a" "$(cat "$tmp/a.pid")" <<'EOF' >&3 ||
import json, sys
pid = int(sys.argv[3])
spin = [o for o in map(json.loads, open(sys.argv[1])) if o["pid"] == pid and o["comm"] == "spin-pie"]
bad = [o["cgroup"] for o in spin if o["cgroup"] != sys.argv[2]]
print("spin-pie", pid, "samples:", len(spin), "outside", sys.argv[2], ":", len(bad), bad[:3])
sys.exit(0 if len(spin) > 100 and not bad else 1)
EOF
	fail "--json: spin-pie's samples are not all in /$a"

if command -v go >/dev/null 2>&1; then
	report --pprof -o "$tmp/cg.pb.gz"
	go tool pprof -tags "$tmp/cg.pb.gz" >"$tmp/tags" 2>"$tmp/pp.err" ||
		fail "go tool pprof -tags failed: $(head -c 300 "$tmp/pp.err")"
	grep -q "^ *cgroup: " "$tmp/tags" || fail "pprof: no cgroup label"
	grep -q ": /$a\$" "$tmp/tags" || fail "pprof: no cgroup label /$a"
elif [ "${CI:-}" = true ]; then
	fail "go is needed in CI (Debian: golang-go)"
fi

for bad in "--cgroup=$a" "--sort=cgroup,comm" "--sort=cgroup --svg"; do
	rc=0
	# shellcheck disable=SC2086 # the options, split on purpose
	"$PERFMINI" report -i "$tmp/cg.data" $bad >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] || fail "report $bad exited $rc, not 2"
	[ "$(wc -l <"$tmp/err")" -le 2 ] || fail "report $bad said more than two lines"
done
exit 0
