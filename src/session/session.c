/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - one recording session; see record.h.
 *
 * The loop: poll the per-CPU rings (and a self-pipe that signals write
 * to), copy every record into the time-ordered queue, apply the records
 * older than the flush limit, repeat. At the stop: disable the events,
 * drain everything, apply all, symbolize, write. The stages it drives are
 * modules of their own: attach (events and rings), order (time order),
 * proc (the process model), stack (sample stacks), symbolize (names) and
 * datafile (the file); what is left here is their orchestration and what
 * the user is told.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "elf/elfread.h"
#include "capture/attach.h"
#include "store/datafile.h"
#include "capture/decode.h"
#include "capture/launch.h"
#include "symbol/namer.h"
#include "model/order.h"
#include "model/proc.h"
#include "cmd/record.h"
#include "cmd/recorder-int.h"
#include "stack/stack.h"
#include "symbol/symbolize.h"
#include "model/offcpu.h"
#include "stack/unwind.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/outfile.h"
#include "util/process.h"

/* Records newer than this before the start of a round may still be in flight. */
#define FLUSH_SLACK_NS 20000000ULL
/*
 * How long an exited thread or process is kept for the samples its CPU
 * still takes of it on its way out (microseconds after its exit record,
 * at most the length of a preemption).
 */
#define LINGER_NS 1000000000ULL

/*
 * The first SIGINT, SIGTERM or SIGHUP stops the recording; a second cuts
 * its naming short, and so does the first once the recording has stopped
 * by itself (the command exited, -d): stopping says it has.
 */
static volatile sig_atomic_t stop_requested, stop_again, stopping;
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig != SIGCHLD) {
		if (stop_requested || stopping)
			stop_again = 1;
		stop_requested = 1;
	}
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &c, 1) < 0) {
		/* full pipe: a wakeup is already pending */
	}
	errno = saved;
}

/* The end of -d, in now_ns's time; 0 before the start or without -d. */
static uint64_t stop_deadline;

/*
 * The outputs' stop hook: a reader that takes nothing holds the recording
 * up only until a signal or -d, and then not for long (outfile.h).
 */
static bool stop_due(void *arg)
{
	(void)arg;
	return stop_requested || stopping || (stop_deadline && now_ns() >= stop_deadline);
}

/*
 * The handlers, first of all: a SIGINT even then stops the recording (a
 * shell script's background job starts with SIGINT ignored, and would
 * lose it). The pipe comes later (open_wake_pipe): the output file is
 * opened before it, so that it has a descriptor whatever the limit.
 */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: stop, and keep what was sampled */
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	outfile_set_stop_hook(stop_due, NULL);
}

/* The pipe the handlers write to, which wakes the loop; 0 or -errno. */
static int open_wake_pipe(void)
{
	return pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ? -errno : 0;
}

/* Applying records to the model and the profile, in time order. */

static void apply_sample(struct recorder *r, const struct rec_sample *s, uint16_t misc,
			 const void *ahead)
{
	struct thread *t = model_thread(&r->model, s->pid, s->tid);
	struct pm_sample out;

	memset(&out, 0, sizeof(out));
	out.time = s->time > r->start_ns ? s->time - r->start_ns : 0;
	out.period = s->period;
	out.pid = s->pid;
	out.tid = s->tid;
	out.cpu = s->cpu;
	out.stack = stacker_add_ahead(&r->stk, s, misc, ahead);
	out.comm = recorder_comm_id(r, t);
	out.cgroup = recorder_cgroup_id(r, t, s);
	/* To the file at once: a long recording keeps no samples in memory. */
	datafile_add_sample(&r->out, &out);
	profile_count_sample(r->prof, out.stack);
	if (!t->sampled) {
		t->sampled = true;
		if (t->exited) {
			/* First sampled on its way out: written down now, its name final. */
			recorder_write_thread(r, t);
			r->nthreads++;
		} else if (recorder_note_sampled(&r->sampled_tids, s->tid, s->pid)) {
			r->nthreads++;
		}
		recorder_note_process(r, s->pid);
	}
	r->nsamples++;
}

/*
 * Records drained but not applied yet that change a process's address
 * space (new mappings, exec), by pid: a sample of such a process is not
 * unwound before its turn, when the model has them.
 */
