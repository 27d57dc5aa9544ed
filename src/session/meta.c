/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * meta.c - what a recording says of itself: the meta entries of
 * its data file (command, event, call graph, unwinding, losses), the
 * status line while it runs and the summary the user reads at the end.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "report/missing.h"
#include "session/session-int.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static void set_meta_u64(struct profile *p, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	profile_set_meta(p, key, buf);
}

static const char *cut_module_path(const struct session *s, uint64_t key)
{
	uint32_t mod = stack_cut_module(key);

	return mod == PM_NONE ? "[unknown]" : s->mods.mods[mod]->path;
}

/*
 * DWARF mode: how many stacks reached the entry, and, for the others, in
 * which module and why they stopped: "unwind-cut" holds one line per
 * (module, reason) as "COUNT\tREASON\tMODULE".
 */
static void write_unwind_meta(const struct session *s, struct profile *p,
			      const struct stack_unwind_stats *u)
{
	struct sbuf b = SBUF_INIT;

	set_meta_u64(p, "unwind-stacks", u->unwound);
	set_meta_u64(p, "unwind-complete", u->ends[UNWIND_COMPLETE]);
	set_meta_u64(p, "unwind-by-cfi", u->how[UNWIND_BY_CFI]);
	set_meta_u64(p, "unwind-spliced", u->how[UNWIND_BY_SPLICE] + u->how[UNWIND_BY_SPLICE_PAST]);
	set_meta_u64(p, "unwind-spliced-past", u->how[UNWIND_BY_SPLICE_PAST]);
	set_meta_u64(p, "unwind-fp-only", u->how[UNWIND_BY_FP_ONLY]);
	set_meta_u64(p, "unwind-agreed", u->judge[UNWIND_AGREED]);
	set_meta_u64(p, "unwind-tables-won-skipped", u->judge[UNWIND_TABLES_SKIPPED]);
	set_meta_u64(p, "unwind-tables-won-not-ra", u->judge[UNWIND_TABLES_NOT_RA]);
	set_meta_u64(p, "unwind-chain-won", u->judge[UNWIND_CHAIN_WON]);
	const struct hmap_slot *slot;

	for (size_t pos = 0; (slot = hmap_next(&u->cut, &pos));)
		sbuf_addf(&b, "%llu\t%s\t%s\n", (unsigned long long)slot->val,
			  unwind_end_text(stack_cut_reason(slot->key)),
			  cut_module_path(s, slot->key));
	profile_set_meta(p, "unwind-cut", b.buf);
	sbuf_release(&b);
}

/* Frames named from kept names since the files before counted theirs, into p. */
static void write_names_kept(const struct session *s, struct profile *p)
{
	uint64_t n = symbolizer_names_cached(s->nm.syms) - s->names_kept_done;

	if (n)
		set_meta_u64(p, "names-kept", n);
	else if (profile_get_meta(p, "names-kept"))
		profile_set_meta(p, "names-kept", ""); /* a slice's copy of the one before's */
}

void meta_slice_finish(struct session *s, struct profile *p, struct stack_unwind_stats *unw)
{
	write_names_kept(s, p);
	s->names_kept_done = symbolizer_names_cached(s->nm.syms);
	if (!unw)
		return;
	unwind_stats_settle(unw, p, naming_entry_frame, s);
	write_unwind_meta(s, p, unw);
	unwind_stats_add(&s->unw_done, unw);
	unwind_stats_free(unw);
}

/*
 * The counts so far: of the recording, or with --switch-output of the
 * slice the file holds (from its start), so that the files merged add
 * up to the recording.
 */
void meta_progress(struct session *s)
{
	static const char *const keys[] = {"samples", "lost-records", "lost-samples",
					   "bad-records"};
	const uint64_t counts[] = {s->nsamples, s->lost, s->lost_samples, s->bad_records};
	bool slices = s->o->switch_ns || s->o->switch_bytes;
	uint64_t end = s->end_ns ? s->end_ns : now_ns();
	uint64_t start = slices && s->out.slice_start ? s->out.slice_start : s->start_ns;

	set_meta_u64(s->out.prof, "duration-ns", end > start ? end - start : 0);
	for (size_t i = 0; i < 4; i++)
		set_meta_u64(s->out.prof, keys[i], counts[i] - (slices ? s->out.at_start[i] : 0));
}

