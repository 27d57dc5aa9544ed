/*
 * record.c - one recording session; see record.h.
 *
 * The loop: poll the per-CPU rings (and a self-pipe that signals write
 * to), copy every record into the time-ordered queue, apply the records
 * older than the flush limit, repeat. At the stop: disable the events,
 * drain everything, apply all, symbolize, write.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "datafile.h"
#include "decode.h"
#include "proc.h"
#include "record.h"
#include "ring.h"
#include "symbolize.h"
#include "unwind.h"
#include "util.h"

#define MAX_CPUS   4096
#define MAX_FRAMES (PERF_MAX_STACK_DEPTH + 16)
/* Records newer than this before the start of a round may still be in flight. */
#define FLUSH_SLACK_NS 20000000ULL

struct qent {
	uint64_t time, seq;
	size_t off;
	uint32_t len;
};

/* Records copied out of the rings, waiting to be applied in time order. */
struct queue {
	unsigned char *buf;
	size_t len, cap;
	struct qent *ents;
	size_t n, cap_ents;
	uint64_t seq;
};

struct cpu_ring {
	int cpu;
	int fd; /* the descriptor the ring is mapped from */
	void *base;
	size_t maplen;
	struct ring ring;
};

struct recorder {
	const struct record_opts *o;
	struct decode_layout layout;
	struct perf_event_attr attr;
	bool cpus[MAX_CPUS];
	int ncpus_max;

	int *fds;
	size_t nfds, fds_cap;
	struct cpu_ring *rings;
	size_t nrings;
	size_t page_size;
	unsigned pages;

	struct queue q;
	struct module_set mods;
	struct model model;
	struct profile *prof;
	struct module *kernel;
	struct hmap sampled_tids; /* tid + 1 -> pid + 1 */
	struct hmap sampled_pids;

	pid_t child;
	int child_status;
	bool child_exited;
	uint64_t start_ns;
	uint64_t nsamples, lost, lost_samples, bad_records;
	uint32_t frames[MAX_FRAMES];

	struct prefetch *prefetch;

	/* DWARF mode. */
	struct unwinder *unwinder;
	uint64_t uips[MAX_FRAMES];
	uint64_t unwound, unwind_ends[UNWIND_END_COUNT];
	struct hmap cut;   /* (module id + 1) << 8 | reason -> stacks cut short there */
	struct hmap outer; /* outermost frame id + 1 -> stacks libunwind called complete */
};

static volatile sig_atomic_t stop_requested;
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig != SIGCHLD)
		stop_requested = 1;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &c, 1) < 0) {
		/* full pipe: a wakeup is already pending */
	}
	errno = saved;
}

