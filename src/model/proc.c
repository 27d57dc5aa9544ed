/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc.c - processes, threads and address spaces; see proc.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/proc.h"
#include "util/alloc.h"
#include "util/clock.h"

void model_init(struct model *m, struct module_set *mods, bool live)
{
	memset(m, 0, sizeof(*m));
	hmap_init_ids(&m->procs);
	hmap_init_ids(&m->threads);
	m->mods = mods;
	m->live = live;
}

/*
 * Takes dead d out of its map if it is still there (no new thread or
 * process took its id); returns whether it was. d stays owned by the
 * dead list.
 */
static bool unlink_dead(struct model *m, const struct model_dead *d)
{
	struct hmap *h = d->proc ? &m->procs : &m->threads;
	struct hmap_slot *s = hmap_find(h, d->id);

	if (d->obj == (void *)m->last_proc)
		m->last_proc = NULL;
	if (d->obj == (void *)m->last_thread)
		m->last_thread = NULL;
	if (!s || hmap_ptr(s) != d->obj)
		return false;
	hmap_remove(h, d->id, NULL);
	return true;
}

static void free_dead(const struct model_dead *d)
{
	if (d->proc)
		maps_free(((struct process *)d->obj)->maps);
	free(d->obj);
}

void model_release(struct model *m)
{
	struct hmap_slot *s;

	for (size_t i = m->dead_head; i < m->ndead; i++) {
		unlink_dead(m, &m->dead[i]);
		free_dead(&m->dead[i]);
	}
	free(m->dead);
	for (size_t pos = 0; (s = hmap_next(&m->procs, &pos));) {
		struct process *p = hmap_ptr(s);

		maps_free(p->maps);
		free(p);
	}
	for (size_t pos = 0; (s = hmap_next(&m->threads, &pos));)
		free(hmap_ptr(s));
	hmap_release(&m->procs);
	hmap_release(&m->threads);
}

/* The dead object whose id is taken by a new thread or process: out of the maps. */
static void make_way(struct model *m, void *obj, uint32_t id, bool proc)
{
	struct model_dead d = {0, obj, id, proc};

	unlink_dead(m, &d);
}

static struct process *find_process(struct model *m, uint32_t pid)
{
	struct hmap_slot *s;

	if (m->last_proc && m->last_proc->pid == pid)
		return m->last_proc;
	s = hmap_find(&m->procs, pid);
	if (!s)
		return NULL;
	m->last_proc = hmap_ptr(s);
	return m->last_proc;
}

/* Reads the name at path (a /proc comm file) into comm, if it can. */
static void read_comm(struct model *m, const char *path, char comm[COMM_MAX])
{
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	if (fgets(comm, COMM_MAX, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
	m->names_read++;
}

static struct process *add_process(struct model *m, uint32_t pid, struct maps *maps)
{
	struct process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->serial = ++m->serials;
	p->maps = maps ? maps : maps_new();
	snprintf(p->comm, sizeof(p->comm), pid ? "pid-%u" : "swapper", pid);
	hmap_put_ptr(&m->procs, pid, p);
	return p;
}

bool model_knows(struct model *m, uint32_t pid)
{
	return find_process(m, pid) != NULL;
}

struct process *model_process(struct model *m, uint32_t pid)
{
	struct process *p = find_process(m, pid);

	if (p)
		return p;
	p = add_process(m, pid, NULL);
	if (m->live && pid) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		read_comm(m, path, p->comm);
		model_seed(m, p);
	}
	return p;
}

/*
 * Thread tid of pid, created if unknown: named after its process, or, with
 * read_name and when live, from /proc (a thread that was there before the
 * recording may have a name of its own). A dead thread of that tid is
 * found as it was, unless born (a fork made the tid anew) or of another
 * process: then a new thread takes its place.
 */
static struct thread *get_thread(struct model *m, uint32_t pid, uint32_t tid, bool read_name,
				 bool born)
{
	struct hmap_slot *s = NULL;
	struct thread *t = m->last_thread;
	struct process *p;

	if ((t && t->tid == tid) || (s = hmap_find(&m->threads, tid))) {
		if (s)
			t = m->last_thread = hmap_ptr(s);
		if (!t->exited && t->pid == pid)
			return t;
		if (!t->exited) {
			t->pid = pid; /* tid reused by another process: another thread */
			memcpy(t->comm, model_process(m, pid)->comm, COMM_MAX);
			t->serial = ++m->serials;
			t->comm_gen = ++m->serials;
			return t;
		}
		if (t->pid == pid && !born)
			return t; /* sampled on its way out */
		make_way(m, t, tid, false);
	}
	p = model_process(m, pid);
	t = xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	t->serial = ++m->serials;
	t->comm_gen = ++m->serials;
	memcpy(t->comm, p->comm, COMM_MAX);
	if (read_name && m->live && tid != pid) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		read_comm(m, path, t->comm);
	}
	hmap_put_ptr(&m->threads, tid, t);
	return t;
}

