/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c - one recording session; see session.h and session-int.h.
 *
 * The loop: poll the per-CPU rings (and the caller's wake-up pipe), copy
 * every record into the time-ordered queue, apply the records older than
 * the flush limit, repeat. At the stop: disable the events, drain
 * everything, apply all, name, write. The stages it drives are of their
 * own folders: attach (events and rings), order (time order), proc (the
 * process model), stack (sample stacks), symbol (names) and store (the
 * file); the session's parts (session-int.h) keep what a recording
 * needs of each; what is left here is their orchestration.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/attach.h"
#include "capture/decode.h"
#include "capture/launch.h"
#include "elf/elfread.h"
#include "model/offcpu.h"
#include "model/order.h"
#include "model/proc.h"
#include "session/session-int.h"
#include "stack/stack.h"
#include "stack/unwind.h"
#include "symbol/namer.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/process.h"

/* Records newer than this before the start of a round may still be in flight. */
#define FLUSH_SLACK_NS 20000000ULL
/*
 * How long an exited thread or process is kept for the samples its CPU
 * still takes of it on its way out (microseconds after its exit record,
 * at most the length of a preemption).
 */
#define LINGER_NS 1000000000ULL

/* Applying records to the model and the profile, in time order. */

static void apply_sample(struct session *s, const struct rec_sample *smp, uint16_t misc,
			 const void *ahead)
{
	const struct thread *t = model_thread(&s->model, smp->pid, smp->tid);
	struct pm_sample out;

	memset(&out, 0, sizeof(out));
	out.time = smp->time > s->start_ns ? smp->time - s->start_ns : 0;
	out.period = smp->period;
	out.pid = smp->pid;
	out.tid = smp->tid;
	out.cpu = smp->cpu;
	out.stack = stacker_add_ahead(&s->stk, smp, misc, ahead);
	out.comm = threads_comm_id(&s->th, t, s->out.prof);
	out.cgroup = threads_cgroup_id(&s->th, t, smp, s->ev.cgroup_sampled, s->out.prof);
	/* To the file at once: a long recording keeps no samples in memory. */
	output_add_sample(&s->out, &out);
	threads_sampled(&s->th, &s->model, t, &s->out);
	s->nsamples++;
	if (s->on_sample)
		s->on_sample(&out, s->on_sample_arg);
}

/*
 * Records drained but not applied yet that change a process's address
 * space (new mappings, exec), by pid: a sample of such a process is not
 * unwound before its turn, when the model has them.
 */
static void pending_change(struct session *s, uint32_t pid, int delta)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&s->pending, pid, &added);

	slot->val += (uint64_t)(int64_t)delta;
	if (slot->val == 0 || (added && delta < 0))
		hmap_remove(&s->pending, pid, NULL);
}

/*
 * Whether a sample of pid can be unwound as it is drained: its process is
 * known to the model (a child whose fork is still to be applied would be
 * made, with none of its parent's mappings) and no change to its address
 * space waits in the queue.
 */
static bool unwind_now(struct session *s, uint32_t pid)
{
	return !hmap_find(&s->pending, pid) && model_knows(&s->model, pid);
}

/* A sample: of the wake-up event, of the context switches (--off-cpu), or the CPU's. */
static void apply_any_sample(struct session *s, const struct rec_sample *smp, uint16_t misc,
			     const void *ahead)
{
	const struct attach *att = &s->ev.att;

	if (s->ev.wakeups && attach_is_wake(att, smp->id))
		waits_wake(s, smp, misc, ahead);
	else if (s->ev.switch_tp && attach_is_switch(att, smp->id))
		waits_switch_tp(s, smp);
	else if (s->o->off_cpu_only || (att->has_attr2 && attach_is_second(att, smp->id)))
		waits_switch_sample(s, smp, misc, ahead);
	else
		apply_sample(s, smp, misc, ahead);
}

/*
 * Each record in its turn. A sample whose stack was unwound when drained
 * has that unwinding after its own bytes (drain_one): its header's size
 * says where they end.
 */
