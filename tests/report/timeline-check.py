#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline-check.py - reads back the timeline formats of 'perfmini report'
# against the per-sample and folded reports of the same data file:
#
#   timeline-check.py TYPE SPEEDSCOPE FIREFOX TRUTH SCHEMA EXPECT
#
# TYPE is the --sample-type both were written with (cpu, off-cpu, wall).
# TRUTH is a JSON object made by run-timeline.sh from the other formats:
#   "threads": {TID: {"pid": PID, "count": N, "weight": NS, "stacks": [...],
#              "periods": [...]}} - per thread, the --script samples (cpu:
#              count, sum of periods, and each sample's stack and period
#              in time order) or the --per-tid folded sums (off-cpu, wall:
#              weight only, no pid),
#   "names":   {TID: the thread's name as --per-tid gives it},
#   "top":     {TID: [FUNCTION, SELF, SECOND_SELF]} - the first rows of
#              --top --tid TID (cpu only).
# SCHEMA is speedscope's file-format-schema.json (from its npm package);
# the speedscope file is validated against it. The Firefox file is checked
# against the processed profile format of version 55 as the Firefox
# Profiler's src/types/profile.js of that version defines it (no schema is
# published): the exact keys of each table, every column as long as the
# table's length, every index in range, prefixes before their stacks,
# times non-decreasing, one thread per recorded thread, the threads of a
# pid sharing their processName, totals equal to TRUTH. For cpu, both
# files must hold each thread's samples as --script has them, stack for
# stack and in its order. EXPECT is written for the browser test: the
# speedscope profiles' names, weights and hottest functions, and for cpu
# the widest boxes that speedscope's Time Order view of the active
# profile must draw, computed from --script's samples.
import json
import sys
from collections import Counter

import jsonschema

from pycheck import check, failures, report


def speedscope(path, truth, kind, schema_path):
    doc = json.load(open(path))
    try:
        schema = json.load(open(schema_path))
        jsonschema.validate(doc, {**schema, "$ref": "#/definitions/FileFormat.File"})
    except jsonschema.ValidationError as e:
        check(False, "speedscope: not valid against file-format-schema.json: %s" % e.message)
    check(doc.get("$schema") == "https://www.speedscope.app/file-format-schema.json",
          "speedscope: no $schema")
    frames = doc["shared"]["frames"]
    check(all(f["name"] for f in frames), "speedscope: a frame without a name")
    check(all("line" not in f or (isinstance(f["line"], int) and f["line"] > 0) for f in frames),
          "speedscope: a line that is not a positive integer")
    profs = doc["profiles"]
    check(0 <= doc.get("activeProfileIndex", -1) < len(profs), "speedscope: activeProfileIndex")
    names = {}
    expect = []
    for p in profs:
        pid, tid = p["name"].rsplit(" (", 1)[1].rstrip(")").split("/")
        names[tid] = p["name"]
        check(p["type"] == "sampled" and p["unit"] == "nanoseconds", "speedscope: %s: type or unit" % p["name"])
        check(len(p["samples"]) == len(p["weights"]), "speedscope: %s: samples and weights differ in number" % p["name"])
        check(all(0 <= i < len(frames) for s in p["samples"] for i in s),
              "speedscope: %s: a frame index out of range" % p["name"])
        w = sum(p["weights"])
        check(p["endValue"] - p["startValue"] == w, "speedscope: %s: endValue - startValue %d, weights %d"
              % (p["name"], p["endValue"] - p["startValue"], w))
        t = truth["threads"].get(tid)
        if not check(t is not None, "speedscope: profile %s is of no recorded thread" % p["name"]):
            continue
        check(p["name"] == "%s (%s/%s)" % (truth["names"][tid], t.get("pid", pid), tid),
              "speedscope: profile %s, want %s (%s/%s)" % (p["name"], truth["names"][tid], t.get("pid", pid), tid))
        if kind == "cpu":
            check(len(p["samples"]) == t["count"], "speedscope: %s: %d samples, --script %d"
                  % (p["name"], len(p["samples"]), t["count"]))
            got = [";".join(frames[i]["name"] for i in s) for s in p["samples"]]
            check(got == t["stacks"] and p["weights"] == t["periods"],
                  "speedscope: %s: the samples are not --script's, in its order%s" % (p["name"], first_diff(got, t["stacks"])))
        check(w == t["weight"], "speedscope: %s: weighs %d ns, the other reports %d" % (p["name"], w, t["weight"]))
        self_w = Counter()
        for s, x in zip(p["samples"], p["weights"]):
            if s:
                self_w[frames[s[-1]]["name"]] += x
        hottest = self_w.most_common(1)[0][0] if self_w else ""
        top = truth["top"].get(tid)
        if top and top[1] > top[2]:
            check(hottest == top[0], "speedscope: %s: hottest %s, --top %s" % (p["name"], hottest, top[0]))
        expect.append({"name": p["name"], "weight": w, "samples": len(p["samples"]), "hottest": hottest,
                       "clear": bool(self_w) and (len(self_w) == 1 or
                                                  self_w.most_common(2)[0][1] > 1.2 * self_w.most_common(2)[1][1])})
    check(set(names) == set(truth["threads"]), "speedscope: threads %s, recorded %s"
          % (sorted(names), sorted(truth["threads"])))
    out = {"active": doc.get("activeProfileIndex"), "profiles": expect}
    if kind == "cpu" and check(out["active"] is not None, "speedscope: no activeProfileIndex"):
        tid = profs[out["active"]]["name"].rsplit("/", 1)[1].rstrip(")")
        t = truth["threads"][tid]
        out["timeorder"] = time_order(t["stacks"], t["periods"])
    return out