struct thread *model_thread(struct model *m, uint32_t pid, uint32_t tid)
{
	return get_thread(m, pid, tid, true, false);
}

void model_comm(struct model *m, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct process *p = find_process(m, pid);
	struct thread *t;

	if (!p)
		p = add_process(m, pid, NULL); /* its exec image arrives as MMAP2 */
	if (exec) {
		maps_clear(p->maps);
		p->seeded_ns = 0;
		p->tracked = true;
	}
	t = model_thread(m, pid, tid);
	snprintf(t->comm, COMM_MAX, "%s", comm);
	t->comm_gen = ++m->serials;
	if (exec || tid == pid)
		snprintf(p->comm, COMM_MAX, "%s", comm);
}

void model_fork(struct model *m, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct thread *parent = model_thread(m, ppid, ptid);
	struct process *old = find_process(m, pid);
	struct thread *t;

	if (pid != ppid && (!old || old->exited)) {
		struct process *pp = model_process(m, ppid);
		struct process *p;

		if (old)
			make_way(m, old, pid, true);
		p = add_process(m, pid, maps_clone(pp->maps));

		/* The kernel names the child after the thread that forked. */
		memcpy(p->comm, parent->comm, COMM_MAX);
		p->seeded_ns = pp->seeded_ns;
		p->tracked = pp->tracked;
	}
	/*
	 * Named after the thread that forked, as the kernel names it: no
	 * /proc read (a thread churner would cost a thousand a second).
	 */
	t = get_thread(m, pid, tid, false, true);
	memcpy(t->comm, parent->comm, COMM_MAX);
	t->comm_gen = ++m->serials;
}

static void add_dead(struct model *m, uint64_t time, void *obj, uint32_t id, bool proc)
{
	if (m->dead_head && m->ndead == m->dead_cap) {
		/* Reaped entries make room first. */
		m->ndead -= m->dead_head;
		memmove(m->dead, m->dead + m->dead_head, m->ndead * sizeof(*m->dead));
		m->dead_head = 0;
	}
	xgrow(&m->dead, &m->dead_cap, m->ndead + 1, sizeof(*m->dead));
	m->dead[m->ndead++] = (struct model_dead){time, obj, id, proc};
}

void model_exit(struct model *m, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct hmap_slot *s = hmap_find(&m->threads, tid);

	if (s) {
		struct thread *t = hmap_ptr(s);

		if (!t->exited) {
			t->exited = true;
			add_dead(m, time, t, tid, false);
		}
	}
	/* The last thread out is the leader: the address space goes with it. */
	if (tid == pid && (s = hmap_find(&m->procs, pid))) {
		struct process *p = hmap_ptr(s);

		if (!p->exited) {
			p->exited = true;
			add_dead(m, time, p, pid, true);
		}
	}
}

void model_reap(struct model *m, uint64_t before, void (*gone)(uint32_t id, bool proc, void *arg),
		void *arg)
{
	while (m->dead_head < m->ndead && m->dead[m->dead_head].time < before) {
		const struct model_dead *d = &m->dead[m->dead_head++];

		if (unlink_dead(m, d) && gone)
			gone(d->id, d->proc, arg);
		free_dead(d);
	}
	if (m->dead_head == m->ndead)
		m->dead_head = m->ndead = 0;
}

void model_each_thread(struct model *m, void (*fn)(struct thread *t, void *arg), void *arg)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&m->threads, &pos));)
		fn(hmap_ptr(s), arg);
	/* The dead no longer in the table (a new thread took the tid). */
	for (size_t i = m->dead_head; i < m->ndead; i++) {
		const struct model_dead *d = &m->dead[i];

		if (!d->proc &&
		    ((s = hmap_find(&m->threads, d->id)) == NULL || hmap_ptr(s) != d->obj))
			fn(d->obj, arg);
	}
}

/* Inserts one executable mapping of module mod. */
static void insert_map(struct process *p, uint64_t start, uint64_t end, uint64_t pgoff,
		       uint32_t prot, struct module *mod)
{
	struct mapping map = {.start = start, .end = end, .pgoff = pgoff, .prot = prot, .mod = mod};

	maps_insert(p->maps, &map);
}

/* Whether a file's code lies under [start, end) in p's mappings. */
static bool covers_file_code(const struct process *p, uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		const struct mapping *map = maps_find(p->maps, a);

		if (map && map->mod && map->mod->kind == MODULE_FILE)
			return true;
		if (!map)
			return false;
		a = map->end;
	}
	return false;
}

