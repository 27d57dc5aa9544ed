#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The timeline formats on a real recording of several processes and
# threads: a shell runs spin-pie (one thread, spin_hot), mix (in three
# phases: mix_a, mix_b, mix_a) and waits (six threads that spin, sleep,
# read a pipe and wait on a mutex), recorded with --off-cpu. For each
# --sample-type, --speedscope and --firefox are read back by
# timeline-check.py against --script, the --per-tid folded report and
# --top: the speedscope file against speedscope's own schema, the
# Firefox one against the processed format of version 55, and for the
# CPU both must hold each thread's samples as --script has them, in its
# order. The Firefox file is loaded by the Firefox Profiler's own code
# (profiler-cli, by timeline-firefox.py): threads, processes, sample
# counts and hottest functions. The speedscope file is opened in the
# real speedscope viewer (its npm package, the built web app) in
# headless chromium by timeline-browser.js: it must import without
# error, its Time Order view must show mix's three phases in their order
# and length, its profile selector list every thread with the weight of
# the file, and its Sandwich view the thread's hottest function first.
# Broken files must fail the checks: one with a missing frame, one with
# mix's samples reversed (the browser), one with a thread's samples
# halved (the Firefox Profiler). Screenshots stay in
# tests/report/timeline-browser/.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
for tool in node python3; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed (Debian: nodejs, python3)"
done
python3 -c 'import jsonschema' 2>/dev/null || fail "python3's jsonschema is needed (Debian: python3-jsonschema)"
CHROMIUM=${CHROMIUM:-$(command -v chromium || :)}
[ -n "$CHROMIUM" ] || fail "chromium is needed (Debian: chromium)"
export CHROMIUM
# shellcheck source=scripts/deps.sh
. "$srcdir/scripts/deps.sh"
pm_install_node_deps >&3 2>&1 || fail "cannot install the npm packages into $PM_NODE_DIR"
SPEEDSCOPE=$PM_NODE_DIR/node_modules/speedscope/dist/release
[ -f "$SPEEDSCOPE/index.html" ] || fail "no speedscope web app in $SPEEDSCOPE"

# mix runs in three phases (mix_a, mix_b, mix_a again, 1 s of CPU in all):
# the heaviest CPU thread, the one the speedscope file opens on, whose
# Time Order view must show the phases in their order.
# shellcheck disable=SC2016 # for the inner shell
run_record 120 "$tmp/t.data" --off-cpu -- /bin/sh -c \
	'"$1/spin-pie" 0.3 & "$1/mix" 100 0.5 0 0.2 100 0.3 & "$1/waits" 20 >/dev/null; wait' sh "$TARGETS"

# report FILE ARGS...: perfmini report -i t.data ARGS... into FILE.
report() {
	rf=$1
	shift
	run_timeout 60 "$PERFMINI" report -i "$tmp/t.data" "$@" >"$rf" 2>"$tmp/report.err" ||
		fail "report $* failed: $(cat "$tmp/report.err")"
}

report "$tmp/script.txt" --script
report "$tmp/names.folded" --folded --per-tid --sample-type=wall
out=$top_builddir/tests/report/timeline-browser
rm -rf "$out"
mkdir -p "$out"
NODE_PATH=$PM_NODE_DIR/node_modules
export NODE_PATH

for type in cpu off-cpu wall; do
	report "$tmp/$type.ss.json" --speedscope --sample-type=$type -o -
	report "$tmp/$type.ff.json" --firefox --sample-type=$type -o -
	report "$tmp/$type.folded" --folded --per-tid --sample-type=$type
	# The hottest function of each thread, for the cpu type.
	: >"$tmp/top.txt"
	if [ "$type" = cpu ]; then
		# shellcheck disable=SC2013 # thread ids, one word each
		for tid in $(awk '{ print $3 }' "$tmp/script.txt" | sort -u); do
			report "$tmp/top1.txt" --top --tid "$tid" -n 2
			awk -v tid="$tid" '
				p && NF >= 6 { n++; fn[n] = $6; for (i = 7; i <= NF; i++) fn[n] = fn[n] " " $i; s[n] = $3 }
				/^ *Self%/ { p = 1 }
				END { if (n) print tid "\t" fn[1] "\t" s[1] "\t" (n > 1 ? s[2] : 0) }
			' "$tmp/top1.txt" >>"$tmp/top.txt"
		done
	fi
	python3 - "$type" "$tmp/script.txt" "$tmp/$type.folded" "$tmp/names.folded" "$tmp/top.txt" \
		>"$tmp/$type.truth" <<'EOS' || fail "cannot read the reports back"
import json, re, sys
kind, script, folded, names_folded, top = sys.argv[1:6]
threads, names, tops = {}, {}, {}
for line in open(names_folded):
    root = line.split(";", 1)[0]
    comm, tid = root.rsplit("-", 1)
    names[tid] = comm
