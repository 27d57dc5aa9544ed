#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names that are not valid UTF-8 never make an output invalid: a program
# named with ten two-byte characters runs as a thread whose name the
# kernel cuts to 15 bytes, in the middle of the eighth. Its recording's
# pprof output must parse with protoc, which rejects a profile whose
# string table holds invalid UTF-8; its JSON must parse; its SVG must be
# well-formed XML.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
for tool in protoc python3 gzip; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is needed (see scripts/deps.sh)"
done
name="éééééééééé"
mkdir "$tmp/dir"
cp "$TARGETS/spin-pie" "$tmp/dir/$name"
run_record 60 "$tmp/x.data" -- "$tmp/dir/$name" 0.3
# The cut name is in the file: the test tests what it means to.
"$PERFMINI" report -i "$tmp/x.data" --script >"$tmp/x.script" 2>&1 || fail "report --script failed"
python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
sys.exit(0 if b"\xc3\xa9" * 7 in d else 1)' "$tmp/x.script" || fail "the thread's name is not in the recording"

"$PERFMINI" report -i "$tmp/x.data" --pprof -o "$tmp/x.pb.gz" 2>"$tmp/err" || fail "report --pprof failed"
gzip -dc "$tmp/x.pb.gz" >"$tmp/x.pb" 2>/dev/null || cp "$tmp/x.pb.gz" "$tmp/x.pb"
protoc --proto_path="$srcdir/tests/report" --decode=perftools.profiles.Profile report-profile.proto \
	<"$tmp/x.pb" >"$tmp/x.decoded" 2>"$tmp/protoc.err" ||
	fail "protoc rejects the profile: $(head -c 300 "$tmp/protoc.err")"
! grep -q 'invalid UTF-8' "$tmp/protoc.err" || fail "protoc: $(head -c 300 "$tmp/protoc.err")"

"$PERFMINI" report -i "$tmp/x.data" --json >"$tmp/x.json" 2>"$tmp/err" || fail "report --json failed"
python3 -c 'import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line)' "$tmp/x.json" || fail "the JSON output does not parse as UTF-8 JSON"

"$PERFMINI" report -i "$tmp/x.data" --svg -o "$tmp/x.svg" 2>"$tmp/err" || fail "report --svg failed"
python3 -c 'import sys, xml.dom.minidom
xml.dom.minidom.parse(sys.argv[1])' "$tmp/x.svg" || fail "the SVG is not well-formed XML"
say "pprof, JSON and SVG stay valid with a thread name cut inside a character"
