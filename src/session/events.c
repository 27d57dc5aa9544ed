/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.c - the session's perf events opened, and why not: the
 * attributes of every event, the targets attached, what the kernel's
 * settings leave out said to the user; see events-int.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "capture/event.h"
#include "session/events-int.h"
#include "stack/unwind.h"
#include "util/alloc.h"
#include "util/msg.h"
#include "util/process.h"

size_t events_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 4096;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY)
		return rl.rlim_cur / 4 < 4096 ? rl.rlim_cur / 4 + 1 : 4096;
	return 4096;
}

static unsigned long read_proc_ulong(const char *path, unsigned long dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long v = dflt;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/* Says why the events could not be opened for lack of permission, and what to do. */
static void permission_failed(const struct sess_events *e, const struct record_opts *o, pid_t pid)
{
	if (o->system_wide)
		error("no permission to record every process (-a): it needs root, "
		      "CAP_PERFMON or kernel.perf_event_paranoid <= 0 (it is %ld)",
		      e->paranoid);
	else if (e->paranoid >= 3)
		error("no permission to open perf events: kernel.perf_event_paranoid=%ld "
		      "forbids them to users; run as root, grant CAP_PERFMON, or lower "
		      "/proc/sys/kernel/perf_event_paranoid to 2 (user code only, as "
		      "with --no-kernel) or 1",
		      e->paranoid);
	else if (pid > 0)
		error("no permission to profile process %d "
		      "(kernel.perf_event_paranoid=%ld): "
		      "it belongs to another user: attaching to it needs root, CAP_PERFMON or "
		      "CAP_SYS_PTRACE",
		      (int)pid, e->paranoid);
	else
		error("no permission to open perf events (kernel.perf_event_paranoid=%ld): "
		      "run as root, grant CAP_PERFMON, or lower "
		      "/proc/sys/kernel/perf_event_paranoid",
		      e->paranoid);
}

/* Says, in one line, why opening the events for pid failed with -err, and what to do. */
static void attach_failed(const struct sess_events *e, const struct record_opts *o, int err,
			  pid_t pid)
{
	const struct event_opts *ev = &o->ev;
	struct rlimit rl;

	err = -err;
	switch (e->att.failed) {
	case ATTACH_CPUS:
		if (err == EINVAL)
			error("bad CPU list '%s'", o->cpulist);
		else if (err == ENODEV)
			error("CPU %d in '%s' is not online", e->att.failed_cpu, o->cpulist);
		else
			error("cannot read the online CPU list /sys/devices/system/cpu/online");
		return;
	case ATTACH_MMAP:
		error("cannot map the ring buffer: %s; raise kernel.perf_event_mlock_kb or "
		      "'ulimit -l'",
		      strerror(err));
		return;
	case ATTACH_REDIRECT:
		error("cannot redirect an event into the CPU %d ring: %s", e->att.failed_cpu,
		      strerror(err));
		return;
	case ATTACH_OPEN:
	case ATTACH_OK:
		break;
	}
	switch (err) {
	case ESRCH:
		error("no such process: %d", (int)pid);
		break;
	case EACCES:
	case EPERM:
		permission_failed(e, o, pid);
		break;
	case EMFILE:
	case ENFILE:
		getrlimit(RLIMIT_NOFILE, &rl);
		error("too many open files (limit %llu): raise it with 'ulimit -n', or record "
		      "fewer CPUs (-C) or threads",
		      (unsigned long long)rl.rlim_cur);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		error("event '%s' is not supported on this machine%s", ev->ev->name,
		      ev->ev->type == PERF_TYPE_HARDWARE ? " (no hardware PMU): use -e cpu-clock"
							 : "");
		break;
	case EINVAL:
		if (!ev->period &&
		    ev->freq >
			    read_proc_ulong("/proc/sys/kernel/perf_event_max_sample_rate", ~0UL)) {
			error("frequency %llu is above kernel.perf_event_max_sample_rate (%lu)",
			      (unsigned long long)ev->freq,
			      read_proc_ulong("/proc/sys/kernel/perf_event_max_sample_rate", 0));
			break;
		}
		/* fall through */
	default:
		error("cannot open event '%s': %s", ev->ev->name, strerror(err));
		break;
	}
}

/* Opens the event for every target; -errno, with *pid the target that failed. */
static int open_targets(struct sess_events *e, const struct record_opts *o, pid_t child, pid_t *pid)
{
	int ret;

	*pid = -1;
	if ((ret = attach_cpus(&e->att, o->cpulist)) < 0)
		return ret;
	if (o->system_wide && (ret = attach_thread(&e->att, -1)) < 0)
		return ret;
	if (o->argv && !o->system_wide && (ret = attach_thread(&e->att, *pid = child)) < 0)
		return ret;
	for (size_t i = 0; i < o->npids; i++)
		if ((ret = attach_process(&e->att, *pid = (pid_t)o->pids[i])) < 0)
			return ret;
	for (size_t i = 0; i < o->ntids; i++) {
		*pid = (pid_t)o->tids[i];
		if (!process_alive(o->tids[i]))
			return -ESRCH;
		if ((ret = attach_thread(&e->att, *pid)) < 0)
			return ret;
	}
	return 0;
}

/*
 * Data pages of a tracking ring (per CPU): room for a burst of some 1,500
 * mappings; four times as many for a whole system's (a build's burst of
 * processes), a quarter for users whose locked memory is counted, so
 * that the sampling rings keep theirs. A ring asked for with -m gets a
 * tracking ring a quarter of its size, when that is more: the advice to
 * raise -m after records were lost reaches them too.
 */
#define TRACK_PAGES 64

static unsigned track_pages(const struct record_opts *o)
{
	unsigned pages = geteuid() != 0	  ? TRACK_PAGES / 4
			 : o->system_wide ? 4 * TRACK_PAGES
					  : TRACK_PAGES;

	if (o->pages_given && geteuid() == 0 && o->mmap_pages / 4 > pages)
		pages = o->mmap_pages / 4;
	return pages;
}

/*
 * What the context-switch event (a switch's sample) has of its own,
 * set in a, with its switch records when own_switches.
 *
 * A switch-out happens in the kernel: its sample must not exclude the
 * kernel, and leaves out the kernel's frames (--no-kernel) from its call
 * chain instead. In the hybrid mode its user frames (and a wake-up's,
 * whose event is made from it) come from the stack copy alone: the
 * kernel's frame-pointer walk of the user stack, which CPU samples
 * splice beyond the copy, cost a pipe round trip 2.4 us of 24 on a
 * virtual machine and was spliced onto 2 of some 107,000 off-CPU stacks
 * of python3, redis-server, xz and node measured (node's JIT frames
 * included, which the copy unwinds). (Not with --no-kernel: a chain of
 * neither would be none, and the sample's own address, in the kernel,
 * would stand for it.)
 */
static void switch_attr(struct perf_event_attr *a, const struct event_opts *ev, bool own_switches)
{
	a->context_switch = own_switches;
	a->exclude_kernel = 0;
	a->exclude_callchain_kernel = ev->no_kernel;
	a->exclude_callchain_user |= ev->hybrid && !ev->no_kernel;
}

/*
 * The events' attributes: the sampling event's, the second (off-CPU:
 * context switches) when off_cpu, and the tracking event's. With
 * --off-cpu-only the sampling event is the context switches' itself
 * (ev says so), and attr2 its copy. The context-switch event has its
 * switch records when own_switches; else CPU-wide ones stand for them
 * (switch_wide).
 */
static void make_attrs(const struct record_opts *o, const struct event_opts *ev, bool cgroup,
		       bool own_switches, struct perf_event_attr *attr,
		       struct perf_event_attr *attr2, struct perf_event_attr *track)
{
	event_attr(attr, ev);
	/* Each sample's cgroup; the tracking event reports the cgroups made. */
	if (cgroup)
		attr->sample_type |= PERF_SAMPLE_CGROUP;
	if (o->off_cpu_only) {
		attr->sample_type |= PERF_SAMPLE_ID | PERF_SAMPLE_CALLCHAIN;
		switch_attr(attr, ev, own_switches);
		*attr2 = *attr;
	} else if (o->off_cpu) {
		/* Both events' samples the same, an id telling them apart, a stack always. */
		attr->sample_type |= PERF_SAMPLE_ID | PERF_SAMPLE_CALLCHAIN;
		*attr2 = *attr;
		attr2->type = PERF_TYPE_SOFTWARE;
		attr2->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		attr2->freq = 0;
		attr2->sample_period = 1;
		switch_attr(attr2, ev, own_switches);
		/* The tracking event reports the mappings, names and tasks once. */
		attr2->mmap = attr2->mmap2 = attr2->comm = attr2->comm_exec = attr2->task = 0;
	}
	/*
	 * Mappings, names and tasks come from a dummy event of their own,
	 * whose ring wakes the recorder at each record: a new program's file
	 * is opened while it runs, even one that runs 20 ms and is deleted.
	 */
	*track = *attr;
	track->type = PERF_TYPE_SOFTWARE;
	track->config = PERF_COUNT_SW_DUMMY;
	track->freq = 0;
	track->sample_period = 0;
	track->watermark = 1;
	track->wakeup_watermark = 1;
	track->cgroup = cgroup;
	track->context_switch = 0;
	attr->mmap = attr->mmap2 = attr->comm = attr->comm_exec = attr->task = 0;
}

/* Whether this recorder may open CPU-wide events: root, or kernel.perf_event_paranoid <= 0. */
static bool cpu_wide_allowed(const struct sess_events *e)
{
	return geteuid() == 0 || e->paranoid <= 0;
}

/*
 * --off-cpu: the wake-up event, sched_waking sampled with the waker's
 * stack, into wake (the other events' samples made alike: the raw data
 * the tracepoint has goes into every sample, 8 bytes in theirs). Where
 * tracefs has no such tracepoint, e->wake_err says why.
 */
static void make_wake_attr(struct sess_events *e, const struct record_opts *o,
			   struct perf_event_attr *attr, struct perf_event_attr *attr2,
			   struct perf_event_attr *wake)
{
	unsigned off, size;
	uint64_t id;
	/*
	 * sched_waking fires in the waker's context; sched_wakeup, where the
	 * wake-up is queued to the woken thread's CPU, fires there, in
	 * whatever task runs (the idle task, not a target): kernels before
	 * 4.3 have only the latter.
	 */
	const char *tp = "sched/sched_waking";
	unsigned foff, fsize;
	uint64_t fid;
	int err = tracepoint_field(tp, "pid", &id, &off, &size);

	if (err == -ENOENT)
		err = tracepoint_field(tp = "sched/sched_wakeup", "pid", &id, &off, &size);

	e->wakeups = false;
	if (err == 0 && size != 4)
		err = -ENOTSUP;
	e->wake_err = err;
	if (err)
		return;
	attr->sample_type |= PERF_SAMPLE_RAW;
	attr2->sample_type |= PERF_SAMPLE_RAW;
	*wake = *attr2;
	wake->type = PERF_TYPE_TRACEPOINT;
	wake->config = id;
	wake->context_switch = 0;
	/*
	 * No kernel call chain: the waker's stack is its user stack under
	 * the address it woke from (try_to_wake_up). On a server's wake-ups,
	 * taken deep in the network stack's softirq, the kernel's walk cost
	 * the server most of what recording it did (redis: 6% of its
	 * throughput with it, none measurable without). A wake-up in an
	 * interrupt handler, whose user stack is the interrupted thread's,
	 * is told by the trace entry's flags (wake_flags_off) instead.
	 */
	wake->exclude_callchain_kernel = 1;
	e->wake_pid_off = off;
	e->wake_flags_off =
		tracepoint_field(tp, "common_flags", &fid, &foff, &fsize) == 0 && fsize == 1
			? foff
			: UINT_MAX;
	e->wakeups = true;
	/*
	 * An attached process's wake-ups come from anywhere (a server's from
	 * its clients): where CPU-wide events are allowed (root, or
	 * kernel.perf_event_paranoid 0 or less), the event is opened once per
	 * CPU for every thread, enabled with the others. A command's is
	 * opened beside its threads, which see the wake-ups they make: a
	 * CPU-wide event samples every wake-up of the machine with its
	 * stack, and on a busy machine loses some of the command's own.
	 */
	e->wake_wide = !o->system_wide && !o->argv && cpu_wide_allowed(e);
	if (e->wake_wide)
		wake->inherit = 0;
}

/*
 * Whether --off-cpu without -a takes its switch records from CPU-wide
 * events (open_switch_wide): where they are allowed and could be opened.
 */
static bool switch_wide(const struct sess_events *e, const struct record_opts *o)
{
	return o->off_cpu && !o->system_wide && cpu_wide_allowed(e) && !e->no_switch_wide;
}

/*
 * Whether the CPU-wide switch event can be the scheduler's sched_switch
 * tracepoint: tracefs has it, and the samples have their raw data (the
 * wake-up tracepoint's, sample_type). Each sample names the thread picked
 * (and the one it replaces), at the pick; it takes a filter, so that the
 * switches of threads not recorded write nothing, where the dummy's
 * records cost every switch of the machine. The targets' events then
 * keep their own switch records: a span ends at its pick where one was
 * sampled, else at its thread's own switch-in record (a virtual machine's
 * CPU leaving its idle task may write neither the tracepoint nor the
 * idle task's records).
 */
static bool switch_tp_fields(struct sess_events *e, uint64_t sample_type, uint64_t *id)
{
	unsigned psize, nsize;

	return (sample_type & PERF_SAMPLE_RAW) &&
	       !tracepoint_field("sched/sched_switch", "prev_pid", id, &e->sw_prev_off, &psize) &&
	       !tracepoint_field("sched/sched_switch", "next_pid", id, &e->sw_next_off, &nsize) &&
	       !tracepoint_field("sched/sched_switch", "prev_state", id, &e->sw_state_off,
				 &e->sw_state_size) &&
	       psize == 4 && nsize == 4 && (e->sw_state_size == 4 || e->sw_state_size == 8);
}

/* The tracepoint's attributes from ev's: no stack (an 8-byte copy: the layout of the others). */
static void switch_tp_attr(struct perf_event_attr *sw, uint64_t id)
{
	sw->type = PERF_TYPE_TRACEPOINT;
	sw->config = id;
	sw->freq = 0;
	sw->sample_period = 1;
	sw->context_switch = 0;
	sw->exclude_callchain_kernel = 1;
	sw->exclude_callchain_user = 1;
	if (sw->sample_type & PERF_SAMPLE_STACK_USER)
		sw->sample_stack_user = 8;
	sw->inherit = 0;
	sw->enable_on_exec = 0;
	sw->disabled = 0;
}

/*
 * --off-cpu without -a, where CPU-wide events are allowed: switch records
 * of every thread, per CPU, from a dummy event made from ev (the switch
 * event's attributes), enabled at once. Each names the thread it picks,
 * whose span then ends where the kernel starts counting its time on the
 * CPU (offcpu_picked), not at its own switch-in record, written once the
 * switch, the perf events' share of it included, is done. They hold the
 * targets' own switches too, which their events then leave out: each
 * record costs the switch that writes it (about half a microsecond on a
 * virtual machine measured). (With -a the switch event's own records are
 * CPU-wide.)
 */
static void open_switch_wide(struct sess_events *e, const struct record_opts *o,
			     const struct perf_event_attr *ev)
{
	struct perf_event_attr sw = *ev;

	if (!switch_wide(e, o))
		return;
	if (e->switch_tp) {
		switch_tp_attr(&sw, e->sw_id);
		attach_open_switch_wide(&e->att, &sw);
		return;
	}
	sw.type = PERF_TYPE_SOFTWARE;
	sw.config = PERF_COUNT_SW_DUMMY;
	sw.freq = 0;
	sw.sample_period = 0;
	sw.context_switch = 1;
	sw.inherit = 0;
	sw.enable_on_exec = 0;
	sw.disabled = 0;
	attach_open_switch_wide(&e->att, &sw);
}

/* The events are open: what the user is told of what they lack; -1 when nothing can be recorded. */
static int opened(struct sess_events *e, const struct record_opts *o)
{
	e->filtering = (e->wake_wide && e->att.has_wake) || e->switch_tp;
	/* Threads are switched out in the kernel: user code only sees none. */
	if (o->off_cpu && e->kernel_dropped) {
		const char *why =
			"kernel.perf_event_paranoid=2 lets this user sample user code only, "
			"and threads are switched out in the kernel: no off-CPU time can "
			"be recorded (run as root, or lower the setting to 1)";

		if (o->off_cpu_only) {
			error("%s", why);
			return -1;
		}
		if (!o->quiet)
			warning("%s", why);
	}
	if (e->kernel_dropped && !o->quiet)
		warning("kernel.perf_event_paranoid=2 lets this user sample user code only: kernel "
			"frames are left out (run as root, or lower the setting to 1, to have "
			"them)");
	if (e->ring_reduced && o->pages_given && !o->quiet)
		warning("ring buffer reduced to %u pages by the locked-memory limit", e->att.pages);
	if (o->off_cpu && e->wakeups && !e->att.has_wake && e->att.ids_wake.count == 0) {
		e->wakeups = false;
		e->wake_err = e->att.wake_err;
	}
	if (o->off_cpu && !e->wakeups && !e->kernel_dropped && !o->quiet)
		warning("no wake-ups (the sched_waking tracepoint: %s): off-CPU time is recorded "
			"without its wakers, and sleeping and runnable are not told apart",
			e->wake_err == -ENOENT	 ? "not found in tracefs"
			: e->wake_err == -ENODEV ? "tracefs is not mounted, and mounting it at "
						   "/sys/kernel/tracing needs root"
						 : strerror(-e->wake_err));
	return 0;
}

/* The events of attr (and its companions') readied to open, with rings of pages. */
static void add_events(struct sess_events *e, const struct record_opts *o, unsigned pages,
		       const struct perf_event_attr *attr, struct perf_event_attr *attr2,
		       struct perf_event_attr *track, struct perf_event_attr *wake)
{
	attach_init(&e->att, attr, pages);
	track->exclude_kernel = attr->exclude_kernel;
	attach_add_tracking(&e->att, track, track_pages(o));
	if (!o->off_cpu)
		return;
	attr2->exclude_kernel = e->kernel_dropped;
	if (!o->off_cpu_only)
		attach_add_second(&e->att, attr2);
	if (e->wakeups) {
		wake->exclude_kernel = e->kernel_dropped;
		attach_add_wake(&e->att, wake);
		e->att.wake_wide = e->wake_wide;
	}
}

int events_open(struct sess_events *e, const struct record_opts *o, pid_t child)
{
	struct event_opts ev = o->ev;
	struct perf_event_attr attr, attr2, track, wake;
	unsigned pages = o->mmap_pages;
	pid_t pid;
	int ret;

	ev.inherit = o->ntids == 0 && !o->system_wide;
	ev.enable_on_exec = o->argv != NULL && !o->system_wide;
	ev.disabled = true;
	if (ev.dwarf_stack)
		ev.dwarf_regs = unwind_regs_mask();
	e->cgroup_sampled = true;
	e->paranoid = (long)read_proc_ulong("/proc/sys/kernel/perf_event_paranoid", 2);
again:
	/* Woken a quarter of the way: time to drain before the ring is full. */
	ev.wakeup_bytes = (uint32_t)(pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	make_attrs(o, &ev, e->cgroup_sampled, !switch_wide(e, o), &attr, &attr2, &track);
	/* Opened again (a smaller ring): what the first open had to drop stays dropped. */
	if (e->kernel_dropped)
		attr.exclude_kernel = 1;
	if (o->off_cpu)
		make_wake_attr(e, o, &attr, &attr2, &wake);
	e->switch_tp = switch_wide(e, o) && !e->no_switch_tp &&
		       switch_tp_fields(e, attr.sample_type, &e->sw_id);
	if (e->switch_tp)
		(o->off_cpu_only ? &attr : &attr2)->context_switch = 1;
	e->layout.sample_type = attr.sample_type;
	e->layout.regs_user_mask = attr.sample_regs_user;
	e->layout.sample_id_all = true;
	for (;;) {
		add_events(e, o, pages, &attr, &attr2, &track, &wake);
		ret = open_targets(e, o, child, &pid);
		if (ret == 0 && e->att.has_wake && e->wake_wide)
			attach_open_wake_wide(&e->att);
		if (ret == 0)
			open_switch_wide(e, o, o->off_cpu_only ? &attr : &attr2);
		/*
		 * Without the tracepoint, the dummy's records; without them, the
		 * targets' events keep their own records.
		 */
		if (ret == 0 && switch_wide(e, o) && !e->att.has_switch_wide) {
			attach_release(&e->att);
			if (e->switch_tp)
				e->no_switch_tp = true;
			else
				e->no_switch_wide = true;
			e->switch_tp = false;
			goto again;
		}
		if (ret == 0)
			break;
		/* A kernel before 5.7 has no cgroups in samples: read from /proc instead. */
		if (ret == -EINVAL && e->cgroup_sampled && e->att.failed == ATTACH_OPEN) {
			attach_release(&e->att);
			e->cgroup_sampled = false;
			goto again;
		}
		if ((ret == -EACCES || ret == -EPERM) && e->att.failed == ATTACH_OPEN &&
		    !e->kernel_dropped && e->paranoid == 2) {
			attach_release(&e->att);
			attr.exclude_kernel = 1;
			e->kernel_dropped = true;
			continue;
		}
		attach_failed(e, o, ret, pid);
		return -1;
	}
	/*
	 * A ring the locked-memory limit made smaller needs events that wake
	 * the recorder sooner: opened again with the size that fits.
	 */
	if (e->att.pages < pages) {
		pages = e->att.pages;
		attach_release(&e->att);
		e->ring_reduced = true;
		goto again;
	}
	return opened(e, o);
}

size_t events_drain(struct sess_events *ev, ring_record_fn fn, void *arg)
{
	return attach_drain(&ev->att, fn, arg);
}

unsigned events_tracking_fill(struct sess_events *ev)
{
	return attach_tracking_fill(&ev->att);
}

uint64_t events_lost(const struct sess_events *ev)
{
	return attach_lost(&ev->att);
}

int events_enable(struct sess_events *ev)
{
	return attach_enable(&ev->att);
}

void events_disable(struct sess_events *ev)
{
	attach_disable(&ev->att);
}

/*
 * How often the filters may be made again, each time a new event per CPU:
 * a target that makes threads all the time costs ten opens a second per
 * CPU, after a burst of REFILTER_BURST (a program starting its threads).
 */
#define REFILTER_NS    100000000ULL
#define REFILTER_BURST 4
/* Past that pace, the filters are left off until the threads stay put this long. */
#define CALM_NS 1000000000ULL

static void add_tid(uint32_t tid, void *arg)
{
	bool added;

	hmap_insert(arg, tid, &added);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The switch events' filter: switches from or to one of tids (n), into
 * buf (TP_FILTER_MAX bytes); its length, 0 when it does not fit.
 */
static size_t switch_filter(const uint32_t *tids, size_t n, char *buf)
{
	char next[TP_FILTER_MAX];
	size_t len = tracepoint_id_filter("prev_pid", tids, n, buf, TP_FILTER_MAX),
	       nlen = tracepoint_id_filter("next_pid", tids, n, next, sizeof(next));

	if (!len || !nlen || len + 4 + nlen >= TP_FILTER_MAX)
		return 0;
	snprintf(buf + len, TP_FILTER_MAX - len, " || %s", next);
	return len + 4 + nlen;
}

/* The events made again with filters from tids (n of them, sorted), at now: 0 or -errno. */
static int apply_filters(struct sess_events *e, const uint32_t *tids, size_t n, uint64_t now,
			 bool *filtered)
{
	char wake[TP_FILTER_MAX], sw[TP_FILTER_MAX];
	size_t wlen = e->wake_wide ? tracepoint_id_filter("pid", tids, n, wake, sizeof(wake)) : 0,
	       slen = e->switch_tp ? switch_filter(tids, n, sw) : 0;
	int ret = 0;

	/* Both filtered, or neither: too many threads (or none) for one. */
	if ((e->wake_wide && !wlen) || (e->switch_tp && !slen))
		wlen = slen = 0;
	*filtered = wlen || slen;
	if (!*filtered && e->filter == 0)
		return 0; /* as before: every event */
	if (e->wake_wide && e->att.has_wake)
		ret = attach_filter_wake(&e->att, wlen ? wake : NULL, now);
	if (ret == 0 && e->switch_tp)
		ret = attach_filter_switch(&e->att, slen ? sw : NULL, now);
	return ret;
}

static void refilter_now(struct sess_events *e, uint64_t now)
{
	uint32_t *tids = xmalloc((e->tids.count + 1) * sizeof(*tids));
	const struct hmap_slot *slot;
	size_t n = 0;
	bool filtered;

	for (size_t pos = 0; (slot = hmap_next(&e->tids, &pos));)
		tids[n++] = (uint32_t)slot->key;
	qsort(tids, n, sizeof(*tids), cmp_u32);
	e->filter_dirty = false;
	e->filter_due = (e->filter_due > now ? e->filter_due : now) + REFILTER_NS;
	if (apply_filters(e, tids, n, now, &filtered) == 0) {
		e->filter = filtered ? 1 : 0;
	} else {
		/* Refused: every event again, where a CPU already had a filter. */
		e->filter = -1;
		if (apply_filters(e, tids, 0, now, &filtered) < 0)
			warning("--off-cpu: the wake-up and switch events could not be opened "
				"again: the threads the targets make from now on may be missing "
				"some");
	}
	free(tids);
}

void events_filter_start(struct sess_events *e, const struct record_opts *o, pid_t child,
			 uint64_t now)
{
	if (!e->filtering)
		return;
	if (child > 0)
		process_each_task((uint32_t)child, add_tid, &e->tids);
	for (size_t i = 0; i < o->npids; i++)
		process_each_task(o->pids[i], add_tid, &e->tids);
	for (size_t i = 0; i < o->ntids; i++)
		add_tid(o->tids[i], &e->tids);
	refilter_now(e, now);
}

void events_filter_task(struct sess_events *e, uint32_t tid, bool born)
{
	bool added = true;

	if (!e->filtering)
		return;
	if (born)
		hmap_insert(&e->tids, tid, &added);
	else
		added = hmap_remove(&e->tids, tid, NULL);
	e->filter_dirty |= added;
}

void events_refilter(struct sess_events *e, uint64_t now)
{
	bool filtered;

	if (e->filter < 0)
		return;
	if (e->churn) {
		if (e->filter_dirty) {
			e->filter_dirty = false;
			e->calm_since = now;
		} else if (now - e->calm_since >= CALM_NS) {
			e->churn = false;
			refilter_now(e, now);
		}
		return;
	}
	if (!e->filter_dirty)
		return;
	if (e->filter_due <= now + (REFILTER_BURST - 1) * REFILTER_NS) {
		refilter_now(e, now);
		return;
	}
	/*
	 * Threads come and go faster than filters can follow them (a script
	 * running short commands): every event until they calm down, rather
	 * than new threads' missed.
	 */
	e->churn = true;
	e->filter_dirty = false;
	e->calm_since = now;
	if (apply_filters(e, NULL, 0, now, &filtered) == 0)
		e->filter = 0;
	else
		e->filter = -1;
}

bool events_is_target(const struct sess_events *e, uint32_t tid)
{
	return hmap_find(&e->tids, tid) != NULL;
}

void events_offline(struct sess_events *ev, const struct decode_layout *layout)
{
	ev->layout = *layout;
	ev->cgroup_sampled = (layout->sample_type & PERF_SAMPLE_CGROUP) != 0;
}

void events_release(struct sess_events *ev)
{
	attach_release(&ev->att);
	hmap_release(&ev->tids);
}
