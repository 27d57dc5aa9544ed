#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# stack-compare.py - how alike are the user call stacks of two profiles of
# the same program: perfmini's against perf's (the reference), or two of
# either tool's (perf against perf is the noise floor).
#
#   stack-compare.py [options] A B
#
# A and B are each either 'perf script' text, made with
#   perf script -i perf.data -F comm,pid,tid,ip,sym,dso
# (a header 'COMM PID/TID' or 'COMM TID' per sample, then a line
# '<tab>ADDR SYMBOL (DSO)' per frame, innermost first, inlined levels as
# 'SYMBOL (inlined)', a blank line after each sample), or the output of
# 'perfmini report --json' (a JSON object per sample, 'frames' innermost
# first); the format is told from the first non-blank character.
#
# Samples are not paired: each side is a multiset of stacks, each sample
# weighing one. Kernel frames are dropped (perf: a kernel DSO or an address
# at or above 0xffff800000000000; perfmini: "kernel": true), so are the
# samples the --comm/--pid filters leave out, then every frame name is
# normalized (below). For two keys of a sample, its innermost three user
# frames (leaf first) and its whole user stack, the script prints
#
#   inner3 P whole Q samples NA NB
#
# P and Q are overlaps in percent: the sum over keys of min(share in A,
# share in B), 100 when the two distributions are the same, 0 when they
# share no key. NA and NB count the samples kept. A sample without user
# frames has the key '(no user frame)'. With --verbose it also
# prints, for each key, the keys whose shares differ most, side by side,
# and the addresses both name differently (mostly names this script does
# not yet normalize: see there first when a score looks wrong).
#
# Options:
#   --comm NAMES      keep only samples of threads with these names (comma-
#                     separated)
#   --pid PIDS        keep only samples of these processes (perf: needs the
#                     pid field, -F comm,pid,tid,...)
#   --no-inline       compare the real functions only: drop perfmini's
#                     inlined levels, and perf's '(inlined)' lines but the
#                     last of each address. perf's marks are not exact: a
#                     real function is '(inlined)' too when its DWARF name
#                     is not its symbol's (foo.constprop.0), and an inlined
#                     level is not when it has its caller's name (a
#                     recursion GCC inlined into itself); so give this
#                     script 'perf script --no-inline' output, as
#                     bench/stack-truth --no-inline does)
#   --root-at NAMES   end each user stack at the first of these functions
#                     (comma-separated) met from the leaf, dropping its
#                     callers: for a reference that stops there in some of
#                     its recordings, as perf's DWARF unwinder does at
#                     __libc_start_call_main in some recordings of xz
#   --unknown POLICY  how frames neither tool could name compare (below):
#                     addr (the default), module or never
#   --given-leaf      weigh each innermost frame alike on both sides: the
#                     overlaps become, for each leaf L, the overlap of the
#                     stacks that end in L on one side with those that end
#                     in L on the other, weighed by L's mean share of the
#                     two. Two recordings of one program divide its time
#                     among its leaves differently when its parts run at
#                     speeds that vary from run to run (a copy bound by
#                     memory on a shared machine): this measures how the
#                     stacks were walked, not how the time fell. A leaf on
#                     one side only counts as no overlap. --verbose still
#                     lists the keys by their shares of all samples
#   --min-inner3 P, --min-whole P
#                     exit 1, with a line saying so, when an overlap is
#                     below P
#   --verbose, -v     the differences: the overlaps of the innermost frame
#                     alone and of the outermost alone (a low one says
#                     stacks end early), the mean depths, then --top N keys
#                     each (default 12; --width W cuts names)
#
# Names: both tools name most frames alike, but not all; so that the same
# function compares equal, each name loses
#   - a C++ name's parameter list, its const/volatile/&/noexcept
#     qualifiers, the return type the demangler gives template functions,
#     and every template argument list: perf names inlined levels from
#     DWARF (std::sort<...>), symbols from the demangler (void
#     std::sort<...>(...)), and the two spell template arguments
#     differently; operator() and operator< <...> keep their name. Two
#     instantiations of one template in one stack then look alike, which
#     is rare;
#   - a Rust legacy hash (::h0123456789abcdef);
#   - GCC's clone suffixes ([clone .isra.0], .isra.N, .constprop.N,
#     .part.N, .cold, .lto_priv.N) and symbol versions (@GLIBC_2.2.5);
#     @plt stays, a PLT entry is not its target (perfmini's foo(int)@plt
#     is perf's foo@plt);
#   - the glibc prefixes of other names of one address, __GI_ (hidden
#     aliases) and __libc_ (__libc_malloc is malloc), then leading
#     underscores (__munmap is munmap, __GI___qsort_r is qsort_r), in every
#     name: perf names an inlined level without its file, and a leading
#     underscore alone seldom tells two functions of one stack apart; also
#     __libc_start_main_impl, cfree, __glibc_morecore, _IO_new_*, the
#     large-file names (open64 is open, mmap64 mmap) and the multiarch
#     __memcpy_*_unaligned* that are __memmove_*_unaligned*;
#   - V8's tier mark in JIT names from perf maps (JS:*f, JS:^f, JS:~f are
#     one function, compiled by different tiers at different times).
# Go names (main.f, main.(*T).m, main.f.func1) are left alone: both tools
# print them as the Go symbol table has them. Modules are not part of a
# frame's key (perf gives an inlined level none); a JIT perf map's file
# (/tmp/perf-PID.map) is no module at all.
#
# Unknown frames: perf's [unknown], perfmini's [MODULE+0xOFFSET], [anon],
# [unknown], a bare '@plt'. Counting any two unknowns as agreeing would
# reward two tools that both fail the same way (an unnamed module where
# each walks a different garbage chain would score 100), so by default
# (addr) an unknown caller agrees only with an unknown frame of the same
# module at the same return address (the two tools give file offsets
# alike), which is stricter than a name; an unknown innermost frame (the
# sampled pc, which no unwinder finds: both read it from the registers)
# agrees with one of the same module; and an unknown frame of no known
# file (garbage, JIT code no perf map names) agrees with nothing. 'module'
# lets unknown callers agree by module alone (lenient), 'never' makes no
# unknown frame agree (harsh: stripped code scores 0 even perf vs perf).
#
# Exit status: 0, 1 below a --min threshold, 2 on bad usage or input.
import argparse
import functools
import json
import re
import sys
from collections import Counter, defaultdict

