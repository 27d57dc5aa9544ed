#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-pprof.py - checks a pprof profile written by 'perfmini report
# --pprof', decoded independently of perfmini: gunzipped by gzip and
# decoded by 'protoc --decode_raw' (whose text form this script reads), then
# walked field by field with the numbers of profile.proto.
#
#   report-pprof.py DECODED FOLDED [--roots-in-stack] [--synth]
#
# DECODED is the output of 'gzip -dc FILE | protoc --decode_raw'; FOLDED
# the folded report of the same data file with the same filters. Checks
# the structure (string 0 is "", ids unique, non-zero and resolving, two
# values per sample), then that the samples, read as stacks (the thread
# label, or with --roots-in-stack the outermost location, as root; each
# location's lines innermost first), add up to the folded counts.
# --synth adds the exact values of tests/report/report-synth.c.
import ast
import re
import sys
from collections import defaultdict

# profile.proto field numbers
P_SAMPLE_TYPE, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRINGS = 1, 2, 3, 4, 5, 6
P_TIME, P_DURATION, P_PERIOD_TYPE, P_PERIOD, P_COMMENT, P_DEFAULT_TYPE = 9, 10, 11, 12, 13, 14

from pycheck import check, failures, report


def parse(text):
    """protoc --decode_raw text: a message is a list of (field, value)."""
    stack = [[]]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.match(r"^(\d+) \{$", line)
        if m:
            msg = []
            stack[-1].append((int(m.group(1)), msg))
            stack.append(msg)
            continue
        m = re.match(r"^(\d+): (.*)$", line)
        if not m:
            raise ValueError("cannot read decode_raw line: " + raw)
        val = m.group(2)
        if val.startswith('"'):
            v = ast.literal_eval("b" + val)
        elif val.startswith("0x"):
            v = int(val, 16)
        else:
            v = int(val)
        stack[-1].append((int(m.group(1)), v))
    if len(stack) != 1:
        raise ValueError("unbalanced braces in decode_raw output")
    return stack[0]


def get(msg, field):
    return [v for (f, v) in msg if f == field]


def one(msg, field, default=0):
    vals = get(msg, field)
    if len(vals) > 1:
        failures.append("field %d repeated: %r" % (field, vals))
    return vals[0] if vals else default


def sanitize(name):
    return "".join(":" if c == ";" else "?" if ord(c) < 0x20 or c == "\x7f" else c for c in name)


def strip_annotations(frame):
    for suffix in ("_[k]", "_[i]"):
        if frame.endswith(suffix):
            frame = frame[: -len(suffix)]
    return frame