static void install_signals(void)
{
	struct sigaction sa;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("cannot create a pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The queue. */

static void queue_push(struct queue *q, const void *rec, uint32_t len, uint64_t time)
{
	struct qent *e;

	xgrow(&q->buf, &q->cap, q->len + len, 1);
	memcpy(q->buf + q->len, rec, len);
	xgrow(&q->ents, &q->cap_ents, q->n + 1, sizeof(*q->ents));
	e = &q->ents[q->n++];
	e->time = time;
	e->seq = q->seq++;
	e->off = q->len;
	e->len = len;
	q->len += len;
}

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void apply(struct recorder *r, const void *bytes, uint32_t len);

/* Applies every queued record with time <= limit, in time order. */
static void queue_flush(struct recorder *r, uint64_t limit)
{
	struct queue *q = &r->q;
	size_t i, keep_len = 0;
	unsigned char *rest;

	if (!q->n)
		return;
	qsort(q->ents, q->n, sizeof(*q->ents), cmp_qent);
	for (i = 0; i < q->n && q->ents[i].time <= limit; i++)
		apply(r, q->buf + q->ents[i].off, q->ents[i].len);
	if (i == q->n) {
		q->n = 0;
		q->len = 0;
		return;
	}
	/* Keep the rest, compacted into a fresh buffer. */
	for (size_t j = i; j < q->n; j++)
		keep_len += q->ents[j].len;
	rest = xmalloc(keep_len);
	keep_len = 0;
	for (size_t j = i; j < q->n; j++) {
		memcpy(rest + keep_len, q->buf + q->ents[j].off, q->ents[j].len);
		q->ents[j - i] = q->ents[j];
		q->ents[j - i].off = keep_len;
		keep_len += q->ents[j].len;
	}
	q->n -= i;
	free(q->buf);
	q->buf = rest;
	q->len = q->cap = keep_len;
}

/* Applying records to the model and the profile. */

static void add_frame(struct recorder *r, uint32_t *n, uint32_t module, uint32_t flags,
		      uint64_t addr)
{
	size_t before = r->prof->nframes;
	uint32_t id;

	if (*n == MAX_FRAMES)
		return;
	id = profile_intern_frame(r->prof, module, flags, addr);
	r->frames[(*n)++] = id;
	/* A new location: start naming it now, on the prefetch thread. */
	if (r->prof->nframes != before && module != PM_NONE)
		prefetch_frame(r->prefetch, r->mods.mods[module], id, addr);
}

static void user_frame(struct recorder *r, uint32_t pid, uint64_t a, uint32_t *n)
{
	const struct mapping *map = model_find(&r->model, pid, a);
	struct module *jit;

	if (map && map->mod && map->mod->kind != MODULE_ANON) {
		add_frame(r, n, map->mod->id, 0, addr_to_file_offset(a, map->start, map->pgoff));
		return;
	}
	/*
	 * Anonymous executable memory is JIT code, named at the stop from the
	 * perf map as it is then; an address in no mapping only if the
	 * process has a perf map (else it is a broken chain's garbage).
	 */
	jit = model_perfmap(&r->model, pid);
	if (jit && (map || jit->fd >= 0))
		add_frame(r, n, jit->id, 0, a);
	else
		add_frame(r, n, PM_NONE, 0, a);
}

static void kernel_frame(struct recorder *r, uint64_t a, uint32_t *n)
{
	add_frame(r, n, r->kernel->id, PM_FRAME_KERNEL, a);
}

static void note_sampled(struct hmap *h, uint32_t id, uint32_t other)
{
	hmap_insert(h, (uint64_t)id + 1, NULL)->val = (uint64_t)other + 1;
}

/* Counts n stacks whose unwinding ended for reason end in module (or PM_NONE). */
static void count_unwind_end(struct recorder *r, uint32_t module, enum unwind_end end, uint64_t n)
{
	r->unwind_ends[end] += n;
	if (end != UNWIND_COMPLETE) {
		uint64_t key = ((uint64_t)(module == PM_NONE ? 0 : module + 1) + 1) << 8 | end;

		hmap_insert(&r->cut, key, NULL)->val += n;
	}
}

/*
 * Whether named frame f is where a stack starts: an entry-point function
 * (unwind_is_entry_name), or, in a binary without symbols, the code at its
 * ELF entry point (_start is a few dozen bytes).
 */
static bool entry_frame(const struct recorder *r, uint32_t f)
{
	const struct pm_frame *fr = &r->prof->frames[f];
	const struct module *m;
	uint64_t vaddr;

	if (fr->nlines) {
		const struct pm_line *outer = &r->prof->lines[fr->line0 + fr->nlines - 1];

		if (unwind_is_entry_name(strtab_get(&r->prof->str, outer->func)))
			return true;
	}
	if (fr->module == PM_NONE)
		return false;
	m = r->mods.mods[fr->module];
	return m->kind == MODULE_FILE && m->entry &&
	       addr_file_offset_to_vaddr(m->segs, m->nsegs, fr->addr, &vaddr) == 0 &&
	       vaddr >= m->entry && vaddr - m->entry < 64;
}

/* After symbolization: the stacks libunwind ended, complete or stopped short. */
static void settle_unwind_ends(struct recorder *r)
{
	for (size_t i = 0; i < r->outer.cap; i++) {
		const struct hmap_slot *s = &r->outer.slots[i];
		uint32_t f;

		if (!s->key)
			continue;
		f = (uint32_t)(s->key - 1);
		count_unwind_end(r, r->prof->frames[f].module,
				 entry_frame(r, f) ? UNWIND_COMPLETE : UNWIND_NOT_ENTRY, s->val);
	}
}

/* DWARF mode: the user part of the stack, from the registers and stack copy. */
static void unwind_user(struct recorder *r, const struct rec_sample *s, uint32_t *n)
{
	enum unwind_end end;
	struct module *last;
	int k = unwind_sample(r->unwinder, s->pid, s, r->uips, MAX_FRAMES, &end, &last);

	uint32_t before = *n;

	for (int i = 0; i < k; i++)
		user_frame(r, s->pid, i ? r->uips[i] - 1 : r->uips[i], n);
	r->unwound++;
	/* Complete only if it ends at an entry point: judged by name at the stop. */
	if (end == UNWIND_COMPLETE && *n > before)
		hmap_insert(&r->outer, (uint64_t)r->frames[*n - 1] + 1, NULL)->val++;
	else
		count_unwind_end(r, last ? last->id : PM_NONE, end, 1);
}

static void apply_sample(struct recorder *r, const struct rec_sample *s, uint16_t misc)
{
	struct thread *t = model_thread(&r->model, s->pid, s->tid);
	struct pm_sample out;
	uint32_t n = 0;

	if (s->nr) {
		uint64_t ctx = 0;
		bool first = true;

		/*
		 * The first address after a context marker is where that context
		 * was interrupted; the rest are return addresses, looked up one
		 * byte back so that a call at the end of a function stays in it.
		 */
		for (uint64_t i = 0; i < s->nr; i++) {
			uint64_t ip = sample_ip_at(s, i);

			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				/*
				 * The user part comes last: a "marker" after it is a
				 * garbage return address that a frame-pointer walk
				 * read from the stack, and so is all that follows.
				 */
				if (ctx == (uint64_t)PERF_CONTEXT_USER)
					break;
				ctx = ip;
				first = true;
				continue;
			}
			if (ip == 0)
				continue; /* the end of a broken chain, not code */
			if (!first)
				ip--;
			first = false;
			if (ctx == (uint64_t)PERF_CONTEXT_KERNEL)
				kernel_frame(r, ip, &n);
			else if (ctx == (uint64_t)PERF_CONTEXT_USER)
				user_frame(r, s->pid, ip, &n);
		}
	} else if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		kernel_frame(r, s->ip, &n);
	} else if (!r->unwinder) {
		user_frame(r, s->pid, s->ip, &n);
	}
	if (r->unwinder && s->regs_abi)
		unwind_user(r, s, &n);
	if (n == 0)
		add_frame(r, &n, PM_NONE, 0, s->ip);

	memset(&out, 0, sizeof(out));
	out.time = s->time > r->start_ns ? s->time - r->start_ns : 0;
	out.period = s->period;
	out.pid = s->pid;
	out.tid = s->tid;
	out.cpu = s->cpu;
	out.stack = profile_intern_stack(r->prof, r->frames, n);
	out.comm = strtab_add(&r->prof->str, t->comm);
	profile_add_sample(r->prof, &out);
	note_sampled(&r->sampled_tids, s->tid, s->pid);
	note_sampled(&r->sampled_pids, s->pid, s->pid);
	r->nsamples++;
}