static void pending_change(struct recorder *r, uint32_t pid, int delta)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&r->pending, pid, &added);

	slot->val += (uint64_t)(int64_t)delta;
	if (slot->val == 0 || (added && delta < 0))
		hmap_remove(&r->pending, pid, NULL);
}

/*
 * Whether a sample of pid can be unwound as it is drained: its process is
 * known to the model (a child whose fork is still to be applied would be
 * made, with none of its parent's mappings) and no change to its address
 * space waits in the queue.
 */
static bool unwind_now(struct recorder *r, uint32_t pid)
{
	return !hmap_find(&r->pending, pid) && model_knows(&r->model, pid);
}

/*
 * Each record in its turn. A sample whose stack was unwound when drained
 * has that unwinding after its own bytes (drain_one): its header's size
 * says where they end.
 */
static void apply(const void *bytes, uint32_t len, void *arg)
{
	struct recorder *r = arg;
	uint32_t size = load_u16((const unsigned char *)bytes + 6);
	const void *ahead = size < len ? (const unsigned char *)bytes + size : NULL;
	struct record rec;

	if (record_decode(bytes, ahead ? size : len, &r->layout, &rec) < 0) {
		r->bad_records++;
		return;
	}
	switch (rec.type) {
	case PERF_RECORD_SAMPLE:
		if (r->wakeups && attach_is_wake(&r->att, rec.sample.id))
			recorder_apply_wake(r, &rec.sample, rec.misc, ahead);
		else if (r->o->off_cpu_only ||
			 (r->att.has_attr2 && attach_is_second(&r->att, rec.sample.id)))
			recorder_apply_switch(r, &rec.sample, rec.misc, ahead);
		else
			apply_sample(r, &rec.sample, rec.misc, ahead);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (rec.has_sid)
			recorder_apply_switch_record(r, &rec.sid, &rec.sw);
		break;
	case PERF_RECORD_MMAP2: {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino, rec.mmap2.ino_generation};

		if (rec.mmap2.pid == UINT32_MAX)
			break; /* kernel modules: symbolized through kallsyms */
		pending_change(r, rec.mmap2.pid, -1);
		model_mmap(&r->model, rec.mmap2.pid, rec.mmap2.addr, rec.mmap2.len, rec.mmap2.pgoff,
			   &k, rec.mmap2.prot);
		break;
	}
	case PERF_RECORD_COMM:
		if (rec.comm.exec)
			pending_change(r, rec.comm.pid, -1);
		model_comm(&r->model, rec.comm.pid, rec.comm.tid, rec.comm.comm, rec.comm.exec);
		break;
	case PERF_RECORD_FORK:
		model_fork(&r->model, rec.task.pid, rec.task.ppid, rec.task.tid, rec.task.ptid);
		break;
	case PERF_RECORD_EXIT:
		if (r->o->off_cpu)
			offcpu_exit(&r->offcpu, rec.task.tid);
		recorder_thread_exited(r, rec.task.pid, rec.task.tid, record_time(&rec));
		break;
	case PERF_RECORD_CGROUP:
		cgroups_add(&r->cgroups, rec.cgroup.id, rec.cgroup.path);
		break;
	case PERF_RECORD_LOST:
		r->lost += rec.lost.lost;
		model_lost(&r->model);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->lost_samples += rec.lost.lost;
		break;
	default:
		break;
	}
}

/*
 * Each record drained: pinned if it maps a file, then queued for its
 * turn. Only its type and time are read here, but for a mapping and a
 * stack copy; apply decodes it.
 */