static void apply(const void *bytes, uint32_t len, void *arg)
{
	struct session *s = arg;
	uint32_t size = load_u16((const unsigned char *)bytes + 6);
	const void *ahead = size < len ? (const unsigned char *)bytes + size : NULL;
	const struct decode_layout *layout = &s->ev.layout;
	struct record rec;

	if (record_decode(bytes, ahead ? size : len, layout, &rec) < 0) {
		s->bad_records++;
		return;
	}
	switch (rec.type) {
	case PERF_RECORD_SAMPLE:
		apply_any_sample(s, &rec.sample, rec.misc, ahead);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (rec.has_sid)
			waits_switch_record(s, &rec.sid, &rec.sw);
		break;
	case PERF_RECORD_MMAP2: {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino, rec.mmap2.ino_generation};

		if (rec.mmap2.pid == UINT32_MAX)
			break; /* kernel modules: symbolized through kallsyms */
		pending_change(s, rec.mmap2.pid, -1);
		model_mmap(&s->model, rec.mmap2.pid, rec.mmap2.addr, rec.mmap2.len, rec.mmap2.pgoff,
			   &k, rec.mmap2.prot);
		break;
	}
	case PERF_RECORD_COMM:
		if (rec.comm.exec)
			pending_change(s, rec.comm.pid, -1);
		model_comm(&s->model, rec.comm.pid, rec.comm.tid, rec.comm.comm, rec.comm.exec);
		break;
	case PERF_RECORD_FORK:
		model_fork(&s->model, rec.task.pid, rec.task.ppid, rec.task.tid, rec.task.ptid);
		break;
	case PERF_RECORD_EXIT:
		if (s->o->off_cpu)
			waits_exit(s, rec.task.tid);
		threads_exited(&s->th, &s->model, rec.task.pid, rec.task.tid, record_time(&rec),
			       &s->out);
		break;
	case PERF_RECORD_CGROUP:
		threads_cgroup_made(&s->th, rec.cgroup.id, rec.cgroup.path);
		break;
	case PERF_RECORD_LOST:
		s->lost += rec.lost.lost;
		model_lost(&s->model);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		s->lost_samples += rec.lost.lost;
		break;
	default:
		break;
	}
}

/*
 * A sample with a stack copy, unwound now while the copy is at hand, and
 * queued with only the part of its copy that this read (to be unwound
 * again should its process's mappings change meanwhile), the unwinding
 * after it.
 */
static void push_unwound(struct session *s, const struct perf_event_header *hdr,
			 const struct record *rec)
{
	unsigned char *at = order_push_begin(&s->q, hdr->size + STACK_AHEAD_MAX);
	uint64_t need = UINT64_MAX;
	size_t ahead = 0, len;

	if (unwind_now(s, rec->sample.pid))
		ahead = stacker_unwind_ahead(&s->stk, &rec->sample, at + hdr->size, &need);
	/*
	 * At least the copy's first 512 bytes: an unwinding that read
	 * nothing must not leave the sample looking as if it had no copy
	 * (its chain alone, should it be unwound again).
	 */
	len = record_trim_stack(hdr, hdr->size, &rec->sample,
				ahead ? (need > 512 ? need : 512) : UINT64_MAX, at);
	memmove(at + len, at + hdr->size, ahead);
	order_push_end(&s->q, (uint32_t)(len + ahead), record_time(rec));
}

/*
 * Each record drained: pinned if it maps a file, then queued for its
 * turn. Only its type and time are read here, but for a mapping and a
 * stack copy; apply decodes it.
 */
static int drain_one(const struct perf_event_header *hdr, void *arg)
{
	struct session *s = arg;
	const struct decode_layout *layout = &s->ev.layout;
	const struct attach *att = &s->ev.att;
	struct record rec;
	uint32_t type;
	uint64_t time;

	if (record_peek(hdr, hdr->size, layout, &type, &time) < 0) {
		s->bad_records++;
		return 0;
	}
	/* Lost in a tracking ring: mappings, names, tasks (the advice differs). */
	if (type == PERF_RECORD_LOST && s->ev.att.draining_tracking &&
	    record_decode(hdr, hdr->size, layout, &rec) == 0)
		s->lost_tracking += rec.lost.lost;
	/* The threads whose wake-ups are sampled, as they come and go. */
	if ((type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) && s->ev.filtering &&
	    record_decode(hdr, hdr->size, layout, &rec) == 0)
		events_filter_task(&s->ev, rec.task.tid, type == PERF_RECORD_FORK);
	if (type != PERF_RECORD_MMAP2 && type != PERF_RECORD_COMM &&
	    !(type == PERF_RECORD_SAMPLE && (layout->sample_type & PERF_SAMPLE_STACK_USER))) {
		order_push(&s->q, hdr, hdr->size, time);
		return 0;
	}
	if (record_decode(hdr, hdr->size, layout, &rec) < 0) {
		s->bad_records++;
		return 0;
	}
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid != UINT32_MAX)
		pending_change(s, rec.mmap2.pid, 1);
	else if (rec.type == PERF_RECORD_COMM && rec.comm.exec)
		pending_change(s, rec.comm.pid, 1);
	/* A new mapping's file pinned now, while it (and its process) exists; applied in turn. */
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid != UINT32_MAX &&
	    (rec.mmap2.prot & PROT_EXEC)) {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino, rec.mmap2.ino_generation};

		module_set_get(&s->mods, &k, (pid_t)rec.mmap2.pid, rec.mmap2.addr,
			       rec.mmap2.addr + rec.mmap2.len);
	}
	/* A switch tracepoint's sample has no stack to unwind (an 8-byte copy). */
	if (rec.type == PERF_RECORD_SAMPLE && rec.sample.stack_size &&
	    !(s->ev.switch_tp && attach_is_switch(att, rec.sample.id)))
		push_unwound(s, hdr, &rec);
	else
		order_push(&s->q, hdr, hdr->size, record_time(&rec));
	return 0;
}

