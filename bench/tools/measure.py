#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""measure.py - run the perfmini-versus-perf benchmarks and write RESULTS.md.

Called by bench/run, which checks the tools, builds perfmini and the
workloads and passes their paths; see bench/run --help. Every timing that
compares perfmini with perf runs both on the same input in the same
invocation, alternately: hyperfine is invoked once per round with every
command of the comparison (one run each, or a few for very short commands),
the order rotating from round to round, and the rounds' times are pooled.
Noise from other work on the machine then falls on both tools alike, and
the ratios stay meaningful even when the absolute times wander.
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time

import light  # figures 11-15
from common import (ENTRY_FRAMES, Stats, fcpu, fcpu_ratio, fint, fkb, fratio, fsize, fstat, ftime,
                    last_floats, log, median, out, perf_data_stats, perf_sample_layout,
                    perfmini_summary, pstat_line, q, sh, time_v_maxrss_direct, total_cpu,
                    tree_memory)

# ----------------------------------------------------------------------------
# The benchmark


# The call-graph modes of figures 2, 3 and 5: (mode, its name, perfmini's
# configuration, perf's). perf has no hybrid mode: perfmini's default is
# held to perf's frame pointers, what a perf user gets cheaply with -g.
SLOW_MODES = (("fp", "frame pointers", "perfmini fp", "perf fp"),
              ("hybrid", "hybrid (default)", "perfmini hybrid", "perf fp"),
              ("dwarf", "DWARF", "perfmini dwarf", "perf dwarf"))


# perfmini's modes in figure 17 (bench/stack-truth --modes).
STACK_TRUTH_MODES = "default fp dwarf,65528"