KERNEL_START = 0xFFFF800000000000
# perf's pseudo-DSOs for user memory; other bracketed DSOs are the kernel's
# ([kernel.kallsyms], [guest.kernel.kallsyms], a module's [name]).
USER_PSEUDO_DSOS = {"[unknown]", "[vdso]", "[vsyscall]", "[heap]", "[stack]", "[anon]", "[jit]",
                    "[uprobes]", "[vvar]"}

# 'COMM PID/TID' or 'COMM TID' (a name may hold spaces and digits), then
# perhaps more fields (time, cpu, event) when perf script was asked for them.
PERF_HEADER = re.compile(r"^(?P<comm>.*\S)\s+(?:(?P<pid>-?\d+)/)?(?P<tid>-?\d+)\s*$")
PERF_HEADER_MORE = re.compile(r"^(?P<comm>.*?)\s+(?:(?P<pid>-?\d+)/)?(?P<tid>-?\d+)(?=\s|$)")
PERF_FRAME = re.compile(r"^\s+(?P<addr>[0-9a-f]+)\s(?P<rest>.*)$")
PM_UNKNOWN = re.compile(r"^\[(?P<mod>[^\]]*)\+0x(?P<off>[0-9a-f]+)\]$")

CLONE = re.compile(r"\s*\[clone [^\]]*\]")
GCC_SUFFIX = re.compile(r"(?:\.(?:isra|constprop|part|cold|lto_priv|llvm|localalias)(?:\.\d+)?)+$")
SYMVER = re.compile(r"@@?(?!plt$)[A-Za-z_][A-Za-z0-9_.]*$")
RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
JIT_TIER = re.compile(r"^(JS|LazyCompile|Function|Script|Eval|RegExp):[*~^+]")
MEMCPY_ALIAS = re.compile(r"^(_*)memcpy_(.*unaligned.*)$")
TRAILING_QUAL = re.compile(r"\s*(?:const|volatile|noexcept|&&|&)\s*$")
# An operator's name, so that its '<', '>', '(' and ')' are not taken for
# brackets: 'operator()', 'operator<<', 'operator new[]', ...
OPERATOR = re.compile(r"\boperator\s*(?:\(\)|\[\]|new\[\]|delete\[\]|new|delete|->\*?|<=>|<<=|>>=|"
                      r"<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%^&|~!=<>,]=?|\"\"\s*\w+)")