static void apply(struct recorder *r, const void *bytes, uint32_t len)
{
	struct record rec;

	if (record_decode(bytes, len, &r->layout, &rec) < 0) {
		r->bad_records++;
		return;
	}
	switch (rec.type) {
	case PERF_RECORD_SAMPLE:
		apply_sample(r, &rec.sample, rec.misc);
		break;
	case PERF_RECORD_MMAP2: {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino};

		if (rec.mmap2.pid == UINT32_MAX)
			break; /* kernel modules: symbolized through kallsyms */
		model_mmap(&r->model, rec.mmap2.pid, rec.mmap2.addr, rec.mmap2.len, rec.mmap2.pgoff,
			   &k, rec.mmap2.prot);
		if (r->unwinder)
			unwinder_invalidate(r->unwinder, rec.mmap2.pid);
		break;
	}
	case PERF_RECORD_COMM:
		model_comm(&r->model, rec.comm.pid, rec.comm.tid, rec.comm.comm, rec.comm.exec);
		if (r->unwinder && rec.comm.exec)
			unwinder_invalidate(r->unwinder, rec.comm.pid);
		break;
	case PERF_RECORD_FORK:
		model_fork(&r->model, rec.task.pid, rec.task.ppid, rec.task.tid, rec.task.ptid);
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

/* Ring draining. */

static int drain_one(const struct perf_event_header *hdr, void *arg)
{
	struct recorder *r = arg;
	struct record rec;

	if (record_decode(hdr, hdr->size, &r->layout, &rec) < 0) {
		r->bad_records++;
		return 0;
	}
	/*
	 * Pin the file of a new mapping now, while the mapping (and perhaps
	 * the process) still exists; applying it waits for its turn.
	 */
	if (rec.type == PERF_RECORD_MMAP2 && rec.mmap2.pid != UINT32_MAX &&
	    (rec.mmap2.prot & PROT_EXEC)) {
		struct module_key k = {rec.mmap2.filename, rec.mmap2.maj, rec.mmap2.min,
				       rec.mmap2.ino};

		module_set_get(&r->mods, &k, (pid_t)rec.mmap2.pid, rec.mmap2.addr,
			       rec.mmap2.addr + rec.mmap2.len);
	}
	queue_push(&r->q, hdr, hdr->size, record_time(&rec));
	return 0;
}

static void drain_all(struct recorder *r)
{
	for (size_t i = 0; i < r->nrings; i++)
		if (ring_drain(&r->rings[i].ring, drain_one, r) == -EBADMSG)
			r->bad_records++;
}

/* Opening events. */

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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

static void __attribute__((noreturn)) open_failed(const struct recorder *r, int err, pid_t pid)
{
	struct rlimit rl;

	switch (err) {
	case ESRCH:
		die("no such process: %d", (int)pid);
	case EACCES:
	case EPERM:
		die("no permission to open perf events (kernel.perf_event_paranoid=%ld): run as "
		    "root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid",
		    (long)read_proc_ulong("/proc/sys/kernel/perf_event_paranoid", 2));
	case EMFILE:
	case ENFILE:
		getrlimit(RLIMIT_NOFILE, &rl);
		die("too many open files (limit %llu): raise it with 'ulimit -n', or record fewer "
		    "CPUs (-C) or threads",
		    (unsigned long long)rl.rlim_cur);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		die("event '%s' is not supported on this machine%s", r->o->ev.ev->name,
		    r->o->ev.ev->type == PERF_TYPE_HARDWARE ? " (no hardware PMU): use -e cpu-clock"
							    : "");
	case EINVAL:
		if (!r->o->ev.period &&
		    r->o->ev.freq >
			    read_proc_ulong("/proc/sys/kernel/perf_event_max_sample_rate", ~0UL))
			die("frequency %llu is above kernel.perf_event_max_sample_rate (%lu)",
			    (unsigned long long)r->o->ev.freq,
			    read_proc_ulong("/proc/sys/kernel/perf_event_max_sample_rate", 0));
		die("cannot open event '%s': %s", r->o->ev.ev->name, strerror(err));
	default:
		die("cannot open event '%s': %s", r->o->ev.ev->name, strerror(err));
	}
}

static struct cpu_ring *ring_of_cpu(struct recorder *r, int cpu)
{
	for (size_t i = 0; i < r->nrings; i++)
		if (r->rings[i].cpu == cpu)
			return &r->rings[i];
	return NULL;
}

static int map_ring(struct recorder *r, struct cpu_ring *cr)
{
	for (unsigned pages = r->pages;; pages /= 2) {
		size_t len = (pages + 1) * r->page_size;
		void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, cr->fd, 0);

		if (base != MAP_FAILED) {
			cr->base = base;
			cr->maplen = len;
			if (pages != r->pages && !r->o->quiet)
				warning("ring buffer reduced to %u pages by the locked-memory "
					"limit",
					pages);
			r->pages = pages;
			return ring_init(&cr->ring, base, r->page_size, pages * r->page_size);
		}
		if ((errno != EPERM && errno != ENOMEM) || pages <= 1)
			break;
	}
	die("cannot map the ring buffer: %s; raise kernel.perf_event_mlock_kb or 'ulimit -l'",
	    strerror(errno));
}

