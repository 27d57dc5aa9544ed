#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline-firefox.py - a --firefox file read by the Firefox Profiler's own
# code: profiler-cli (npm @firefox-devtools/profiler-cli), the profiler's
# loader, format upgraders and call tree in a command-line daemon.
#
#   timeline-firefox.py PROFILER_CLI.JS FIREFOX.JSON TRUTH SESSION_DIR
#
# TRUTH is run-timeline.sh's truth of a --sample-type=cpu file (see
# timeline-check.py). The profile must load (upgraded from version 55 to
# the profiler's own), list one thread per recorded thread with its pid,
# tid and name, the threads of a pid in one process; each thread's
# samples must number those of --script, and its hottest function by
# self samples must be that of --top where --top's first is clear.
# The session lives in SESSION_DIR and is stopped whatever happens.
import json
import os
import subprocess
import sys
import time

from pycheck import check, failures, report


def main():
    cli, path, truth_path, sessions = sys.argv[1:5]
    truth = json.load(open(truth_path))
    env = dict(os.environ, PROFILER_CLI_SESSION_DIR=sessions, PROFILER_CLI_NO_SYMBOLICATE="1")

    session = "perfmini"

    def pq(*args):
        r = subprocess.run(["node", cli, *args, "--session", session], env=env,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("profiler-cli %s exited %d: %s%s" % (" ".join(args), r.returncode,
                                                                  r.stdout[-2000:], r.stderr[-2000:]))
        return r.stdout

    def load():
        # The daemon that "load" starts must answer within half a second,
        # which a loaded machine does not always give it. It is started
        # here instead, as profiler-cli itself would (the profile as its
        # argument, detached), and its session asked for its status until
        # it answers: the profile loaded.
        daemon = subprocess.Popen(["node", cli, "--daemon", path, "--session", session],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 120
        meta = os.path.join(sessions, session + ".json")
        while True:
            try:
                # A client that finds no whole session file removes the
                # session: none is asked before the daemon has written it
                # (the last thing it does once it listens).
                with open(meta) as f:
                    json.load(f)
                return pq("status", "--json")
            except (RuntimeError, OSError, ValueError):
                if daemon.poll() is not None:
                    raise RuntimeError("the profiler-cli daemon exited %d while loading %s"
                                       % (daemon.returncode, path))
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    try:
        out = load()
        status = json.loads(out[out.index("{"):])
        check(status.get("type") == "status", "the profile did not load: %s" % out[:500])
        threads = json.loads(pq("thread", "list", "--sort", "index", "--json"))["threads"]
        got = {str(t["tid"]): t for t in threads}
        check(set(got) == set(truth["threads"]), "the profiler lists threads %s, recorded %s"
              % (sorted(got), sorted(truth["threads"])))
        procs = {}
        for tid, t in got.items():
            procs.setdefault(t["pid"], set()).add(t["processIndex"])
            tr = truth["threads"].get(tid)
            if not tr:
                continue
            check(t["pid"] == tr["pid"], "thread %s: pid %s, --script %s" % (tid, t["pid"], tr["pid"]))
            check(t["name"] == truth["names"][tid], "thread %s: named %s, want %s" % (tid, t["name"], truth["names"][tid]))
            s = json.loads(pq("thread", "samples", "--thread", t["threadHandle"], "--json"))
            n = s["categoryBreakdown"]["totalSamples"]
            check(n == tr["count"], "thread %s (%s): %d samples in the profiler, --script %d"
                  % (tid, t["name"], n, tr["count"]))
            top = truth["top"].get(tid)
            by_self = s.get("topFunctionsBySelf") or []
            if top and top[1] > top[2] and check(by_self, "thread %s: no functions" % tid):
                name = by_self[0]["name"].split("!", 1)[-1]
                check(name == top[0], "thread %s (%s): hottest %s in the profiler, --top %s"
                      % (tid, t["name"], name, top[0]))
        check(all(len(v) == 1 for v in procs.values()), "a pid in several processes: %s" % procs)
    except (RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        check(False, str(e))
    finally:
        subprocess.run(["node", cli, "stop", "--all"], env=env, capture_output=True, timeout=60)
    status = report("timeline-firefox")
    if not failures:
        print("timeline-firefox: the Firefox Profiler's loader reads %d threads of %d processes"
              % (len(got), len(procs)), file=sys.stderr)
    return status


sys.exit(main())