class Bench:
    def __init__(self, a):
        self.a = a
        self.quick = a.quick
        self.pm = a.perfmini
        self.perf = a.perf
        self.bin = a.bin
        self.tmp = a.tmp
        self.data = os.path.join(a.tmp, "data")
        self.logs = os.path.join(a.tmp, "logs")
        os.makedirs(self.data, exist_ok=True)
        os.makedirs(self.logs, exist_ok=True)
        self.fold = os.path.join(a.bench, "fold-perf.awk")
        self.pstat = os.path.join(a.bin, "pstat")
        self.cpu = os.path.join(a.bin, "cpu")
        self.py = a.python
        self.pyloop = os.path.join(a.bench, "workloads", "pyloop.py")
        self.hflog = open(os.path.join(self.logs, "hyperfine.log"), "a")
        self.commands = {}  # figure -> list of command strings
        self.sections = []  # (title, markdown, (load average at the figure's start, at its end))
        self.headline = []  # rows of the summary table
        self.notes = []  # observations worth a look
        self.t0 = time.time()
        self.max_rate_start = out("cat /proc/sys/kernel/perf_event_max_sample_rate")

    # -- helpers -------------------------------------------------------------

    def note_cmd(self, fig, cmd):
        self.commands.setdefault(fig, []).append(cmd)

    def hyperfine(self, fig, cmds, rounds, runs=1, warmup=1, after_round=None, label=""):
        """Times the commands [(name, command)] alternately: `rounds`
        hyperfine invocations of `runs` runs each, the command order rotated
        every round; returns {name: Stats}."""
        times = {n: [] for n, _ in cmds}
        user = {n: [] for n, _ in cmds}
        system = {n: [] for n, _ in cmds}
        codes = {n: [] for n, _ in cmds}
        jf = os.path.join(self.tmp, "hyperfine.json")
        first_argv = None
        for r in range(rounds):
            k = r % len(cmds)
            order = cmds[k:] + cmds[:k]
            if r % 2 == 1:
                order = order[::-1]
            argv = ["hyperfine", "--style", "basic", "-i", "--runs", str(runs), "--export-json", jf]
            if warmup and r == 0:
                argv += ["--warmup", str(warmup)]
            for n, c in order:
                argv += ["-n", n, c]
            if first_argv is None:
                first_argv = list(argv)
            log("  %s round %d/%d" % (label or fig, r + 1, rounds))
            self.hflog.write("\n# %s round %d\n" % (fig, r + 1))
            self.hflog.flush()
            p = subprocess.run(argv, stdout=self.hflog, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                raise RuntimeError("hyperfine failed; see %s" % self.hflog.name)
            with open(jf) as f:
                for res in json.load(f)["results"]:
                    n = res["command"]
                    times[n] += res["times"]
                    user[n] += [res["user"]] * len(res["times"])
                    system[n] += [res["system"]] * len(res["times"])
                    codes[n] += res.get("exit_codes") or []
            if after_round:
                after_round(r)
        desc = "hyperfine invoked %d time%s, --runs %d each%s, command order rotated every round:" % (
            rounds, "" if rounds == 1 else "s", runs,
            " (the first with --warmup %d)" % warmup if warmup else "")
        self.note_cmd(fig, "# " + desc + "\n" + " ".join(q(a) for a in first_argv))
        res = {}
        for n, _ in cmds:
            res[n] = Stats(times[n], statistics.fmean(user[n]) if user[n] else None,
                           statistics.fmean(system[n]) if system[n] else None, codes[n])
        return res

    def record_pair(self, fig, name, target, pm_opts, perf_opts, runs, label="", variants=()):
        """Records `target` with perfmini and perf alternately, `runs`
        times each, each recorder wrapped in 'pstat -m' (its own peak RSS
        and CPU time, its end) and the target in 'pstat' (the target's
        end). variants: (tool name, extra options) of more perfmini
        recorders, in the same rotation. Returns {tool: {...lists...,
        'data': path, 'cmd': str}}."""
        res = {}
        cmds = {}
        extra = dict(variants)
        tools = ["perfmini"] + [v for v, _ in variants] + ["perf"]
        for tool in tools:
            base = os.path.join(self.data, "%s.%s" % (name, tool.replace(" ", "_")))
            datafile = base + (".perf.data" if tool == "perf" else ".pmdata")
            outer, inner, err = base + ".outer", base + ".inner", base + ".err"
            if tool == "perf":
                rec = "%s record %s -o %s" % (q(self.perf), perf_opts, q(datafile))
            else:
                rec = "%s record %s%s -o %s" % (q(self.pm), pm_opts,
                                                 " " + extra[tool] if tool in extra else "",
                                                 q(datafile))
            cmds[tool] = "%s -m -o %s -- %s -- %s -o %s -- %s 2>%s" % (
                q(self.pstat), q(outer), rec, q(self.pstat), q(inner), target, q(err))
            res[tool] = {"post": [], "wall": [], "target": [], "hwm": [], "cpu": [],
                         "samples": [], "lost": [], "size": [], "data": datafile,
                         "cmd": cmds[tool], "err": err, "outer": outer, "inner": inner}
        for r in range(runs):
            k = r % len(tools)
            order = tools[k:] + tools[:k]  # each tool in each place in turn
            for tool in order:
                d = res[tool]
                log("  %s record with %s, run %d/%d" % (label or name, tool, r + 1, runs))
                p = sh(cmds[tool], check=False)
                if p.returncode != 0:
                    self.notes.append("`%s` exited with status %d (%s run %d); stderr: %s" % (
                        self.short(cmds[tool]), p.returncode, name, r + 1,
                        self.short(open(d["err"]).read().strip()[-400:])))
                o = pstat_line(d["outer"])
                i = pstat_line(d["inner"])
                if o and i:
                    d["post"].append(o["end"] - i["end"])
                    d["wall"].append(o["wall"])
                    d["target"].append(i["wall"])
                    d["hwm"].append(o.get("hwm_kb"))
                    d["cpu"].append(o.get("cpu"))
                if tool == "perf":
                    s, lost = perf_data_stats(d["data"])
                else:
                    s, lost = perfmini_summary(d["err"])
                d["samples"].append(s)
                d["lost"].append(lost)
                try:
                    d["size"].append(os.path.getsize(d["data"]))
                except OSError:
                    d["size"].append(None)
        self.note_cmd(fig, "# recorded %d times each, alternately; 'pstat -m' around the "
                      "recorder, 'pstat' around the target:\n%s" % (
                          runs, "\n".join(cmds[t] for t in tools)))
        return res

    def short(self, s):
        """A command or message with the temporary paths abbreviated."""
        s = s.replace(self.data + "/", "$TMP/data/").replace(self.bin + "/", "$TMP/bin/")
        s = s.replace(self.tmp, "$TMP")
        s = s.replace(self.pm, "$PERFMINI").replace(q(self.pm), "$PERFMINI")
        if self.py:
            s = s.replace(self.py, "$PYTHON")
        s = s.replace(self.a.bench + "/", "bench/")
        return s

    def section(self, title, md):
        """A figure's text; the load average at the figure's start and now
        go with it."""
        self.sections.append((title, md, (getattr(self, "fig_load", None), loadavg())))

    def aim(self, ok, near=False):
        if ok:
            return "holds"
        return "within noise" if near else "**misses**"

    # -- 1. fixed cost -------------------------------------------------------

    def fig_fixed(self):
        log("1. fixed cost of recording 'true'")
        rounds, runs = (3, 3) if self.quick else (6, 5)
        pm = "%s record -q -o %s -- true" % (q(self.pm), q(os.path.join(self.data, "true.pmdata")))
        pf = "%s record -q -e cpu-clock -g -o %s -- true" % (
            q(self.perf), q(os.path.join(self.data, "true.perf.data")))
        pfb = "%s record -q --no-bpf-event -e cpu-clock -g -o %s -- true" % (
            q(self.perf), q(os.path.join(self.data, "true-nobpf.perf.data")))
        r = self.hyperfine("1", [("perfmini", pm), ("perf", pf), ("perf --no-bpf-event", pfb)],
                           rounds, runs=runs, warmup=2, label="record -- true")
        a, b, c = r["perfmini"], r["perf"], r["perf --no-bpf-event"]
        ratio = a.mean / b.mean
        ratio_b = a.mean / c.mean
        md = []
        md.append("Wall time of recording `true` (mean ± sd over runs). "
                  "Ratio = perfmini / perf; the aim is at most 0.10.\n")
        md.append("| command | perfmini | perf | perfmini/perf | aim ≤ 0.10 |")
        md.append("|---|---|---|---|---|")
        md.append("| `record -- true` | %s | %s | %.3f | %s |" % (fstat(a), fstat(b), ratio,
                                                                  self.aim(ratio <= 0.1)))
        md.append("| same, perf with `--no-bpf-event` | %s | %s | %.3f | %s |" % (
            fstat(a), fstat(c), ratio_b, self.aim(ratio_b <= 0.1)))
        md.append("")
        md.append("CPU time (user + system, mean): perfmini %s, perf %s, perf --no-bpf-event %s." % (
            ftime((a.user or 0) + (a.system or 0)), ftime((b.user or 0) + (b.system or 0)),
            ftime((c.user or 0) + (c.system or 0))))
        md.append("")
        md.append("Most of perf's time here is waiting, not work: after the target exits, perf "
                  "waits for its side-band thread (the one that collects BPF program events), "
                  "which strace shows sitting in poll() for most of a second; `--no-bpf-event` "
                  "removes that wait. Both rows are shown because a user typing `perf record` "
                  "gets the first.")
        self.section("1. Fixed cost: `record -- true`", "\n".join(md))
        self.headline.append(("1. fixed cost of `record -- true`", fstat(a), fstat(b),
                              "%.3f (perfmini/perf)" % ratio, "≤ 0.10", self.aim(ratio <= 0.1)))

    # -- 2 and 3. slowdown and lost samples ------------------------------------

    def calibrate_cpu(self, seconds):
        tf = os.path.join(self.tmp, "calib.times")
        best = None
        for _ in range(3):
            if os.path.exists(tf):
                os.unlink(tf)
            sh("BENCH_TIMES=%s %s -n 50" % (q(tf), q(self.cpu)))
            t = last_floats(tf)[1]  # CPU time: the machine may be busy
            best = t if best is None else min(best, t)
        return max(10, int(50 * seconds / best))

    def pm_has_dwarf(self):
        """Whether this perfmini records with --call-graph=dwarf."""
        if not hasattr(self, "_dwarf"):
            helptext = out("%s record --help" % q(self.pm))
            self._dwarf = "--call-graph" in helptext and "dwarf" in helptext
        return self._dwarf

    def pm_has_hybrid(self):
        """Whether this perfmini's default call-graph mode is hybrid (and it
        takes --call-graph=fp); before it, the default was frame pointers."""
        if not hasattr(self, "_hybrid"):
            self._hybrid = "hybrid" in out("%s record --help" % q(self.pm))
        return self._hybrid

    def pm_fp(self):
        """perfmini's option for frame-pointer call chains, with a space
        after it ('' where they are the default)."""
        return "--call-graph=fp " if self.pm_has_hybrid() else ""

    def fig_slowdown(self):
        log("2./3. slowdown and lost samples of a CPU-bound target")
        target_s = 0.6 if self.quick else 1.2
        rounds = 3 if self.quick else 8
        n = self.calibrate_cpu(target_s)
        target = "%s -n %d" % (q(self.cpu), n)
        dwarf = self.pm_has_dwarf()
        hybrid = self.pm_has_hybrid()
        stack = 8192  # perf's default stack copy and hybrid's; perfmini's dwarf default is larger
        configs = [("alone", None, None)]
        for hz in (999, 10000):
            configs.append(("perfmini fp %d" % hz, "perfmini", "%s-F %d" % (self.pm_fp(), hz)))
            if hybrid:
                configs.append(("perfmini hybrid %d" % hz, "perfmini", "-F %d" % hz))
            configs.append(("perf fp %d" % hz, "perf", "-e cpu-clock -F %d -g" % hz))
            if dwarf:
                configs.append(("perfmini dwarf %d" % hz, "perfmini",
                                "-F %d --call-graph=dwarf,%d" % (hz, stack)))
            configs.append(("perf dwarf %d" % hz, "perf",
                            "-e cpu-clock -F %d --call-graph dwarf,%d" % (hz, stack)))
        cmds, files = [], {}
        for name, tool, opts in configs:
            tag = name.replace(" ", "-")
            tf = os.path.join(self.data, tag + ".times")
            ef = os.path.join(self.data, tag + ".err")
            df = os.path.join(self.data, tag + (".pmdata" if tool == "perfmini" else ".perf.data"))
            files[name] = (tf, ef, df)
            if tool is None:
                c = "BENCH_TIMES=%s %s" % (q(tf), target)
            else:
                c = "BENCH_TIMES=%s %s record %s -o %s -- %s 2>>%s" % (
                    q(tf), q(self.pm if tool == "perfmini" else self.perf), opts, q(df), target, q(ef))
            cmds.append((name, c))
        own = {name: [] for name, _, _ in configs}
        samples = {name: [] for name, _, _ in configs}
        lost = {name: [] for name, _, _ in configs}
        size = {name: None for name, _, _ in configs}

        def reset():
            for tf, ef, df in files.values():
                for f in (tf, ef):
                    if os.path.exists(f):
                        os.unlink(f)

        def after(r):
            for name, tool, _ in configs:
                tf, ef, df = files[name]
                own[name].append(last_floats(tf))
                if tool == "perfmini":
                    s, lo = perfmini_summary(ef)
                elif tool == "perf":
                    s, lo = perf_data_stats(df)
                else:
                    continue
                samples[name].append(s)
                lost[name].append(lo)
                try:
                    size[name] = os.path.getsize(df)
                except OSError:
                    pass
            reset()

        reset()
        r = self.hyperfine("2", cmds, rounds, runs=1, warmup=1, after_round=after,
                           label="slowdown")
        def cpu_of(name):
            return Stats([t[1] for t in own[name] if t])

        def wall_of(name):
            return Stats([t[0] for t in own[name] if t])

        def cmd_cpu(name):
            st = r[name]
            return (st.user or 0) + (st.system or 0)

        alone, alone_w = cpu_of("alone"), wall_of("alone")
        md = ["The target is `cpu -n %d` (bench/workloads/cpu.c: a loop over a few levels of "
              "calls; %s of CPU alone). It measures itself, from the start of its work to its "
              "end: its CPU time (CLOCK_PROCESS_CPUTIME_ID) and its wall time. The CPU time "
              "includes the sampling interrupts that land in the target (this kernel has no "
              "IRQ time accounting, so interrupt time is charged to the interrupted task) but "
              "not the time spent waiting for a CPU, which on this shared machine is most of "
              "the noise of a wall time. *Slowdown* = target CPU time recorded / alone (means); "
              "the slowdown by wall time is shown too. *Command CPU* is the user + system time "
              "of the whole command (recorder and target, from hyperfine): what recording costs "
              "the machine in all. Ratio = perfmini slowdown / perf slowdown; the aim is ≤ 1 "
              "(no worse than perf); 'within noise' means above 1 by less than twice the "
              "combined standard error of the means. The commands ran alternately, %d rounds.\n"
              % (n, ftime(alone.mean), rounds)]
        md.append("Three call-graph modes at each rate. **Frame pointers**: `perfmini record "
                  "%s-F HZ` against `perf record -e cpu-clock -F HZ -g`. **Hybrid (default)**: "
                  "`perfmini record -F HZ`, no `--call-graph`: each sample carries the kernel's "
                  "frame-pointer chain, the user registers and a copy of %d bytes of the user stack, "
                  "which perfmini unwinds while recording. perf has no such mode; the default is "
                  "held to perf's frame pointers, the cheap mode a perf user gets with `-g`: the "
                  "aim is a slowdown no worse than perf fp's, or within noise of it; the table "
                  "after the first shows it against perfmini's own fp mode too.%s\n" % (
                      self.pm_fp(), stack, "" if hybrid else
                      " **This perfmini has no hybrid mode**: its default is frame pointers, and "
                      "the hybrid rows are empty."))
        if dwarf:
            md.append("**DWARF**: both tools copy %d bytes of user stack per sample "
                      "(`perfmini record --call-graph=dwarf,%d`, `perf record --call-graph "
                      "dwarf,%d`: perf's default size; perfmini's default is larger). perfmini "
                      "unwinds while recording; perf stores the raw stacks and unwinds in perf "
                      "script.\n" % (stack, stack, stack))
        else:
            md.append("DWARF mode (`--call-graph=dwarf`) is **not implemented yet** in this "
                      "perfmini: those rows show perf alone (`--call-graph dwarf,%d`).\n" % stack)
        md += ["| mode, rate | target CPU alone | perfmini target CPU | perfmini slowdown | perf "
               "target CPU | perf slowdown | perfmini/perf | aim ≤ 1 | slowdown by wall time: "
               "perfmini / perf | command CPU: alone / perfmini / perf |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        vs_fp = {}  # hz: (hybrid/fp slowdown, 2 × combined standard error)
        for hz in (999, 10000):
            if hybrid:
                fp, hy = cpu_of("perfmini fp %d" % hz), cpu_of("perfmini hybrid %d" % hz)
                vs_fp[hz] = (hy.mean / fp.mean, 2 * (fp.rse ** 2 + hy.rse ** 2) ** 0.5)
            for mode, mname, pmk, pfk in SLOW_MODES:
                pmn = "%s %d" % (pmk, hz)
                pfn = "%s %d" % (pfk, hz)
                pf = cpu_of(pfn)
                sd_pf = pf.mean / alone.mean
                wsd_pf = wall_of(pfn).mean / alone_w.mean
                rate = "{:,} Hz".format(hz)
                label = "%s%s, %s" % (mname, " vs perf fp" if mode == "hybrid" else "", rate)
                if pmn in own:
                    pm = cpu_of(pmn)
                    sd_pm = pm.mean / alone.mean
                    wsd_pm = wall_of(pmn).mean / alone_w.mean
                    ratio = sd_pm / sd_pf
                    err = 2 * (pm.rse ** 2 + pf.rse ** 2) ** 0.5
                    verdict = self.aim(ratio <= 1.0, ratio <= 1.0 + err)
                    md.append("| %s | %s | %s | %.3f | %s | %.3f | %.3f | %s | %.3f / %.3f | %s / %s / %s |" % (
                        label, fstat(alone), fstat(pm), sd_pm, fstat(pf), sd_pf, ratio, verdict,
                        wsd_pm, wsd_pf, ftime(cmd_cpu("alone")), ftime(cmd_cpu(pmn)), ftime(cmd_cpu(pfn))))
                    rtext = "%.3f (perfmini/perf)" % ratio
                    if mode == "hybrid":
                        rtext = "%.3f (perfmini/perf fp); %.3f ± %.3f vs perfmini fp" % (
                            ratio, vs_fp[hz][0], vs_fp[hz][1])
                    self.headline.append(("2. slowdown, %s" % label, "%.3f" % sd_pm, "%.3f" % sd_pf,
                                          rtext, "≤ 1", verdict))
                else:
                    missing = "not in this perfmini" if mode == "hybrid" else "not implemented yet"
                    md.append("| %s | %s | %s | — | %s | %.3f | — | — | — / %.3f | %s / — / %s |" % (
                        label, fstat(alone), missing, fstat(pf), sd_pf, wsd_pf, ftime(cmd_cpu("alone")),
                        ftime(cmd_cpu(pfn))))
                    self.headline.append(("2. slowdown, %s" % label, missing, "%.3f" % sd_pf, "—",
                                          "≤ 1", missing))
        if hybrid:
            md += ["", "**The default against perfmini's frame pointers**, from the same runs: "
                   "hybrid slowdown / fp slowdown (target CPU time, means), and the noise band "
                   "(twice the combined standard error of the two means). What the target pays "
                   "beyond fp is the kernel's copy of %d bytes of stack and registers at every "
                   "sample; the recorder's own unwinding is in the command CPU. Why the copy is "
                   "%d bytes (what a smaller one saves the target and what it loses): figure 20 "
                   "(bench/copy-size).\n" % (stack, stack),
                   "| rate | perfmini fp: slowdown | hybrid (default): slowdown | hybrid / fp | "
                   "noise band | command CPU fp / hybrid |", "|---|---|---|---|---|---|"]
            for hz in (999, 10000):
                fpn, hyn = "perfmini fp %d" % hz, "perfmini hybrid %d" % hz
                ratio, err = vs_fp[hz]
                md.append("| {:,} Hz | {:.3f} | {:.3f} | **{:.3f}** | ± {:.3f}{} | {} / {} |".format(
                    hz, cpu_of(fpn).mean / alone.mean, cpu_of(hyn).mean / alone.mean, ratio, err,
                    "" if abs(ratio - 1) <= err else " (outside)", ftime(cmd_cpu(fpn)), ftime(cmd_cpu(hyn))))
        for name, st in r.items():
            if st.failed:
                self.notes.append("figure 2: `%s` exited non-zero in some runs (exit codes %s)" % (
                    name, sorted(set(st.codes))))
        self.section("2. Slowdown of a CPU-bound target", "\n".join(md))

        md = ["Samples and lost samples summed over the %d timed runs of figure 2 (warm-up runs "
              "not counted). perfmini: the `N samples, M lost` summary it prints on stderr "
              "(M counts lost records and lost samples). perf: read from perf.data itself, "
              "PERF_RECORD_SAMPLE records, and the sum of the `lost` fields of PERF_RECORD_LOST "
              "or of PERF_RECORD_LOST_SAMPLES, whichever is larger (they count the same losses: "
              "perf 6 adds at its end a LOST_SAMPLES record per event with the kernel's count; "
              "`Total Lost Samples` of `perf report`). Each tool at its default ring size per "
              "CPU: perf 128 pages (512 KiB) in every mode; perfmini 128 with fp, 1024 in the "
              "hybrid and dwarf modes, more above 4,000 Hz (perfmini-record(1), `-m`). Hybrid "
              "(default) is held to perf's frame pointers, as in figure 2. The aim: none lost "
              "where perf loses none.\n" % rounds,
              "| mode, rate | perfmini samples | perfmini lost | perf samples | perf lost | aim |",
              "|---|---|---|---|---|---|"]
        for hz in (999, 10000):
            for mode, mname, pmk, pfk in SLOW_MODES:
                pmn, pfn = "%s %d" % (pmk, hz), "%s %d" % (pfk, hz)
                ps = sum(x for x in samples[pfn] if x)
                pl = sum(x for x in lost[pfn] if x)
                rate = "{:,} Hz".format(hz)
                label = "%s%s, %s" % (mname, " vs perf fp" if mode == "hybrid" else "", rate)
                if pmn in samples:
                    ms = sum(x for x in samples[pmn] if x)
                    ml = sum(x for x in lost[pmn] if x)
                    verdict = self.aim(ml == 0 or pl > 0)
                    if ml and pl:
                        verdict = "perf loses too"
                    md.append("| %s | %d | %d | %d | %d | %s |" % (label, ms, ml, ps, pl, verdict))
                    self.headline.append(("3. lost samples, %s" % label,
                                          "%d of %d" % (ml, ms + ml), "%d of %d" % (pl, ps + pl),
                                          "—", "0 where perf has 0", verdict))
                else:
                    md.append("| %s | %s | — | %d | %d | — |" % (
                        label, "not in this perfmini" if mode == "hybrid" else "not implemented yet",
                        ps, pl))
        self.section("3. Lost samples", "\n".join(md))
        self.fig2_sizes = size
        # The samples of the last round's files, and what perf's samples carry.
        self.fig2_samples = {name: (s[-1] if s else None) for name, s in samples.items()}
        self.fig2_layout = {name: perf_sample_layout(files[name][2])
                            for name, tool, _ in configs if tool == "perf" and name.endswith(" 999")}

    # -- 4, 5, 6. stop-to-folded, sizes, memory --------------------------------

    def stop_to_folded(self, name, label, target, rec_runs):
        fig = "4"
        res = self.record_pair(fig, name, target, "-F 999", "-e cpu-clock -F 999 -g", rec_runs,
                               label=label, variants=(("perfmini --no-lines", "--no-lines"),))
        pmd, pfd = res["perfmini"]["data"], res["perf"]["data"]
        nld = res["perfmini --no-lines"]["data"]
        rounds = 3 if self.quick else 5
        pm_rep = "%s report --folded -i %s >/dev/null" % (q(self.pm), q(pmd))
        nl_rep = "%s report --folded -i %s >/dev/null" % (q(self.pm), q(nld))
        pf_rep = "%s script -i %s 2>/dev/null | awk -f %s >/dev/null" % (q(self.perf), q(pfd), q(self.fold))
        rep = self.hyperfine(fig, [("perfmini report", pm_rep),
                                   ("perfmini report, --no-lines recording", nl_rep),
                                   ("perf script | fold", pf_rep)],
                             rounds, label=label + " report")
        # With source lines and inline frames: probe perf once, under a cap.
        cap = 600
        pm_lines = "%s report --folded --lines -i %s >/dev/null" % (q(self.pm), q(pmd))
        pf_lines = ("timeout %d %s script -F comm,tid,ip,sym,dso,srcline --inline -i %s 2>/dev/null "
                    "| awk -f %s >/dev/null" % (cap, q(self.perf), q(pfd), q(self.fold)))
        log("  %s: one probe of perf script with srcline and --inline (cap %d s)" % (label, cap))
        probe_out = os.path.join(self.tmp, "probe.pstat")
        if os.path.exists(probe_out):
            os.unlink(probe_out)
        t = time.monotonic()
        sh(self.tree_cmd(probe_out, pf_lines), check=False)
        probe = time.monotonic() - t
        d = pstat_line(probe_out) or {}
        probe = d.get("wall", probe)  # the pipeline's own exit, not its helpers' reaping
        capped = probe >= cap - 1
        slow = capped or probe > 60
        if slow:
            lines = self.hyperfine(fig, [("perfmini report --lines", pm_lines)], rounds,
                                   label=label + " report --lines")
            lines["perf script srcline"] = Stats([probe])
            self.note_cmd(fig, "# timed once (too slow to repeat), by the harness's clock, under "
                          "'pstat -t' (its CPU time, below):\n" + self.tree_cmd(probe_out, pf_lines))
        else:
            lines = self.hyperfine(fig, [("perfmini report --lines", pm_lines),
                                         ("perf script srcline", pf_lines)],
                                   3 if self.quick else 4, label=label + " report --lines")
        # CPU time of each report pipeline's whole process tree.
        cpu_cmds = [("perfmini report", pm_rep), ("perfmini report, --no-lines recording", nl_rep),
                    ("perf script | fold", pf_rep), ("perfmini report --lines", pm_lines)]
        if not slow:
            cpu_cmds.append(("perf script srcline", pf_lines))
        cpu_runs = 2 if self.quick else 3
        rep_cpu = self.tree_cpu(fig, cpu_cmds, cpu_runs, label=label)
        if slow:
            rep_cpu["perf script srcline"] = [d["tree_cpu"]] if d.get("tree_cpu", -1) >= 0 else []
        # Folded outputs, for the counts shown.
        pm_stacks = out("%s report --folded -i %s | wc -l" % (q(self.pm), q(pmd)))
        nl_stacks = out("%s report --folded -i %s | wc -l" % (q(self.pm), q(nld)))
        pf_stacks = out("%s script -i %s 2>/dev/null | awk -f %s | wc -l" % (q(self.perf), q(pfd), q(self.fold)))
        # Peak memory of report and script.
        mem = {
            "perfmini report": time_v_maxrss_direct("%s report --folded -i %s" % (q(self.pm), q(pmd))),
            "perfmini report --lines": time_v_maxrss_direct("%s report --folded --lines -i %s" % (q(self.pm), q(pmd))),
            "perf script": time_v_maxrss_direct("%s script -i %s" % (q(self.perf), q(pfd))),
            "perf script srcline": None if capped else time_v_maxrss_direct(
                "%s script -F comm,tid,ip,sym,dso,srcline --inline -i %s" % (q(self.perf), q(pfd))),
            "perfmini report, --no-lines recording": time_v_maxrss_direct(
                "%s report --folded -i %s" % (q(self.pm), q(nld))),
        }
        if not capped:
            log("  %s: perf script srcline again, its process tree's memory polled" % label)
            mem["srcline tree"] = tree_memory("exec timeout %d %s script -F comm,tid,ip,sym,dso,srcline "
                                              "--inline -i %s" % (cap, q(self.perf), q(pfd)))
        script_txt = os.path.join(self.tmp, "script.txt")
        sh("%s script -i %s 2>/dev/null >%s" % (q(self.perf), q(pfd), q(script_txt)), check=False)
        mem["fold"] = time_v_maxrss_direct("awk -f %s <%s" % (q(self.fold), q(script_txt)))
        os.unlink(script_txt)
        self.note_cmd(fig, "# peak memory: /usr/bin/time -v on each of\n"
                      "%s report --folded [--lines] -i %s\n%s script [-F comm,tid,ip,sym,dso,srcline --inline] -i %s\n"
                      "awk -f %s   (the fold, on perf script's output)\n"
                      "# and perf script srcline once more, its process tree (perf and its addr2line\n"
                      "# helpers) polled every 10 ms from /proc/PID/status (VmHWM, VmRSS)" % (
                          q(self.pm), q(pmd), q(self.perf), q(pfd), q(self.fold)))
        return {"rec": res, "rep": rep, "lines": lines, "capped": capped, "cap": cap,
                "stacks": (pm_stacks, pf_stacks, nl_stacks), "mem": mem, "target": target,
                "rep_cpu": rep_cpu, "cpu_runs": cpu_runs, "slow": slow}

    def tree_cmd(self, outfile, cmd):
        """The shell command `cmd` run under 'pstat -t', its line appended
        to outfile."""
        return "%s -t -o %s -- /bin/sh -c %s" % (q(self.pstat), q(outfile), q(cmd))

    def tree_cpu(self, fig, cmds, runs, label=""):
        """CPU time (user + system) of each command's whole process tree:
        the commands [(name, shell command)] run `runs` times each, the
        order rotated every round, each under 'pstat -t' (a child
        subreaper: the helpers a command leaves running at its exit are
        reaped and counted too). Returns {name: [seconds]}."""
        res = {n: [] for n, _ in cmds}
        f = os.path.join(self.tmp, "tree.pstat")
        for r in range(runs):
            k = r % len(cmds)
            for n, c in cmds[k:] + cmds[:k]:
                log("  %s CPU time of %s, run %d/%d" % (label or fig, n, r + 1, runs))
                if os.path.exists(f):
                    os.unlink(f)
                sh(self.tree_cmd(f, c), check=False)
                d = pstat_line(f)
                if d and d.get("tree_cpu", -1) >= 0:
                    res[n].append(d["tree_cpu"])
        self.note_cmd(fig, "# CPU time of each command's whole process tree, %d runs each, "
                      "alternately:\n%s" % (runs, "\n".join(self.tree_cmd(f, c) for _, c in cmds)))
        return res

    def sample_bytes(self):
        """Figure 5's table of what the kernel copies into the ring at each
        sample, per mode: perf's measured in figure 2's perf.data files (999
        Hz, last round), perfmini's computed from what its samples carry
        (it drops the stack copies once unwound, so no file holds them)."""
        lay = getattr(self, "fig2_layout", {})
        fp, dw = lay.get("perf fp 999"), lay.get("perf dwarf 999")
        if not fp or not dw or "chain" not in fp or "stack" not in dw:
            return ["", "What the kernel copies per sample is read from figure 2's perf.data files: "
                    "figure 2 did not run in this invocation, or they could not be read."]
        fixed = 8 + 5 * 8  # header; ip, tid, time, cpu, period
        pm_fp = fixed + 8 + 8 * fp["chain"]
        regs = 8 + 17 * 8  # abi; the 16 general registers and ip
        pm_hy = pm_fp + regs + 8 + dw["stack"] + 8
        pm_dw = fixed + 8 + 8 * dw["chain"] + regs + 8 + dw["stack"] + 8
        return ["", "**What the kernel copies per sample** into the ring (the copy figure 2's "
                "slowdown pays at every sample), cpu.c at 999 Hz. perf: measured, the mean size "
                "of the PERF_RECORD_SAMPLE records (header included) in figure 2's last perf.data "
                "of each mode, %s samples with `-g`, %s with `--call-graph dwarf,8192`. perfmini: "
                "no file holds its samples (it drops the stack copies once unwound), so they are "
                "computed from what each carries: 8 bytes of header and 40 of ip, tid, time, cpu "
                "and period; the call chain, 8 + 8 an entry (perf `-g`'s mean length; in dwarf "
                "mode kernel frames only, as perf's); in hybrid and dwarf mode the user "
                "registers, 8 + 17 × 8 (abi, the 16 general registers and ip), and the stack copy, "
                "8 + the bytes copied + 8 (size and dyn_size; the bytes copied as perf's, which "
                "asks for the same 8,192: the kernel copies less only where the stack is "
                "shallower).\n" % (fint(fp["n"]), fint(dw["n"])),
                "| mode | perf, measured | perfmini, computed | hybrid or dwarf / fp |",
                "|---|---|---|---|",
                "| frame pointers | %.0f B (call chain %.1f entries) | %.0f B | — |" % (
                    fp["size"], fp["chain"], pm_fp),
                "| hybrid, 8 KiB (perfmini's default) | — (perf has no such mode) | %.0f B | %s |" % (
                    pm_hy, fratio(pm_hy / pm_fp)),
                "| DWARF, `dwarf,8192` | %.0f B (%.0f user registers, %.0f B of stack copied of "
                "which %.0f B in use, call chain %.1f entries) | %.0f B | %s (perf: %s) |" % (
                    dw["size"], dw["regs"], dw["stack"], dw["dyn"], dw["chain"], pm_dw,
                    fratio(pm_dw / pm_fp), fratio(dw["size"] / fp["size"]))]

    def xz_text(self, xz_mb, fig):
        """The generated text that xz compresses (made once per run)."""
        text = os.path.join(self.tmp, "text-%dM.txt" % xz_mb)
        if not os.path.exists(text):
            log("  generating %d MB of text" % xz_mb)
            sh("%s %s %d %s" % (q(sys.executable), q(os.path.join(self.a.bench, "workloads", "gen-text.py")),
                                xz_mb, q(text)))
        self.note_cmd(fig, "# input for xz, generated:\n%s bench/workloads/gen-text.py %d $TMP/text-%dM.txt" % (
            "python3", xz_mb, xz_mb))
        return text

    def max_rate_now(self):
        return out("cat /proc/sys/kernel/perf_event_max_sample_rate")

    def fig_workloads(self):
        log("4./5./6. stop-to-folded, data size and memory on Python and xz")
        rec_runs = 2 if self.quick else 5
        py_rounds = 250 if self.quick else 800
        xz_mb = 4 if self.quick else 12
        text = self.xz_text(xz_mb, "4")
        work = [
            ("python", "Python (`pyloop.py %d`)" % py_rounds,
             "%s %s %d" % (q(self.py), q(self.pyloop), py_rounds)),
            ("xz", "`xz -9` of %d MB of generated text" % xz_mb,
             "xz -9 -T1 -c %s >/dev/null" % q(text)),
        ]
        results = []
        for name, desc, target in work:
            results.append((name, desc, self.stop_to_folded(name, name, target, rec_runs)))
        self.workload_results = results

        md = ["Both tools record the same workload at 999 Hz (`perfmini record -F 999`, "
              "`perfmini record -F 999 --no-lines`, `perf record -e cpu-clock -F 999 -g`), %d "
              "times each, in turn: perfmini in its default call-graph mode, hybrid (each sample "
              "also carries an 8 KiB copy of the user stack, unwound while recording), perf with "
              "frame-pointer call chains.\n" % rec_runs,
              "**Two perfmini recordings.** By default perfmini reads DWARF while recording: "
              "every frame gets its source line and inline chain, and the folded output names "
              "inlined functions as frames of their own. `perf script` gives symbol names only. "
              "`record --no-lines` names frames from the symbol tables only, as perf script "
              "does, and reads no DWARF: that is the like-for-like row, and the default row "
              "shows what the extra information costs.\n",
              "**How the stop is isolated.** The target runs under a tiny wrapper "
              "(bench/tools/pstat.c) that notes the CLOCK_MONOTONIC time at which the target "
              "exited; another wrapper around the recorder notes when the recorder exited. The "
              "difference is the recorder's post-stop phase: draining, symbolizing (for perfmini: "
              "every distinct frame not yet named while recording, by default with DWARF lines "
              "and inline chains) and writing the file. It "
              "does not depend on the target's own run time, which sampling perturbs, so it is "
              "not 'record wall time minus the target alone'. Then the report step is timed on "
              "the recording from the last run: `perfmini report` (folded) against `perf script "
              "| awk -f bench/fold-perf.awk` (folded by this benchmark's own awk script).\n",
              "*perfmini stop-to-folded* = post-stop phase + `perfmini report`. *perf "
              "stop-to-folded* = `perf script | fold`, as the brief defines it; the column after "
              "it adds perf record's own post-stop phase (it reads the whole file back to collect "
              "build-ids and fills its build-id cache), which a perf user waits for as well. "
              "Ratio = perf / perfmini (how many times faster perfmini is); the aim is ≥ 10× "
              "(plain) and ≥ 50× (source lines and inline frames). Ratios use the script-only "
              "perf figure.\n",
              "**Total CPU.** The post-stop phase leaves out what perfmini does while the target "
              "runs: it names frames (by default with DWARF lines and inline chains) as they "
              "come, on its own threads, and that CPU time is spent all the same. The CPU columns "
              "count each tool's whole pipeline, user + system time, the target's own not "
              "included. *perfmini* = `perfmini record`'s CPU time (its process, every thread, "
              "from its start to its exit: utime + stime of the recorder read from /proc by "
              "`pstat -m` at its exit, median over the %d recordings, in clock ticks of 10 ms) "
              "+ `perfmini report`'s (`report --lines` in the second table). *perf* = `perf "
              "record`'s CPU time, taken the same way, + that of `perf script | awk -f "
              "bench/fold-perf.awk` (the srcline command in the second table): both processes of "
              "the pipe, the shell that runs it and every helper perf script starts "
              "(`addr2line`). The report commands' CPU is read by `pstat -t` "
              "(bench/tools/pstat.c), which makes itself a child subreaper and reaps every "
              "descendant left once the command has ended: perf script leaves one `addr2line` "
              "running when it exits, which wait4() (and so hyperfine's user and system times) "
              "never counts. Each report command ran %d times more for this, in turn, on the "
              "recording of the last run; the median is taken. CPU ratio = perf / perfmini. No "
              "aim was set for it.\n" % (rec_runs, results[0][2]["cpu_runs"]),
              "| workload | samples (perfmini / perf) | perfmini post-stop | perfmini report | "
              "perfmini stop-to-folded | perf script \\| fold | perf post-stop + script \\| fold | "
              "perf/perfmini | aim ≥ 10× | perfmini CPU: record + report | perf CPU: record + "
              "script \\| fold | CPU perf/perfmini |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        md_lines = ["| workload | perfmini post-stop + `report --lines` | perf script srcline "
                    "--inline \\| fold | perf/perfmini | aim ≥ 50× | perfmini CPU: record + "
                    "`report --lines` | perf CPU: record + script srcline \\| fold | CPU "
                    "perf/perfmini |", "|---|---|---|---|---|---|---|---|"]
        for name, desc, r in results:
            pf = r["rec"]["perf"]
            post_pf = median(pf["post"])
            rep_pf = r["rep"]["perf script | fold"]
            s2f_pf = rep_pf.mean
            for tool, rep_name, what, hl in (
                    ("perfmini --no-lines", "perfmini report, --no-lines recording",
                     "`--no-lines`: names only, as perf script", "names only (`--no-lines`)"),
                    ("perfmini", "perfmini report", "default: names, lines and inlined frames",
                     "default (DWARF read)")):
                pm = r["rec"][tool]
                post_pm = median(pm["post"])
                rep_pm = r["rep"][rep_name]
                s2f_pm = (post_pm or 0) + rep_pm.mean
                ratio = s2f_pf / s2f_pm
                c_pm = total_cpu(pm["cpu"], r["rep_cpu"][rep_name])
                c_pf = total_cpu(pf["cpu"], r["rep_cpu"]["perf script | fold"])
                md.append("| %s, %s | %s / %s | %s | %s | **%s** | **%s** | %s | **%s** | %s | %s | %s | "
                          "**%s** |" % (
                              desc, what, fint(median(pm["samples"])), fint(median(pf["samples"])),
                              ftime(post_pm), fstat(rep_pm), ftime(s2f_pm), fstat(rep_pf),
                              ftime(s2f_pf + (post_pf or 0)), fratio(ratio), self.aim(ratio >= 10),
                              fcpu(c_pm), fcpu(c_pf), fcpu_ratio(c_pf, c_pm)))
                self.headline.append(("4. stop-to-folded, %s, %s" % (hl, name), ftime(s2f_pm),
                                      ftime(s2f_pf), "%s faster (perf/perfmini)" % fratio(ratio),
                                      "≥ 10×", self.aim(ratio >= 10)))
                self.headline.append(("4. total CPU, record + report, %s, %s" % (hl, name),
                                      ftime(c_pm[2]), ftime(c_pf[2]),
                                      "%s (perf/perfmini)" % fcpu_ratio(c_pf, c_pm), "—", "—"))
            pm = r["rec"]["perfmini"]
            post_pm = median(pm["post"])
            ln_pm = r["lines"]["perfmini report --lines"]
            ln_pf = r["lines"]["perf script srcline"]
            s2l_pm = (post_pm or 0) + ln_pm.mean
            if r["capped"]:
                pf_txt = "> %d s (hit the cap)" % r["cap"]
                ratio_l = r["cap"] / s2l_pm
                rtxt = "> " + fratio(ratio_l)
            else:
                pf_txt = fstat(ln_pf)
                ratio_l = ln_pf.mean / s2l_pm
                rtxt = fratio(ratio_l)
            c_pm = total_cpu(pm["cpu"], r["rep_cpu"]["perfmini report --lines"])
            c_pf = total_cpu(pf["cpu"], r["rep_cpu"]["perf script srcline"])
            if r["capped"]:
                c_pf = (c_pf[0], None, None)  # cut short: its CPU time is a floor, not a figure
            md_lines.append("| %s | %s + %s = **%s** | **%s** | **%s** | %s | %s | %s | **%s** |" % (
                desc, ftime(post_pm), fstat(ln_pm), ftime(s2l_pm), pf_txt, rtxt,
                self.aim(ratio_l >= 50), fcpu(c_pm), fcpu(c_pf), fcpu_ratio(c_pf, c_pm)))
            self.headline.append(("4. stop-to-folded with lines + inlines, %s" % name,
                                  ftime(s2l_pm), pf_txt.replace(" (hit the cap)", ""),
                                  "%s faster (perf/perfmini)" % rtxt, "≥ 50×",
                                  self.aim(ratio_l >= 50)))
            self.headline.append(("4. total CPU with lines + inlines, record + report --lines / "
                                  "script srcline, %s" % name, ftime(c_pm[2]), ftime(c_pf[2]),
                                  "%s (perf/perfmini)" % fcpu_ratio(c_pf, c_pm), "—", "—"))
            if ln_pf.failed and not r["capped"]:
                self.notes.append("figure 4 (%s): perf script with srcline exited non-zero" % name)
        md.append("")
        md.append("Share of perfmini's stop-to-folded spent in its post-stop phase (symbolizing "
                  "at record time): " + "; ".join(
                      "%s %.0f%%" % (name, 100 * (median(r["rec"]["perfmini"]["post"]) or 0) / (
                          (median(r["rec"]["perfmini"]["post"]) or 0) + r["rep"]["perfmini report"].mean))
                      for name, _, r in results) + ".")
        md.append("")
        md.append("Distinct stacks in the folded output of the last recording: " + "; ".join(
            "%s: perfmini %s (`--no-lines` %s), perf %s" % (name, r["stacks"][0], r["stacks"][2], r["stacks"][1])
            for name, _, r in results) +
            " (perfmini's default folded output names inlined functions as frames of their own, "
            "which splits stacks further; perf script's and `--no-lines`' do not).")
        md.append("")
        md.append("**With source lines and inline frames.** perfmini resolves lines and inline "
                  "chains at record time, so its cost is the same post-stop phase plus `perfmini "
                  "report --lines`. perf: `perf script -F comm,tid,ip,sym,dso,srcline --inline | "
                  "fold`, capped at 600 s (`timeout`); when perf's first run took over a minute it "
                  "was not repeated, and its CPU time is that run's (none when it hit the cap).\n")
        md += md_lines
        md.append("")
        md.append("perf here is Debian's 6.1 build without libbfd: it resolves source lines by "
                  "piping addresses to a long-running `addr2line -i -f` per binary. In this "
                  "build `--inline` printed no inlined frames at all (only the innermost line of "
                  "each frame), so its output carries less than `perfmini report --lines`, which "
                  "names every inlined function (`_[i]`) with its call-site line.")
        py = self.py
        md.append("")
        md.append("The Python is `%s` (%s), whose libpython is built with `-g -O3` and without "
                  "frame pointers: perf's frame-pointer call chains through the interpreter are "
                  "short and partly garbage, while perfmini's default (hybrid) unwinds them with "
                  "libpython's unwind tables, so its stacks are deeper and more of them distinct "
                  "(figure 9 measures how many reach the entry in DWARF mode); DWARF lines come "
                  "from libpython's own debug info. liblzma (xz) has no debug file installed here, so its frames get symbol "
                  "names from .dynsym only and no lines, for both tools." % (
                      self.short(py), out("%s -c 'import sys; print(sys.version.split()[0])'" % q(py))))
        self.section("4. Stop-to-folded on real workloads", "\n".join(md))

        md = ["The data files of the last recording of each workload in figure 4 (perfmini in "
              "its default call-graph mode, hybrid; perf `-g`), and of the last round of figure "
              "2 (cpu.c, in each mode; hybrid beside perf's frame pointers, as there). Ratio = "
              "perfmini / perf (below 1: perfmini's is smaller); *per sample* = the file's size "
              "over the samples it holds. perfmini's file is self-contained (symbols, lines and "
              "inline chains included); perf.data needs the binaries (or perf's build-id cache) "
              "to be read. In hybrid and DWARF mode perfmini stores the stacks it unwound while "
              "recording and drops the stack copies; perf in DWARF mode stores the raw register "
              "and stack copies (8 KiB a sample) that perf script unwinds later.\n",
              "| recording | perfmini.data | perf.data | perfmini/perf | per sample perfmini / perf |",
              "|---|---|---|---|---|"]

        def per_sample(size, n):
            return "%.0f B" % (size / n) if size and n else "n/a"

        for name, desc, r in results:
            pm, pf = r["rec"]["perfmini"], r["rec"]["perf"]
            a, b = pm["size"][-1], pf["size"][-1]
            md.append("| %s, 999 Hz, perfmini default (hybrid) / perf `-g` | %s | %s | %s | %s / %s |" % (
                desc, fsize(a), fsize(b), "%.2f" % (a / b) if a and b else "n/a",
                per_sample(a, pm["samples"][-1]), per_sample(b, pf["samples"][-1])))
            if a and b:
                self.headline.append(("5. data file size, default (hybrid) / perf fp, %s" % name, fsize(a),
                                      fsize(b), "%.2f (perfmini/perf)" % (a / b), "—", "—"))
        sizes = self.fig2_sizes
        counts = getattr(self, "fig2_samples", {})
        for hz in (999, 10000):
            for mode, mname, pmk, pfk in SLOW_MODES:
                pmn, pfn = "%s %d" % (pmk, hz), "%s %d" % (pfk, hz)
                a, b = sizes.get(pmn), sizes.get(pfn)
                what = {"fp": "frame pointers (`--call-graph=fp` / `-g`)",
                        "hybrid": "hybrid (default) / perf fp (`-g`)",
                        "dwarf": "DWARF (`dwarf,8192` both)"}[mode]
                if (mode == "dwarf" and not self.pm_has_dwarf()) or (mode == "hybrid" and not self.pm_has_hybrid()):
                    md.append("| cpu.c, {}, {:,} Hz | not in this perfmini | {} | — | — |".format(
                        what, hz, fsize(b)))
                    continue
                md.append("| cpu.c, {}, {:,} Hz | {} | {} | {} | {} / {} |".format(
                    what, hz, fsize(a), fsize(b), "%.2f" % (a / b) if a and b else "n/a",
                    per_sample(a, counts.get(pmn)), per_sample(b, counts.get(pfn))))
        if sizes and self.pm_has_hybrid():
            md += ["", "**Hybrid against perfmini's frame pointers** (the same cpu.c recordings of "
                   "figure 2's last round): the aim is a data file at most 1.2 × fp's, since the "
                   "stack copies are unwound and dropped while recording. The sizes per sample "
                   "tell the two causes of a larger file apart: larger samples, or more of them "
                   "(the target is the same work, but its CPU time, and so its cpu-clock "
                   "samples, grows with its slowdown in figure 2).\n",
                   "| cpu.c, rate | perfmini fp | perfmini hybrid (default) | hybrid / fp | "
                   "per sample fp / hybrid | aim ≤ 1.2 |", "|---|---|---|---|---|---|"]
            for hz in (999, 10000):
                fpn, hyn = "perfmini fp %d" % hz, "perfmini hybrid %d" % hz
                a, h = sizes.get(fpn), sizes.get(hyn)
                ratio = h / a if a and h else None
                verdict = "n/a" if ratio is None else self.aim(ratio <= 1.2)
                md.append("| {:,} Hz | {} | {} | {} | {} / {} | {} |".format(
                    hz, fsize(a), fsize(h), "%.2f" % ratio if ratio else "n/a",
                    per_sample(a, counts.get(fpn)), per_sample(h, counts.get(hyn)), verdict))
                self.headline.append(("5. data file size, hybrid (default) / perfmini fp, cpu.c, {:,} Hz".format(hz),
                                      "hybrid %s / fp %s" % (fsize(h), fsize(a)),
                                      "%s (perf fp)" % fsize(sizes.get("perf fp %d" % hz)),
                                      "%.2f (hybrid/fp)" % ratio if ratio else "n/a", "≤ 1.2", verdict))
        md += self.sample_bytes()
        self.section("5. Data file size", "\n".join(md))

        md = ["Peak resident memory. **record**: the recorder's own peak (VmHWM) and CPU time "
              "(utime + stime, its threads included, its children not), read from /proc by "
              "bench/tools/pstat.c when the recorder is about to exit (ptrace exit stop). "
              "`/usr/bin/time -v` cannot give this: wait4() reports the largest process of the "
              "tree, and `xz -9` (about 700 MB) is larger than either recorder. Median over the "
              "runs. **report / script**: `/usr/bin/time -v` (maximum resident set size), one "
              "run each. perf script with srcline feeds `addr2line` child processes and kills "
              "them at its end, so time -v never sees them: that run is repeated with its "
              "process tree polled every 10 ms (`tree_memory` in bench/tools/common.py: the "
              "largest VmHWM of each program, and the largest sum of VmRSS over the tree at one "
              "moment). The fold's own peak is listed separately. Ratio = perfmini / perf.\n",
              "The aim (no more memory than perf) is judged where both tools do the same work: "
              "`record --no-lines` against `perf record` (symbol names only; perf looks them up "
              "in `perf script`, perfmini while recording), and the default recording, which "
              "reads DWARF for lines and inline chains, against the perf pipeline that does: "
              "`perf script` with srcline and its addr2line helpers. The default recording "
              "against `perf record` (which resolves nothing) is shown with the ratio only.\n",
              "| workload | step | perfmini | perf | perfmini/perf |", "|---|---|---|---|---|"]
        for name, desc, r in results:
            pm, nl, pf = r["rec"]["perfmini"], r["rec"]["perfmini --no-lines"], r["rec"]["perf"]
            m = r["mem"]
            b = median(pf["hwm"])
            a = median(nl["hwm"])
            md.append("| %s | record `--no-lines` / record (peak RSS) | %s | %s | %s |" % (
                desc, fkb(a), fkb(b), "%.2f" % (a / b) if a and b else "n/a"))
            if a and b:
                self.headline.append(("6. peak memory of record, names only (`--no-lines`), %s" % name,
                                      fkb(a), fkb(b), "%.2f (perfmini/perf)" % (a / b), "≤ 1",
                                      self.aim(a <= b)))
            a = median(pm["hwm"])
            md.append("| %s | record (default: DWARF lines and inlines) / record (peak RSS) | %s | %s | %s |" % (
                desc, fkb(a), fkb(b), "%.2f" % (a / b) if a and b else "n/a"))
            if a and b:
                self.headline.append(("6. peak memory of record, default (DWARF read), vs perf record, %s" % name,
                                      fkb(a), fkb(b), "%.2f (perfmini/perf)" % (a / b), "—", "—"))
            tree = m.get("srcline tree")
            if tree:
                peaks, together = tree
                a2l = peaks.get("addr2line")
                md.append("| %s | record (default) / perf script srcline's addr2line helper (peak RSS, polled) "
                          "| %s | %s | %s |" % (desc, fkb(a), fkb(a2l), "%.2f" % (a / a2l) if a and a2l else "n/a"))
                md.append("| %s | record (default) / perf script srcline with its helpers at one moment "
                          "(largest sum, polled) | %s | %s | %s |" % (
                              desc, fkb(a), fkb(together), "%.2f" % (a / together) if a and together else "n/a"))
                if a and together:
                    self.headline.append(("6. peak memory, lines + inlines: perfmini record vs perf script "
                                          "srcline + addr2line, %s" % name, fkb(a), fkb(together),
                                          "%.2f (perfmini/perf)" % (a / together), "≤ 1",
                                          self.aim(a <= together)))
            for tool, what in ((nl, "record `--no-lines`"), (pm, "record (default)")):
                c1, c2 = median(tool["cpu"]), median(pf["cpu"])
                md.append("| %s | %s / record (CPU time of the recorder) | %s | %s | %s |" % (
                    desc, what, ftime(c1), ftime(c2), "%.2f" % (c1 / c2) if c1 and c2 else "n/a"))
            for step, x, y in (("report (`--no-lines` recording) / script", "perfmini report, --no-lines recording",
                                "perf script"),
                               ("report / script", "perfmini report", "perf script"),
                               ("report --lines / script srcline (time -v: the largest process it saw)",
                                "perfmini report --lines", "perf script srcline")):
                a, b = m.get(x), m.get(y)
                md.append("| %s | %s | %s | %s | %s |" % (
                    desc, step, fkb(a), fkb(b), "%.2f" % (a / b) if a and b else "n/a"))
                if x == "perfmini report" and a and b:
                    self.headline.append(("6. peak memory of report vs perf script, %s" % name, fkb(a), fkb(b),
                                          "%.2f (perfmini/perf)" % (a / b), "≤ 1", self.aim(a <= b)))
            md.append("| %s | fold (awk, on perf's side only) | — | %s | — |" % (desc, fkb(m.get("fold"))))
        self.section("6. Peak memory", "\n".join(md))

    # -- 7. scaling ------------------------------------------------------------

    def fig_scaling(self):
        log("7. scaling with distinct addresses and with samples")
        # The distinct-address runs (10 kHz) go first: the largest sample
        # counts use a higher rate, after which the kernel may lower
        # perf_event_max_sample_rate.
        h0 = len(self.headline)
        md_funcs = self.scaling_funcs()
        h_funcs = self.headline[h0:]
        del self.headline[h0:]
        md = self.scaling_samples() + md_funcs
        self.headline += h_funcs
        self.section("7. Scaling", "\n".join(md))

    def scaling_samples(self):
        sizes = [10 ** 3, 10 ** 4, 10 ** 5] + ([] if self.quick else [10 ** 6])
        threads = 2
        max_rate = int(out("cat /proc/sys/kernel/perf_event_max_sample_rate") or 100000)
        rows = []
        for n in sizes:
            # cpu -c: each thread runs until it has used this much CPU
            # time, so a cpu-clock recording takes about F * threads * dur
            # samples, however busy the machine.
            hz = 10000
            if n / (threads * hz) > 20:  # raise the rate rather than wait minutes
                hz = min(25000, max_rate // 2)
            dur = n / (threads * hz)
            runs = 1 if n >= 10 ** 6 else (2 if self.quick else 3)
            target = "%s -c %.3f -j %d" % (q(self.cpu), dur, threads)
            label = "samples %.0e" % n
            rec = self.record_pair("7", "scale-%d" % n, target, "-F %d" % hz,
                                   "-e cpu-clock -F %d -g" % hz, runs, label=label)
            rep = self.hyperfine("7", [
                ("perfmini report", "%s report --folded -i %s >/dev/null" % (q(self.pm), q(rec["perfmini"]["data"]))),
                ("perf script | fold", "%s script -i %s 2>/dev/null | awk -f %s >/dev/null" % (
                    q(self.perf), q(rec["perf"]["data"]), q(self.fold)))],
                2 if (self.quick or n >= 10 ** 6) else 3, label=label + " report")
            rows.append((n, dur, hz, rec, rep))
        md = ["**Samples.** `cpu -c CPUSECONDS -j 2` (two threads, each running until it has "
              "used CPUSECONDS of CPU time, so that a cpu-clock recording at F Hz takes about "
              "2 × F × CPUSECONDS samples however busy the machine) recorded by both tools "
              "(perfmini in its default call-graph mode, hybrid; perf `-g`) at 10 kHz, or at 25 kHz where 10 kHz would need over 20 CPU seconds a thread. "
              "Post-stop phase, recorder CPU time and file size: median over the runs; report: `perfmini report` vs `perf script | fold`, "
              "mean over alternate runs. As in figure 4, perfmini's stop-to-folded is its "
              "post-stop phase plus `perfmini report`, perf's is `perf script | fold`; perf "
              "record's own post-stop phase is shown but left out of the ratio (perf / perfmini).\n",
              "| nominal samples | -F, CPU s a thread | samples perfmini / perf | lost perfmini / perf "
              "| recorder CPU perfmini / perf | file perfmini / perf | perfmini post-stop | "
              "perfmini report | perfmini stop-to-folded | perf script \\| fold | perf/perfmini | "
              "perf record post-stop (not in the ratio) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for n, dur, hz, rec, rep in rows:
            pm, pf = rec["perfmini"], rec["perf"]
            a, b = rep["perfmini report"], rep["perf script | fold"]
            s_pm = (median(pm["post"]) or 0) + a.mean
            s_pf = b.mean
            md.append("| {:,} | {:,} Hz, {} | {} / {} | {} / {} | {} / {} | {} / {} | {} | {} | **{}** | **{}** | **{}** | {} |".format(
                n, hz, ftime(dur), fint(median(pm["samples"])), fint(median(pf["samples"])),
                fint(median(pm["lost"])), fint(median(pf["lost"])),
                ftime(median(pm["cpu"])), ftime(median(pf["cpu"])),
                fsize(pm["size"][-1]), fsize(pf["size"][-1]),
                ftime(median(pm["post"])), fstat(a), ftime(s_pm), fstat(b), fratio(s_pf / s_pm),
                ftime(median(pf["post"]))))
            if n == sizes[-1]:
                self.headline.append(("7. stop-to-folded at {:,} samples".format(n), ftime(s_pm),
                                      ftime(s_pf), "%s faster (perf/perfmini)" % fratio(s_pf / s_pm),
                                      "—", "—"))
        if self.quick:
            md.append("\n(--quick stops at 10^5 samples; the full run goes to 10^6.)")
        return md

    def scaling_funcs(self):
        hz = 10000
        secs = 0.6 if self.quick else 1.5
        md = []
        md.append("\n**Distinct addresses.** A generated program (bench/workloads/gen-funcs.py) "
                  "calls N distinct functions round-robin, two threads of %.1f CPU seconds each, "
                  "recorded at 10 kHz as above (about %s samples): the number of distinct frames to symbolize "
                  "grows with N while the number of samples stays the same. 'Distinct "
                  "addresses' counts the distinct sampled addresses (leaves and callers, user "
                  "and kernel) in `perf script -F ip,dso`.\n" % (secs, fint(2 * secs * hz)))
        md.append("| functions | samples perfmini / perf | distinct addresses | folded stacks "
                  "perfmini / perf | perfmini post-stop | perfmini report | perfmini stop-to-folded | "
                  "perf script \\| fold | perf/perfmini | perf record post-stop (not in the ratio) |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        for nf in (100, 1000, 10000):
            exe = os.path.join(self.bin, "funcs-%d" % nf)
            target = "%s -c %.2f -j 2" % (q(exe), secs)
            label = "%d functions" % nf
            rec = self.record_pair("7", "funcs-%d" % nf, target, "-F %d" % hz,
                                   "-e cpu-clock -F %d -g" % hz, 2 if self.quick else 3, label=label)
            pmd, pfd = rec["perfmini"]["data"], rec["perf"]["data"]
            rep = self.hyperfine("7", [
                ("perfmini report", "%s report --folded -i %s >/dev/null" % (q(self.pm), q(pmd))),
                ("perf script | fold", "%s script -i %s 2>/dev/null | awk -f %s >/dev/null" % (
                    q(self.perf), q(pfd), q(self.fold)))], 2 if self.quick else 3, label=label + " report")
            distinct = out("%s script -F ip,dso -i %s 2>/dev/null | grep . | sort -u | wc -l" % (
                q(self.perf), q(pfd)))
            st_pm = out("%s report --folded -i %s | wc -l" % (q(self.pm), q(pmd)))
            st_pf = out("%s script -i %s 2>/dev/null | awk -f %s | wc -l" % (q(self.perf), q(pfd), q(self.fold)))
            pm, pf = rec["perfmini"], rec["perf"]
            a, b = rep["perfmini report"], rep["perf script | fold"]
            s_pm = (median(pm["post"]) or 0) + a.mean
            s_pf = b.mean
            md.append("| {:,} | {} / {} | {} | {} / {} | {} | {} | **{}** | **{}** | **{}** | {} |".format(
                nf, fint(median(pm["samples"])), fint(median(pf["samples"])),
                fint(int(distinct)) if distinct.isdigit() else distinct, st_pm, st_pf,
                ftime(median(pm["post"])), fstat(a), ftime(s_pm), fstat(b), fratio(s_pf / s_pm),
                ftime(median(pf["post"]))))
            if nf == 10000:
                self.headline.append(("7. stop-to-folded, 10,000 hot functions", ftime(s_pm),
                                      ftime(s_pf), "%s faster (perf/perfmini)" % fratio(s_pf / s_pm),
                                      "—", "—"))
        return md

    # -- 8. symbolize ----------------------------------------------------------

    def fig_symbolize(self):
        log("8. symbolize throughput on libc")
        lib = self.a.libc
        naddr = 20000 if self.quick else 100000
        addrs = os.path.join(self.tmp, "libc-addrs.txt")
        text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], stdout=subprocess.PIPE,
                              text=True).stdout
        insns = re.findall(r"^\s+([0-9a-f]+):\t", text, re.M)
        rng = random.Random(1)
        with open(addrs, "w") as f:
            for _ in range(naddr):
                f.write("0x%s\n" % rng.choice(insns))
        self.note_cmd("8", "# %d addresses drawn (seed 1) from the %d instruction addresses that "
                      "`objdump -d --no-show-raw-insn %s` lists" % (naddr, len(insns), lib))
        rounds = 1 if self.quick else 3
        r = self.hyperfine("8", [
            ("perfmini symbolize", "%s symbolize -e %s <%s >/dev/null" % (q(self.pm), q(lib), q(addrs))),
            ("eu-addr2line", "eu-addr2line -f -i -C -e %s <%s >/dev/null" % (q(lib), q(addrs)))],
            rounds, warmup=1, label="symbolize")
        a, b = r["perfmini symbolize"], r["eu-addr2line"]
        ra, rb = naddr / a.mean, naddr / b.mean
        ncmp = 5000 if self.quick else 20000
        cmp_cmd = "%s %s %s %d" % (q(self.a.srcline_compare), q(self.pm), q(lib), ncmp)
        log("  bench/srcline-compare on %d addresses" % ncmp)
        p = subprocess.run(cmp_cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.note_cmd("8", cmp_cmd)
        m = re.search(r"(\d+) of (\d+) addresses agree \(([\d.]+)%\)", p.stdout)
        share = m.group(0) if m else "no result (exit %d)" % p.returncode
        debug = out("ls /usr/lib/debug/.build-id/*/* 2>/dev/null | grep -c debug")
        md = ["{:,}".format(naddr) + " random instruction addresses of `%s` (with its debug file from libc6-dbg), "
              "read from a file by each tool, output to /dev/null; mean ± sd. Ratio = perfmini "
              "throughput / eu-addr2line throughput.\n" % lib,
              "| tool | time | addresses/s |", "|---|---|---|",
              "| `perfmini symbolize -e` | %s | %s |" % (fstat(a), "{:,.0f}".format(ra)),
              "| `eu-addr2line -f -i -C -e` | %s | %s |" % (fstat(b), "{:,.0f}".format(rb)),
              "",
              "perfmini symbolize is **%s** the throughput of eu-addr2line (perfmini/eu-addr2line)." % fratio(ra / rb),
              "",
              "Agreement (`bench/srcline-compare PERFMINI %s %d`: function, file, line and "
              "inline chain all equal): **%s**; exit status %d (0 means at least 99.9%%)." % (
                  lib, ncmp, share, p.returncode)]
        if p.returncode != 0 and p.stdout.strip():
            md.append("\nFirst disagreements it printed:\n\n```\n%s\n```" % "\n".join(p.stdout.strip().splitlines()[:12]))
        self.section("8. `perfmini symbolize` throughput", "\n".join(md))
        self.headline.append(("8. symbolize throughput, libc, {:,} addresses".format(naddr),
                              "{:,.0f}/s".format(ra), "eu-addr2line {:,.0f}/s".format(rb),
                              "%s (perfmini/eu-addr2line)" % fratio(ra / rb), "—", "—"))
        self.headline.append(("8. agreement with eu-addr2line", share, "—", "—", "≥ 99.9%",
                              "holds" if p.returncode == 0 else "**misses**"))

    # -- 9. DWARF unwinding on Python ---------------------------------------

    # The frames a whole stack may end in: the process entry, the C runtime
    # frames above main (perf's unwinder stops at them), thread entries.
    def fig_dwarf_python(self):
        """Whole stacks through code without frame pointers: Python under
        --call-graph=dwarf, perfmini against perf, each at its default
        stack copy. A stack is whole when its outermost frame is _start."""
        log("9. DWARF unwinding on Python")
        if not self.pm_has_dwarf():
            self.section("9. DWARF unwinding on Python", "perfmini has no --call-graph=dwarf here.")
            return
        rounds = 150 if self.quick else 400
        runs = 1 if self.quick else 3
        target = "%s %s %d" % (q(self.py), q(self.pyloop), rounds)
        res = self.record_pair("9", "dwarfpy", target, "-F 999 --call-graph=dwarf",
                               "-e cpu-clock -F 999 --call-graph dwarf", runs, label="python dwarf")
        pm, pf = res["perfmini"], res["perf"]
        # perfmini says it in its summary; for perf, read the unwound stacks.
        m = None
        try:
            m = re.findall(r"unwinding: (\d+) of (\d+) user stacks", open(pm["err"]).read())
        except OSError:
            pass
        pm_share = 100.0 * int(m[-1][0]) / int(m[-1][1]) if m and int(m[-1][1]) else None
        text = subprocess.run("%s script -F ip,sym -i %s 2>/dev/null" % (q(self.perf), q(pf["data"])),
                              shell=True, stdout=subprocess.PIPE, text=True).stdout
        total = whole = 0
        for block in text.split("\n\n"):
            frames = [l.split() for l in block.strip().splitlines() if l.strip()]
            if not frames:
                continue
            total += 1
            last = frames[-1]
            if len(last) > 1 and last[1] in ENTRY_FRAMES:
                whole += 1
        pf_share = 100.0 * whole / total if total else None
        cpu_pm, cpu_pf = median([c for c in pm["cpu"] if c]), median([c for c in pf["cpu"] if c])
        hwm_pm, hwm_pf = median([h for h in pm["hwm"] if h]), median([h for h in pf["hwm"] if h])
        size_pm, size_pf = pm["size"][-1], pf["size"][-1]
        fmt = lambda x: "n/a" if x is None else "%.1f%%" % x
        md = ["`%s`, recorded %d times by each tool alternately at 999 Hz: perfmini with "
              "`--call-graph=dwarf` (32 KiB of stack per sample, unwound while recording), perf "
              "with `--call-graph dwarf` (8 KiB, unwound by `perf script`). A stack is whole when "
              "it reaches the process or thread entry: perfmini counts them as it unwinds (its "
              "summary line: the unwinding ended at the outermost frame, `_start` here); for perf, "
              "the outermost frame of each sample of `perf script -F ip,sym` is `_start`, "
              "`__libc_start_main`, `__libc_start_call_main` (where perf's unwinder stops) or a "
              "thread entry. "
              "CPU time and peak memory are the recorder's own (pstat -m), medians.\n" % (
                  self.short(target), runs),
              "| | perfmini | perf | ratio (perfmini/perf) | aim | aim holds? |", "|---|---|---|---|---|---|",
              "| stacks that reach the entry | %s | %s (%d of %d) | — | perfmini ≥ 97%% | %s |" % (
                  fmt(pm_share), fmt(pf_share), whole, total,
                  self.aim(pm_share is not None and pm_share >= 97)),
              "| data file | %s | %s | %s | ≤ 1/20 | %s |" % (
                  fsize(size_pm), fsize(size_pf),
                  fratio(size_pm / size_pf) if size_pm and size_pf else "n/a",
                  self.aim(bool(size_pm and size_pf and size_pm * 20 <= size_pf))),
              "| recorder CPU time | %s | %s | %s | — | — |" % (
                  ftime(cpu_pm) if cpu_pm else "n/a", ftime(cpu_pf) if cpu_pf else "n/a",
                  fratio(cpu_pm / cpu_pf) if cpu_pm and cpu_pf else "n/a"),
              "| recorder peak memory | %s | %s | %s | — | — |" % (
                  fkb(hwm_pm), fkb(hwm_pf), fratio(hwm_pm / hwm_pf) if hwm_pm and hwm_pf else "n/a"),
              "",
              "perf's CPU time here is only `perf record`'s: its unwinding happens later, in "
              "`perf script`, which is not counted; perfmini's includes the unwinding."]
        self.section("9. DWARF unwinding on Python", "\n".join(md))
        self.headline.append(("9. DWARF: Python stacks reaching the entry", fmt(pm_share), fmt(pf_share),
                              "—", "≥ 97%", self.aim(pm_share is not None and pm_share >= 97)))
        self.headline.append(("9. DWARF: data file, Python", fsize(size_pm), fsize(size_pf),
                              "%s (perfmini/perf)" % (fratio(size_pm / size_pf) if size_pm and size_pf else "n/a"),
                              "≤ 1/20", self.aim(bool(size_pm and size_pf and size_pm * 20 <= size_pf))))

    # -- 17. stack truth ----------------------------------------------------------

    def stack_truth(self, tag, extra):
        """Runs bench/stack-truth in every mode of STACK_TRUTH_MODES with
        the `extra` arguments, its stderr to logs/stack-truth-TAG.log.
        Returns (seconds per recording, header cells, rows of cells) of the
        markdown table it prints, or None when it failed."""
        argv = [os.path.join(self.a.bench, "stack-truth"), "--modes", STACK_TRUTH_MODES]
        argv += (["--seconds", "1"] if self.quick else []) + extra
        env = dict(os.environ, PERFMINI=self.pm, PERF=self.perf, TMPDIR=self.tmp)
        env.pop("PYTHON", None)  # its own default: Debian's Python, without frame pointers
        logf = os.path.join(self.logs, "stack-truth-%s.log" % tag)
        log("  bench/stack-truth %s (its progress: %s)" % (" ".join(argv[1:]), logf))
        with open(logf, "w") as err:
            p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        self.note_cmd("17", "PERFMINI=$PERFMINI " + " ".join(q(x) for x in argv))
        if p.returncode != 0:
            tail = open(logf).read().strip().splitlines()[-3:]
            self.notes.append("figure 17: `bench/stack-truth %s` failed (exit %d): %s" % (
                " ".join(argv[1:]), p.returncode, self.short(" / ".join(tail))))
            return None
        m = re.search(r"([\d.]+) CPU s per recording", p.stdout)
        lines = [l for l in p.stdout.splitlines() if l.startswith("| ")]
        if not m or len(lines) < 2:
            self.notes.append("figure 17: no table in the output of `bench/stack-truth %s`" % " ".join(argv[1:]))
            return None
        cells = [[c.strip() for c in l.strip().strip("|").split("|")] for l in lines]
        return m.group(1), cells[0], cells[1:]

    def stack_truth_table(self, res, md):
        """Appends to md the table of a bench/stack-truth run (its last
        column judges the aim per program), and adds its summary rows."""
        secs, head, rows = res
        col = {h: i for i, h in enumerate(head)}
        ref, dflt, fp = col.get("reference vs itself"), col.get("perfmini default"), col.get("perfmini fp")
        md.append("| %s |" % " | ".join(head))
        md.append("|---" * len(head) + "|")
        for r in rows:
            md.append("| %s |" % " | ".join(r))
            if None in (ref, dflt, fp) or len(r) < len(head):
                continue
            verdict = r[-1]
            self.headline.append(("17. stack truth, %s, default vs %s (inner3 / whole)" % (r[0], r[1].split(" ")[0]),
                                  r[dflt], "%s (reference vs itself)" % r[ref], "fp %s" % r[fp],
                                  "≥ reference vs itself − 4, ≥ fp − 4",
                                  self.aim(verdict.startswith("holds"))))

    def fig_stack_truth(self):
        log("17. stack truth: perfmini's call stacks against the right reference")
        title = "17. Stack truth: perfmini's call stacks against the right reference"
        if os.geteuid() != 0:
            self.section(title, "bench/stack-truth runs as root only (perf script reads node's "
                         "/tmp/perf-PID.map files): not run.")
            return
        main = self.stack_truth("ref", [])
        secs = (main or ("?",))[0]
        md = ["How right perfmini's call stacks are on real programs, each against the reference "
              "that is right for it (bench/stack-truth, %s CPU second%s a recording%s). Eleven "
              "programs (bench/workloads/stk-*): C, C++ calling the standard library, C++ that "
              "throws, Go, Go with a 64 KiB frame between main and the hot function, Rust, node "
              "with `--perf-basic-prof`, Debian's Python 3.11 and `xz -9` (built without frame "
              "pointers), gcc compiling (Debian's cc1, without frame pointers) and Debian's "
              "redis-server under its own benchmark, attached with `-p`; each recorded at 999 Hz "
              "(cpu-clock), one recording after another: twice by its reference, once by "
              "perfmini in each mode: its default (hybrid, 8 KiB stack copies), "
              "`--call-graph=fp` and `--call-graph=dwarf,65528`. tests/stack/stack-compare.py "
              "compares each with the reference's first recording as distributions of the "
              "samples' user stacks (kernel frames dropped, names normalized): *inner3* is the "
              "overlap of the distributions of the innermost three user frames, *whole* that of "
              "whole user stacks (up to `__libc_start_call_main`), in percent. Each cell: inner3 / "
              "whole (samples compared; '!': under half those expected). *reference vs itself* "
              "is the reference's second recording against its first: the noise floor.\n" % (
                  secs, "" if secs == "1" else "s", " (--quick: the full run takes 3)" if self.quick else ""),
              "The reference of each program is the unwinder that is right for it: perf's DWARF "
              "unwinder (`perf record --call-graph dwarf,65528`) where the code has unwind tables "
              "perf reads and the stacks fit in 64 KiB (c, cxx, cxxthrow, rs, py, xz, redis); "
              "perf's frame pointers (`perf record -g`) for gobig (Go keeps frame pointers and "
              "every hot function there has a frame record; perf's DWARF unwinder reads no Go "
              "tables, and no stack copy holds the 64 KiB frame); perfmini's own "
              "`dwarf,65528` where neither of perf's unwinders is right and the stacks fit in "
              "64 KiB: go (its hot leaf keeps no frame pointer, so a frame-pointer walk loses its "
              "caller, and perf's DWARF unwinder reads no Go tables), node (perf's DWARF unwinder "
              "stops in V8's code, and its frame-pointer walk gives libc's memset and munmap, "
              "which keep no frame pointer, the wrong caller) and gcc (perf's DWARF unwinder "
              "stops in libc's memset, malloc and free under cc1; cc1 keeps no frame pointers). "
              "That mode is the default's stepper over a copy eight times as large without the "
              "kernel's chain, so what the default's smaller copy and its splice lose shows; the "
              "stepper itself is checked against libunwind on the same kinds of code by "
              "tests/stack/run-unwind-oracle.sh. Stacks end at `__libc_start_call_main`, "
              "threads' at `start_thread` (a frame-pointer walk cannot see `clone3` beyond it). "
              "The aim, per program and measure: perfmini's default within 4 points of the "
              "reference against itself (the noise floor), and never 4 points below "
              "perfmini's own fp mode. The last column, bench/stack-truth's own, judges it; a miss "
              "names the measure.\n"]
        if main:
            self.stack_truth_table(main, md)
        else:
            md.append("bench/stack-truth failed: see the notes above and logs/stack-truth-ref.log "
                      "in the temporary directory (`bench/run --keep`).")
        self.section(title, "\n".join(md))

    # -- RESULTS.md -------------------------------------------------------------

    def machine(self):
        cpu = out("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
        cores = out("nproc")
        mem = out("awk '/MemTotal/ {printf \"%.1f GiB\", $2/1048576}' /proc/meminfo")
        kernel = platform.release()
        deb = out("cat /etc/debian_version")
        virt = out("lscpu | sed -n 's/^Hypervisor vendor: *//p'")
        return [("CPU", "%s%s" % (cpu, " (%s guest)" % virt if virt else "")),
                ("CPUs", cores), ("memory", mem), ("kernel", kernel), ("Debian", deb),
                ("perf", out("%s --version" % q(self.perf))),
                ("hyperfine", out("hyperfine --version")),
                ("compiler (workloads)", out("gcc --version | head -1")),
                ("awk (fold)", out("readlink -f $(command -v awk)") + " — " + out("awk -W version 2>&1 | head -1")),
                ("eu-addr2line", out("eu-addr2line --version | head -1")),
                ("kernel.perf_event_max_sample_rate at start / end", "%s / %s" % (
                    self.max_rate_start, out("cat /proc/sys/kernel/perf_event_max_sample_rate"))),
                ("load average at start / end", "%s / %s" % (self.a.load_start, out("cut -d' ' -f1-3 /proc/loadavg")))]

    def run_label(self):
        """The commit and run of this invocation, for the summary's last
        column: "`COMMIT`, `bench/run --only 4` DATE"."""
        a = self.a
        return "`%s`%s, `bench/run%s%s` %s" % (
            a.commit, " (uncommitted changes)" if a.dirty else "", " --quick" if self.quick else "",
            " --only " + a.only if a.only else "", a.date)

    def provenance(self, load):
        a = self.a
        return "*Measured by `bench/run%s%s` on %s, perfmini commit `%s`%s; load average %s at the start of this figure, %s at its end.*" % (
            " --quick" if self.quick else "", " --only " + a.only if a.only else "", a.date, a.commit,
            " with uncommitted changes" if a.dirty else "", load[0] or a.load_start, load[1])

    def write(self, elapsed):
        """Writes RESULTS.md: this run's figures, and every figure of the
        previous file that this run did not measure (those of an earlier
        --only run, or written by hand), each section saying which run
        measured it."""
        a = self.a
        old = read_results(a.out)
        new = {}
        for title, md, load in self.sections:
            n = figure_number(title)
            new[n] = (title, self.provenance(load) + "\n\n" + md)
        kept = {n: v for n, v in old["sections"].items() if n not in new}
        for n, (title, body) in list(kept.items()):
            if not body.startswith(("*Measured by", "*Kept from")) and n in GENERATED and old["origin"]:
                kept[n] = (title, "*Kept from an earlier run: %s.*\n\n%s" % (old["origin"], body))
        figs = sorted(set(new) | set(kept))
        L = []
        L.append("# perfmini benchmark results\n")
        minutes = max(1, round(elapsed / 60))
        head = ["Written by `bench/run%s%s` on %s in %d minute%s." % (
            " --quick" if self.quick else "", " --only " + a.only if a.only else "", a.date, minutes,
            "" if minutes == 1 else "s")]
        if self.quick:
            head.append("A **quick** run: fewer runs, smaller inputs and shorter recordings; the "
                        "numbers are rougher than a full run's.")
        elif not a.only:
            head.append("A full run.")
        if kept:
            head.append("%s measured in this run; the others are kept from the previous results "
                        "file, each section saying which run measured it (or that it was written "
                        "by hand)." % figures_text(sorted(new)))
        L.append(" ".join(head) + "\n")
        L.append("perfmini %s, commit `%s`%s. `$PERFMINI` below is %s.\n" % (
            a.pm_version, a.commit, " (with uncommitted changes in the tree)" if a.dirty else "",
            a.pm_origin))
        L.append("The machine is shared and was busy with other work while this ran: read the "
                 "ratios, which compare runs made alternately under the same conditions, rather "
                 "than the absolute times.\n")
        L.append("## Machine\n")
        L.append("The machine and its state during this run%s.\n" % (
            " (the kept figures give the load of their own runs)" if kept else ""))
        L.append("| | |\n|---|---|")
        for k, v in self.machine():
            L.append("| %s | %s |" % (k, v))
        L.append("")
        L.append("## Summary\n")
        L.append("The last column names the perfmini commit and the bench/run invocation that "
                 "measured each row (for a row kept from an earlier run, as its figure's section "
                 "says).\n")
        L.append("| figure | perfmini | perf | ratio | aim | aim holds? | measured at |")
        L.append("|---|---|---|---|---|---|---|")
        rows = {}
        here = self.run_label()
        for row in self.headline:
            rows.setdefault(figure_number(str(row[0])), []).append(
                "| %s |" % " | ".join([str(x) for x in row] + [here]))
        for n, rs in old["rows"].items():
            if n not in kept:
                continue
            origin = section_origin(kept[n][1])
            for cells in rs:
                if len(cells) < 7:  # a row written before the column was
                    cells = cells + [origin]
                rows.setdefault(n, []).append("| %s |" % " | ".join(cells))
        for n in sorted(rows):
            L += rows[n]
        L.append("")
        notes = list(self.notes) + [t for t in old["notes"] if figure_number(t[len("figure "):]) in kept]
        if notes:
            L.append("Observed while measuring:\n")
            for t in notes:
                L.append("- " + t)
            L.append("")
        for n in figs:
            title, body = new.get(n) or kept[n]
            L.append("## %s\n" % title)
            L.append(body.rstrip("\n"))
            L.append("")
        L.append("## Commands\n")
        L.append("`$TMP` is the run's temporary directory (removed at the end), `$TMP/bin` the "
                 "workloads built from bench/workloads/ with `gcc -O2 -g -fno-omit-frame-pointer`, "
                 "`$PERFMINI` the perfmini binary, `$PYTHON` %s. bench/tools/pstat.c is the "
                 "timing wrapper described in figure 4.\n" % self.py)
        blocks = {}
        for fig in self.commands:
            seen, lines = set(), []
            for c in self.commands[fig]:
                c = self.short(c)
                if c in seen:
                    continue
                seen.add(c)
                lines.append(c)
            blocks[int(fig)] = "\n".join(lines)
        for n, text in old["commands"].items():
            if n in kept and n not in blocks:
                blocks[n] = text
        for n in sorted(blocks):
            L.append("Figure %d:\n" % n)
            L.append("```sh")
            L.append(blocks[n])
            L.append("```\n")
        L.append("## How to run\n")
        L.append("As root on Debian 12 (bench/run installs what is missing: hyperfine, time, "
                 "linux-perf, xz-utils, binutils, elfutils, libc6-dbg and perfmini's build "
                 "dependencies; bench/stack-truth, for figure 17, g++, golang-go, nodejs and "
                 "rustc), from the source directory:\n")
        L.append("```sh\nbench/run                # the full run, about 65-80 minutes on 2 CPUs\n"
                 "bench/run --quick        # about 20 minutes, fewer runs and smaller inputs\n"
                 "bench/run --only 11,13   # these figures only; the others are kept\n```\n")
        L.append("It builds perfmini out of tree in bench/_build (`BUILD_DIR=DIR` to change it, "
                 "or `PERFMINI=/path/to/perfmini` to use a built binary), builds the workloads "
                 "and generates their data in a temporary directory, and rewrites "
                 "bench/RESULTS.md: the figures it measured replace their earlier sections, "
                 "summary rows and commands, the others stay as they were. Benchmarks are not "
                 "part of `make check`.")
        with open(a.out, "w") as f:
            f.write("\n".join(L) + "\n")


# The figures bench/run measures (the others in RESULTS.md are written by hand).
GENERATED = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 17}


# Figures written by another figure's step: --only takes them for it.
ALIASES = {"3": "2", "5": "4", "6": "4"}


def loadavg():
    return out("cut -d' ' -f1-3 /proc/loadavg")


def figures_text(ns):
    """'Figure 4 was', 'Figures 11 and 12 were', 'Figures 1, 2 and 4 were'."""
    ns = [str(n) for n in ns]
    if len(ns) == 1:
        return "Figure %s was" % ns[0]
    return "Figures %s and %s were" % (", ".join(ns[:-1]), ns[-1])


def figure_number(text):
    """N of a title, summary row or note that starts with 'N.' or 'N ', or None."""
    m = re.match(r"\s*(\d+)[.:\s/]", text)
    return int(m.group(1)) if m else None


# The line under a generated section's title naming the run that measured
# it, as provenance() writes it or as write() rewrites it for a section
# kept from a file whose sections had none.
PROVENANCE = re.compile(r"^\*(?:Measured by|Kept from an earlier run:) (`bench/run[^`]*`) on (.+?), "
                        r"perfmini commit `([^`]+)`( with uncommitted changes)?[;.]")


def section_origin(body):
    """The summary's last column for a row of a kept section: its commit
    and run from the section's first line, "by hand" for a section written
    by hand, "unknown" when the section does not say."""
    m = PROVENANCE.match(body)
    if m:
        return "`%s`%s, %s %s" % (m.group(3), " (uncommitted changes)" if m.group(4) else "",
                                  m.group(1), m.group(2))
    if body.startswith("Written by hand") or "(not by bench/run)" in body.split("\n", 1)[0]:
        return "by hand"
    return "unknown"


def table_cells(line):
    """The cells of a Markdown table row, an escaped \\| kept in its cell."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def read_results(path):
    """The parts of an existing RESULTS.md that a run may keep: numbered
    sections {N: (title, body)}, summary rows {N: [[cell]]} (six cells in
    a file written before the summary named each row's run, seven after),
    command blocks {N: text}, notes that name their figure, and which run
    wrote it."""
    res = {"sections": {}, "rows": {}, "commands": {}, "notes": [], "origin": None}
    try:
        text = open(path).read()
    except OSError:
        return res
    m = re.search(r"^Written by (`bench/run[^`]*`) on (.+?) in \d+ minutes?\.", text, re.M)
    c = re.search(r"^perfmini \S+, commit `([0-9a-f]+)`", text, re.M)
    if m:
        res["origin"] = "%s on %s, perfmini commit `%s`" % (m.group(1), m.group(2), c.group(1) if c else "unknown")
    parts = re.split(r"^## (.+)\n", text, flags=re.M)
    for i in range(1, len(parts) - 1, 2):
        title, body = parts[i].strip(), parts[i + 1].strip("\n")
        n = figure_number(title)
        if n is not None:
            res["sections"][n] = (title, body)
        elif title == "Summary":
            for line in body.splitlines():
                if line.startswith("| ") and figure_number(line[2:]) is not None:
                    res["rows"].setdefault(figure_number(line[2:]), []).append(table_cells(line))
                elif line.startswith("- figure "):
                    res["notes"].append(line[2:])
        elif title == "Commands":
            for fm in re.finditer(r"^Figure (\d+):\n\n```sh\n(.*?)\n```$", body, re.M | re.S):
                res["commands"][int(fm.group(1))] = fm.group(2)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--perfmini", required=True)
    ap.add_argument("--perf", default="/usr/bin/perf")
    ap.add_argument("--bin", required=True, help="built workloads and tools")
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--bench", required=True, help="the bench/ directory")
    ap.add_argument("--python", required=True, help="the Python that runs pyloop.py")
    ap.add_argument("--libc", required=True)
    ap.add_argument("--srcline-compare", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--date", default="")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--dirty", action="store_true")
    ap.add_argument("--pm-version", default="")
    ap.add_argument("--pm-origin", default="")
    ap.add_argument("--load-start", default="")
    ap.add_argument("--only", default="", help="comma-separated figures to run (1,2,4,7,8,9,11,12,13,14,15,17)")
    a = ap.parse_args()
    b = Bench(a)
    # 3 comes with 2, 5 and 6 with 4.
    only = {ALIASES.get(f.strip(), f.strip()) for f in a.only.split(",")} if a.only else None
    # 12 after 4, whose recordings it reuses; 13 and 14 (which share their
    # recordings) last, as their 20 kHz may make the kernel lower
    # perf_event_max_sample_rate.
    steps = [("1", b.fig_fixed), ("2", b.fig_slowdown), ("4", b.fig_workloads),
             ("12", lambda: light.fig_memory(b)), ("7", b.fig_scaling), ("8", b.fig_symbolize),
             ("9", b.fig_dwarf_python), ("17", b.fig_stack_truth), ("11", lambda: light.fig_length(b)),
             ("15", lambda: light.fig_contention(b)), ("13", lambda: light.fig_lost(b)),
             ("14", lambda: light.fig_share(b))]
    known = {k for k, _ in steps}
    if only and not only <= known:
        ap.error("--only: no figure %s (figures: %s; 2 also gives 3, 4 gives 5 and 6)" % (
            ",".join(sorted(only - known, key=int)), ",".join(sorted(known, key=int))))
    if only and "4" in only and "2" not in only:
        b.fig2_sizes = {}
    for key, fn in steps:
        if only and key not in only:
            continue
        n0 = len(b.notes)
        b.fig_load = loadavg()
        fn()
        b.notes[n0:] = [t if t.startswith("figure") else "figure %s: %s" % (key, t) for t in b.notes[n0:]]
    b.write(time.time() - b.t0)
    log("wrote %s" % a.out)


if __name__ == "__main__":
    main()
