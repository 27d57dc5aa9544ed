#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SVG flame graph in a real browser: Debian's chromium, headless,
# driven by puppeteer-core (tests/report/svg-browser.js) on the graph of the wide
# synthetic profile (report-gen --wide): the height at opening, hover,
# click to zoom (narrow frames appear, the picture grows), reset, Esc and
# search. The screenshots stay in the build directory as
# tests/report/svg-browser/*.png. The npm package comes from the cache that
# scripts/check fills (scripts/deps.sh, pm_install_node_deps), installed
# here if it is missing.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

for tool in node python3; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed (Debian: nodejs, python3)"
done
CHROMIUM=${CHROMIUM:-$(command -v chromium || :)}
[ -n "$CHROMIUM" ] || fail "chromium is needed (Debian: chromium)"
export CHROMIUM
# shellcheck source=scripts/deps.sh
. "$srcdir/scripts/deps.sh"
pm_install_node_deps >&3 2>&1 || fail "cannot install puppeteer-core into $PM_NODE_DIR"

"$top_builddir/tests/report/report-gen" --wide "$tmp/wide.data" || fail "report-gen --wide failed"
"$top_builddir/tests/report/report-gen" "$tmp/synth.data" || fail "report-gen failed"
"$PERFMINI" report -i "$tmp/wide.data" --svg -o "$tmp/wide.svg" 2>&3 || fail "--svg failed"
"$PERFMINI" report -i "$tmp/synth.data" --svg -o "$tmp/synth.svg" 2>&3 || fail "--svg failed"
# The file itself: frames drawn at first, the whole tree for the script.
"$PERFMINI" report -i "$tmp/wide.data" --folded >"$tmp/wide.folded" 2>&3 || fail "--folded failed"
python3 "$srcdir/tests/report/report-svg.py" "$tmp/wide.svg" "$tmp/wide.folded" 2>&3 ||
	fail "the wide graph's file is wrong: see above"

out=$top_builddir/tests/report/svg-browser
rm -rf "$out"
mkdir -p "$out"
cp "$tmp/wide.svg" "$out/"
NODE_PATH=$PM_NODE_DIR/node_modules
export NODE_PATH
run_timeout 120 node "$srcdir/tests/report/svg-browser.js" \
	"$tmp/wide.svg" "$tmp/synth.svg" "$out" 2>&3 || fail "the flame graph misbehaves in chromium: see above"
for shot in svg-open svg-zoomed svg-search; do
	[ -s "$out/$shot.png" ] || fail "no screenshot $shot.png"
done
say "screenshots in $out"
exit 0