GLIBC_ALIASES = {"cfree": "free", "start_main_impl": "start_main",
                 "glibc_morecore": "default_morecore"}
# glibc's large-file functions: on x86-64 foo64 is another name of foo.
LFS = {"open", "openat", "creat", "mmap", "lseek", "pread", "pwrite", "preadv", "pwritev",
       "readdir", "readdir_r", "scandir", "alphasort", "versionsort", "getdents", "stat", "fstat",
       "lstat", "fstatat", "statfs", "fstatfs", "statvfs", "fstatvfs", "truncate", "ftruncate",
       "fopen", "freopen", "fseeko", "ftello", "fgetpos", "fsetpos", "tmpfile", "mkstemp",
       "mkostemp", "getrlimit", "setrlimit", "prlimit", "sendfile", "fallocate",
       "posix_fadvise", "posix_fallocate", "glob", "globfree", "ftw", "nftw", "lockf"}


class Input(Exception):
    pass


def _skip_group(s, i, open_c, close_c):
    """The index after the group that opens at s[i], brackets nested."""
    depth = 0
    while i < len(s):
        m = OPERATOR.match(s, i)
        if m:
            i = m.end()
            continue
        c = s[i]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(s)


def _drop_template_args(s):
    """s without its template argument lists: a '<' after a name or an
    operator. A '<' that starts a name (Rust's <T as Trait>::f) stays,
    its insides stripped in turn."""
    out = []
    last = ""  # the last character copied but spaces
    after_op = False  # what was copied last, but spaces, is an operator
    i = 0
    while i < len(s):
        m = OPERATOR.match(s, i)
        if m:
            out.append(m.group(0))
            last, after_op = m.group(0)[-1], True
            i = m.end()
            continue
        c = s[i]
        if c == "<" and (after_op or last.isalnum() or last in ("_", "]")):
            # Template arguments: skip them, and the space of 'operator< <T>'.
            i = _skip_group(s, i, "<", ">")
            while after_op and out and out[-1] == " ":
                out.pop()
            continue
        out.append(c)
        if c != " ":
            last, after_op = c, False
        i += 1
    return "".join(out)


def _top_level_spaces(s):
    """The positions of the spaces outside every bracket of s."""
    pos = []
    depth = 0
    i = 0
    while i < len(s):
        m = OPERATOR.match(s, i)
        if m:
            i = m.end()
            continue
        c = s[i]
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth = max(0, depth - 1)
        elif c == " " and depth == 0:
            pos.append(i)
        i += 1
    return pos