/* Opens the event for pid on every selected CPU; -errno on failure. */
static int open_target(struct recorder *r, pid_t pid)
{
	for (int cpu = 0; cpu < r->ncpus_max; cpu++) {
		struct cpu_ring *cr;
		int fd;

		if (!r->cpus[cpu])
			continue;
		fd = event_open(&r->attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return fd;
		xgrow(&r->fds, &r->fds_cap, r->nfds + 1, sizeof(*r->fds));
		r->fds[r->nfds++] = fd;
		cr = ring_of_cpu(r, cpu);
		if (cr) {
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, cr->fd) < 0)
				die("cannot redirect an event into the CPU %d ring: %s", cpu,
				    strerror(errno));
			continue;
		}
		r->rings = xrealloc(r->rings, (r->nrings + 1) * sizeof(*r->rings));
		cr = &r->rings[r->nrings++];
		memset(cr, 0, sizeof(*cr));
		cr->cpu = cpu;
		cr->fd = fd;
		if (map_ring(r, cr) < 0)
			die("bad ring buffer size");
	}
	return 0;
}

static bool process_exists(uint32_t pid)
{
	char path[64], state = 0;
	FILE *f;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "pid (comm) S ...": the comm may hold spaces and parentheses. */
	{
		char buf[512];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		char *rp;

		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (rp && rp[1] == ' ')
			state = rp[2];
	}
	fclose(f);
	alive = state && state != 'Z' && state != 'X';
	return alive;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Opens every thread of pid, listing /proc/PID/task again until a pass
 * finds no thread it has not opened (threads created meanwhile by an
 * already-opened thread are inherited, the others are caught here).
 */
static void open_process(struct recorder *r, uint32_t pid)
{
	uint32_t *done = NULL;
	size_t ndone = 0, cap = 0;
	char path[64];
	bool found_new = true;

	if (!process_exists(pid))
		die("no such process: %u", pid);
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	while (found_new) {
		DIR *d = opendir(path);
		struct dirent *de;

		if (!d) {
			if (ndone)
				break;
			die("no such process: %u", pid);
		}
		found_new = false;
		while ((de = readdir(d))) {
			uint64_t tid;
			int ret;

			if (parse_u64(de->d_name, &tid) || tid == 0 || tid > UINT32_MAX)
				continue;
			if (ndone && bsearch(&(uint32_t){(uint32_t)tid}, done, ndone, sizeof(*done),
					     cmp_u32))
				continue;
			ret = open_target(r, (pid_t)tid);
			if (ret == -ESRCH)
				continue; /* the thread exited meanwhile */
			if (ret < 0) {
				closedir(d);
				free(done);
				open_failed(r, -ret, (pid_t)pid);
			}
			xgrow(&done, &cap, ndone + 1, sizeof(*done));
			done[ndone++] = (uint32_t)tid;
			qsort(done, ndone, sizeof(*done), cmp_u32);
			found_new = true;
		}
		closedir(d);
	}
	if (!ndone)
		die("no such process: %u", pid);
	free(done);
}

static void select_cpus(struct recorder *r)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	bool want[MAX_CPUS] = {0};
	int n;

	if (!f || !fgets(buf, sizeof(buf), f))
		die("cannot read /sys/devices/system/cpu/online");
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (cpulist_parse(buf, r->cpus, MAX_CPUS) <= 0)
		die("cannot parse the online CPU list '%s'", buf);
	if (r->o->cpulist) {
		n = cpulist_parse(r->o->cpulist, want, MAX_CPUS);
		if (n <= 0)
			die("bad CPU list '%s'", r->o->cpulist);
		for (int c = 0; c < MAX_CPUS; c++) {
			if (want[c] && !r->cpus[c])
				die("CPU %d in '%s' is not online", c, r->o->cpulist);
			r->cpus[c] = want[c];
		}
	}
	r->ncpus_max = MAX_CPUS;
}