void model_mmap(struct model *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const struct module_key *k, uint32_t prot)
{
	/* A process first met in a mapping is named (and seeded) from /proc. */
	struct process *p = model_process(m, pid);
	struct module *mod;

	if (!(prot & PROT_EXEC)) {
		/* A data mapping over code removes that code. */
		maps_remove(p->maps, start, start + len);
		return;
	}
	mod = module_set_get(m->mods, k, m->live ? (pid_t)pid : 0, start, start + len);
	/*
	 * Anonymous code over a file's: perhaps the file's own text moved to
	 * huge pages. /proc/PID/maps shows its neighbours, which say.
	 */
	if (mod->kind == MODULE_ANON && m->live && m->text_of &&
	    covers_file_code(p, start, start + len)) {
		maps_remove(p->maps, start, start + len);
		if (model_seed(m, p) == 0 && maps_find(p->maps, start))
			return;
	}
	insert_map(p, start, start + len, pgoff, prot, mod);
}

void model_set_text_finder(struct model *m, model_text_fn fn, void *arg)
{
	m->text_of = fn;
	m->text_arg = arg;
}

/*
 * Seeding reads the lines in order. An anonymous executable line waits
 * for the next one, in case that is the file it came from (the file's
 * mapping before it is kept too).
 */
struct seed_ctx {
	struct model *m;
	struct process *p;
	struct maps_line prev; /* the last line that maps a file, when prev_path */
	char *prev_path;
	struct maps_line pend; /* an anonymous executable line, when have_pend */
	bool have_pend;
};

static bool is_file_line(const struct maps_line *l)
{
	return module_kind_of(l->path, l->ino) == MODULE_FILE;
}

/* Maps anonymous line l as the file of line nb, if that is where it came from. */
static bool adopt(struct seed_ctx *c, const struct maps_line *l, const struct maps_line *nb)
{
	struct module_key k = {nb->path, nb->maj, nb->min, nb->ino, 0};
	struct module *mod;
	uint64_t off;

	mod = module_set_get(c->m->mods, &k, c->m->live ? (pid_t)c->p->pid : 0, nb->start, nb->end);
	if (mod->kind != MODULE_FILE ||
	    c->m->text_of(c->m->text_arg, mod, nb, l->start, l->end, &off) < 0)
		return false;
	insert_map(c->p, l->start, l->end, off, l->prot, mod);
	return true;
}

/* Maps executable line l (whose next line is next, or NULL at the end). */
static void seed_exec(struct seed_ctx *c, const struct maps_line *l, const struct maps_line *next)
{
	struct module_key k = {l->path, l->maj, l->min, l->ino, 0};

	if (!c->p->records_lost && maps_overlaps(c->p->maps, l->start, l->end))
		return;
	if (c->m->text_of && module_kind_of(l->path, l->ino) == MODULE_ANON) {
		if (c->prev_path && c->prev.end == l->start && adopt(c, l, &c->prev))
			return;
		if (next && next->start == l->end && is_file_line(next) && adopt(c, l, next))
			return;
	}
	model_mmap(c->m, c->p->pid, l->start, l->end - l->start, l->pgoff, &k, l->prot);
}

static int seed_line(const struct maps_line *l, void *arg)
{
	struct seed_ctx *c = arg;

	if (c->have_pend) {
		c->have_pend = false;
		seed_exec(c, &c->pend, l);
		free((char *)c->pend.path);
	}
	if ((l->prot & PROT_EXEC) && c->m->text_of &&
	    module_kind_of(l->path, l->ino) == MODULE_ANON) {
		c->pend = *l;
		c->pend.path = xstrdup(l->path);
		c->have_pend = true;
	} else if (l->prot & PROT_EXEC) {
		seed_exec(c, l, NULL);
	}
	if (is_file_line(l)) {
		free(c->prev_path);
		c->prev = *l;
		c->prev_path = xstrdup(l->path);
		c->prev.path = c->prev_path;
	}
	return 0;
}

int model_seed_file(struct model *m, struct process *p, FILE *f)
{
	struct seed_ctx c = {.m = m, .p = p};
	int ret = proc_maps_parse(f, seed_line, &c);

	if (c.have_pend) {
		seed_exec(&c, &c.pend, NULL);
		free((char *)c.pend.path);
	}
	free(c.prev_path);
	return ret < 0 ? ret : 0;
}

int model_seed(struct model *m, struct process *p)
{
	char path[64];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%u/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	p->seeded_ns = now_coarse_ns();
	ret = model_seed_file(m, p, f);
	p->records_lost = false;
	fclose(f);
	m->reseeds++;
	return ret;
}

