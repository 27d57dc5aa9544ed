# SPDX-License-Identifier: GPL-2.0-or-later
"""common.py - what bench/run's figures share (measure.py's and light.py's).

Running commands and quoting them; the run times of one command (Stats);
the formatters that print every figure's numbers (times, sizes, counts,
ratios); and the readers of what the tools leave behind (perfmini's
summary line, perf.data's records, pstat's line, /proc). Nothing here
knows a figure: the figures import it, it imports none of them.
"""
import math
import os
import re
import shlex
import statistics
import struct
import subprocess
import time

# ----------------------------------------------------------------------------
# Small utilities


def log(msg):
    stamp = time.strftime("%H:%M:%S")
    print("[%s] %s" % (stamp, msg), flush=True)


def sh(cmd, check=True, stdout=subprocess.DEVNULL, stderr=None, timeout=None):
    """Runs a /bin/sh command line; returns the CompletedProcess."""
    p = subprocess.run(cmd, shell=True, executable="/bin/sh", stdout=stdout, stderr=stderr,
                       text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("command failed (exit %d): %s" % (p.returncode, cmd))
    return p


def out(cmd):
    return subprocess.run(cmd, shell=True, executable="/bin/sh", stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout.strip()


def q(s):
    return shlex.quote(str(s))


class Stats:
    """Run times of one command: pooled over rounds."""

    def __init__(self, times, user=None, system=None, codes=None):
        self.times = list(times)
        self.user = user
        self.system = system
        self.codes = codes or []

    @property
    def n(self):
        return len(self.times)

    @property
    def mean(self):
        return statistics.fmean(self.times) if self.times else float("nan")

    @property
    def median(self):
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def sd(self):
        return statistics.stdev(self.times) if len(self.times) > 1 else 0.0

    @property
    def rse(self):
        """Relative standard error of the mean."""
        if len(self.times) < 2 or not self.mean:
            return 0.0
        return self.sd / self.mean / len(self.times) ** 0.5

    @property
    def failed(self):
        return any(c != 0 for c in self.codes)


def ftime(s):
    if s is None or s != s:
        return "n/a"
    if s >= 100:
        return "%.0f s" % s
    if s >= 10:
        return "%.1f s" % s
    if s >= 1:
        return "%.2f s" % s
    if s >= 0.1:
        return "%.0f ms" % (s * 1e3)
    if s >= 0.01:
        return "%.1f ms" % (s * 1e3)
    return "%.2f ms" % (s * 1e3)


def fstat(st):
    """mean ± sd (n) of a Stats."""
    if st is None or not st.times:
        return "n/a"
    if st.n == 1:
        return "%s (1 run)" % ftime(st.mean)
    return "%s ± %s (%d)" % (ftime(st.mean), ftime(st.sd), st.n)


def fsize(b):
    if b is None:
        return "n/a"
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            return "%.1f %s" % (b / f, unit)
    return "%d B" % b


def fkb(kb):
    return "n/a" if kb is None or kb < 0 else fsize(kb * 1024)


def fratio(x):
    """x as a ratio: 3 significant digits from 1 up (none after the point
    from 100), 2 below 1, however small, so that a ratio far below 1
    (perfmini's stop time over perf's) reads 0.0020×, never 0.00×."""
    if x is None or x != x:
        return "n/a"
    if x >= 100:
        return "%.0f×" % x
    if x >= 10:
        return "%.1f×" % x
    if x >= 1 or x <= 0:
        return "%.2f×" % x if x else "0×"
    return "%.*f×" % (max(2, 1 - math.floor(math.log10(x))), x)


def total_cpu(rec, rep):
    """(record, report, their sum) of CPU times: the medians of the
    recorder's (pstat -m, a negative or None where it could not be read)
    and of the report step's; None where a list is empty."""
    a = median([x for x in rec if x is not None and x >= 0])
    b = median(rep)
    return a, b, a + b if a is not None and b is not None else None


def fcpu(c):
    """'record + report = total' of a total_cpu()."""
    if c[2] is None:
        return "n/a"
    return "%s + %s = %s" % (ftime(c[0]), ftime(c[1]), ftime(c[2]))


def fcpu_ratio(pf, pm):
    """perf's total CPU over perfmini's, of two total_cpu()."""
    return fratio(pf[2] / pm[2]) if pf[2] and pm[2] else "n/a"


def fint(x):
    return "n/a" if x is None else "{:,}".format(int(round(x)))


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ----------------------------------------------------------------------------
# Reading what the tools leave behind

ENTRY_FRAMES = {"_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
                "start_thread", "clone", "clone3", "__clone3"}

PM_SUMMARY = re.compile(r"^perfmini: (\d+) samples, (\d+) lost", re.M)


def perfmini_summary(errfile):
    """(samples, lost) from the last summary line in a perfmini stderr log."""
    try:
        text = open(errfile).read()
    except OSError:
        return None, None
    m = PM_SUMMARY.findall(text)
    if not m:
        return None, None
    return int(m[-1][0]), int(m[-1][1])


def perf_data_stats(path):
    """(samples, lost) of a perf.data file, read from its records.

    perf.data starts with a header whose data section (offset, size at bytes
    40 and 48) holds the records, each led by struct perf_event_header
    (u32 type, u16 misc, u16 size). PERF_RECORD_SAMPLE is 9; PERF_RECORD_LOST
    (2) carries u64 id, u64 lost; PERF_RECORD_LOST_SAMPLES (13) a u64 lost.
    The two count the same losses: the kernel writes a LOST record into the
    ring for the samples it could not write, and perf record 6.x adds at its
    end one LOST_SAMPLES record per event with the kernel's own count of
    them (read_format PERF_FORMAT_LOST), which is what `perf report`'s
    "Total Lost Samples" sums. So lost = the larger of the two sums, not
    their total (older perfs write no LOST_SAMPLES). Counting here is exact
    and avoids a 'perf report' pass, which on a DWARF recording would unwind
    every sample first.
    """
    try:
        f = open(path, "rb")
    except OSError:
        return None, None
    with f:
        hdr = f.read(64)
        if len(hdr) < 56 or hdr[:8] != b"PERFILE2":
            return None, None
        data_off, data_size = struct.unpack_from("<QQ", hdr, 40)
        f.seek(data_off)
        samples = lost = lost_samples = 0
        left, buf = data_size, b""
        while left > 0 or len(buf) >= 8:
            if left > 0 and len(buf) < (1 << 20):
                chunk = f.read(min(left, 16 << 20))
                if not chunk:
                    left = 0
                left -= len(chunk)
                buf += chunk
            pos = 0
            end = len(buf)
            while pos + 8 <= end:
                rtype, _, size = struct.unpack_from("<IHH", buf, pos)
                if size < 8:
                    return samples, max(lost, lost_samples)  # corrupt: stop counting
                if pos + size > end:
                    break
                if rtype == 9:
                    samples += 1
                elif rtype == 2:
                    lost += struct.unpack_from("<Q", buf, pos + 16)[0]
                elif rtype == 13:
                    lost_samples += struct.unpack_from("<Q", buf, pos + 8)[0]
                pos += size
            buf = buf[pos:]
            if left <= 0 and pos == 0:
                break
        return samples, max(lost, lost_samples)


# Bits of perf_event_attr.sample_type, as they come in a PERF_RECORD_SAMPLE
# up to the user stack (perf_event_open(2), "PERF_RECORD_SAMPLE").
PERF_SAMPLE = {"IP": 1 << 0, "TID": 1 << 1, "TIME": 1 << 2, "ADDR": 1 << 3, "READ": 1 << 4,
               "CALLCHAIN": 1 << 5, "ID": 1 << 6, "CPU": 1 << 7, "PERIOD": 1 << 8,
               "STREAM_ID": 1 << 9, "RAW": 1 << 10, "BRANCH_STACK": 1 << 11, "REGS_USER": 1 << 12,
               "STACK_USER": 1 << 13, "IDENTIFIER": 1 << 16}


def perf_sample_layout(path):
    """What the PERF_RECORD_SAMPLE records of a perf.data file carry, on
    average: {'n', 'size' (whole record, header included), 'chain' (call
    chain entries, PERF_CONTEXT markers included), 'regs' (user registers
    per sample), 'stack' (bytes of user stack copied), 'dyn' (of which
    valid, dyn_size)}, or None. The layout comes from the file's one
    perf_event_attr (its attrs section: the header's u64 at 24 and 32;
    sample_type at byte 24 of the attr, sample_regs_user at 80); a file
    with several attrs of different sample types gives 'size' only."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    with f:
        hdr = f.read(64)
        if len(hdr) < 56 or hdr[:8] != b"PERFILE2":
            return None
        attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", hdr, 16)
        f.seek(attrs_off)
        raw = f.read(attrs_size)
        types = set()
        regs_mask = 0
        for off in range(0, len(raw) - attr_size + 1, attr_size):
            types.add(struct.unpack_from("<Q", raw, off + 24)[0])
            regs_mask = struct.unpack_from("<Q", raw, off + 80)[0]
        st = types.pop() if len(types) == 1 else None
        nregs = bin(regs_mask).count("1")
        f.seek(data_off)
        data = f.read(data_size)
    S = PERF_SAMPLE
    n = size = chain = regs = stack = dyn = 0
    pos = 0
    while pos + 8 <= len(data):
        rtype, _, rsize = struct.unpack_from("<IHH", data, pos)
        if rsize < 8 or pos + rsize > len(data):
            break
        if rtype == 9:
            n += 1
            size += rsize
            if st is not None and not st & (S["READ"] | S["BRANCH_STACK"]):
                p = pos + 8
                for bit in ("IDENTIFIER", "IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU", "PERIOD"):
                    if st & S[bit]:
                        p += 8
                if st & S["CALLCHAIN"]:
                    nr = struct.unpack_from("<Q", data, p)[0]
                    chain += nr
                    p += 8 + 8 * nr
                if st & S["RAW"]:
                    p += 4 + struct.unpack_from("<I", data, p)[0]
                if st & S["REGS_USER"]:
                    abi = struct.unpack_from("<Q", data, p)[0]
                    p += 8
                    if abi:
                        regs += nregs
                        p += 8 * nregs
                if st & S["STACK_USER"]:
                    ss = struct.unpack_from("<Q", data, p)[0]
                    stack += ss
                    if ss:
                        dyn += struct.unpack_from("<Q", data, p + 8 + ss)[0]
        pos += rsize
    if not n:
        return None
    res = {"n": n, "size": size / n}
    if st is not None and not st & (S["READ"] | S["BRANCH_STACK"]):
        res.update(chain=chain / n, regs=regs / n, stack=stack / n, dyn=dyn / n)
    return res


def pstat_line(path):
    """The last line of a pstat output file, as a dict of floats."""
    try:
        lines = [line for line in open(path) if line.strip()]
    except OSError:
        return None
    if not lines:
        return None
    d = {}
    for kv in lines[-1].split():
        k, _, v = kv.partition("=")
        try:
            d[k] = float(v)
        except ValueError:
            pass
    return d


def last_floats(path):
    """The numbers on the last line of a file, or None."""
    try:
        lines = [line for line in open(path) if line.strip()]
        return [float(x) for x in lines[-1].split()] if lines else None
    except (OSError, ValueError):
        return None


def time_v_maxrss_direct(argv_str):
    """Peak RSS (KiB) under /usr/bin/time -v, the command run without a
    shell in between; output to /dev/null."""
    p = subprocess.run("/usr/bin/time -v %s >/dev/null" % argv_str, shell=True,
                       executable="/bin/sh", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return int(m.group(1)) if m else None


def proc_status(pid):
    """Name, VmHWM and VmRSS (KiB) of a live process, or None."""
    d = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("Name", "VmHWM", "VmRSS"):
                    d[k] = v.strip() if k == "Name" else int(v.split()[0])
    except (OSError, ValueError):
        return None
    return d if "VmHWM" in d else None


def tree_memory(cmd, interval=0.01):
    """Runs cmd (through the shell, output to /dev/null) and polls the
    memory of it and all its descendants every `interval` seconds, for
    pipelines whose helpers /usr/bin/time -v cannot see (perf script kills
    its addr2line children, so their usage never reaches wait4). Returns
    ({name: largest VmHWM among the processes of that name}, largest sum
    of VmRSS over the tree at one poll). VmHWM only grows, so the last poll
    of a process is within one interval of its real peak; the sum is a
    lower bound of the tree's peak at one moment."""
    p = subprocess.Popen(cmd, shell=True, executable="/bin/sh",
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks, together = {}, 0
    while p.poll() is None:
        parent = {}
        for e in os.listdir("/proc"):
            if not e.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % e) as f:
                    st = f.read()
                parent[int(e)] = int(st[st.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
        tree, grew = {p.pid}, True
        while grew:
            kids = {c for c, pp in parent.items() if pp in tree and c not in tree}
            tree |= kids
            grew = bool(kids)
        now = 0
        for pid in tree:
            st = proc_status(pid)
            if not st:
                continue
            now += st.get("VmRSS", 0)
            name = st.get("Name", "?")
            peaks[name] = max(peaks.get(name, 0), st["VmHWM"])
        together = max(together, now)
        time.sleep(interval)
    return peaks, together
