#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The per-sample exports on a real recording: 'spin-pie 1' recorded, then
# report --script and --json read back by report-script.py (the grammar,
# the same samples in both, in time order, folding into the folded
# report); each sample is of the spin-pie process, on a CPU that exists,
# within the recording's duration; most end in spin_hot, named from
# spin-pie's file with a source line in JSON.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
run_record 60 "$tmp/spin.data" -- "$TARGETS/spin-pie" 1
run_report "$tmp/spin.data" "$tmp/spin.folded"
"$PERFMINI" report -i "$tmp/spin.data" --script >"$tmp/spin.txt" 2>&3 || fail "--script failed"
"$PERFMINI" report -i "$tmp/spin.data" --json >"$tmp/spin.json" 2>&3 || fail "--json failed"
python3 "$srcdir/tests/report/report-script.py" "$tmp/spin.txt" "$tmp/spin.json" "$tmp/spin.folded" 2>&3 ||
	fail "the exports do not read back: see above"

dur=$("$PERFMINI" report -i "$tmp/spin.data" | sed -n 's/^Duration: *\([0-9.]*\) s$/\1/p')
[ -n "$dur" ] || fail "no duration in the header"
python3 - "$tmp/spin.json" "$ncpus" "$dur" <<'EOS' 2>&3 || fail "the samples' fields are wrong: see above"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
ncpus, dur = int(sys.argv[2]), float(sys.argv[3])
spin = [o for o in objs if o["comm"] == "spin-pie"]
assert len(spin) >= 200, "only %d samples of spin-pie" % len(spin)
assert len({o["pid"] for o in spin}) == 1, "spin-pie samples of several processes"
assert all(o["pid"] == o["tid"] for o in spin), "a spin-pie sample of another thread"
assert all(0 <= o["cpu"] < ncpus for o in objs), "a CPU number out of range"
assert all(0 <= o["time"] <= dur + 0.01 for o in objs), "a time outside the recording"
assert all(o["period"] > 0 for o in objs), "a sample without a period"
leaf = [o for o in spin if o["frames"] and
        [f for f in o["frames"] if not f["kernel"]][0]["name"] == "spin_hot"]
assert len(leaf) >= 0.9 * len(spin), "%d of %d end in spin_hot" % (len(leaf), len(spin))
f = [f for f in leaf[0]["frames"] if not f["kernel"]][0]
assert f["module"].endswith("/spin-pie") and f.get("line", 0) > 0 and f["file"].endswith("spin.c"), f
print("run-script: %d samples, %d of spin-pie, %d end in spin_hot at %s:%d"
      % (len(objs), len(spin), len(leaf), f["file"].rsplit("/", 1)[-1], f["line"]), file=sys.stderr)
EOS
exit 0