static void drain_all(struct session *s)
{
	s->bad_records += events_drain(&s->ev, drain_one, s);
}

void session_feed(struct session *s, const void *rec, size_t len)
{
	if (len >= sizeof(struct perf_event_header) && len == load_u16((const char *)rec + 6))
		drain_one(rec, s);
	else
		s->bad_records++;
}

/* The loop. */

static bool targets_alive(struct session *s)
{
	const struct record_opts *o = s->o;

	if (s->offline)
		return true;
	if (o->argv)
		return !launch_poll(&s->child);
	if (o->system_wide)
		return true;
	for (size_t i = 0; i < o->npids; i++)
		if (process_alive(o->pids[i]))
			return true;
	for (size_t i = 0; i < o->ntids; i++)
		if (process_alive(o->tids[i]))
			return true;
	return false;
}

/*
 * The shortest time between two drains of the rings. The tracking rings
 * wake at every record, so that the file of a program that runs a few ms
 * and is deleted is opened while it runs: a machine that forks a thousand
 * times a second, fills a tracking ring past ROUND_FULL percent or mapped
 * a fleeting program's file in the last ROUND_CALM_NS (fleeting) is
 * drained every ROUND_MIN_NS. A new file that stays on disk does not
 * hurry the rounds: it can be opened later (a build's new binaries).
 * Else (a build running the same compilers over and over) the wait
 * doubles up to ROUND_MAX_NS, never past the time the fullest tracking
 * ring takes to fill ROUND_FULL percent at its last pace. A sampling ring
 * that reaches its watermark is drained at once.
 */
#define ROUND_MIN_NS  5000000ULL
#define ROUND_MAX_NS  1000000000ULL
#define ROUND_CALM_NS 2000000000ULL
#define ROUND_FULL    25

/* The live status line (on a terminal) is redrawn this often. */
#define STATUS_NS 250000000ULL

/* The processes and threads gone for LINGER_NS are forgotten this often. */
#define REAP_NS 100000000ULL
/*
 * How often the queue's room past what it held meanwhile is given back: a
 * burst (a slow round, the rotation of a slice) is not kept for good.
 */
#define SHED_NS 1000000000ULL

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
 * Whether the file of new module m may be a fleeting program's, one the
 * next rounds must come soon to catch: it could not be opened (gone with
 * its process, or in a root no longer there), is deleted already, or was
 * written in the last FRESH_S seconds (a configure test, a storm of new
 * programs: written, run and deleted). A file that stays where it is, as
 * the compilers of a build do, opens as well later.
 */
#define FRESH_S 10