def first_diff(a, b):
    """Where two lists of stacks part, for a message."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return " (sample %d: %s, --script %s)" % (i, x, y)
    return " (%d samples, --script %d)" % (len(a), len(b)) if len(a) != len(b) else ""


def time_order(stacks, weights):
    """
    The wide boxes of a Time Order flame chart of these samples, as
    speedscope draws it: a box per frame and depth, lasting while the
    samples that follow keep the same frames down to that depth. Returns
    the total weight and the widest boxes, deepest first, each with its
    depth, name, start and weight: what the browser test hovers.
    """
    boxes, open_, prev, pos = [], [], [], 0
    for line, w in zip(stacks, weights):
        st = line.split(";") if line else []
        k = 0
        while k < min(len(prev), len(st)) and prev[k] == st[k]:
            k += 1
        boxes += [dict(depth=j, **open_[j]) for j in range(k, len(open_))]
        open_ = open_[:k] + [{"name": f, "start": pos, "ns": 0} for f in st[k:]]
        for o in open_:
            o["ns"] += w
        pos += w
        prev = st
    boxes += [dict(depth=j, **o) for j, o in enumerate(open_)]
    wide = [b for b in boxes if b["ns"] >= 0.08 * pos]
    wide.sort(key=lambda b: (-b["depth"], -b["ns"]))
    return {"total": pos, "probes": wide[:6]}


# The processed format of version 55: each table's exact columns.
TABLES = {
    "stackTable": {"frame", "prefix"},
    "frameTable": {"address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol",
                   "innerWindowID", "line", "column"},
    "funcTable": {"name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber"},
    "resourceTable": {"lib", "name", "host", "type"},
    "nativeSymbols": {"libIndex", "address", "name", "functionSize"},
    "markers": {"data", "name", "startTime", "endTime", "phase", "category"},
}
SAMPLES_REQUIRED = {"stack", "weight", "weightType"}
SAMPLES_OPTIONAL = {"time", "timeDeltas", "responsiveness", "eventDelay", "threadCPUDelta", "threadId"}
THREAD_REQUIRED = {"processType", "processStartupTime", "processShutdownTime", "registerTime",
                   "unregisterTime", "pausedRanges", "name", "isMainThread", "pid", "tid", "samples",
                   "markers", "stackTable", "frameTable", "stringArray", "funcTable", "resourceTable",
                   "nativeSymbols"}
THREAD_OPTIONAL = {"showMarkersInTimeline", "eTLD+1", "processName", "isJsTracer", "jsAllocations",
                   "nativeAllocations", "jsTracer", "isPrivateBrowsing", "userContextId"}
META_REQUIRED = {"interval", "startTime", "processType", "product", "stackwalk", "version",
                 "preprocessedProfileVersion", "markerSchema"}
LIB_KEYS = {"arch", "name", "path", "debugName", "debugPath", "breakpadId", "codeId"}


def index_ok(v, n, nullable=False):
    return (nullable and v is None) or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n)


def firefox(path, truth, kind):
    doc = json.load(open(path))
    check(set(doc) >= {"meta", "libs", "threads"}, "firefox: top-level keys %s" % sorted(doc))
    meta = doc["meta"]
    check(META_REQUIRED <= set(meta), "firefox: meta lacks %s" % sorted(META_REQUIRED - set(meta)))
    check(meta.get("preprocessedProfileVersion") == 55, "firefox: not version 55")
    check(meta.get("symbolicated") is True, "firefox: not symbolicated")
    check(isinstance(meta.get("interval"), (int, float)) and meta["interval"] > 0, "firefox: interval")
    cats = meta.get("categories", [])
    check(any(c["color"] == "grey" for c in cats), "firefox: no grey (default) category")
    check(all(c["subcategories"] for c in cats), "firefox: a category without subcategories")
    libs = doc["libs"]
    check(all(set(l) == LIB_KEYS for l in libs), "firefox: a lib's keys are not %s" % sorted(LIB_KEYS))
    seen = {}
    process_names = {}
    for t in doc["threads"]:
        name = "%s (%s/%s)" % (t.get("name"), t.get("pid"), t.get("tid"))
        keys = set(t)
        check(THREAD_REQUIRED <= keys, "firefox: %s lacks %s" % (name, sorted(THREAD_REQUIRED - keys)))
        check(keys <= THREAD_REQUIRED | THREAD_OPTIONAL, "firefox: %s: unknown keys %s"
              % (name, sorted(keys - THREAD_REQUIRED - THREAD_OPTIONAL)))
        check(isinstance(t["pid"], str) and isinstance(t["tid"], int), "firefox: %s: pid a string, tid a number" % name)
        check(t["isMainThread"] == (t["pid"] == str(t["tid"])), "firefox: %s: isMainThread" % name)
        strings = t["stringArray"]
        check(all(isinstance(s, str) for s in strings), "firefox: %s: stringArray" % name)
        n = {}
        for table, cols in TABLES.items():
            tab = t[table]
            check(set(tab) == cols | {"length"}, "firefox: %s: %s has %s" % (name, table, sorted(tab)))
            n[table] = tab["length"]
            for c in cols & set(tab):
                check(len(tab[c]) == tab["length"], "firefox: %s: %s.%s has %d rows, length %d"
                      % (name, table, c, len(tab[c]), tab["length"]))
        s = t["samples"]
        check(SAMPLES_REQUIRED <= set(s) and set(s) <= SAMPLES_REQUIRED | SAMPLES_OPTIONAL | {"length"},
              "firefox: %s: samples has %s" % (name, sorted(s)))
        for c in ("stack", "time"):
            check(len(s[c]) == s["length"], "firefox: %s: samples.%s length" % (name, c))
        st, fr, fn, rs = t["stackTable"], t["frameTable"], t["funcTable"], t["resourceTable"]
        check(all(index_ok(x, n["stackTable"], True) for x in s["stack"]), "firefox: %s: samples.stack out of range" % name)
        check(all(s["time"][i] <= s["time"][i + 1] for i in range(s["length"] - 1)), "firefox: %s: times go back" % name)
        check(all(index_ok(p, i, True) for i, p in enumerate(st["prefix"])), "firefox: %s: a prefix not before its stack" % name)
        check(all(index_ok(f, n["frameTable"]) for f in st["frame"]), "firefox: %s: stackTable.frame out of range" % name)
        check(all(index_ok(f, n["funcTable"]) for f in fr["func"]), "firefox: %s: frameTable.func out of range" % name)
        check(all(index_ok(c, len(cats), True) for c in fr["category"]), "firefox: %s: frameTable.category" % name)
        check(all(fr["subcategory"][i] is None or fr["category"][i] is not None and
                  index_ok(fr["subcategory"][i], len(cats[fr["category"][i]]["subcategories"]))
                  for i in range(n["frameTable"])), "firefox: %s: frameTable.subcategory" % name)
        check(all(x is None for x in fr["nativeSymbol"]) and n["nativeSymbols"] == 0, "firefox: %s: nativeSymbol" % name)
        check(all(a == -1 or (isinstance(a, int) and a >= 0) for a in fr["address"]), "firefox: %s: address" % name)
        check(all(index_ok(x, len(strings)) for x in fn["name"]), "firefox: %s: funcTable.name out of range" % name)
        check(all(index_ok(x, len(strings), True) for x in fn["fileName"]), "firefox: %s: funcTable.fileName" % name)
        check(all(x == -1 or index_ok(x, n["resourceTable"]) for x in fn["resource"]), "firefox: %s: funcTable.resource" % name)
        check(all(isinstance(x, bool) for x in fn["isJS"] + fn["relevantForJS"]), "firefox: %s: isJS" % name)
        check(all(index_ok(x, len(libs), True) for x in rs["lib"]), "firefox: %s: resourceTable.lib" % name)
        check(all(index_ok(x, len(strings)) for x in rs["name"]), "firefox: %s: resourceTable.name" % name)
        tid = str(t["tid"])
        check(tid not in seen, "firefox: thread %s twice" % tid)
        seen[tid] = t
        process_names.setdefault(t["pid"], set()).add(t.get("processName"))
        tr = truth["threads"].get(tid)
        if not check(tr is not None, "firefox: thread %s is of no recorded thread" % tid):
            continue
        check(tr.get("pid", t["pid"]) == t["pid"], "firefox: %s: pid, --script %s" % (name, tr.get("pid")))
        check(t["name"] == truth["names"][tid], "firefox: %s: name, want %s" % (name, truth["names"][tid]))
        if kind == "cpu":
            check(s["weightType"] == "samples" and s["weight"] is None, "firefox: %s: weights of a CPU profile" % name)
            check(s["length"] == tr["count"], "firefox: %s: %d samples, --script %d" % (name, s["length"], tr["count"]))
        else:
            check(s["weightType"] == "tracing-ms" and len(s["weight"]) == s["length"], "firefox: %s: weights" % name)
            ns = round(sum(round(w * 1e6) for w in s["weight"]))
            check(ns == tr["weight"], "firefox: %s: weighs %d ns, the folded report %d" % (name, ns, tr["weight"]))
        if kind == "cpu":
            def names(sid):
                out = []
                while sid is not None:
                    out.append(strings[fn["name"][fr["func"][st["frame"][sid]]]])
                    sid = st["prefix"][sid]
                return ";".join(reversed(out))
            got = [names(sid) for sid in s["stack"]]
            check(got == tr["stacks"], "firefox: %s: the samples are not --script's, in its order%s"
                  % (name, first_diff(got, tr["stacks"])))
        # The hottest function: self samples of the leaf stacks' funcs.
        self_w = Counter()
        for i, sid in enumerate(s["stack"]):
            if sid is not None:
                self_w[strings[fn["name"][fr["func"][st["frame"][sid]]]]] += s["weight"][i] if s["weight"] else 1
        top = truth["top"].get(tid)
        if top and top[1] > top[2] and self_w:
            check(self_w.most_common(1)[0][0] == top[0], "firefox: %s: hottest %s, --top %s"
                  % (name, self_w.most_common(1)[0][0], top[0]))
    check(set(seen) == set(truth["threads"]), "firefox: threads %s, recorded %s" % (sorted(seen), sorted(truth["threads"])))
    for pid, names in process_names.items():
        check(len(names) == 1 and None not in names, "firefox: pid %s has process names %s" % (pid, names))
        main = seen.get(pid)
        if main:
            check(names == {main["name"]}, "firefox: pid %s is named %s, its main thread %s" % (pid, names, main["name"]))
    return len(seen), len(process_names)


def main():
    kind, ss, ff, truth_path, schema, expect_path = sys.argv[1:7]
    truth = json.load(open(truth_path))
    expect = speedscope(ss, truth, kind, schema)
    nthreads, nprocs = firefox(ff, truth, kind)
    json.dump(expect, open(expect_path, "w"))
    if report("timeline-check"):
        return 1
    print("timeline-check %s: %d threads in %d processes, %d samples; hottest %s" %
          (kind, nthreads, nprocs, sum(p["samples"] for p in expect["profiles"]),
           ", ".join(sorted({p["hottest"] for p in expect["profiles"] if p["clear"]}))), file=sys.stderr)
    return 0


sys.exit(main())