/* The memory budget, and what keeping within it cost. */
static void meta_memory(struct session *s, struct profile *p)
{
	struct memstats st;
	char buf[200];

	naming_memory_stats(&s->nm, &st);
	set_meta_u64(p, "max-memory", st.budget);
	if (st.peak)
		set_meta_u64(p, "memory-peak", st.peak);
	if (!st.entered[MEM_NO_LINES])
		return;
	snprintf(buf, sizeof(buf),
		 "source lines let go %llu time%s, names %llu time%s: %llu frames named without "
		 "lines, %llu left for report to name",
		 (unsigned long long)st.entered[MEM_NO_LINES],
		 st.entered[MEM_NO_LINES] == 1 ? "" : "s",
		 (unsigned long long)st.entered[MEM_NO_NAMES],
		 st.entered[MEM_NO_NAMES] == 1 ? "" : "s", (unsigned long long)st.no_lines,
		 (unsigned long long)st.unnamed);
	profile_set_meta(p, "memory-budget", buf);
}

void meta_write(struct session *s)
{
	const struct record_opts *o = s->o;
	struct profile *p = s->out.prof;
	struct sbuf cmd = SBUF_INIT;
	struct utsname u;

	for (int i = 0; i < o->argc_shown; i++) {
		if (i)
			sbuf_adds(&cmd, " ");
		sbuf_adds(&cmd, o->argv_shown[i]);
	}
	profile_set_meta(p, "command", cmd.buf);
	sbuf_release(&cmd);
	profile_set_meta(p, "perfmini-version", PACKAGE_VERSION);
	profile_set_meta(p, "event", o->ev.ev->name);
	if (o->ev.period)
		set_meta_u64(p, "period", o->ev.period);
	else
		set_meta_u64(p, "frequency", o->ev.freq);
	profile_set_meta(p, "lines", o->no_lines ? "no" : "yes");
	/* Whether off-CPU spans were recorded: an empty off-CPU view means none, or none kept. */
	if (o->off_cpu)
		set_meta_u64(p, "off-cpu-min-ns", o->off_cpu_min_ns);
	profile_set_meta(p, "off-cpu", o->off_cpu_only ? "only" : o->off_cpu ? "yes" : "no");
	/* Whether each span has its wake-up: sleeping and runnable told apart, wakers known. */
	if (o->off_cpu)
		profile_set_meta(p, "wake-ups", s->ev.wakeups ? "yes" : "no");
	/* How many spans ended where their thread was picked (CPU-wide switch records). */
	if (o->off_cpu && s->end_ns) {
		set_meta_u64(p, "off-cpu-spans", s->wt.offcpu.emitted);
		set_meta_u64(p, "off-cpu-picked", s->wt.offcpu.picked);
	}
	/*
	 * The wake-up samples the kernel wrote, and whether a filter kept
	 * them to the targets' threads (a CPU-wide event of -p, -t).
	 */
	if (o->off_cpu && s->end_ns && s->ev.wakeups) {
		set_meta_u64(p, "wake-samples", s->wt.wake_samples);
		if (s->ev.wake_wide)
			profile_set_meta(p, "wake-filter",
					 s->ev.filter > 0   ? "threads"
					 : s->ev.filter < 0 ? "refused"
							    : "none");
	}
	/* Where the samples' cgroups came from: each sample's, or each thread's from /proc. */
	profile_set_meta(p, "cgroups", s->ev.cgroup_sampled ? "sample" : "proc");
	if (s->nm.abandoned) {
		char buf[160];

		snprintf(buf, sizeof(buf),
			 "%llu frames of %zu modules left without names: their files were closed "
			 "under the limit of open files before they were read",
			 (unsigned long long)naming_skipped(&s->nm), s->nm.abandoned);
		profile_set_meta(p, "naming-given-up", buf);
	}
	meta_memory(s, p);
	/*
	 * Frames named from what earlier recordings of the same builds kept
	 * (namecache.h), since the slices before counted theirs.
	 */
	write_names_kept(s, p);
	if (s->nm.cut_why) {
		char buf[160];

		snprintf(buf, sizeof(buf), "cut short by %s: %zu frames left without names",
			 s->nm.cut_why, s->nm.unnamed_cut);
		profile_set_meta(p, "naming", buf);
	}
	if (o->ev.no_kernel)
		profile_set_meta(p, "kernel-excluded", "--no-kernel");
	else if (s->ev.kernel_dropped)
		profile_set_meta(p, "kernel-excluded", "kernel.perf_event_paranoid=2");
	profile_set_meta(p, "call-graph",
			 o->ev.hybrid	     ? "hybrid"
			 : o->ev.dwarf_stack ? "dwarf"
			 : o->ev.callchain   ? "fp"
					     : "none");
	/*
	 * How unwinds ended is settled at the stop (stacker_settle_unwind):
	 * a file cut short has none rather than counts half made.
	 */
	if (o->ev.dwarf_stack && s->end_ns)
		write_unwind_meta(s, p, &s->stk.unw);
	set_meta_u64(p, "start-time", (uint64_t)s->wall_start);
	meta_progress(s);
	if (uname(&u) == 0) {
		profile_set_meta(p, "hostname", u.nodename);
		profile_set_meta(p, "kernel", u.release);
		profile_set_meta(p, "arch", u.machine);
	}
}