def main():
    args = sys.argv[1:]
    roots_in_stack = "--roots-in-stack" in args
    synth = "--synth" in args
    args = [a for a in args if not a.startswith("--")]
    with open(args[0]) as f:
        prof = parse(f.read())
    with open(args[1], encoding="utf-8") as f:
        folded = f.read().splitlines()

    raw_strings = get(prof, P_STRINGS)
    if not all(isinstance(s, bytes) for s in raw_strings):
        # decode_raw shows a string that happens to parse as a message as
        # one; the names of report-synth.c do not.
        print("report-pprof: protoc --decode_raw read a string as a message; "
              "this checker needs names that do not parse as protobuf", file=sys.stderr)
        return 1
    strings = [s.decode("utf-8") for s in raw_strings]
    check(strings and strings[0] == "", "string_table[0] is not the empty string")
    check(len(set(strings)) == len(strings), "a string appears twice in the string table")

    def S(i):
        check(0 <= i < len(strings), "string index %d out of range" % i)
        return strings[i] if 0 <= i < len(strings) else ""

    def value_type(vt):
        return (S(one(vt, 1)), S(one(vt, 2)))

    sample_types = [value_type(vt) for vt in get(prof, P_SAMPLE_TYPE)]
    check(len(sample_types) == 2, "sample types %r" % sample_types)
    check(sample_types[0] == ("samples", "count"), "first sample type %r" % sample_types[:1])

    def by_id(field, what):
        out = {}
        for m in get(prof, field):
            i = one(m, 1)
            check(i != 0, "%s with id 0" % what)
            check(i not in out, "%s id %d twice" % (what, i))
            out[i] = m
        return out

    mappings = by_id(P_MAPPING, "mapping")
    locations = by_id(P_LOCATION, "location")
    functions = by_id(P_FUNCTION, "function")
    for loc in locations.values():
        mid = one(loc, 2)
        check(mid == 0 or mid in mappings, "location %d: mapping %d unknown" % (one(loc, 1), mid))
        check(get(loc, 4), "location %d has no line" % one(loc, 1))
        for ln in get(loc, 4):
            check(one(ln, 1) in functions, "location %d: function %d unknown" % (one(loc, 1), one(ln, 1)))

    def frame_names(lid):
        """The location's function names, outermost first."""
        loc = locations.get(lid)
        if not check(loc is not None, "sample: location %d unknown" % lid):
            return []
        names = []
        for ln in reversed(get(loc, 4)):
            fn = functions.get(one(ln, 1))
            names.append(S(one(fn, 2)) if fn else "?")
        return names

    counts = defaultdict(int)
    samples = get(prof, P_SAMPLE)
    total = [0, 0]
    for s in samples:
        vals = get(s, 2)
        check(len(vals) == len(sample_types), "sample with %d values" % len(vals))
        labels = {}
        for lb in get(s, 3):
            labels[S(one(lb, 1))] = S(one(lb, 2)) if one(lb, 2) else one(lb, 3)
        check(set(labels) == {"pid", "tid", "thread"}, "labels %r" % labels)
        frames = []
        for lid in reversed(get(s, 1)):
            frames += frame_names(lid)
        if roots_in_stack:
            root = frames.pop(0) if frames else "?"
        else:
            root = labels.get("thread", "?")
        key = ";".join([sanitize(root)] + [sanitize(f) for f in frames])
        counts[key] += vals[0]
        total[0] += vals[0]
        total[1] += vals[1]

    want = defaultdict(int)
    for line in folded:
        text, n = line.rsplit(" ", 1)
        parts = text.split(";")
        want[";".join([parts[0]] + [strip_annotations(f) for f in parts[1:]])] += int(n)
    check(dict(counts) == dict(want),
          "stacks differ from the folded report:\n  pprof:  %r\n  folded: %r"
          % (sorted(counts.items()), sorted(want.items())))

    if synth:
        check_synth(prof, S, sample_types, mappings, locations, functions, samples, total)

    status = report("report-pprof")
    print("report-pprof: %d samples, %d locations, %d functions, %d mappings, %d strings: %s"
          % (len(samples), len(locations), len(functions), len(mappings), len(strings),
             "FAIL" if failures else "ok"), file=sys.stderr)
    return status


