#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-svg.py - checks a flame graph written by 'perfmini report --svg':
#
#   report-svg.py SVG FOLDED [--synth]
#
# The file must be well-formed XML (xml.etree parses it), self-contained
# (no href, no URL but the SVG namespace, a script inline), and its frames
# must be the folded report of the same data and filters drawn as a tree:
# every frame's width is COUNT * (width - 2 * pad) / samples, to the 0.01
# px it is rounded to; its parent is the frame below it that spans it;
# the frames drawn are exactly the folded stacks' prefixes with at least
# 1/data-min-share of the samples, and the picture is as tall as they are
# deep; the tree the script draws from (<script id="tree">) is every
# prefix, however narrow, with its count, children in drawing order.
# --synth adds the exact values and colours of tests/report/report-synth.c.
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

NS = "{http://www.w3.org/2000/svg}"
from pycheck import check, failures, report


def main():
    args = sys.argv[1:]
    synth = "--synth" in args
    args = [a for a in args if not a.startswith("--")]
    raw = open(args[0], "rb").read()
    root = ET.fromstring(raw)
    with open(args[1], encoding="utf-8") as f:
        folded = f.read().splitlines()

    check(root.tag == NS + "svg", "root element %s" % root.tag)
    check(b"href" not in raw, "a reference (href) in the file")
    check(re.findall(rb"https?://[^\"' ]*", raw) == [b"http://www.w3.org/2000/svg"],
          "URLs other than the namespace: %r" % re.findall(rb"https?://[^\"' ]*", raw))
    scripts = [e for e in root.iter(NS + "script") if e.get("id") != "tree"]
    check(len(scripts) == 1 and "addEventListener" in (scripts[0].text or ""), "no inline script")
    for el in root.iter():
        check(el.get("src") is None, "an element with src")

    width = float(root.get("width"))
    pad = float(root.get("data-pad"))
    total = int(root.get("data-samples"))
    full = width - 2 * pad

    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        title = g.find(NS + "title").text
        rect = g.find(NS + "rect")
        text = g.find(NS + "text")
        m = re.match(r"^(.*) \((\d+) samples?, (\d+\.\d\d)%\)$", title, re.S)
        if not check(m, "title %r" % title):
            continue
        name, count = m.group(1), int(m.group(2))
        x, y, w = float(rect.get("x")), float(rect.get("y")), float(rect.get("width"))
        check(abs(w - count * full / total) <= 0.0051,
              "%s: width %.2f for %d of %d samples, want %.4f" % (name, w, count, total,
                                                                  count * full / total))
        check(abs(float(m.group(3)) - 100.0 * count / total) <= 0.0051, "%s: share" % name)
        label = text.text or ""
        check(label == name or (label.endswith("..") and name.startswith(label[:-2])) or label == "",
              "%s: label %r" % (name, label))
        frames.append({"name": name, "count": count, "x": x, "y": y, "w": w,
                       "fill": rect.get("fill")})

    # The tree from the geometry: depth by row, parent the frame below that spans it.
    bottom = max(f["y"] for f in frames) if frames else 0
    for f in frames:
        f["depth"] = round((bottom - f["y"]) / 16)
    by_depth = defaultdict(list)
    for f in frames:
        by_depth[f["depth"]].append(f)
    paths = {}
    for d in sorted(by_depth):
        for f in by_depth[d]:
            if d == 0:
                check(f["name"] == "all" and f["count"] == total, "bottom frame %r" % f["name"])
                f["path"] = ("all",)
                continue
            parents = [p for p in by_depth[d - 1]
                       if p["x"] - 0.02 <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"] + 0.02]
            if not check(len(parents) == 1, "%s: %d parents" % (f["name"], len(parents))):
                f["path"] = ("?",)
                continue
            f["path"] = parents[0]["path"] + (f["name"],)
        # Siblings are sorted by name, left to right, and do not overlap.
    for d, row in by_depth.items():
        row.sort(key=lambda f: f["x"])
        for a, b in zip(row, row[1:]):
            check(a["x"] + a["w"] <= b["x"] + 0.02, "frames overlap: %s, %s" % (a["name"], b["name"]))
            if a["path"][:-1] == b["path"][:-1]:
                check(a["name"].encode() < b["name"].encode(),
                      "siblings out of order: %s, %s" % (a["name"], b["name"]))
    for f in frames:
        check(f["path"] not in paths, "two frames for %r" % (f["path"],))
        paths[f["path"]] = f["count"]

    want = defaultdict(int)
    for line in folded:
        text, n = line.rsplit(" ", 1)
        parts = text.split(";")
        want[("all",)] += int(n)
        for i in range(1, len(parts) + 1):
            want[("all",) + tuple(parts[:i])] += int(n)
    min_share = int(root.get("data-min-share"))
    drawn = {p: c for p, c in want.items() if c * min_share >= total}
    check(dict(paths) == drawn, "frames differ from the folded report:\n  svg:    %r\n  folded: %r"
          % (sorted(paths.items()), sorted(drawn.items())))
    depth = max((len(p) - 1 for p in drawn), default=0)
    top, bottom = int(root.get("data-top")), int(root.get("data-bottom"))
    fh = int(root.get("data-frame-height"))
    if total:
        check(int(root.get("height")) == top + (depth + 1) * fh + bottom,
              "height %s for frames %d deep" % (root.get("height"), depth))

    # The whole tree, for the script.
    trees = [e for e in root.iter(NS + "script") if e.get("id") == "tree"]
    if total and check(len(trees) == 1, "%d tree scripts" % len(trees)):
        import json
        t = json.loads(trees[0].text)
        check(len(t["names"]) == len(t["kinds"]) == len(t["fills"]), "tree tables differ in length")
        nodes, pos, tree = t["nodes"], 0, {}
        stack = []
        while pos < len(nodes):
            name, count, kids = t["names"][nodes[pos]], nodes[pos + 1], nodes[pos + 2]
            pos += 3
            while stack and stack[-1][1] == 0:
                stack.pop()
            if stack:
                stack[-1][1] -= 1
                path = stack[-1][0] + (name,)
            else:
                path = (name,)
            check(path not in tree, "tree: %r twice" % (path,))
            tree[path] = count
            stack.append([path, kids])
        check(tree == dict(want), "the tree differs from the folded report:\n  tree:   %r\n  folded: %r"
              % (sorted(tree.items()), sorted(want.items())))

    if synth:
        check_synth(root, frames)

    status = report("report-svg")
    print("report-svg: %d frames, %d samples: %s" % (len(frames), total,
                                                     "FAIL" if failures else "ok"), file=sys.stderr)
    return status


def rgb(fill):
    return tuple(int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)$", fill).groups())


def kind_of(r, g, b):
    if r >= 215 and b <= 70:
        return "user"
    if b - g >= 50 and b >= 215:
        return "kernel"
    if r <= 110 and g >= 190 and b >= 180:
        return "inlined"
    if g >= 185 and b <= 120:
        return "jit"
    if max(r, g, b) - min(r, g, b) <= 40:
        return "grey"
    return "?"


def check_synth(root, frames):
    texts = {t.get("class"): "".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class")}
    check(texts.get("title") == "perfmini: record -F 999 -o app.data -- ./app --run",
          "title %r" % texts.get("title"))
    check(texts.get("sub") == "100 samples in 3.00 s, cpu-clock at 999 Hz",
          "subtitle %r" % texts.get("sub"))
    counts = defaultdict(list)
    for f in frames:
        counts[f["name"]].append(f["count"])
        name = f["name"]
        if f["depth"] <= 1:
            want = "grey"
        elif name.endswith("_[k]"):
            want = "kernel"
        elif name.endswith("_[i]"):
            want = "inlined"
        elif name == "LambdaForm$MH.invoke":
            want = "jit"
        else:
            want = "user"
        check(kind_of(*rgb(f["fill"])) == want, "%s: colour %s is not %s" % (name, f["fill"], want))
    for name, want in [("all", [100]), ("app", [50]), ("worker", [25]), ("work:er", [5]),
                       ("leaf_inl_[i]", [5, 50]), ("recurse", [20, 20, 20, 20]),
                       ("clear_page_erms_[k]", [2, 10]), ("LambdaForm$MH.invoke", [10]),
                       ("[unknown]", [10]), ("[libc.so.6+0x9a2b0]", [8]),
                       ("operator<<(std::ostream&, \"q'\")", [8])]:
        check(sorted(counts.get(name, [])) == want, "%s: counts %r, want %r"
              % (name, sorted(counts.get(name, [])), want))


if __name__ == "__main__":
    sys.exit(main())