/* The live status line. */

/* Whether fd of process pid ("self" for ours) is the terminal whose device is tty. */
static bool writes_to(const char *pid, int fd, dev_t tty)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/fd/%d", pid, fd);
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == tty;
}

bool session_status_wanted(const struct session *s)
{
	struct stat st;
	char pid[16];

	if (s->o->quiet || !isatty(STDERR_FILENO) || fstat(STDERR_FILENO, &st) < 0 || s->o->argv)
		return false;
	for (size_t i = 0; i < s->o->npids + s->o->ntids; i++) {
		uint32_t id = i < s->o->npids ? s->o->pids[i] : s->o->tids[i - s->o->npids];

		snprintf(pid, sizeof(pid), "%u", id);
		if (writes_to(pid, STDOUT_FILENO, st.st_rdev) ||
		    writes_to(pid, STDERR_FILENO, st.st_rdev))
			return false;
	}
	return true;
}

void session_status_line(const struct session *s)
{
	fprintf(stderr, "\r\033[Kperfmini: recording %.1f s, %llu %s",
		(double)(now_ns() - s->start_ns) / 1e9,
		(unsigned long long)(s->o->off_cpu_only ? s->wt.nspans : s->nsamples),
		s->o->off_cpu_only ? "off-CPU spans" : "samples");
	fflush(stderr);
}

/* What the user is told at the end. */