static bool fleeting(const struct module *m)
{
	struct timespec now;
	struct stat st;

	if (m->kind != MODULE_FILE)
		return false;
	if (m->fd < 0 || fstat(m->fd, &st) < 0 || st.st_nlink == 0)
		return true;
	clock_gettime(CLOCK_REALTIME, &now);
	return st.st_ctim.tv_sec > now.tv_sec - FRESH_S;
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
 * What the loop polls: the tracking rings first, then the sampling ones,
 * the wake-up pipe and the caller's input last, the quiet ones
 * (wait_round), *nquiet of them; *nfds in all.
 */
static struct pollfd *loop_fds(const struct session *s, const struct session_run *run, size_t *nfds,
			       size_t *nquiet)
{
	const struct attach *att = &s->ev.att;
	struct pollfd *pfds = xcalloc(att->nrings + 2, sizeof(*pfds));
	size_t i = 0;

	*nquiet = 2;
	for (int k = 0; k < 2; k++)
		for (size_t j = 0; j < att->nrings; j++)
			if (att->rings[j].tracking == (k == 0)) {
				pfds[i].fd = att->rings[j].fd;
				pfds[i++].events = POLLIN;
				*nquiet += (size_t)k;
			}
	pfds[i].fd = run->wake_fd;
	pfds[i++].events = POLLIN;
	pfds[i].fd = run->input_fd;
	pfds[i++].events = POLLIN;
	*nfds = i;
	return pfds;
}

/*
 * --switch-output: every record of the file written now goes to it, and
 * the recording goes on in a new one, self-contained, from a profile of
 * its own (output_seal): what still refers to the one before (the spans
 * of threads off the CPU now, the threads' names, the stacks) moves to
 * it, its frames named anew. The file left is finished (the names of its
 * frames, END) once they are named (output_finish_sealed), at once when
 * no thread names them while recording. -1 (said) when either cannot be
 * written.
 */
static int session_switch(struct session *s)
{
	struct profile *before = s->out.prof, *next;
	struct stack_unwind_stats *unw = NULL;
	uint32_t gen = s->nm.gen;

	if (output_open_next(s) < 0)
		return -1;
	/* The modules met since the last chunk, which new frames refer to. */
	naming_add_modules(s);
	naming_take(s);
	threads_write_alive(&s->th, &s->model, &s->out);
	meta_write(s);
	/* The slice's unwinds go with its file: each file counts its own. */
	if (s->unwinder) {
		unw = xmalloc(sizeof(*unw));
		stacker_take_unwind(&s->stk, unw);
	}
	next = output_seal(s, gen, unw);
	if (!next)
		return -1;
	/* The modules let go before the slice began are in no profile but the ones before. */
	retire_recycle(s);
	naming_next_slice(&s->nm, before);
	stacker_switch_profile(&s->stk, next);
	waits_next_slice(s, before, next);
	threads_next_slice(&s->th, before, next);
	naming_name_jit(s, before, gen);
	output_slice_started(s);
	return output_flush(s, true);
}

/* The records older than the round's flush limit applied; the dead of long ago reaped. */
static void apply_round(struct session *s, struct loop *l)
{
	uint64_t round_start = l->round_start;
	uint64_t limit = round_start > FLUSH_SLACK_NS ? round_start - FLUSH_SLACK_NS : 0;

	order_flush(&s->q, limit, apply, s);
	naming_kick(&s->nm);
	if (round_start - l->last_reap >= REAP_NS) {
		model_reap(&s->model, limit > LINGER_NS ? limit - LINGER_NS : 0, threads_forget,
			   &s->th);
		retire_modules(s, round_start);
		l->last_reap = round_start;
	}
	if (round_start - l->last_shed >= SHED_NS) {
		order_shed(&s->q);
		l->last_shed = round_start;
	}
	/* The frames named meanwhile into the profile; the files sealed whole finished. */
	output_finish_sealed(s, false);
}

/* Drains and applies until a signal, -d, the targets' end, or a file that cannot be written. */
uint64_t session_deadline(const struct session *s)
{
	return s->o->duration > 0 ? s->start_ns + (uint64_t)(s->o->duration * 1e9) : 0;
}

/*
 * One round: the rings drained, what is due applied, written, switched.
 * false when the recording is over (its targets gone, a file that cannot
 * be written).
 */
static bool one_round(struct session *s, const struct session_run *run, struct loop *l)
{
	uint64_t now = l->round_start, nmods = s->mods.n, made = s->mods.made;
	size_t nreused = s->mods.nreused;
	unsigned fill = events_tracking_fill(&s->ev);

	l->round_start = now_ns();
	drain_all(s);
	events_refilter(&s->ev, l->round_start);
	if (s->mods.made != made) {
		bool fresh = false;

		for (size_t i = nmods; i < s->mods.n && !fresh; i++)
			fresh = fleeting(s->mods.mods[i]);
		/* And those that took an id given back. */
		for (size_t i = nreused; i < s->mods.nreused && !fresh; i++)
			fresh = fleeting(s->mods.mods[s->mods.reused[i]]);
		if (fresh)
			l->new_file = l->round_start;
		if (s->nm.namer)
			naming_hold_budget(s);
	}
	l->round_ns =
		next_round_ns(l->round_ns, fill, l->round_start - now, l->round_start, l->new_file);
	apply_round(s, l);
	if (!targets_alive(s))
		return false;
	now = now_ns();
	if (output_chunk_due(&s->out, now) && output_flush(s, false) < 0)
		return false;
	if (output_switch_due(s, now) && session_switch(s) < 0)
		return false;
	if (run->status && now - l->last_status > STATUS_NS) {
		session_status_line(s);
		l->last_status = now;
	}
	return true;
}

/*
 * When the round's wait ends at the latest, whatever its length: the
 * next chunk, the end of the slice (--switch-output=TIME), the status
 * line's redraw, wake (the caller's, or -d's end; 0: none).
 */
static uint64_t next_due(const struct session *s, const struct session_run *run, uint64_t wake)
{
	uint64_t due = output_chunk_at(&s->out), at = output_switch_at(s);

	if (at && at < due)
		due = at;
	if (run->status && s->loop.last_status + STATUS_NS < due)
		due = s->loop.last_status + STATUS_NS;
	return wake && wake < due ? wake : due;
}

bool session_run(struct session *s, const struct session_run *run)
{
	size_t nfds, nquiet;
	struct pollfd *pfds = loop_fds(s, run, &nfds, &nquiet), *quiet = pfds + nfds - nquiet;
	struct loop *l = &s->loop;
	uint64_t deadline = session_deadline(s), wake = deadline;
	bool more = true;

	if (!l->new_file) {
		l->round_ns = ROUND_MIN_NS;
		l->new_file = now_ns();
	}
	if (run->until && (!wake || run->until < wake))
		wake = run->until;
	while (!*run->stop) {
		uint64_t now, until = next_due(s, run, wake);
		int timeout = 100;
		char sink[64];

		/* What is left of the round's wait, then what came meanwhile, without sleeping again. */
		if (wait_round(quiet, nquiet, l->round_start, l->round_ns, until))
			timeout = 0;
		if (*run->stop)
			break;
		now = now_ns();
		if (deadline && now >= deadline) {
			more = false;
			break;
		}
		if (wake && timeout && (wake > now ? wake - now : 0) / 1000000 < (uint64_t)timeout)
			timeout = (int)((wake > now ? wake - now : 0) / 1000000) + 1;
		if (poll(pfds, nfds, timeout) < 0 && errno != EINTR) {
			more = false;
			break; /* cannot wait: stop rather than spin */
		}
		if (run->wake_fd >= 0 && pfds[nfds - 2].revents)
			while (read(run->wake_fd, sink, sizeof(sink)) > 0)
				;
		if (!one_round(s, run, l)) {
			more = false;
			break;
		}
		/* The caller's turn: its input waits for it, unread. */
		if ((run->input_fd >= 0 && pfds[nfds - 1].revents) ||
		    (run->until && now_ns() >= run->until))
			break;
	}
	free(pfds);
	return more && !*run->stop;
}

int session_stop(struct session *s, const volatile sig_atomic_t *interrupt, size_t *written)
{
	uint64_t dropped = 0;
	int ret;

	if (!s->offline)
		events_disable(&s->ev);
	s->end_ns = now_ns();
	if (!s->offline) {
		drain_all(s);
		dropped = events_lost(&s->ev);
	}
	order_flush(&s->q, UINT64_MAX, apply, s);
	/*
	 * What the kernel dropped in a burst just before the stop comes in
	 * no record: the events' own counts tell.
	 */
	if (dropped > s->lost_samples)
		s->lost_samples = dropped;
	/* Threads still off the CPU at the stop: their spans end there. */
	waits_finish(s, s->end_ns);
	/* Every sample in the file before naming starts: a kill now loses none. */
	naming_take(s);
	ret = output_flush(s, false);
	if (ret < 0)
		output_abandon(&s->out);
	/* Sealed files are finished even when the file written now cannot be. */
	if (ret == 0 || s->out.nsealed) {
		if (s->model.live)
			model_perfmap_last_look(&s->model);
		naming_name_frames(s, interrupt);
	}
	if (ret == 0 && s->unwinder)
		stacker_settle_unwind(&s->stk, naming_entry_frame, s);
	output_finish_sealed(s, true);
	if (ret == 0) {
		threads_write_alive(&s->th, &s->model, &s->out);
		meta_write(s);
		ret = output_commit(s, written);
	}
	output_say_incomplete(&s->out);
	return ret < 0 || s->out.failed ? -1 : 0;
}