def check_synth(prof, S, sample_types, mappings, locations, functions, samples, total):
    """The values tests/report/report-synth.c put in."""
    check(sample_types[1] == ("cpu", "nanoseconds"), "second sample type %r" % sample_types[1:])
    pt = get(prof, P_PERIOD_TYPE)
    check(len(pt) == 1 and (S(one(pt[0], 1)), S(one(pt[0], 2))) == ("cpu", "nanoseconds"),
          "period type")
    check(one(prof, P_PERIOD) == 1001001, "period %d" % one(prof, P_PERIOD))
    check(one(prof, P_TIME) == 1700000000 * 10**9, "time_nanos %d" % one(prof, P_TIME))
    check(one(prof, P_DURATION) == 3 * 10**9, "duration_nanos %d" % one(prof, P_DURATION))
    check(S(one(prof, P_DEFAULT_TYPE)) == "cpu", "default sample type")
    check([S(c) for c in get(prof, P_COMMENT)] == ["perfmini record -F 999 -o app.data -- ./app --run"],
          "comments")
    check(total == [100, 92 * 1001001 + 8 * 500000], "value totals %r" % total)
    check(len(samples) == 8, "%d samples, want 8 (one per stack and thread)" % len(samples))

    maps = {S(one(m, 5)): m for m in mappings.values()}
    check(set(maps) == {"/usr/bin/app", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                        "[kernel.kallsyms]", "/tmp/perf-300.map"}, "mapping files %r" % sorted(maps))
    app = maps.get("/usr/bin/app", [])
    check(S(one(app, 6)) == "0123456789abcdef0123456789abcdef01234567", "app build-id")
    check(one(app, 2) == 0 and one(app, 3) == 0x2000 and one(app, 4) == 0,
          "app: start 0x%x limit 0x%x offset 0x%x" % (one(app, 2), one(app, 3), one(app, 4)))
    check([one(app, f) for f in (7, 8, 9, 10)] == [1, 1, 1, 1], "app has_* flags")
    libc = maps.get("/usr/lib/x86_64-linux-gnu/libc.so.6", [])
    check(S(one(libc, 6)) == "feedface", "libc build-id")
    check([one(libc, f) for f in (7, 8, 9)] == [1, 0, 0], "libc has_* flags")
    kern = maps.get("[kernel.kallsyms]", [])
    check(one(kern, 2) == 0xffffffff81001000 and one(kern, 3) == 0xffffffff81c01000,
          "kernel: start 0x%x limit 0x%x" % (one(kern, 2), one(kern, 3)))
    jit = maps.get("/tmp/perf-300.map", [])
    check(one(jit, 2) == 0x7f0000001000 and one(jit, 3) == 0x7f0000002000, "perf map range")

    def loc_at(addr):
        found = [l for l in locations.values() if one(l, 3) == addr]
        check(len(found) == 1, "%d locations at 0x%x" % (len(found), addr))
        return found[0] if found else []

    def fn(ln):
        f = functions.get(one(ln, 1), [])
        return (S(one(f, 2)), S(one(f, 3)), S(one(f, 4)), one(ln, 2))

    work = loc_at(0x1200)
    check(S(one(mappings.get(one(work, 2), []), 5)) == "/usr/bin/app", "work's mapping")
    # The inline chain, innermost first: pprof's order.
    check([fn(ln) for ln in get(work, 4)] == [
        ("leaf_inl", "leaf_inl", "/src/app/leaf.h", 7),
        ("mid_inl", "mid_inl", "/src/app/mid.h", 12),
        ("work", "work", "/src/app/work.c", 99)], "work's lines %r" % [fn(l) for l in get(work, 4)])
    unres = loc_at(0x9a2b0)
    check([fn(ln) for ln in get(unres, 4)] == [("[libc.so.6+0x9a2b0]",) * 2 + ("", 0)],
          "unresolved libc frame %r" % [fn(l) for l in get(unres, 4)])
    nomap = loc_at(0x7f00dead0000)
    check(one(nomap, 2) == 0, "a frame in no mapping has mapping 0")
    check([fn(ln)[0] for ln in get(nomap, 4)] == ["[unknown]"], "unknown frame")
    kleaf = loc_at(0xffffffff81001000)
    check([fn(ln)[0] for ln in get(kleaf, 4)] == ["clear_page_erms"], "kernel frame")
    esc = loc_at(0x1500)
    check([fn(ln)[0] for ln in get(esc, 4)] == ["operator<<(std::ostream&, \"q'\")"], "escaped name")

    threads = set()
    for s in samples:
        labels = {S(one(lb, 1)): (S(one(lb, 2)) if one(lb, 2) else one(lb, 3)) for lb in get(s, 3)}
        threads.add((labels["pid"], labels["tid"], labels["thread"], tuple(get(s, 2))))
    for want in [(100, 100, "app", (40, 40 * 1001001)), (100, 101, "worker", (20, 20 * 1001001)),
                 (100, 101, "work;er", (5, 5 * 1001001)), (200, 200, "other", (8, 8 * 500000)),
                 (300, 300, "java", (10, 10 * 1001001))]:
        check(want in threads, "no sample %r" % (want,))


if __name__ == "__main__":
    sys.exit(main())