/* Most stacks first. */
static int cmp_cut(const void *a, const void *b)
{
	const struct hmap_slot *x = a, *y = b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Hybrid mode: how the stacks were found, and where the tables' walk
 * ended early and the chain went on, how the two compared.
 */
static void print_unwind_how(const struct stack_unwind_stats *u)
{
	const char *sep = "";

	fprintf(stderr,
		"perfmini: unwinding: %llu by unwind tables alone, %llu spliced onto frame "
		"pointers (%llu past frames the tables could not reach), %llu frame pointers "
		"only\n",
		(unsigned long long)u->how[UNWIND_BY_CFI],
		(unsigned long long)(u->how[UNWIND_BY_SPLICE] + u->how[UNWIND_BY_SPLICE_PAST]),
		(unsigned long long)u->how[UNWIND_BY_SPLICE_PAST],
		(unsigned long long)u->how[UNWIND_BY_FP_ONLY]);
	if (u->unwound == u->judge[UNWIND_UNJUDGED])
		return;
	fputs("perfmini: unwinding: where the tables ended early, against the chain: ", stderr);
	for (int j = UNWIND_AGREED; j < UNWIND_JUDGE_COUNT; j++) {
		if (!u->judge[j])
			continue;
		fprintf(stderr, "%s%llu %s", sep, (unsigned long long)u->judge[j],
			unwind_judge_text((enum unwind_judge)j));
		sep = "; ";
	}
	fputc('\n', stderr);
}

/* Summary lines: the share of stacks that reached the entry, and the worst cuts. */
static void print_unwind_summary(const struct session *s)
{
	struct stack_unwind_stats all, *u = &all;
	struct hmap_slot *cuts;
	struct sbuf shown = SBUF_INIT; /* paths come from other processes: shown printable */
	size_t n = 0;

	/* The whole recording's: the slices finished before, and the last. */
	unwind_stats_init(&all);
	unwind_stats_add(&all, &s->unw_done);
	unwind_stats_add(&all, &s->stk.unw);
	cuts = xcalloc(u->cut.count + 1, sizeof(*cuts));
	fprintf(stderr, "perfmini: unwinding: %llu of %llu user stacks (%.1f%%) reached the entry",
		(unsigned long long)u->ends[UNWIND_COMPLETE], (unsigned long long)u->unwound,
		u->unwound ? 100.0 * (double)u->ends[UNWIND_COMPLETE] / (double)u->unwound : 100.0);
	for (int e = 1; e < UNWIND_END_COUNT; e++)
		if (u->ends[e])
			fprintf(stderr, "; %llu %s", (unsigned long long)u->ends[e],
				unwind_end_text((enum unwind_end)e));
	fputc('\n', stderr);
	if (s->o->ev.hybrid)
		print_unwind_how(u);
	/* Where they stopped: the three (module, reason) pairs with most stacks. */
	const struct hmap_slot *slot;

	for (size_t pos = 0; (slot = hmap_next(&u->cut, &pos));)
		cuts[n++] = *slot;
	qsort(cuts, n, sizeof(*cuts), cmp_cut);
	for (size_t i = 0; i < n && i < 3; i++) {
		struct sbuf share = SBUF_INIT;

		sbuf_add_share(&share, cuts[i].val, u->unwound);
		fprintf(stderr, "perfmini: %s: %s of the stacks stopped there: %s\n",
			printable(&shown, cut_module_path(s, cuts[i].key)), share.buf,
			unwind_end_text(stack_cut_reason(cuts[i].key)));
		sbuf_release(&share);
	}
	free(cuts);
	sbuf_release(&shown);
	unwind_stats_release(&all);
}

/*
 * Why the program that argv runs gains privileges at its exec, for a
 * recorder that is not root: "set-user-ID root", "set-group-ID (group
 * 42)", "given file capabilities"; NULL when it does not (or is not
 * found: the exec will say). The kernel stops a user's perf events at
 * such an exec, as it stops ptrace, so the recording has no samples of
 * it. Allocated.
 */
char *meta_privileged_command(char *const argv[])
{
	const char *path = getenv("PATH"), *p;
	struct stat st;
	char *file = NULL;

	if (geteuid() == 0)
		return NULL;
	if (strchr(argv[0], '/')) {
		file = xstrdup(argv[0]);
	} else {
		for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; p && !file;) {
			size_t len = strcspn(p, ":");
			char *cand = xasprintf("%.*s/%s", (int)len, len ? p : ".", argv[0]);

			if (access(cand, X_OK) == 0 && stat(cand, &st) == 0 && S_ISREG(st.st_mode))
				file = cand;
			else
				free(cand);
			p = p[len] ? p + len + 1 : NULL;
		}
	}
	if (!file || stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(file);
		return NULL;
	}
	free(file);
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		return st.st_uid == 0 ? xstrdup("set-user-ID root")
				      : xasprintf("set-user-ID (user %u)", (unsigned)st.st_uid);
	if ((st.st_mode & S_ISGID) && st.st_gid != getegid() && group_member(st.st_gid) == 0)
		return xasprintf("set-group-ID (group %u)", (unsigned)st.st_gid);
	return NULL;
}