const struct mapping *model_find(struct model *m, uint32_t pid, uint64_t addr)
{
	struct process *p = model_process(m, pid);
	const struct mapping *map = maps_find(p->maps, addr);
	uint64_t now;

	/*
	 * An address in no mapping of a process whose every mapping came as
	 * a record: a word of a broken frame-pointer chain, most likely (code
	 * built without them), which /proc would not find either.
	 */
	if (map || !m->live || !pid || (p->tracked && !p->records_lost))
		return map;
	now = now_coarse_ns();
	if (p->seeded_ns && now - p->seeded_ns < 1000000000ULL)
		return NULL;
	if (model_seed(m, p) < 0)
		p->seeded_ns = now; /* gone: do not retry at every sample */
	return maps_find(p->maps, addr);
}

uint64_t model_maps_generation(struct model *m, uint32_t pid)
{
	const struct process *p = find_process(m, pid);

	return p ? maps_generation(p->maps) : 0;
}

/*
 * How soon a process's perf map is looked for again while it has none:
 * 20 ms after the first look, then twice as long after each look that
 * finds none, up to a second (a process whose broken frame-pointer chains
 * land in no mapping looks for a map it will never have).
 */
#define PERFMAP_RETRY_NS     20000000ULL
#define PERFMAP_RETRY_MAX_NS 1000000000ULL

struct module *model_perfmap(struct model *m, uint32_t pid, bool anon)
{
	struct process *p = model_process(m, pid);
	uint64_t now;
	int fd;

	if (!m->live)
		return p->perfmap;
	if (!p->perfmap && anon)
		p->perfmap = module_set_perfmap(m->mods, pid, true);
	if (p->perfmap && p->perfmap->fd >= 0)
		return p->perfmap;
	/* A runtime may write its map after its first JIT code runs: look again soon. */
	now = now_coarse_ns();
	if (p->perfmap_checked_ns && now - p->perfmap_checked_ns < p->perfmap_retry_ns)
		return p->perfmap;
	p->perfmap_checked_ns = now;
	p->perfmap_retry_ns = p->perfmap_retry_ns ? p->perfmap_retry_ns * 2 : PERFMAP_RETRY_NS;
	if (p->perfmap_retry_ns > PERFMAP_RETRY_MAX_NS)
		p->perfmap_retry_ns = PERFMAP_RETRY_MAX_NS;
	if (p->perfmap) {
		if (module_perfmap_open(p->perfmap) < 0)
			return p->perfmap;
	} else {
		/* No module for a map that may never be: most processes have none. */
		if ((fd = module_perfmap_probe(pid)) < 0)
			return NULL;
		p->perfmap = module_set_perfmap(m->mods, pid, true);
		p->perfmap->fd = fd;
	}
	/* Found: an address in no mapping is its JIT code now, not garbage. */
	maps_touch(p->maps);
	return p->perfmap;
}

void model_perfmap_last_look(struct model *m)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&m->procs, &pos));) {
		struct process *p = hmap_ptr(s);

		if (p->perfmap)
			module_perfmap_open(p->perfmap);
	}
}

void model_lost(struct model *m)
{
	struct hmap_slot *s;

	for (size_t pos = 0; (s = hmap_next(&m->procs, &pos));) {
		struct process *p = hmap_ptr(s);

		p->seeded_ns = 0;
		p->records_lost = true;
		/* What was found in its mappings may have changed unseen. */
		maps_touch(p->maps);
	}
}

static int parse_hex(const char **s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*s, &end, 16);
	if (errno || end == *s)
		return -1;
	*s = end;
	return 0;
}

static int parse_line(char *line, struct maps_line *l)
{
	const char *s = line;
	uint64_t maj, min;
	char perms[5];

	if (parse_hex(&s, &l->start) || *s++ != '-' || parse_hex(&s, &l->end) || *s++ != ' ')
		return -1;
	if (l->end <= l->start)
		return -1;
	for (int i = 0; i < 4; i++) {
		if (!s[i])
			return -1;
		perms[i] = s[i];
	}
	perms[4] = '\0';
	s += 4;
	if (*s++ != ' ')
		return -1;
	l->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	if (parse_hex(&s, &l->pgoff) || *s++ != ' ')
		return -1;
	if (parse_hex(&s, &maj) || *s++ != ':' || parse_hex(&s, &min) || *s++ != ' ')
		return -1;
	l->maj = (uint32_t)maj;
	l->min = (uint32_t)min;
	{
		char *end;

		errno = 0;
		l->ino = strtoull(s, &end, 10);
		if (errno || end == s)
			return -1;
		s = end;
	}
	while (*s == ' ')
		s++;
	l->path = s;
	line[strcspn(line, "\n")] = '\0';
	return 0;
}

int proc_maps_parse(FILE *f, maps_line_fn fn, void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0, ret;

	while (getline(&line, &cap, f) > 0) {
		struct maps_line l;

		if (parse_line(line, &l))
			continue;
		ret = fn(&l, arg);
		if (ret < 0) {
			free(line);
			return ret;
		}
		n++;
	}
	free(line);
	return n;
}