static int drain_one(const struct perf_event_header *hdr, void *arg)
{
	struct recorder *r = arg;
	struct record rec;
	uint32_t type;
	uint64_t time;

	if (record_peek(hdr, hdr->size, &r->layout, &type, &time) < 0) {
		r->bad_records++;
		return 0;
	}
	if (type != PERF_RECORD_MMAP2 && type != PERF_RECORD_COMM &&
	    !(type == PERF_RECORD_SAMPLE && (r->layout.sample_type & PERF_SAMPLE_STACK_USER))) {
		order_push(&r->q, hdr, hdr->size, time);
		return 0;
	}
	if (record_decode(hdr, hdr->size, &r->layout, &rec) < 0) {
		r->bad_records++;
		return 0;
	}
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid != UINT32_MAX)
		pending_change(r, rec.mmap2.pid, 1);
	else if (rec.type == PERF_RECORD_COMM && rec.comm.exec)
		pending_change(r, rec.comm.pid, 1);
	/* A new mapping's file pinned now, while it (and its process) exists; applied in turn. */
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid != UINT32_MAX &&
	    (rec.mmap2.prot & PROT_EXEC)) {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino, rec.mmap2.ino_generation};

		module_set_get(&r->mods, &k, (pid_t)rec.mmap2.pid, rec.mmap2.addr,
			       rec.mmap2.addr + rec.mmap2.len);
	}
	if (rec.type == PERF_RECORD_SAMPLE && rec.sample.stack_size) {
		/*
		 * Unwound now, while the copy is at hand; the sample waits in
		 * the queue with only the part of its copy that this read (to
		 * be unwound again should its process's mappings change
		 * meanwhile), the unwinding after it.
		 */
		unsigned char *at = order_push_begin(&r->q, hdr->size + STACK_AHEAD_MAX);
		uint64_t need = UINT64_MAX;
		size_t ahead = 0;

		if (unwind_now(r, rec.sample.pid))
			ahead = stacker_unwind_ahead(&r->stk, &rec.sample, at + hdr->size, &need);
		/*
		 * At least the copy's first 512 bytes: an unwinding that read
		 * nothing must not leave the sample looking as if it had no
		 * copy (its chain alone, should it be unwound again).
		 */
		size_t len = record_trim_stack(hdr, hdr->size, &rec.sample,
					       ahead ? (need > 512 ? need : 512) : UINT64_MAX, at);

		memmove(at + len, at + hdr->size, ahead);
		order_push_end(&r->q, (uint32_t)(len + ahead), record_time(&rec));
		return 0;
	}
	order_push(&r->q, hdr, hdr->size, record_time(&rec));
	return 0;
}

static void drain_all(struct recorder *r)
{
	r->bad_records += attach_drain(&r->att, drain_one, r);
}

/* The loop. */

static bool targets_alive(struct recorder *r)
{
	if (r->o->argv)
		return !launch_poll(&r->child);
	if (r->o->system_wide)
		return true;
	for (size_t i = 0; i < r->o->npids; i++)
		if (process_alive(r->o->pids[i]))
			return true;
	for (size_t i = 0; i < r->o->ntids; i++)
		if (process_alive(r->o->tids[i]))
			return true;
	return false;
}

/*
 * The shortest time between two drains of the rings. The tracking rings
 * wake at every record, so that the file of a program that runs a few ms
 * and is deleted is opened while it runs: a machine that forks a thousand
 * times a second, fills a tracking ring past ROUND_FULL percent or mapped
 * a new file in the last ROUND_CALM_NS is drained every ROUND_MIN_NS.
 * Else (a build running the same compilers over and over) the wait
 * doubles up to ROUND_MAX_NS, never past the time the fullest tracking
 * ring takes to fill ROUND_FULL percent at its last pace. A sampling ring
 * that reaches its watermark is drained at once.
 */
#define ROUND_MIN_NS  5000000ULL
#define ROUND_MAX_NS  320000000ULL
#define ROUND_CALM_NS 2000000000ULL
#define ROUND_FULL    25

/* The processes and threads gone for LINGER_NS are forgotten this often. */
#define REAP_NS 100000000ULL

/* A chunk goes to the file this often, or when this much waits for it. */
#define CHUNK_NS    500000000ULL
#define CHUNK_BYTES (1024 * 1024)

/* The next wait: the fullest tracking ring fill% full, elapsed ns after the last drain. */
static uint64_t next_round_ns(uint64_t round_ns, unsigned fill, uint64_t elapsed, uint64_t now,
			      uint64_t new_file)
{
	uint64_t next = round_ns * 2 < ROUND_MAX_NS ? round_ns * 2 : ROUND_MAX_NS;

	if (fill >= ROUND_FULL || now - new_file < ROUND_CALM_NS)
		return ROUND_MIN_NS;
	if (fill && elapsed / fill * ROUND_FULL < next)
		next = elapsed / fill * ROUND_FULL;
	return next > ROUND_MIN_NS ? next : ROUND_MIN_NS;
}

