#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-script.py - reads back the per-sample exports of 'perfmini report':
#
#   report-script.py SCRIPT JSON FOLDED [--synth]
#
# SCRIPT is the --script output, JSON the --json output, FOLDED the folded
# report, all of the same data file and filters. Each line of SCRIPT must
# follow the grammar of perfmini-report(1):
#   TIME PID TID CPU PERIOD COMM<TAB>FRAMES
# TIME seconds with exactly nine decimals, the numbers decimal, COMM free
# of tabs and control characters, FRAMES ';'-separated. Each line of JSON
# must be one JSON object with the fields of the manual, frames innermost
# first. Both must list the same samples in the same order, in time
# order, and fold (COMM;FRAMES, counted) into exactly FOLDED.
# --synth adds the exact values of tests/report/report-synth.c.
import json
import re
import sys
from collections import Counter

LINE = re.compile(r"^(\d+\.\d{9}) (\d+) (\d+) (\d+) (\d+) ([^\t]*)\t(.*)$")
from pycheck import check, failures, report


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    synth = "--synth" in sys.argv
    with open(args[0], encoding="utf-8") as f:
        text = f.read().split("\n")
    with open(args[1], encoding="utf-8") as f:
        jtext = f.read().split("\n")
    with open(args[2], encoding="utf-8") as f:
        folded = f.read().splitlines()
    check(text[-1] == "" and jtext[-1] == "", "output does not end with a newline")
    text, jtext = text[:-1], jtext[:-1]

    samples = []
    for i, line in enumerate(text):
        m = LINE.match(line)
        if not check(m, "script line %d does not follow the grammar: %r" % (i + 1, line)):
            continue
        t, pid, tid, cpu, period, comm, frames = m.groups()
        check(not re.search(r"[\x00-\x1f\x7f]", comm), "line %d: control character in comm" % (i + 1))
        check(";" not in comm, "line %d: ';' in comm" % (i + 1))
        samples.append({"time": t, "pid": int(pid), "tid": int(tid), "cpu": int(cpu),
                        "period": int(period), "comm": comm,
                        "frames": frames.split(";") if frames else []})

    objs = []
    for i, line in enumerate(jtext):
        try:
            o = json.loads(line)
        except ValueError as e:
            check(False, "json line %d: %s" % (i + 1, e))
            continue
        check(isinstance(o, dict), "json line %d is not an object" % (i + 1))
        check(set(o) == {"time", "time_ns", "pid", "tid", "cpu", "period", "off_cpu", "comm",
                         "cgroup", "frames"},
              "json line %d: fields %r" % (i + 1, sorted(o)))
        for fr in o.get("frames", []):
            check(set(fr) - {"file", "line"} == {"name", "folded", "module", "addr", "inlined", "kernel"},
                  "json line %d: frame fields %r" % (i + 1, sorted(fr)))
            check(re.match(r"^0x[0-9a-f]+$", fr.get("addr", "")), "json line %d: addr %r" % (i + 1, fr.get("addr")))
        objs.append(o)

    check(len(samples) == len(objs), "%d script lines, %d json lines" % (len(samples), len(objs)))
    last = -1
    for s, o in zip(samples, objs):
        ns = int(s["time"].replace(".", ""))
        check(ns == o["time_ns"], "time %s vs time_ns %d" % (s["time"], o["time_ns"]))
        check(abs(o["time"] - ns / 1e9) < 1e-6, "time %r vs time_ns %d" % (o["time"], o["time_ns"]))
        check(ns >= last, "samples out of time order at %s" % s["time"])
        last = ns
        for k in ("pid", "tid", "cpu", "period"):
            check(s[k] == o[k], "%s differs: %r vs %r" % (k, s[k], o[k]))
        sanitized = "".join(":" if c == ";" else "?" if ord(c) < 0x20 or c == "\x7f" else c
                            for c in o["comm"])
        check(sanitized == s["comm"], "comm %r vs %r" % (s["comm"], o["comm"]))
        # JSON frames innermost first; the folded names outermost first.
        jframes = [fr["folded"] for fr in reversed(o["frames"])]
        if "--lines" not in sys.argv:
            check(jframes == s["frames"], "frames differ: %r vs %r" % (s["frames"], jframes))

    counts = Counter()
    for s in samples:
        counts[";".join([s["comm"]] + s["frames"])] += 1
    want = Counter()
    for line in folded:
        stack, n = line.rsplit(" ", 1)
        want[stack] += int(n)
    check(counts == want, "script lines fold differently:\n  script: %r\n  folded: %r"
          % (sorted(counts.items()), sorted(want.items())))

    if synth:
        check(len(samples) == 100, "%d samples, want 100" % len(samples))
        check(text[0] == "0.000000000 100 100 0 1001001 app\t"
              "__libc_start_call_main;main;work;mid_inl_[i];leaf_inl_[i]", "first line %r" % text[0])
        first = objs[0]["frames"] if objs else []
        check([(f["name"], f.get("file"), f.get("line"), f["inlined"]) for f in first[:3]] ==
              [("leaf_inl", "/src/app/leaf.h", 7, True), ("mid_inl", "/src/app/mid.h", 12, True),
               ("work", "/src/app/work.c", 99, False)], "first json frames %r" % first[:3])
        check(first and first[0]["module"] == "/usr/bin/app" and first[0]["addr"] == "0x1200",
              "first frame's module and address")
        kern = [o for o in objs if o["frames"] and o["frames"][0]["kernel"]]
        check(len(kern) == 12, "%d samples with a kernel leaf, want 12" % len(kern))
        nomap = [f for o in objs for f in o["frames"] if f["module"] is None]
        check(nomap and nomap[0]["name"] == "[unknown]" and nomap[0]["addr"] == "0x7f00dead0000",
              "frame in no module")
        check(any(o["comm"] == "work;er" for o in objs), "the comm with ';' is not kept in JSON")

    status = report("report-script")
    print("report-script: %d samples: %s" % (len(samples), "FAIL" if failures else "ok"),
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