def _drop_params(s):
    """s without its trailing parameter list and qualifiers."""
    while True:
        t = TRAILING_QUAL.sub("", s)
        if t == s:
            break
        s = t
    if not s.endswith(")"):
        return s
    # The '(' that matches the last ')', not one inside an operator name.
    depth = 0
    i = len(s) - 1
    while i >= 0:
        c = s[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                break
        i -= 1
    if i <= 0:
        return s
    head = s[:i]
    if s[i:] == "()" and re.search(r"\boperator\s*$", head):
        return s  # the name operator() itself, printed without parameters
    return head.rstrip()


def cxx_name(s):
    """A C++ or Rust name without parameters, template arguments and
    return type."""
    s = _drop_params(s)
    s = _drop_template_args(s)
    s = _drop_params(s)
    # A return type: whatever comes before the last top-level space; but
    # 'operator new' and 'operator unsigned long' hold spaces of their own,
    # so then before the last 'operator'.
    sp = _top_level_spaces(s)
    ops = [m.start() for m in re.finditer(r"\boperator\b", s)]
    if ops:
        sp = [p for p in sp if p < ops[-1]]
    if sp:
        s = s[sp[-1] + 1:]
    return s.strip()


@functools.lru_cache(maxsize=None)
def normalize(name):
    """A function's name as both tools' names of it compare equal."""
    name = CLONE.sub("", name).strip()
    if name.endswith("@plt") and len(name) > 4:
        return normalize(name[:-4]) + "@plt"  # perfmini: foo(int)@plt
    name = JIT_TIER.sub(r"\1:", name)
    if name.startswith("JS:") or name.startswith("LazyCompile:"):
        return name  # JIT names carry a file path: no C++ rules for them
    name = SYMVER.sub("", name)
    name = RUST_HASH.sub("", name)
    if "(" in name or "<" in name or " " in name:
        name = cxx_name(name)
    name = GCC_SUFFIX.sub("", name)
    if name.startswith("__GI_"):
        name = name[5:]
    if name.startswith("__libc_"):
        name = name[7:]
    name = MEMCPY_ALIAS.sub(r"\1memmove_\2", name)
    # Every name, not glibc's alone: perf prints an inlined level without
    # its file, and a leading underscore is almost never all that tells two
    # functions of one stack apart.
    name = name.lstrip("_") or name
    if name.startswith("IO_new_"):
        name = "IO_" + name[7:]  # _IO_new_file_write is _IO_file_write
    if name.endswith("64") and name[:-2] in LFS:
        name = name[:-2]
    return GLIBC_ALIASES.get(name, name)


def is_unknown_name(name):
    return name in ("[unknown]", "[anon]", "@plt") or PM_UNKNOWN.match(name) is not None


def module_base(path):
    """A module's base name, or None for no file (anonymous memory, JIT)."""
    if not path or path in ("[unknown]", "//anon", "[anon]", "[heap]", "[stack]"):
        return None
    base = path.rsplit("/", 1)[-1]
    if re.match(r"^perf-\d+\.map$", base) or base.startswith(("memfd:", "jitted-")):
        return None
    return base


class Frame:
    __slots__ = ("name", "module", "addr", "inlined", "last")

    def __init__(self, name, module, addr, inlined, last):
        self.name = name  # as the tool printed it
        self.module = module  # the base name of its file, or None
        self.addr = addr  # the file offset, or None
        self.inlined = inlined  # an inlined level, not the real function
        self.last = last  # the last (outermost) level of its address


class Sample:
    __slots__ = ("comm", "pid", "tid", "frames")

    def __init__(self, comm, pid, tid, frames):
        self.comm = comm
        self.pid = pid
        self.tid = tid
        self.frames = frames  # user frames, innermost first


def _perf_sample(header, lines, where):
    m = PERF_HEADER.match(header) or PERF_HEADER_MORE.match(header)
    if not m:
        raise Input("%s: not a sample header: %r" % (where, header))
    raw = []
    for line in lines:
        fm = PERF_FRAME.match(line)
        if not fm:
            raise Input("%s: not a frame line: %r" % (where, line))
        addr = int(fm.group("addr"), 16)
        rest = fm.group("rest")
        # SYMBOL (DSO): the DSO is the last parenthesized group.
        k = rest.rfind(" (")
        if k < 0 or not rest.endswith(")"):
            sym, dso = rest, None
        else:
            sym, dso = rest[:k], rest[k + 2:-1]
        raw.append((addr, sym, dso))
    frames = []
    for j, (addr, sym, dso) in enumerate(raw):
        if addr >= KERNEL_START:
            continue
        if dso and dso.startswith("[") and dso not in USER_PSEUDO_DSOS:
            continue
        if dso and (dso.startswith("[kernel.") or dso.startswith("[guest.kernel") or
                    dso.endswith(".ko")):
            continue
        inlined = dso == "inlined"
        # A real function's line ends its address's levels; so does a new
        # address. (A recursion through one call site repeats the address:
        # when its real function is marked '(inlined)' too, see
        # --no-inline, its levels run together.)
        last = not inlined or j + 1 == len(raw) or raw[j + 1][0] != addr
        module = None
        if not inlined:
            module = module_base(dso)
        else:
            # An inlined level's file is that of its address's real frame.
            for a2, _, d2 in raw[j + 1:]:
                if a2 != addr:
                    break
                if d2 != "inlined":
                    module = module_base(d2)
                    break
        frames.append(Frame(sym, module, addr, inlined, last))
    pid = int(m.group("pid")) if m.group("pid") is not None else None
    return Sample(m.group("comm").strip(), pid, int(m.group("tid")), frames)


def read_perf(f, where):
    samples = []
    header, lines, lineno = None, [], 0
    for lineno, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line.strip():
            if header is not None:
                samples.append(_perf_sample(header, lines, "%s:%d" % (where, lineno)))
            header, lines = None, []
        elif line[0] in " \t":
            if header is None:
                raise Input("%s:%d: a frame outside a sample" % (where, lineno))
            lines.append(line)
        else:
            if header is not None:
                samples.append(_perf_sample(header, lines, "%s:%d" % (where, lineno)))
            header, lines = line, []
    if header is not None:
        samples.append(_perf_sample(header, lines, "%s:%d" % (where, lineno)))
    return samples


def read_perfmini(f, where):
    samples = []
    for lineno, line in enumerate(f, 1):
        if not line.strip():
            continue
        try:
            o = json.loads(line)
            raw = [fr for fr in o["frames"] if not fr.get("kernel")]
            frames = []
            for fr in raw:
                addr = int(fr["addr"], 16) if fr.get("addr") else None
                last = not fr.get("inlined")
                frames.append(Frame(fr["name"], module_base(fr.get("module")), addr,
                                    bool(fr.get("inlined")), last))
            samples.append(Sample(o.get("comm", ""), o.get("pid"), o.get("tid"), frames))
        except (ValueError, KeyError, TypeError) as e:
            raise Input("%s:%d: not a perfmini --json sample: %s" % (where, lineno, e))
    return samples


def read_profile(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        first = ""
        for line in f:
            if line.strip():
                first = line.lstrip()
                break
        f.seek(0)
        if first.startswith("{"):
            return "perfmini", read_perfmini(f, path)
        return "perf", read_perf(f, path)


def frame_token(fr, index, side, policy):
    """What a frame compares by: its normalized name, or for an unknown
    frame what the --unknown policy says."""
    if not is_unknown_name(fr.name):
        return normalize(fr.name)
    if fr.module is None or policy == "never":
        return "?%s" % side  # agrees with nothing on the other side
    if index == 0 or policy == "module" or fr.addr is None:
        return "?%s" % fr.module
    return "?%s+0x%x" % (fr.module, fr.addr)


def stacks(samples, side, args):
    """The kept samples' user stacks as tuples of tokens, innermost first;
    and per address, the tokens its levels were given."""
    out = []
    at_addr = defaultdict(Counter)
    for s in samples:
        if args.comm and s.comm not in args.comm:
            continue
        if args.pid:
            if s.pid is None:
                raise Input("--pid needs the pid of each sample: perf script -F comm,pid,tid,...")
            if s.pid not in args.pid:
                continue
        frames = s.frames
        if args.no_inline:
            frames = [fr for fr in frames if fr.last]
        toks = tuple(frame_token(fr, i, side, args.unknown) for i, fr in enumerate(frames))
        if args.root_at:
            cut = next((i for i, t in enumerate(toks) if t in args.root_at), None)
            if cut is not None:
                toks, frames = toks[:cut + 1], frames[:cut + 1]
        out.append(toks)
        # The naming check groups the levels of one address, on both sides
        # alike: perf's marks cannot tell where a real function starts (see
        # --no-inline), so a recursion through one call site is one group.
        j = 0
        while j < len(frames):
            k = j
            while k + 1 < len(frames) and frames[k + 1].addr == frames[j].addr:
                k += 1
            if frames[j].addr is not None:
                module = next((fr.module for fr in frames[j:k + 1] if fr.module), None)
                # A recursion's depth is no naming: one name for each.
                run = toks[j:k + 1]
                group = tuple(t for i, t in enumerate(run) if i == 0 or t != run[i - 1])
                at_addr[(module, frames[j].addr)][group] += 1
            j = k + 1
    return out, at_addr


def shares(keys):
    c = Counter(keys)
    n = sum(c.values())
    return {k: v / n for k, v in c.items()} if n else {}


def overlap(a, b):
    return 100.0 * sum(min(v, b.get(k, 0.0)) for k, v in a.items())


def overlap_given_leaf(ka, kb, cut):
    """The overlap of the keys k[:cut] (all of k when cut is None) of
    each leaf's stacks, weighed by the leaf's mean share."""
    by_a, by_b = defaultdict(list), defaultdict(list)
    for k in ka:
        by_a[k[:1]].append(k[:cut])
    for k in kb:
        by_b[k[:1]].append(k[:cut])
    total = 0.0
    for leaf in set(by_a) & set(by_b):
        w = (len(by_a[leaf]) / len(ka) + len(by_b[leaf]) / len(kb)) / 2
        total += w * overlap(shares(by_a[leaf]), shares(by_b[leaf]))
    return total


def show_key(key, width):
    if not key:
        return "(no user frame)"
    names = [k if len(k) <= width else k[:width - 3] + "..." for k in key]
    # A recursion reads better as one name and a count.
    out = []
    for n in names:
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return " <- ".join(n if c == 1 else "%s (x%d)" % (n, c) for n, c in out)


def print_diffs(title, a, b, top, width):
    print("%s: the keys whose shares differ most (A%%, B%%, leaf first)" % title)
    diff = sorted(set(a) | set(b), key=lambda k: -abs(a.get(k, 0.0) - b.get(k, 0.0)))
    for k in diff[:top]:
        print("  %5.1f %5.1f  %s" % (100 * a.get(k, 0.0), 100 * b.get(k, 0.0), show_key(k, width)))


def print_naming(at_a, at_b, top, width):
    """Addresses of one module both sides name, and name differently: the
    names this script does not normalize yet, or a tool naming wrongly."""
    # perf's '(inlined)'-only levels have no module: match those by address
    # when the address is in one module only on the other side.
    by_addr_b = defaultdict(set)
    for mod, addr in at_b:
        by_addr_b[addr].add(mod)
    rows = []
    for (mod, addr), ca in at_a.items():
        mb = mod
        if (mod, addr) not in at_b:
            if mod is None and len(by_addr_b.get(addr, ())) == 1:
                mb = next(iter(by_addr_b[addr]))
            else:
                continue
        cb = at_b[(mb, addr)]
        na, _ = ca.most_common(1)[0]
        nb, _ = cb.most_common(1)[0]
        if na != nb:
            rows.append((sum(ca.values()) + sum(cb.values()), mb, addr, na, nb))
    rows.sort(key=lambda r: -r[0])
    print("addresses named differently (samples through them, module+offset; A / B)")
    for n, mod, addr, na, nb in rows[:top]:
        print("  %6d %s+0x%x" % (n, mod, addr))
        print("         A: %s" % show_key(na, width))
        print("         B: %s" % show_key(nb, width))
    if not rows:
        print("  none")


def usage():
    """The comment at the top of this file, without its '#'s."""
    with open(__file__, encoding="utf-8") as f:
        lines = f.read().split("\n")[2:]
    for line in lines:
        if not line.startswith("#"):
            break
        print(line[2:])


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        usage()
        return 0
    ap = argparse.ArgumentParser(prog="stack-compare.py", add_help=False,
                                 usage="stack-compare.py [options] A B (--help: all of it)")
    ap.add_argument("a", metavar="A")
    ap.add_argument("b", metavar="B")
    ap.add_argument("--comm", type=lambda s: set(s.split(",")), default=None)
    ap.add_argument("--pid", type=lambda s: {int(x) for x in s.split(",")}, default=None)
    ap.add_argument("--no-inline", action="store_true")
    ap.add_argument("--root-at", type=lambda s: {normalize(x) for x in s.split(",")},
                    default=None)
    ap.add_argument("--unknown", choices=("addr", "module", "never"), default="addr")
    ap.add_argument("--given-leaf", action="store_true")
    ap.add_argument("--min-inner3", type=float, default=None)
    ap.add_argument("--min-whole", type=float, default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--width", type=int, default=60, help="--verbose: cut names to this width")
    args = ap.parse_args()

    try:
        kind_a, sa = read_profile(args.a)
        kind_b, sb = read_profile(args.b)
        ka, at_a = stacks(sa, "A", args)
        kb, at_b = stacks(sb, "B", args)
    except (OSError, Input) as e:
        print("stack-compare: %s" % e, file=sys.stderr)
        return 2
    if not ka or not kb:
        print("stack-compare: no samples left in %s" % (args.a if not ka else args.b),
              file=sys.stderr)
        return 2

    i3a, i3b = shares(k[:3] for k in ka), shares(k[:3] for k in kb)
    wa, wb = shares(ka), shares(kb)
    if args.given_leaf:
        inner3, whole = overlap_given_leaf(ka, kb, 3), overlap_given_leaf(ka, kb, None)
    else:
        inner3, whole = overlap(i3a, i3b), overlap(wa, wb)
    print("inner3 %.1f whole %.1f samples %d %d" % (inner3, whole, len(ka), len(kb)))

    if args.verbose:
        la, lb = shares(k[:1] for k in ka), shares(k[:1] for k in kb)
        oa, ob = shares(k[-1:] for k in ka), shares(k[-1:] for k in kb)
        da = sum(len(k) for k in ka) / len(ka)
        db = sum(len(k) for k in kb) / len(kb)
        print("A: %s (%s), B: %s (%s)" % (args.a, kind_a, args.b, kind_b))
        print("leaf %.1f outermost %.1f mean depth %.1f %.1f" %
              (overlap(la, lb), overlap(oa, ob), da, db))
        print_diffs("inner3", i3a, i3b, args.top, args.width)
        print_diffs("outermost", oa, ob, args.top, args.width)
        print_diffs("whole", wa, wb, args.top, args.width)
        print_naming(at_a, at_b, args.top, args.width)

    fails = []
    if args.min_inner3 is not None and inner3 < args.min_inner3:
        fails.append("inner3 %.1f < %g" % (inner3, args.min_inner3))
    if args.min_whole is not None and whole < args.min_whole:
        fails.append("whole %.1f < %g" % (whole, args.min_whole))
    if fails:
        print("stack-compare: below the threshold: %s (%s vs %s)" %
              (", ".join(fails), args.a, args.b), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