/*
 * Sleeps until round_ns after round_start, woken by a signal or a
 * sampling ring at its watermark (quiet, the last nquiet of pfds), but
 * not by the tracking rings. Returns whether one of the quiet woke it:
 * the kernel tells a ring's wakeup once, so the poll after must not wait
 * for it again.
 */
static bool wait_round(struct pollfd *quiet, size_t nquiet, uint64_t round_start, uint64_t round_ns,
		       uint64_t deadline)
{
	uint64_t now = now_ns(), until = round_start + round_ns;

	if (deadline && deadline < until)
		until = deadline;
	if (now < until) {
		struct timespec ts = {(time_t)((until - now) / 1000000000ULL),
				      (long)((until - now) % 1000000000ULL)};

		return ppoll(quiet, nquiet, &ts, NULL) > 0;
	}
	return false;
}

/*
 * What the loop polls: the tracking rings first, then the sampling ones
 * and the self-pipe last, the quiet ones (wait_round), *nquiet of them.
 */
static struct pollfd *loop_fds(const struct recorder *r, size_t *nquiet)
{
	struct pollfd *pfds = xcalloc(r->att.nrings + 1, sizeof(*pfds));
	size_t i = 0;

	*nquiet = 1;
	for (int k = 0; k < 2; k++)
		for (size_t j = 0; j < r->att.nrings; j++)
			if (r->att.rings[j].tracking == (k == 0)) {
				pfds[i].fd = r->att.rings[j].fd;
				pfds[i++].events = POLLIN;
				*nquiet += (size_t)k;
			}
	pfds[i].fd = wake_pipe[0];
	pfds[i].events = POLLIN;
	return pfds;
}