/* The command: forked now, held until the events exist, then exec'd. */

static int go_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};

static void start_child(struct recorder *r)
{
	if (pipe2(go_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));
	r->child = fork();
	if (r->child < 0)
		die("cannot fork: %s", strerror(errno));
	if (r->child == 0) {
		char c;
		int err;

		close(go_pipe[1]);
		close(err_pipe[0]);
		signal(SIGPIPE, SIG_DFL);
		if (read(go_pipe[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up */
		execvp(r->o->argv[0], r->o->argv);
		err = errno;
		if (write(err_pipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go_pipe[0]);
	close(err_pipe[1]);
}

static void release_child(struct recorder *r)
{
	int err;
	ssize_t n;

	if (write(go_pipe[1], "g", 1) != 1)
		die("cannot start '%s': %s", r->o->argv[0], strerror(errno));
	close(go_pipe[1]);
	do {
		n = read(err_pipe[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(r->child, NULL, 0);
		die("cannot run '%s': %s", r->o->argv[0], strerror(err));
	}
}

static void check_child(struct recorder *r)
{
	int status;

	if (r->child <= 0 || r->child_exited)
		return;
	if (waitpid(r->child, &status, WNOHANG) == r->child) {
		r->child_exited = true;
		r->child_status = status;
	}
}

static bool targets_alive(const struct recorder *r)
{
	if (r->o->argv)
		return !r->child_exited;
	if (r->o->system_wide)
		return true;
	for (size_t i = 0; i < r->o->npids; i++)
		if (process_exists(r->o->pids[i]))
			return true;
	for (size_t i = 0; i < r->o->ntids; i++)
		if (process_exists(r->o->tids[i]))
			return true;
	return false;
}

/* Status and metadata. */

static void status_line(const struct recorder *r, uint64_t now)
{
	fprintf(stderr, "\r\033[Kperfmini: recording %.1f s, %llu samples",
		(double)(now - r->start_ns) / 1e9, (unsigned long long)r->nsamples);
	fflush(stderr);
}

static void set_meta_u64(struct profile *p, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	profile_set_meta(p, key, buf);
}

/*
 * DWARF mode: how many stacks reached the entry, and, for the others, in
 * which module and why they stopped: "unwind-cut" holds one line per
 * (module, reason) as "COUNT\tREASON\tMODULE".
 */
static void write_unwind_meta(struct recorder *r)
{
	struct sbuf b = {0};

	set_meta_u64(r->prof, "unwind-stacks", r->unwound);
	set_meta_u64(r->prof, "unwind-complete", r->unwind_ends[UNWIND_COMPLETE]);
	for (size_t i = 0; i < r->cut.cap; i++) {
		const struct hmap_slot *s = &r->cut.slots[i];
		uint64_t mod;

		if (!s->key)
			continue;
		mod = (s->key >> 8) - 1;
		sbuf_addf(&b, "%llu\t%s\t%s\n", (unsigned long long)s->val,
			  unwind_end_text((enum unwind_end)(s->key & 0xff)),
			  mod ? r->mods.mods[mod - 1]->path : "[unknown]");
	}
	profile_set_meta(r->prof, "unwind-cut", b.buf ? b.buf : "");
	sbuf_release(&b);
}

/* Most stacks first. */
static int cmp_cut(const void *a, const void *b)
{
	const struct hmap_slot *x = a, *y = b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Summary lines: the share of stacks that reached the entry, and the worst cuts. */
static void print_unwind_summary(const struct recorder *r)
{
	fprintf(stderr, "perfmini: unwinding: %llu of %llu user stacks (%.1f%%) reached the entry",
		(unsigned long long)r->unwind_ends[UNWIND_COMPLETE], (unsigned long long)r->unwound,
		r->unwound ? 100.0 * (double)r->unwind_ends[UNWIND_COMPLETE] / (double)r->unwound
			   : 100.0);
	for (int e = 1; e < UNWIND_END_COUNT; e++)
		if (r->unwind_ends[e])
			fprintf(stderr, "; %llu %s", (unsigned long long)r->unwind_ends[e],
				unwind_end_text((enum unwind_end)e));
	fputc('\n', stderr);
	/* Where they stopped: the three (module, reason) pairs with most stacks. */
	{
		struct hmap_slot *cuts = xcalloc(r->cut.count + 1, sizeof(*cuts));
		size_t n = 0;

		for (size_t i = 0; i < r->cut.cap; i++)
			if (r->cut.slots[i].key)
				cuts[n++] = r->cut.slots[i];
		qsort(cuts, n, sizeof(*cuts), cmp_cut);
		for (size_t i = 0; i < n && i < 3; i++) {
			uint64_t mod = (cuts[i].key >> 8) - 1;

			fprintf(stderr, "perfmini: %s: %.1f%% of the stacks stopped there: %s\n",
				mod ? r->mods.mods[mod - 1]->path : "[unknown]",
				100.0 * (double)cuts[i].val / (double)r->unwound,
				unwind_end_text((enum unwind_end)(cuts[i].key & 0xff)));
		}
		free(cuts);
	}
}

static void write_meta(struct recorder *r, uint64_t end_ns, time_t wall_start)
{
	const struct record_opts *o = r->o;
	struct profile *p = r->prof;
	struct utsname u;
	size_t len = 0;
	char *cmd;

	for (int i = 0; i < o->argc_shown; i++)
		len += strlen(o->argv_shown[i]) + 1;
	cmd = xcalloc(1, len + 1);
	for (int i = 0; i < o->argc_shown; i++) {
		if (i)
			strcat(cmd, " ");
		strcat(cmd, o->argv_shown[i]);
	}
	profile_set_meta(p, "command", cmd);
	free(cmd);
	profile_set_meta(p, "perfmini-version", PACKAGE_VERSION);
	profile_set_meta(p, "event", o->ev.ev->name);
	if (o->ev.period)
		set_meta_u64(p, "period", o->ev.period);
	else
		set_meta_u64(p, "frequency", o->ev.freq);
	profile_set_meta(p, "lines", o->no_lines ? "no" : "yes");
	profile_set_meta(p, "call-graph",
			 o->ev.dwarf_stack ? "dwarf"
			 : o->ev.callchain ? "fp"
					   : "none");
	if (o->ev.dwarf_stack) {
		settle_unwind_ends(r);
		write_unwind_meta(r);
	}
	set_meta_u64(p, "start-time", (uint64_t)wall_start);
	set_meta_u64(p, "duration-ns", end_ns - r->start_ns);
	set_meta_u64(p, "samples", r->nsamples);
	set_meta_u64(p, "lost-records", r->lost);
	set_meta_u64(p, "lost-samples", r->lost_samples);
	set_meta_u64(p, "bad-records", r->bad_records);
	if (uname(&u) == 0) {
		profile_set_meta(p, "hostname", u.nodename);
		profile_set_meta(p, "kernel", u.release);
		profile_set_meta(p, "arch", u.machine);
	}
}

static void add_threads(struct recorder *r)
{
	for (size_t i = 0; i < r->sampled_tids.cap; i++) {
		const struct hmap_slot *s = &r->sampled_tids.slots[i];
		struct thread *t;

		if (!s->key)
			continue;
		t = model_thread(&r->model, (uint32_t)(s->val - 1), (uint32_t)(s->key - 1));
		profile_add_thread(r->prof, t->pid, t->tid, t->comm);
	}
}

static void human_size(size_t n, char *buf, size_t len)
{
	if (n < 10 * 1024)
		snprintf(buf, len, "%zu bytes", n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, len, "%zu KiB", n / 1024);
	else
		snprintf(buf, len, "%zu MiB", n / (1024 * 1024));
}

int record_run(const struct record_opts *o)
{
	struct recorder r;
	struct datafile_out out;
	struct event_opts ev = o->ev;
	struct pollfd *pfds;
	uint64_t last_status = 0, end_ns, deadline = 0;
	bool tty = isatty(2) && !o->quiet;
	size_t written = 0;
	time_t wall_start;
	int exit_code = 0;
	char size[32];

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.page_size = (size_t)sysconf(_SC_PAGESIZE);
	r.pages = o->mmap_pages;
	module_set_init(&r.mods);
	r.mods.no_lines = o->no_lines;
	for (size_t i = 0; i < o->ndebug_dirs; i++)
		if (module_set_add_debug_dir(&r.mods, o->debug_dirs[i]) < 0)
			die("bad --debug-dir '%s': %s", o->debug_dirs[i], strerror(errno));
	model_init(&r.model, &r.mods, true);
	r.prof = profile_new();
	r.kernel = module_set_kernel(&r.mods);
	r.prefetch = prefetch_start(&r.mods);
	hmap_init(&r.sampled_tids);
	hmap_init(&r.sampled_pids);

	raise_nofile();
	/* The output exists before the events do: its descriptor is reserved. */
	if (datafile_create(&out, o->output) < 0)
		exit(1);
	install_signals();
	select_cpus(&r);

	ev.inherit = o->ntids == 0 && !o->system_wide;
	ev.enable_on_exec = o->argv != NULL;
	if (ev.dwarf_stack)
		ev.dwarf_regs = unwind_regs_mask();
	/* A quarter: still below the whole ring if the first mmap must shrink it. */
	ev.wakeup_bytes = (uint32_t)(r.pages * r.page_size / 4);
	event_attr(&r.attr, &ev);
	r.layout.sample_type = r.attr.sample_type;
	r.layout.regs_user_mask = r.attr.sample_regs_user;
	if (ev.dwarf_stack) {
		r.unwinder = unwinder_new(&r.model);
		hmap_init(&r.cut);
		hmap_init(&r.outer);
	}
	r.layout.sample_id_all = true;

	if (o->argv)
		start_child(&r);
	if (o->system_wide) {
		int ret = open_target(&r, -1);

		if (ret < 0)
			open_failed(&r, -ret, -1);
	} else if (o->argv) {
		int ret = open_target(&r, r.child);

		if (ret < 0) {
			kill(r.child, SIGKILL);
			waitpid(r.child, NULL, 0);
			open_failed(&r, -ret, r.child);
		}
	}
	for (size_t i = 0; i < o->npids; i++)
		open_process(&r, o->pids[i]);
	for (size_t i = 0; i < o->ntids; i++) {
		int ret;

		if (!process_exists(o->tids[i]))
			die("no such thread: %u", o->tids[i]);
		ret = open_target(&r, (pid_t)o->tids[i]);
		if (ret < 0)
			open_failed(&r, -ret, (pid_t)o->tids[i]);
	}

	/* Attached processes: their mappings from before the attach. */
	for (size_t i = 0; i < o->npids; i++)
		model_process(&r.model, o->pids[i]);

	r.start_ns = now_ns();
	wall_start = time(NULL);
	if (o->duration > 0)
		deadline = r.start_ns + (uint64_t)(o->duration * 1e9);
	if (o->argv)
		release_child(&r);

	pfds = xcalloc(r.nrings + 1, sizeof(*pfds));
	for (size_t i = 0; i < r.nrings; i++) {
		pfds[i].fd = r.rings[i].fd;
		pfds[i].events = POLLIN;
	}
	pfds[r.nrings].fd = wake_pipe[0];
	pfds[r.nrings].events = POLLIN;

	while (!stop_requested) {
		uint64_t round_start, now;
		int timeout = 100;
		char sink[64];

		if (deadline) {
			now = now_ns();
			if (now >= deadline)
				break;
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(pfds, r.nrings + 1, timeout) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		while (read(wake_pipe[0], sink, sizeof(sink)) > 0)
			;
		round_start = now_ns();
		drain_all(&r);
		queue_flush(&r, round_start > FLUSH_SLACK_NS ? round_start - FLUSH_SLACK_NS : 0);
		check_child(&r);
		if (!targets_alive(&r))
			break;
		now = now_ns();
		if (tty && now - last_status > 250000000ULL) {
			status_line(&r, now);
			last_status = now;
		}
	}

	/* The stop: nothing sampled before it is dropped. */
	for (size_t i = 0; i < r.nfds; i++)
		ioctl(r.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	end_ns = now_ns();
	drain_all(&r);
	queue_flush(&r, UINT64_MAX);
	if (tty)
		fprintf(stderr, "\r\033[K");

	prefetch_stop(r.prefetch);
	model_perfmap_last_look(&r.model);
	symbolize_profile(r.prof, &r.mods, r.prefetch, NULL);
	add_threads(&r);
	write_meta(&r, end_ns, wall_start);
	if (datafile_commit(&out, r.prof, &written) < 0)
		exit_code = 1;

	if (!o->quiet && exit_code == 0) {
		human_size(written, size, sizeof(size));
		fprintf(stderr,
			"perfmini: %llu samples, %llu lost, %zu process%s, %zu thread%s in %.2f s; "
			"wrote %s (%s)\n",
			(unsigned long long)r.nsamples,
			(unsigned long long)(r.lost + r.lost_samples), r.sampled_pids.count,
			r.sampled_pids.count == 1 ? "" : "es", r.sampled_tids.count,
			r.sampled_tids.count == 1 ? "" : "s", (double)(end_ns - r.start_ns) / 1e9,
			o->output, size);
		symbolize_print_missing(r.prof, stderr, 5);
		if (r.unwinder)
			print_unwind_summary(&r);
		if (r.lost || r.lost_samples)
			warning("%llu records and %llu samples were lost: try a larger ring (-m) "
				"or a "
				"lower frequency (-F)",
				(unsigned long long)r.lost, (unsigned long long)r.lost_samples);
	}

	/*
	 * A command still running (after -d or a signal) is asked to stop, once
	 * the file is safe; one that ignores SIGTERM is left running after a
	 * short wait rather than holding perfmini forever.
	 */
	if (o->argv && !r.child_exited) {
		kill(r.child, SIGTERM);
		for (int i = 0; i < 40 && waitpid(r.child, &r.child_status, WNOHANG) == 0; i++)
			usleep(50000);
	}
	if (!FREE_AT_EXIT)
		return exit_code;
	prefetch_free(r.prefetch);
	free(pfds);
	for (size_t i = 0; i < r.nrings; i++) {
		ring_release(&r.rings[i].ring);
		munmap(r.rings[i].base, r.rings[i].maplen);
	}
	for (size_t i = 0; i < r.nfds; i++)
		close(r.fds[i]);
	free(r.fds);
	free(r.rings);
	free(r.q.buf);
	free(r.q.ents);
	hmap_release(&r.sampled_tids);
	hmap_release(&r.sampled_pids);
	if (r.unwinder) {
		unwinder_free(r.unwinder);
		hmap_release(&r.cut);
		hmap_release(&r.outer);
	}
	model_release(&r.model);
	module_set_release(&r.mods);
	profile_free(r.prof);
	return exit_code;
}
