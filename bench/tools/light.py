# SPDX-License-Identifier: GPL-2.0-or-later
"""light.py - figures 11 to 15 of bench/run: what a recording costs while it runs.

The recorder's own footprint, perfmini beside perf in the same run:
  11. peak memory against the recording's length (-p and -a), with the
      curve of the recorder's resident memory over time;
  12. peak memory of record on the bench workloads, default and --no-lines;
  13. lost records under `record -a` with every CPU busy, up to 20 kHz,
      perfmini's default (hybrid) beside frame pointers and DWARF;
  14. the recorder's own share of the samples of a busy `record -a`, and
      its stop time (SIGINT to exit);
  15. in DWARF mode, the samples a target still gets when the CPUs are
      contended.
Each function takes the Bench of measure.py (its paths, sections and
summary rows); the helpers it shares with measure.py are common.py's. Processes are started here and stopped here by their
own pids; nothing else on the machine is signalled.
"""
import os
import signal
import statistics
import subprocess
import threading
import time

from common import (Stats, fkb, fint, fratio, fsize, ftime, log, median, perf_data_stats,
                    perfmini_summary, pstat_line, q)

# ----------------------------------------------------------------------------
# Processes


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
        return int(st[st.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def child_of(ppid, timeout=5.0):
    """The pid of a child of ppid (pstat's one child: the recorder)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for e in os.listdir("/proc"):
            if e.isdigit() and parent_of(int(e)) == ppid:
                return int(e)
        time.sleep(0.005)
    return None


def vm_status(pid):
    """(VmRSS, VmHWM) in KiB of a live process, or None."""
    rss = hwm = None
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        return None
    return (rss, hwm) if rss is not None and hwm is not None else None


class Poller(threading.Thread):
    """Samples a process's VmRSS and VmHWM every `interval` seconds until it
    exits: curve = [(seconds since start, rss_kb, hwm_kb)]."""

    def __init__(self, pid, t0, interval):
        super().__init__(daemon=True)
        self.pid, self.t0, self.interval = pid, t0, interval
        self.curve = []

    def run(self):
        while True:
            st = vm_status(self.pid)
            if st is None:
                return
            self.curve.append((time.monotonic() - self.t0, st[0], st[1]))
            time.sleep(self.interval)


class Recorder:
    """One recorder under 'pstat -m' (its own peak memory and CPU time at its
    exit, and the CLOCK_MONOTONIC time of its end), its memory polled while
    it runs. `rec` is the recorder's command line (stderr goes to err)."""

    def __init__(self, rec, base, interval=1.0):
        self.rec = rec
        self.outer, self.err = base + ".outer", base + ".err"
        self.interval = interval
        self.proc = self.pid = self.poller = None
        self.t_start = self.t_int = None
        self.status = None

    def command(self, pstat):
        return "exec %s -m -o %s -- %s 2>%s" % (q(pstat), q(self.outer), self.rec, q(self.err))

    def start(self, pstat):
        for f in (self.outer, self.err):
            if os.path.exists(f):
                os.unlink(f)
        self.t_start = time.monotonic()
        self.proc = subprocess.Popen(self.command(pstat), shell=True, executable="/bin/sh",
                                     stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self.pid = child_of(self.proc.pid)
        if self.pid:
            self.poller = Poller(self.pid, self.t_start, self.interval)
            self.poller.start()
        return self

    def interrupt(self):
        """SIGINT to the recorder itself (pstat ignores it)."""
        self.t_int = time.monotonic()
        if self.pid and self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def wait(self, timeout=900):
        try:
            self.status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            if self.pid:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.status = self.proc.wait()
        if self.poller:
            self.poller.join(timeout=5)
        return self.status

    @property
    def pstat(self):
        return pstat_line(self.outer) or {}

    @property
    def hwm(self):
        return self.pstat.get("hwm_kb")

    @property
    def cpu(self):
        return self.pstat.get("cpu")

    @property
    def stop_time(self):
        """Seconds from the SIGINT to the recorder's exit."""
        end = self.pstat.get("end")
        return end - self.t_int if end is not None and self.t_int is not None else None

    @property
    def curve(self):
        return self.poller.curve if self.poller else []


class Load:
    """Background processes that keep the CPUs busy; stopped by their pids."""

    def __init__(self, cmds):
        self.cmds = cmds
        self.procs = []

    def start(self):
        for c in self.cmds:
            self.procs.append(subprocess.Popen("exec " + c, shell=True, executable="/bin/sh",
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                               stdin=subprocess.DEVNULL))
        return self

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []


def folded_by_root(b, data, extra=""):
    """{root frame: samples} of a perfmini data file (report --folded)."""
    text = subprocess.run("%s report --folded %s -i %s" % (q(b.pm), extra, q(data)), shell=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    roots = {}
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        root = stack.split(";", 1)[0]
        roots[root] = roots.get(root, 0) + int(n)
    return roots


def perf_samples_by_pid(b, data, skip=0.0):
    """{pid: samples} of a perf.data file, from `perf script -F pid,time`
    (no call chains asked, so no unwinding); the samples of the first
    `skip` seconds (from the first sample) left out."""
    p = subprocess.Popen("%s script -F pid,time -i %s 2>/dev/null" % (q(b.perf), q(data)),
                         shell=True, stdout=subprocess.PIPE, text=True)
    pids, t0 = {}, None
    for line in p.stdout:
        f = line.split()
        if len(f) < 2 or not f[0].isdigit():
            continue
        try:
            pid, t = int(f[0]), float(f[1].rstrip(":"))
        except ValueError:
            continue
        if t0 is None:
            t0 = t
        if t - t0 >= skip:
            pids[pid] = pids.get(pid, 0) + 1
    p.wait()
    return pids


def pct(x):
    return "n/a" if x is None else "%.2f%%" % x


def mean_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


# ----------------------------------------------------------------------------
# 11. Peak memory against the recording's length


def fig_length(b):
    """perfmini and perf, each with a short and a long recording, all eight
    at once on the same workload: -p on a busy multi-threaded process that
    keeps creating threads, and -a on the whole machine."""
    short, long_ = (10, 60) if b.quick else (60, 600)
    interval = 1.0 if b.quick else 5.0
    log("11. peak memory against recording length: %d s and %d s, -p and -a, all at once" % (short, long_))
    churn = os.path.join(b.bin, "churn")
    target = "%s -s %d -j 2 -t 1" % (q(churn), long_ + 60)
    load = Load([target]).start()
    time.sleep(0.5)
    pid = load.procs[0].pid
    recs = {}
    for scope, pm_t, pf_t in (("-p", "-p %d" % pid, "-p %d" % pid), ("-a", "-a", "-a")):
        for d in (short, long_):
            base = os.path.join(b.data, "length%s-%d" % (scope, d))
            recs[("perfmini", scope, d)] = Recorder(
                "%s record -F 999 %s -d %d -o %s" % (q(b.pm), pm_t, d, q(base + ".pmdata")),
                base + ".perfmini", interval)
            recs[("perf", scope, d)] = Recorder(
                "%s record -e cpu-clock -F 999 -g %s -o %s -- sleep %d" % (
                    q(b.perf), pf_t, q(base + ".perf.data"), d),
                base + ".perf", interval)
    for r in recs.values():
        r.start(b.pstat)
    for key, r in recs.items():
        r.wait(timeout=long_ + 900)
        if r.status != 0:
            b.notes.append("`%s` exited with status %d" % (b.short(r.rec), r.status))
    load.stop()
    b.note_cmd("11", "# the workload (its pid is PID below), then the eight recorders started at "
               "once, each under 'pstat -m', its VmRSS and VmHWM read from /proc/PID/status "
               "every %g s:\n%s\n%s" % (interval, b.short(target), "\n".join(
                   b.short(recs[k].command(b.pstat)).replace("exec ", "").replace(
                       "-p %d" % pid, "-p PID") for k in recs)))

    rows, md = [], []
    md.append("How much the recorder's memory grows with the recording's length. Eight recorders "
              "run at once on the same workload, each under `pstat -m` (its own VmHWM and CPU "
              "time at its exit): perfmini and perf, each recording for %d s and for %d s, "
              "each with `-p` on a busy multi-threaded process (`churn -j 2 -t 1`, "
              "bench/workloads/churn.c: two CPU-bound threads and one that creates and joins "
              "short-lived threads, about a thousand a second) and with `-a` (the whole machine: "
              "that process, the other recorders and whatever else runs). perfmini stops by "
              "`-d`, perf when `sleep` ends; both at 999 Hz, perfmini in its default call-graph "
              "mode (hybrid: an 8 KiB stack copy per sample, unwound while recording), perf with "
              "frame-pointer call chains (`-g`). "
              "*Peak* is VmHWM at the recorder's exit, its stop phase included; the aim is "
              "peak(%d s) ≤ 1.1 × peak(%d s) for perfmini; perf's is shown beside it.%s\n" % (
                  short, long_, long_, short,
                  " **--quick**: %d s and %d s stand for the full run's 60 s and 600 s (a 1-minute "
                  "and a 10-minute recording)." % (short, long_) if b.quick else ""))
    md.append("| scope | tool | peak, %d s | peak, %d s | ratio (%d s / %d s) | aim ≤ 1.1 | RSS at %d s → end of recording, %d s run | growth per minute after %d s | samples %d s / %d s | lost | recorder CPU %d s / %d s |" % (
        short, long_, long_, short, short, long_, short, short, long_, short, long_))
    md.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for scope in ("-p", "-a"):
        for tool in ("perfmini", "perf"):
            a, z = recs[(tool, scope, short)], recs[(tool, scope, long_)]
            ratio = z.hwm / a.hwm if a.hwm and z.hwm else None
            # RSS of the long recording at `short` seconds, and just before its stop.
            cz = z.curve
            at_short = next((rss for t, rss, _ in cz if t >= short), None)
            before_end = [rss for t, rss, _ in cz if t <= long_ - interval]
            at_end = before_end[-1] if before_end else None
            growth = ((at_end - at_short) / ((long_ - interval - short) / 60.0)
                      if at_short is not None and at_end is not None and long_ - interval > short else None)
            if tool == "perf":
                sa = perf_data_stats(os.path.join(b.data, "length%s-%d.perf.data" % (scope, short)))
                sz = perf_data_stats(os.path.join(b.data, "length%s-%d.perf.data" % (scope, long_)))
            else:
                sa, sz = perfmini_summary(a.err), perfmini_summary(z.err)
            verdict = "—" if tool == "perf" else b.aim(ratio is not None and ratio <= 1.1)
            md.append("| `%s` | %s | %s | %s | %s | %s | %s → %s | %s | %s / %s | %s / %s | %s / %s |" % (
                scope, tool, fkb(a.hwm), fkb(z.hwm), fratio(ratio) if ratio else "n/a", verdict,
                fkb(at_short), fkb(at_end), "n/a" if growth is None else "%+.1f MiB" % (growth / 1024),
                fint(sa[0]), fint(sz[0]), fint(sa[1]), fint(sz[1]), ftime(a.cpu), ftime(z.cpu)))
            rows.append((scope, tool, a, z, ratio))
    for scope in ("-p", "-a"):
        pm = next(r for r in rows if r[0] == scope and r[1] == "perfmini")
        pf = next(r for r in rows if r[0] == scope and r[1] == "perf")
        b.headline.append(("11. peak memory, %d s / %d s recording, `record %s`%s" % (
            long_, short, scope, " (--quick: scaled down)" if b.quick else ""),
            fratio(pm[4]) if pm[4] else "n/a", fratio(pf[4]) if pf[4] else "n/a",
            "%s / %s (peaks, perfmini/perf, %d s)" % (fkb(pm[3].hwm), fkb(pf[3].hwm), long_),
            "perfmini ≤ 1.1", "—" if pm[4] is None else b.aim(pm[4] <= 1.1)))
    # The curves: the four recorders of each scope, side by side.
    md.append("")
    md.append("The memory curves: resident memory (VmRSS) of each recorder over time, read every "
              "%g s, shown every %g s and at each recorder's last reading (its stop phase; after "
              "`d` seconds a recorder is stopping). `—`: the recorder had exited.\n" % (
                  interval, long_ / 10))
    for scope in ("-p", "-a"):
        keys = [(t, scope, d) for t in ("perfmini", "perf") for d in (short, long_)]
        md.append("`%s`:\n" % scope)
        md.append("| time | " + " | ".join("%s, d = %d s" % (k[0], k[2]) for k in keys) + " |")
        md.append("|---" * (len(keys) + 1) + "|")
        marks = sorted(set([0.0] + [long_ * i / 10.0 for i in range(1, 11)] + [float(short)]))
        for m in marks:
            cells = []
            for k in keys:
                c = recs[k].curve
                v = next((rss for t, rss, _ in c if t >= m), None)
                cells.append("—" if v is None else fkb(v))
            md.append("| %.0f s | %s |" % (m, " | ".join(cells)))
        cells = []
        for k in keys:
            c = recs[k].curve
            cells.append("%s at %.0f s" % (fkb(c[-1][1]), c[-1][0]) if c else "n/a")
        md.append("| last reading | %s |" % " | ".join(cells))
        md.append("")
    # The whole curves go to the temporary directory, for --keep.
    with open(os.path.join(b.logs, "length-curves.tsv"), "w") as f:
        f.write("tool\tscope\tduration\tseconds\trss_kb\thwm_kb\n")
        for (tool, scope, d), r in recs.items():
            for t, rss, hwm in r.curve:
                f.write("%s\t%s\t%d\t%.2f\t%d\t%d\n" % (tool, scope, d, t, rss, hwm))
    b.section("11. Peak memory against the recording's length", "\n".join(md))


# ----------------------------------------------------------------------------
# 12. Peak memory of record on the bench workloads


def fig_memory(b):
    """The default recording (names, lines, inlines) at most perf record's
    peak; --no-lines at most half of perf record's. Reuses figure 4's
    recordings when figure 4 ran in this invocation."""
    log("12. peak memory of record, default and --no-lines, against perf record")
    runs = 2 if b.quick else 3
    work = []
    reused = getattr(b, "workload_results", None)
    if reused:
        for name, desc, r in reused:
            work.append((desc + " (figure 4's recordings)", r["rec"]))
    else:
        py_rounds = 250 if b.quick else 800
        xz_mb = 4 if b.quick else 12
        text = b.xz_text(xz_mb, "12")
        for name, desc, target in (
                ("python", "Python (`pyloop.py %d`)" % py_rounds,
                 "%s %s %d" % (q(b.py), q(b.pyloop), py_rounds)),
                ("xz", "`xz -9` of %d MB of generated text" % xz_mb, "xz -9 -T1 -c %s >/dev/null" % q(text))):
            work.append((desc, b.record_pair("12", "mem-" + name, target, "-F 999",
                                            "-e cpu-clock -F 999 -g", runs, label="memory " + name,
                                            variants=(("perfmini --no-lines", "--no-lines"),))))
    secs = 1.0 if b.quick else 2.0
    target = "%s -c %.1f -j 2" % (q(b.cpu), secs)
    work.append(("`cpu -c %.1f -j 2` (bench/workloads/cpu.c, two threads)" % secs,
                 b.record_pair("12", "mem-cpu", target, "-F 999", "-e cpu-clock -F 999 -g", runs,
                               label="memory cpu", variants=(("perfmini --no-lines", "--no-lines"),))))
    md = ["The recorder's own peak memory (VmHWM at its exit, bench/tools/pstat.c `-m`; median "
          "over the runs) on the bench workloads, recorded alternately by `perfmini record -F "
          "999` (the default: hybrid call stacks, an 8 KiB stack copy per sample unwound while "
          "recording; names, source lines and inline chains read while recording), "
          "`perfmini record -F 999 --no-lines` (names from the symbol tables only) and `perf "
          "record -e cpu-clock -F 999 -g`. The aims: the default recording's peak at most perf "
          "record's (ratio ≤ 1), `--no-lines` at most half of perf record's (ratio ≤ 0.5). "
          "Figure 6 has the same recorders for Python and xz with the report steps beside them.\n",
          "| workload | runs | perfmini (default) | perfmini `--no-lines` | perf record | default / perf | aim ≤ 1 | `--no-lines` / perf | aim ≤ 0.5 |",
          "|---|---|---|---|---|---|---|---|---|"]
    for desc, rec in work:
        pm, nl, pf = rec["perfmini"], rec["perfmini --no-lines"], rec["perf"]
        a, n, p = median(pm["hwm"]), median(nl["hwm"]), median(pf["hwm"])
        ra = a / p if a and p else None
        rn = n / p if n and p else None
        md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            desc, len([h for h in pf["hwm"] if h]), fkb(a), fkb(n), fkb(p),
            "%.2f" % ra if ra else "n/a", "n/a" if ra is None else b.aim(ra <= 1.0),
            "%.2f" % rn if rn else "n/a", "n/a" if rn is None else b.aim(rn <= 0.5)))
        short_desc = desc.split(" (")[0].replace("`", "")
        b.headline.append(("12. peak memory of record, default, %s" % short_desc, fkb(a), fkb(p),
                           "%.2f (perfmini/perf)" % ra if ra else "n/a", "≤ 1",
                           "n/a" if ra is None else b.aim(ra <= 1.0)))
        b.headline.append(("12. peak memory of record, `--no-lines`, %s" % short_desc, fkb(n), fkb(p),
                           "%.2f (perfmini/perf)" % rn if rn else "n/a", "≤ 0.5",
                           "n/a" if rn is None else b.aim(rn <= 0.5)))
    md.append("\nWhat the recorder holds: the kernel's symbols, 8 bytes each (about 1 MB for "
              "122,000 symbols, where a plain table took 6-9 MB), their names in an unnamed "
              "temporary file it maps, only the pages looked up resident; compressed debug sections (Debian's -dbg files) expanded into an unnamed "
              "temporary file that libdw maps, not into the heap; the pages of every file libelf "
              "maps given back once read (every 64 frames named); libdw's debuginfod client "
              "(libcurl and a TLS library) not loaded unless DEBUGINFOD_URLS is set. What the "
              "default recording holds beyond `--no-lines` is then libdw's index of the sampled "
              "modules' compilation units, and the line tables and function scopes of the units "
              "sampled, read by perfmini itself into 12 bytes a line-table row (libdw's took 48; "
              "the Python's libpython is built with `-g -O3`: its ceval.c alone has 71,000 rows) "
              "and 16 bytes a scope, and kept to about 2 MiB: beyond that, those of units not "
              "used since the last few dozen frames are dropped and read again when needed; "
              "what was read of a module whose code was not sampled for a minute is let go.")
    b.section("12. Peak memory of record on the bench workloads", "\n".join(md))


# ----------------------------------------------------------------------------
# 13 and 14. A busy `record -a`: lost records, own share of samples, stop time


def busy_configs(b):
    """(name, perfmini's options, perf's) of figures 13 and 14. perf has no
    hybrid mode: perfmini's default is held to perf's frame pointers."""
    fp = b.pm_fp()
    cfgs = []
    for hz in (999, 4000):
        rate = "{:,} Hz".format(hz)
        perf_fp = "-e cpu-clock -F %d -g" % hz
        if b.pm_has_hybrid():
            cfgs.append(("hybrid (default), %s" % rate, "-F %d" % hz, perf_fp))
        cfgs.append(("frame pointers, %s" % rate, "%s-F %d" % (fp, hz), perf_fp))
    cfgs.append(("frame pointers, 20,000 Hz", "%s-F 20000" % fp, "-e cpu-clock -F 20000 -g"))
    if b.pm_has_dwarf():
        cfgs.append(("DWARF, 999 Hz", "-F 999 --call-graph=dwarf", "-e cpu-clock -F 999 --call-graph dwarf"))
    return cfgs


def busy_modes_text(b):
    """What each configuration of figures 13 and 14 compares."""
    return ("The configurations name their call-graph mode: **hybrid (default)** is `perfmini "
            "record -a -F HZ` with no `--call-graph` (each sample carries the kernel's "
            "frame-pointer chain, the user registers and an 8 KiB copy of the user stack, unwound "
            "while recording) against `perf record -a -e cpu-clock -F HZ -g`: perf has no such "
            "mode, and its frame pointers are what the default is held to; **frame pointers** is "
            "`perfmini record -a %s-F HZ` against the same perf command; **DWARF** is perfmini "
            "`--call-graph=dwarf` (32 KiB copies, unwound while recording) against perf "
            "`--call-graph dwarf` (8 KiB copies, kept raw). Each row is its own pair of "
            "recordings, so perf's `-g` is recorded for the hybrid and the fp rows alike." % b.pm_fp())


def busy_runs(b):
    """Records the busy machine with `record -a` in every configuration,
    perfmini and perf alternately, once per run; cached for 13 and 14."""
    if getattr(b, "_busy", None):
        return b._busy
    secs = 6 if b.quick else 15
    runs = 1 if b.quick else 3
    cfgs = busy_configs(b)
    load_cmds = ["%s -s 100000" % q(b.cpu), "%s -s 100000" % q(b.cpu),
                 "%s -s 100000 -t 1" % q(os.path.join(b.bin, "churn"))]
    res = {}
    for name, pm_opts, pf_opts in cfgs:
        for tool in ("perfmini", "perf"):
            res[(name, tool)] = []
    rate0 = b.max_rate_now()
    for r in range(runs):
        for i, (name, pm_opts, pf_opts) in enumerate(cfgs):
            tools = ["perfmini", "perf"] if (r + i) % 2 == 0 else ["perf", "perfmini"]
            for tool in tools:
                tag = "busy-%s-%s-%d" % (pm_opts.replace(" ", "").replace("-", "").replace("=", "").replace(",", ""),
                                         tool, r)
                base = os.path.join(b.data, tag)
                if tool == "perfmini":
                    data = base + ".pmdata"
                    rec = "%s record -a %s -o %s" % (q(b.pm), pm_opts, q(data))
                else:
                    data = base + ".perf.data"
                    rec = "%s record -a %s -o %s" % (q(b.perf), pf_opts, q(data))
                log("  busy record -a, %s, %s, run %d/%d" % (name, tool, r + 1, runs))
                load = Load(load_cmds).start()
                time.sleep(1.0)
                R = Recorder(rec, base, 0.5).start(b.pstat)
                time.sleep(secs)
                R.interrupt()
                R.wait(timeout=900)
                load.stop()
                if R.status not in (0, 128 + signal.SIGINT):
                    b.notes.append("`%s` exited with status %d" % (b.short(rec), R.status))
                d = {"rec": R, "data": data, "cmd": rec, "pid": R.pid}
                if tool == "perfmini":
                    d["samples"], d["lost"] = perfmini_summary(R.err)
                    d["lost_detail"] = pm_lost_detail(b, data)
                else:
                    d["samples"], d["lost"] = perf_data_stats(data)
                try:
                    d["size"] = os.path.getsize(data)
                except OSError:
                    d["size"] = None
                res[(name, tool)].append(d)
    rate1 = b.max_rate_now()
    example = {}
    for name, pm_opts, pf_opts in cfgs:
        example[name] = (res[(name, "perfmini")][0]["cmd"], res[(name, "perf")][0]["cmd"])
    b._busy = {"res": res, "cfgs": cfgs, "secs": secs, "runs": runs, "load": load_cmds,
               "rate": (rate0, rate1), "example": example}
    cmds = ["# the load, started before each recording and stopped after it (by its pids):",
            " ".join(b.short(c) + " &" for c in load_cmds)]
    cmds.append("# after 1 s, each recorder under 'pstat -m' (its peak memory and CPU time), "
                "SIGINT after %d s; %d run%s per configuration, the tools alternately:" % (
                    secs, runs, "" if runs == 1 else "s"))
    for name, _, _ in cfgs:
        for c in example[name]:
            cmds.append("$TMP/bin/pstat -m -o OUT -- " + b.short(c))
    cmds.append("# lost: perfmini's summary ('N samples, M lost') and `perfmini report` header "
                "(Lost:); perf: PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES in perf.data, "
                "checked against `perf report --stats`")
    b._busy_cmds = cmds
    return b._busy


def pm_lost_detail(b, data):
    """The 'Lost:' line of perfmini report's header."""
    text = subprocess.run("%s report -n 1 -i %s" % (q(b.pm), q(data)), shell=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    for line in text.splitlines():
        if line.startswith("Lost:"):
            return line[len("Lost:"):].strip()
    return None


def perf_stats_lost(b, data):
    """The lost samples that `perf report --stats` gives: its per-event
    block ('cpu-clock stats:') has 'LOST_SAMPLES events: N', N the samples
    lost (the aggregated block above it counts records, not samples)."""
    text = subprocess.run("%s report --stats -i %s 2>/dev/null" % (q(b.perf), q(data)), shell=True,
                          stdout=subprocess.PIPE, text=True).stdout
    lost, in_event = 0, False
    for line in text.splitlines():
        if line.rstrip().endswith(" stats:") and not line.startswith("Aggregated"):
            in_event = True
            continue
        f = line.split()
        if in_event and f[:2] == ["LOST_SAMPLES", "events:"] and len(f) >= 3 and f[2].isdigit():
            lost += int(f[2])
    return lost


def fig_lost(b):
    log("13. lost records under a busy record -a")
    B = busy_runs(b)
    res, cfgs = B["res"], B["cfgs"]
    md = ["`record -a` on a machine with every CPU busy: two CPU-bound processes (`cpu -s`) and a "
          "thread churner (`churn -t 1`, bench/workloads/churn.c: one thread creating and joining "
          "short-lived threads, about a thousand a second) on the %s CPUs, plus whatever else runs "
          "here. Each recording lasts %d s (SIGINT), %d run%s per configuration, perfmini and perf "
          "alternately; both tools at their default ring size per CPU (perf: 128 pages, 512 KiB; "
          "perfmini: 128 pages with frame pointers, 1024 in the hybrid and DWARF modes, "
          "doubling with each doubling of the rate above 4,000 Hz: 1024 with frame pointers at "
          "20,000 Hz, as perfmini-record(1) says under -m). %s Lost: perfmini's summary (`N lost`: lost "
          "records and lost samples, also the report header's `Lost:` line, shown for the last "
          "run); perf: read from perf.data, the `lost` fields of PERF_RECORD_LOST or of "
          "PERF_RECORD_LOST_SAMPLES, whichever sum is larger (perf 6 adds at its end a "
          "LOST_SAMPLES record per event with the kernel's count of the same losses), checked "
          "against `perf report --stats` on the last run (its per-event `LOST_SAMPLES events`, "
          "the `Total Lost Samples` of `perf report`). The aim: none lost wherever perf loses none. Peak memory: VmHWM of the "
          "recorder at its exit (median).\n" % (
              os.cpu_count(), B["secs"], B["runs"], "" if B["runs"] == 1 else "s", busy_modes_text(b)),
          "| configuration | samples perfmini / perf | lost perfmini / perf | perfmini `Lost:` | perf lost, `perf report --stats` | aim | peak memory perfmini / perf | ratio |",
          "|---|---|---|---|---|---|---|---|"]
    for name, _, _ in cfgs:
        pm, pf = res[(name, "perfmini")], res[(name, "perf")]
        ms = sum(d["samples"] or 0 for d in pm)
        ml = sum(d["lost"] or 0 for d in pm)
        ps = sum(d["samples"] or 0 for d in pf)
        pl = sum(d["lost"] or 0 for d in pf)
        verdict = b.aim(ml == 0 or pl > 0)
        if ml and pl:
            verdict = "perf loses too"
        st = perf_stats_lost(b, pf[-1]["data"])
        if st != (pf[-1]["lost"] or 0):
            b.notes.append("%s: perf lost %s samples by perf.data's records, %s by `perf report "
                           "--stats`" % (name, pf[-1]["lost"], st))
        hm, hp = median([d["rec"].hwm for d in pm]), median([d["rec"].hwm for d in pf])
        md.append("| %s | %s / %s | %s / %s | %s | %s | %s | %s / %s | %s |" % (
            name, fint(ms), fint(ps), fint(ml), fint(pl), pm[-1].get("lost_detail") or "n/a",
            fint(st), verdict, fkb(hm), fkb(hp),
            "%.2f" % (hm / hp) if hm and hp else "n/a"))
        b.headline.append(("13. lost, busy `record -a`, %s" % name, "%s of %s" % (fint(ml), fint(ms + ml)),
                           "%s of %s" % (fint(pl), fint(ps + pl)), "—", "0 where perf has 0", verdict))
        b.headline.append(("13. peak memory, busy `record -a`, %s" % name, fkb(hm), fkb(hp),
                           "%.2f (perfmini/perf)" % (hm / hp) if hm and hp else "n/a", "—", "—"))
    r0, r1 = B["rate"]
    md.append("")
    md.append("kernel.perf_event_max_sample_rate before / after these recordings: %s / %s (the "
              "kernel lowers it when sampling interrupts take too long)." % (r0, r1))
    b.section("13. Lost records under a busy `record -a`", "\n".join(md))
    for c in B_cmds(b):
        b.note_cmd("13", c)


def B_cmds(b):
    return getattr(b, "_busy_cmds", [])


# The stop time's aim, against perf's stop on the same workload in the
# same run: at most half of it. perf's stop is its build-id pass over the
# file it wrote; perfmini's drains, names what the naming thread has not
# and writes the file, and a user waits for either before the data is
# usable. A ratio, not a time: absolute times on this shared machine
# wander. Full runs only: --quick records for 6 s instead of 15, which
# shortens perf's stop (its pass reads the whole file) more than perfmini's.
STOP_AIM = 0.5

# Start-up left out of the 'after the first seconds' share.
SKIP = 2.0


def fig_share(b):
    log("14. the recorder's own share of a busy record -a, and its stop time")
    B = busy_runs(b)
    res, cfgs = B["res"], B["cfgs"]
    md = ["The recordings of figure 13, the same configurations (each row names its call-graph "
          "mode: hybrid (default) and frame pointers against perf `-g`, DWARF against perf "
          "`--call-graph dwarf`). In hybrid and DWARF mode perfmini's own samples include its "
          "unwinding of every sample's stack copy. *Own share*: the samples of the recorder's own process in "
          "its own recording, over all samples: for perfmini, `perfmini report --folded --per-pid` "
          "(root frame `COMM-PID`, PID the recorder's); for perf, `perf script -F pid,time` "
          "(samples whose pid is perf record's). The comm of both recorders' threads is their "
          "name (`perfmini`, `perf`); the pid is used since other perfmini and perf processes "
          "(tests, other builds) may run on this machine at the same time. The share after the "
          "first %g s (`report --time %g,`; perf: samples %g s after its first) leaves the "
          "recorder's start-up out: the symbol tables of what runs (perfmini reads /proc/kallsyms "
          "before its sampling starts, perf not at all). "
          "*CPU share*: the recorder's whole CPU time (utime + stime from pstat, its start and "
          "stop included, which its own samples do not see) over %d s × %d CPUs. The aim: own "
          "share ≤ 1%%. *Stop*: from the SIGINT to the recorder's exit (perfmini: draining, "
          "naming what is left, writing; perf: its build-id pass over the whole file). Means "
          "over the runs.\n" % (SKIP, SKIP, SKIP, B["secs"], os.cpu_count()),
          "| configuration | own share perfmini / perf | aim ≤ 1%% | own share after the first %g s | CPU share perfmini / perf | stop perfmini / perf | stop ratio | data file perfmini / perf |" % SKIP,
          "|---|---|---|---|---|---|---|---|"]
    tops = []
    own_share = {}
    for name, _, _ in cfgs:
        pm, pf = res[(name, "perfmini")], res[(name, "perf")]
        shares = {"pm": [], "pf": [], "pm_late": [], "pf_late": []}
        for d in pm:
            for key, extra in (("pm", "--per-pid"), ("pm_late", "--per-pid --time %g," % SKIP)):
                roots = folded_by_root(b, d["data"], extra)
                total = sum(roots.values())
                # Root "COMM-PID": the comm is the binary's name, which need not be perfmini.
                owns = [n for r, n in roots.items() if r.rsplit("-", 1)[-1] == str(d["pid"])]
                # None (n/a) when no root is the recorder's: a share of 0 would pass the aim.
                shares[key].append(100.0 * sum(owns) / total if total and owns else None)
        for d in pf:
            for key, skip in (("pf", 0.0), ("pf_late", SKIP)):
                pids = perf_samples_by_pid(b, d["data"], skip)
                total = sum(pids.values())
                shares[key].append(100.0 * pids.get(d["pid"], 0) / total if total else None)
        s_pm, s_pf = mean_or_none(shares["pm"]), mean_or_none(shares["pf"])
        l_pm, l_pf = mean_or_none(shares["pm_late"]), mean_or_none(shares["pf_late"])
        ncpu = os.cpu_count() or 1
        c_pm = mean_or_none([100.0 * d["rec"].cpu / (B["secs"] * ncpu) if d["rec"].cpu is not None else None
                             for d in pm])
        c_pf = mean_or_none([100.0 * d["rec"].cpu / (B["secs"] * ncpu) if d["rec"].cpu is not None else None
                             for d in pf])
        t_pm = mean_or_none([d["rec"].stop_time for d in pm])
        t_pf = mean_or_none([d["rec"].stop_time for d in pf])
        ratio = t_pm / t_pf if t_pm and t_pf else None
        md.append("| %s | %s / %s | %s | %s / %s | %s / %s | %s / %s | %s | %s / %s |" % (
            name, pct(s_pm), pct(s_pf), "n/a" if s_pm is None else b.aim(s_pm <= 1.0),
            pct(l_pm), pct(l_pf), pct(c_pm), pct(c_pf), ftime(t_pm), ftime(t_pf), fratio(ratio) if ratio else "n/a",
            fsize(pm[-1]["size"]), fsize(pf[-1]["size"])))
        own_share[name] = (s_pm, l_pm, c_pm)
        b.headline.append(("14. own share of samples, busy `record -a`, %s" % name, pct(s_pm), pct(s_pf),
                           "—", "perfmini ≤ 1%", "n/a" if s_pm is None else b.aim(s_pm <= 1.0)))
        if ratio and not b.quick:
            verdict = b.aim(ratio <= STOP_AIM)
        else:
            verdict = "—" if ratio else "n/a"
        aim = "≤ %g (perfmini/perf, full runs)" % STOP_AIM
        b.headline.append(("14. stop time (SIGINT to exit), busy `record -a`, %s" % name, ftime(t_pm),
                           ftime(t_pf), "%s (perfmini/perf)" % fratio(ratio) if ratio else "n/a", aim, verdict))
        # What perfmini spends its own samples on, in the last run.
        d = pm[-1]
        text = subprocess.run("%s report --top -n 8 --pid %d -i %s" % (q(b.pm), d["pid"], q(d["data"])),
                              shell=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        body = [l for l in text.splitlines() if l.strip()]
        start = next((i for i, l in enumerate(body) if l.lstrip().startswith("Self%")), None)
        if start is not None:
            tops.append((name, body[start:start + 9]))
    pairs = []
    for rate in ("999 Hz", "4,000 Hz"):
        h, f = own_share.get("hybrid (default), " + rate), own_share.get("frame pointers, " + rate)
        if h and f:
            pairs.append("%s: hybrid %s / %s / %s, fp %s / %s / %s" % ((rate,) + tuple(pct(x) for x in h + f)))
    if pairs:
        md.append("")
        md.append("perfmini's default against its frame pointers, own share / after the first %g s "
                  "/ CPU share: %s." % (SKIP, "; ".join(pairs)))
    md.append("")
    md.append("The stop-time aim compares with perf's stop in the same run: perfmini's stop at "
              "most %g × perf's (STOP_AIM in bench/tools/light.py), judged in full runs only (a "
              "--quick run's recordings are shorter)." % STOP_AIM)
    if tops:
        md.append("")
        md.append("What perfmini's own samples are (`perfmini report --top -n 8 --pid RECORDER`, last run):\n")
        for name, lines in tops:
            md.append("%s:\n\n```\n%s\n```\n" % (name, "\n".join(lines)))
    b.section("14. The recorder's own share of a busy `record -a`, and its stop", "\n".join(md))
    b.note_cmd("14", "# the recordings of figure 13; own share:\n$PERFMINI report --folded --per-pid -i DATA   # root 'perfmini-PID'\n"
               "/usr/bin/perf script -F pid,time -i DATA   # lines of perf record's pid\n"
               "$PERFMINI report --top -n 8 --pid PID -i DATA")


# ----------------------------------------------------------------------------
# 15. DWARF mode under contention


def fig_contention(b):
    log("15. DWARF mode: the target's samples under contention")
    if not b.pm_has_dwarf():
        b.section("15. DWARF mode under contention", "perfmini has no --call-graph=dwarf here.")
        return
    secs = 3 if b.quick else 8
    runs = 3 if b.quick else 6
    load_cmds = ["%s -s 100000" % q(b.cpu), "%s -s 100000" % q(b.cpu)]
    target = "%s -s %d" % (q(b.cpu), secs)
    cfgs = [("alone", None), ("perfmini", "%s record -F 999 --call-graph=dwarf" % q(b.pm)),
            ("perf", "%s record -e cpu-clock -F 999 --call-graph dwarf" % q(b.perf))]
    res = {n: {"samples": [], "lost": [], "cpu": [], "rcpu": [], "hwm": []} for n, _ in cfgs}
    cmds = {}
    for r in range(runs):
        k = r % len(cfgs)
        order = cfgs[k:] + cfgs[:k]
        for name, rec in order:
            base = os.path.join(b.data, "contention-%s" % name)
            times = base + ".times"
            if os.path.exists(times):
                os.unlink(times)
            if rec is None:
                c = "BENCH_TIMES=%s %s" % (q(times), target)
            else:
                data = base + (".perf.data" if name == "perf" else ".pmdata")
                c = "BENCH_TIMES=%s %s -m -o %s -- %s -o %s -- %s 2>%s" % (
                    q(times), q(b.pstat), q(base + ".outer"), rec, q(data), target, q(base + ".err"))
            cmds[name] = c
            log("  contention, %s, run %d/%d" % (name, r + 1, runs))
            load = Load(load_cmds).start()
            time.sleep(0.5)
            subprocess.run(c, shell=True, executable="/bin/sh", stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            load.stop()
            t = None
            try:
                t = [float(x) for x in open(times).read().split()]
            except (OSError, ValueError):
                pass
            res[name]["cpu"].append(t[1] if t else None)
            if rec is None:
                continue
            if name == "perf":
                s, lo = perf_data_stats(data)
            else:
                s, lo = perfmini_summary(base + ".err")
            o = pstat_line(base + ".outer") or {}
            res[name]["samples"].append(s)
            res[name]["lost"].append(lo)
            res[name]["rcpu"].append(o.get("cpu"))
            res[name]["hwm"].append(o.get("hwm_kb"))
    pm, pf, al = res["perfmini"], res["perf"], res["alone"]
    s_pm = Stats([x for x in pm["samples"] if x is not None])
    s_pf = Stats([x for x in pf["samples"] if x is not None])
    ratio = s_pm.mean / s_pf.mean if s_pm.n and s_pf.n else None
    err = 2 * (s_pm.rse ** 2 + s_pf.rse ** 2) ** 0.5
    verdict = "n/a" if ratio is None else b.aim(ratio >= 0.95, ratio >= 0.95 - err)

    def fs(st):
        return "%s ± %s (%d)" % (fint(st.mean), fint(st.sd), st.n) if st.n else "n/a"

    c_al = Stats([x for x in al["cpu"] if x is not None])
    c_pm = Stats([x for x in pm["cpu"] if x is not None])
    c_pf = Stats([x for x in pf["cpu"] if x is not None])
    md = ["A target that runs for a fixed wall time, `cpu -s %d` (one thread), recorded in DWARF "
          "mode at 999 Hz while two other CPU-bound processes (`cpu -s`, not recorded) keep both "
          "CPUs busy: the target gets about a third of the machine, and whatever CPU the recorder "
          "takes comes out of it. perfmini unwinds each sample while recording (its default "
          "32 KiB stack copy), perf copies 8 KiB stacks (its default) and unwinds later. The "
          "target's sample count is its CPU time at 1 sample per 1.001 ms. %d runs each, "
          "alone / perfmini / perf in rotation, a fresh load each run; mean ± sd. The aim: "
          "perfmini's count at least 95%% of perf's ('within noise': short of it by less than "
          "twice the combined standard error).\n" % (secs, runs),
          "| | alone | perfmini `--call-graph=dwarf` | perf `--call-graph dwarf` | perfmini/perf | aim ≥ 0.95 |",
          "|---|---|---|---|---|---|",
          "| target's samples | — | %s | %s | %s | %s |" % (fs(s_pm), fs(s_pf), "%.3f" % ratio if ratio else "n/a", verdict),
          "| target's CPU time (its own clock) | %s | %s | %s | %s | — |" % (
              fstat_s(c_al), fstat_s(c_pm), fstat_s(c_pf), "%.3f" % (c_pm.mean / c_pf.mean) if c_pm.n and c_pf.n else "n/a"),
          "| recorder CPU time | — | %s | %s | %s | — |" % (
              ftime(mean_or_none(pm["rcpu"])), ftime(mean_or_none(pf["rcpu"])),
              fratio(mean_or_none(pm["rcpu"]) / mean_or_none(pf["rcpu"]))
              if mean_or_none(pm["rcpu"]) and mean_or_none(pf["rcpu"]) else "n/a"),
          "| recorder peak memory | — | %s | %s | — | — |" % (fkb(median(pm["hwm"])), fkb(median(pf["hwm"]))),
          "| lost | — | %s | %s | — | — |" % (fint(sum(x or 0 for x in pm["lost"])), fint(sum(x or 0 for x in pf["lost"])))]
    b.section("15. DWARF mode under contention", "\n".join(md))
    b.headline.append(("15. DWARF, target's samples under contention", fs(s_pm), fs(s_pf),
                       "%.3f (perfmini/perf)" % ratio if ratio else "n/a", "≥ 0.95", verdict))
    b.note_cmd("15", "# the load, started before each command and stopped after it (by its pids):\n%s\n"
               "# then, %d runs each in rotation:\n%s" % (
                   " ".join(b.short(c) + " &" for c in load_cmds), runs,
                   "\n".join(b.short(cmds[n]) for n, _ in cfgs if n in cmds)))


def fstat_s(st):
    if not st.n:
        return "n/a"
    return "%s ± %s (%d)" % (ftime(st.mean), ftime(st.sd), st.n)