if kind == "cpu":
    for line in open(script):
        head = line.split("\t", 1)[0].split(" ")
        pid, tid, period = head[1], head[2], int(head[4])
        t = threads.setdefault(tid, {"pid": pid, "count": 0, "weight": 0, "stacks": [], "periods": []})
        t["count"] += 1
        t["weight"] += period
        t["stacks"].append(line.rstrip("\n").split("\t", 1)[1] if "\t" in line else "")
        t["periods"].append(period)
    for line in open(top):
        tid, fn, s1, s2 = line.rstrip("\n").split("\t")
        tops[tid] = [fn, int(s1), int(s2)]
else:
    for line in open(folded):
        stack, n = line.rsplit(" ", 1)
        tid = stack.split(";", 1)[0].rsplit("-", 1)[1]
        threads.setdefault(tid, {"weight": 0})["weight"] += int(n)
json.dump({"threads": threads, "names": names, "top": tops}, sys.stdout)
EOS
	python3 "$srcdir/tests/report/timeline-check.py" "$type" "$tmp/$type.ss.json" "$tmp/$type.ff.json" \
		"$tmp/$type.truth" "$SPEEDSCOPE/file-format-schema.json" "$tmp/$type.expect" 2>&3 ||
		fail "the $type timeline files are wrong: see above"
done

# The Firefox Profiler's own loader (profiler-cli): the CPU file, then one
# with a thread's samples halved, which it must tell apart.
PROFILER_CLI=$PM_NODE_DIR/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js
[ -f "$PROFILER_CLI" ] || fail "no profiler-cli in $PM_NODE_DIR"
python3 "$srcdir/tests/report/timeline-firefox.py" "$PROFILER_CLI" "$tmp/cpu.ff.json" "$tmp/cpu.truth" \
	"$tmp/ff-sessions" 2>&3 || fail "the Firefox Profiler does not read the CPU profile right: see above"
python3 - "$tmp/cpu.ff.json" "$tmp/halved.ff.json" <<'EOS' || fail "cannot halve the file"
import json, sys
d = json.load(open(sys.argv[1]))
t = max(d["threads"], key=lambda t: t["samples"]["length"])
s = t["samples"]
n = s["length"] // 2
for k, v in s.items():
    if isinstance(v, list):
        s[k] = v[:n]
s["length"] = n
json.dump(d, open(sys.argv[2], "w"))
EOS
if python3 "$srcdir/tests/report/timeline-firefox.py" "$PROFILER_CLI" "$tmp/halved.ff.json" "$tmp/cpu.truth" \
	"$tmp/ff-sessions" 2>&3; then
	fail "the Firefox Profiler check passes a file with half a thread's samples"
fi

python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not d["profiles"][d["active"]]["name"].startswith("mix "))' \
	"$tmp/cpu.expect" || fail "the speedscope CPU file does not open on mix, the heaviest thread"

# The processes: the shell, spin-pie, mix and waits, each its own pid.
nproc=$(python3 -c 'import json, sys; print(len({t["pid"] for t in json.load(open(sys.argv[1]))["threads"]}))' \
	"$tmp/cpu.ff.json")
[ "$nproc" -ge 3 ] || fail "the Firefox profile has threads of $nproc process(es), want spin-pie, mix and waits"

# The real viewer: the CPU and the wall profiles, then a broken file.
for type in cpu wall; do
	run_timeout 120 node "$srcdir/tests/report/timeline-browser.js" "$SPEEDSCOPE" "$tmp/$type.ss.json" \
		"$tmp/$type.expect" "$out/$type" 2>&3 || fail "speedscope does not show the $type profile: see above"
done
# Two broken files: a frame that is not there, and mix's samples in
# reverse (the file is valid, its timeline wrong).
python3 - "$tmp/cpu.ss.json" "$tmp/broken.ss.json" "$tmp/reversed.ss.json" <<'EOS' || fail "cannot break the file"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profiles"][d["activeProfileIndex"]]
p["samples"].reverse()
p["weights"].reverse()
json.dump(d, open(sys.argv[3], "w"))
p["samples"][len(p["samples"]) // 2].append(len(d["shared"]["frames"]))  # a frame that is not there
json.dump(d, open(sys.argv[2], "w"))
EOS
for broken in broken reversed; do
	if run_timeout 120 node "$srcdir/tests/report/timeline-browser.js" "$SPEEDSCOPE" "$tmp/$broken.ss.json" \
		"$tmp/cpu.expect" "$out/$broken" 2>&3; then
		fail "the browser check passes a $broken speedscope file"
	fi
done
say "screenshots in $out"
exit 0