/*
 * What could not be named, per module: in the profile now and, with
 * --switch-output, in the slices finished before it.
 */
static void print_missing(const struct session *s)
{
	const struct missing_sum *slices = &s->out.missing;
	struct missing *m = report_missing_count(s->out.prof);

	if (slices->any)
		report_missing_sum_into(slices, m, s->out.prof->nmodules);
	/* Counted in a slice before, and let go since: said by its name and reason. */
	for (size_t i = 0; slices->any && i < s->out.prof->nmodules; i++) {
		uint32_t lines;

		if (!m[i].unnamed && !m[i].unplaced)
			continue;
		naming_module_back(s, (uint32_t)i);
		if ((lines = PM_MODULE_LINES(s->out.prof->modules[i].flags)))
			m[i].lines = (uint8_t)lines;
	}
	report_print_missing_counts(s->out.prof, m, slices, stderr, 5);
	free(m);
}

/* What the memory budget cost: the frames named without lines, and left to report. */
static void print_memory(const struct session *s)
{
	char peak[32], budget[32];
	struct memstats st;

	naming_memory_stats(&s->nm, &st);
	if (!st.entered[MEM_NO_LINES])
		return;
	size_text(st.peak, peak, sizeof(peak));
	size_text(st.budget, budget, sizeof(budget));
	warning("the recorder's memory reached %s of its %s budget (--max-memory): %llu frames "
		"were named without source lines and %llu left without names; perfmini report "
		"adds them from the files while they are unchanged",
		peak, budget, (unsigned long long)st.no_lines, (unsigned long long)st.unnamed);
}

void session_print_summary(const struct session *s, size_t written)
{
	char size[32];

	size_text(written, size, sizeof(size));
	fprintf(stderr,
		"perfmini: %llu %s, %llu lost, %zu process%s, %zu thread%s in %.2f s; "
		"wrote %s (%s)\n",
		(unsigned long long)(s->o->off_cpu_only ? s->wt.nspans : s->nsamples),
		s->o->off_cpu_only ? "off-CPU spans" : "samples",
		(unsigned long long)(s->lost + s->lost_samples), s->th.nprocs,
		s->th.nprocs == 1 ? "" : "es", s->th.nthreads, s->th.nthreads == 1 ? "" : "s",
		(double)(s->end_ns - s->start_ns) / 1e9, s->o->output, size);
	if (s->privileged && s->nsamples + s->wt.nspans == 0)
		warning("%s is %s: the kernel does not let a user sample a program that gains "
			"privileges at its exec; record it as root (or as the user it runs as)",
			s->o->argv[0], s->privileged);
	print_missing(s);
	if (s->nm.cut_why)
		warning("naming was cut short by %s: %zu frames left without names, shown as "
			"[module+0xOFFSET]",
			s->nm.cut_why, s->nm.unnamed_cut);
	if (s->nm.abandoned)
		warning("%llu frames of %zu programs that had ended were left without names: the "
			"naming thread, rationed on a busy machine, had not read them when the "
			"limit of %zu open files for modules made their files close (raise "
			"'ulimit -n')",
			(unsigned long long)naming_skipped(&s->nm), s->nm.abandoned,
			s->mods.pin_budget);
	print_memory(s);
	if (s->unwinder)
		print_unwind_summary(s);
	if (s->lost_tracking)
		warning("%llu records of mappings, names and tasks were lost (the tracking rings "
			"of %u pages per CPU): try -m with four times as many pages, which sizes "
			"them a quarter of it",
			(unsigned long long)s->lost_tracking, s->ev.att.track_pages);
	if (s->lost > s->lost_tracking || s->lost_samples)
		warning("%llu records and %llu samples were lost: try a larger ring (-m) or a "
			"lower frequency (-F)",
			(unsigned long long)(s->lost - s->lost_tracking),
			(unsigned long long)s->lost_samples);
}