/* Drains and applies until a signal, -d, the targets' end, or a file that cannot be written. */
static void record_loop(struct recorder *r, bool tty)
{
	size_t nfds = r->att.nrings + 1, nquiet;
	struct pollfd *pfds = loop_fds(r, &nquiet), *quiet = pfds + nfds - nquiet;
	uint64_t last_status = 0, deadline = stop_deadline, round_ns = ROUND_MIN_NS;
	uint64_t round_start = 0, last_reap = 0, new_file = now_ns();

	while (!stop_requested) {
		uint64_t limit, now, nmods;
		int timeout = 100;
		unsigned fill;
		char sink[64];

		/* What is left of the round's wait, then what came meanwhile, without sleeping again. */
		if (wait_round(quiet, nquiet, round_start, round_ns, deadline))
			timeout = 0;
		if (stop_requested)
			break;
		if (deadline) {
			now = now_ns();
			if (now >= deadline)
				break;
			if (timeout && (deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(pfds, nfds, timeout) < 0 && errno != EINTR)
			break; /* cannot wait: stop rather than spin */
		if (pfds[nfds - 1].revents)
			while (read(wake_pipe[0], sink, sizeof(sink)) > 0)
				;
		now = round_start;
		round_start = now_ns();
		fill = attach_tracking_fill(&r->att);
		nmods = r->mods.n;
		drain_all(r);
		if (r->mods.n != nmods)
			new_file = round_start;
		round_ns = next_round_ns(round_ns, fill, round_start - now, round_start, new_file);
		limit = round_start > FLUSH_SLACK_NS ? round_start - FLUSH_SLACK_NS : 0;
		order_flush(&r->q, limit, apply, r);
		if (r->namer)
			namer_kick(r->namer);
		if (round_start - last_reap >= REAP_NS) {
			model_reap(&r->model, limit > LINGER_NS ? limit - LINGER_NS : 0, NULL,
				   NULL);
			last_reap = round_start;
		}
		/* The frames named meanwhile into the profile; the files sealed whole finished. */
		recorder_finish_sealed(r, false);
		if (!targets_alive(r))
			break;
		now = now_ns();
		if ((now - r->last_flush >= CHUNK_NS || datafile_pending(&r->out) >= CHUNK_BYTES) &&
		    recorder_flush(r, false) < 0)
			break;
		if (recorder_switch_due(r, now) && recorder_switch(r) < 0)
			break;
		if (tty && now - last_status > 250000000ULL) {
			recorder_status_line(r, now);
			last_status = now;
		}
	}
	free(pfds);
}

/*
 * The stop: nothing sampled before it is dropped; names, then the file.
 * Sealed files of --switch-output are finished even when the file written
 * now cannot be (a full disk: its own error named it); those that cannot
 * be are named too.
 */
static int record_stop(struct recorder *r, size_t *written)
{
	char err[512];
	int ret;

	attach_disable(&r->att);
	r->end_ns = now_ns();
	drain_all(r);
	order_flush(&r->q, UINT64_MAX, apply, r);
	/* Threads still off the CPU at the stop: their spans end there. */
	offcpu_finish(&r->offcpu, r->end_ns);
	/* Every sample in the file before naming starts: a kill now loses none. */
	recorder_take_named(r);
	ret = recorder_flush(r, false);
	if (ret < 0)
		datafile_abandon(&r->out);
	if (ret == 0 || r->nsealed)
		recorder_name_frames(r, &stop_again);
	if (ret == 0 && r->unwinder)
		stacker_settle_unwind(&r->stk, recorder_entry_frame, r);
	recorder_finish_sealed(r, true);
	if (ret == 0) {
		recorder_add_threads(r);
		recorder_write_meta(r);
		ret = datafile_commit(&r->out, r->prof, written, err, sizeof(err));
		if (ret < 0)
			error("%s", err);
	}
	recorder_say_incomplete(r);
	return ret < 0 || r->failed ? -1 : 0;
}

/* The model's text finder: code moved to anonymous memory, through the file's segments. */
static int moved_text(void *arg, const struct module *mod, const struct maps_line *nb, uint64_t lo,
		      uint64_t hi, uint64_t *off)
{
	(void)arg;
	return elf_moved_text(mod->fd, nb->start, nb->end, nb->pgoff, nb->prot, lo, hi, off);
}

/* Setting up and tearing down. */

static int recorder_init(struct recorder *r, const struct record_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	module_set_init(&r->mods);
	symbolizer_init(&r->syms, &r->mods, o->no_lines);
	for (size_t i = 0; i < o->ndebug_dirs; i++)
		if (symbolizer_add_debug_dir(&r->syms, o->debug_dirs[i]) < 0) {
			error("bad --debug-dir '%s': %s", o->debug_dirs[i], strerror(errno));
			symbolizer_release(&r->syms);
			module_set_release(&r->mods);
			return -1;
		}
	model_init(&r->model, &r->mods, true);
	model_set_text_finder(&r->model, moved_text, NULL);
	r->prof = profile_new();
	order_init(&r->q);
	if (o->ev.dwarf_stack)
		r->unwinder = unwinder_new(&r->model);
	r->namer = namer_start(&r->syms);
	stacker_init(&r->stk, &r->model, r->prof, r->unwinder, recorder_on_new_frame, r);
	hmap_init(&r->sampled_tids);
	hmap_init(&r->pending);
	offcpu_init(&r->offcpu, o->off_cpu_min_ns, recorder_keep_offcpu, r);
	cgroups_init(&r->cgroups);
	return 0;
}

/*
 * Frees a recording (only where leaks are checked: the exit frees it all
 * else). Never one whose naming was cut short: record_run ends the process
 * instead, its naming thread perhaps still using what r holds.
 */
static void recorder_free(struct recorder *r)
{
	if (!FREE_AT_EXIT)
		return;
	namer_free(r->namer);
	symbolizer_release(&r->syms);
	attach_release(&r->att);
	order_release(&r->q);
	hmap_release(&r->sampled_tids);
	hmap_release(&r->pending);
	offcpu_release(&r->offcpu);
	stacker_release(&r->stk);
	unwinder_free(r->unwinder);
	model_release(&r->model);
	cgroups_release(&r->cgroups);
	module_set_release(&r->mods);
	profile_free(r->prof);
	free(r->res.b);
	free(r->privileged);
	recorder_release_slices(r);
	free(r);
}

/* Starts what is to be recorded: the command, the events; then the clock. */
static int record_start(struct recorder *r, const struct record_opts *o)
{
	int ret;

	if ((ret = open_wake_pipe()) < 0) {
		error("cannot create a pipe: %s", strerror(-ret));
		return -1;
	}
	if (o->argv)
		r->privileged = recorder_privileged_command(o->argv);
	if (o->argv && (ret = launch_start(&r->child, o->argv)) < 0) {
		error("cannot start '%s': %s", o->argv[0], strerror(-ret));
		return -1;
	}
	if (recorder_open_events(r) < 0) {
		if (o->argv)
			launch_abort(&r->child);
		return -1;
	}
	/* The cgroups made from now on come as records. */
	if (r->cgroup_sampled)
		cgroups_walk(&r->cgroups);
	/*
	 * A whole-system recording, which always has kernel frames, reads the
	 * kernel's symbols (/proc/kallsyms: some 50 ms of the kernel's time,
	 * the largest single read of a recording) before the sampling starts,
	 * not during it: the programs profiled do not compete with it, nor
	 * does it show in the profile, where the recorder samples itself.
	 * (A command's recording leaves it to the naming thread: a short
	 * command may have no kernel frame to name.) The naming thread has no
	 * job yet to touch the symbolizer with.
	 */
	if (o->system_wide && !o->ev.no_kernel && !r->kernel_dropped)
		symfile_get(&r->syms, module_set_kernel(&r->mods));
	r->start_ns = now_ns();
	r->wall_start = time(NULL);
	if (o->duration > 0)
		stop_deadline = r->start_ns + (uint64_t)(o->duration * 1e9);
	/* Every event at once, after the start (a command's are enabled by its exec). */
	if ((!o->argv || o->system_wide) && (ret = attach_enable(&r->att)) < 0) {
		error("cannot enable the events: %s", strerror(-ret));
		return -1;
	}
	/* Attached processes: their mappings from before the events saw any. */
	for (size_t i = 0; i < o->npids; i++)
		model_process(&r->model, o->pids[i]);
	if (o->argv && (ret = launch_release(&r->child)) < 0) {
		error("cannot run '%s': %s", o->argv[0], strerror(-ret));
		return -1;
	}
	return 0;
}

int record_run(const struct record_opts *o)
{
	struct recorder *r = xcalloc(1, sizeof(*r));
	struct datafile_out out;
	char err[512], *slice;
	bool tty;
	size_t written = 0;
	int ret;

	/*
	 * The output exists before anything else is opened, the events above
	 * all: its descriptor is reserved, and a bad output is said at once.
	 */
	install_signals();
	r->o = o;
	slice = o->switch_ns || o->switch_bytes ? recorder_slice_name(r) : NULL;
	if (datafile_create(&out, slice ? slice : o->output, slice ? OUTFILE_NEW : 0, err,
			    sizeof(err)) < 0) {
		error("%s", err);
		free(slice);
		free(r);
		return 1;
	}
	if (recorder_init(r, o) < 0) {
		datafile_abandon(&out);
		free(r);
		return 1;
	}
	/* Each file only the stacks its own records use: a slice holds its own. */
	datafile_own_tables(&out);
	r->out = out;
	/* The file gets its name with its first chunk, once the recording has started. */
	ret = record_start(r, o);
	if (ret == 0 && slice) {
		recorder_slice_started(r, slice);
		slice = NULL;
	}
	if (ret < 0 || recorder_flush(r, true) < 0) {
		free(slice);
		datafile_abandon(&r->out);
		if (r->write_failed && o->argv)
			launch_stop(&r->child);
		recorder_free(r);
		return 1;
	}
	tty = recorder_status_wanted(r);
	record_loop(r, tty);
	stopping = 1;
	if (tty)
		fprintf(stderr, "\r\033[K");
	ret = record_stop(r, &written) < 0 ? 1 : 0;
	if (!o->quiet && ret == 0)
		recorder_print_summary(r, written);
	/*
	 * A command still running (after -d or a signal) is asked to stop, once
	 * the file is safe.
	 */
	if (o->argv)
		launch_stop(&r->child);
	if (r->cut_why) {
		/*
		 * The naming thread may still be inside libdw: the process ends
		 * here, with no exit-time teardown running under it.
		 */
		fflush(NULL);
		_exit(ret);
	}
	recorder_free(r);
	return ret;
}
