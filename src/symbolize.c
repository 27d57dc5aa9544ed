/*
 * symbolize.c - names for frames; see symbolize.h.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "demangle.h"
#include "symbolize.h"
#include "util.h"

/* A frame's levels as the prefetch thread resolved them. */
struct cached_frame {
	uint32_t n; /* 0: not resolved (or no name) */
	uint64_t symoff;
	struct srcline *lv;
	char *symname; /* owned; lv[].func may point at it */
};

struct frame_job {
	struct module *m;
	uint32_t frame;
	uint64_t addr;
};

struct prefetch {
	struct module_set *set;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct frame_job *jobs;
	size_t head, n, cap;
	bool done;
	/* Written by the thread only, read after it has been joined. */
	struct cached_frame *frames;
	size_t nframes;
};

/* Kernel and perf-map frames carry absolute addresses, file frames offsets. */
static bool absolute(const struct module *m)
{
	return m->kind == MODULE_KERNEL || m->kind == MODULE_PERFMAP;
}

/* The symbol's name, demangled (a PLT entry's before its "@plt"); malloc'd. */
static char *symbolize_name(const struct module *m, const struct sym *sym)
{
	const char *raw = symtab_name(&m->syms, sym);
	size_t n = strlen(raw);
	char *d;

	if (n > 4 && !strcmp(raw + n - 4, "@plt")) {
		char *base = xstrndup(raw, n - 4);

		d = demangle(base);
		free(base);
		if (d) {
			base = xasprintf("%s@plt", d);
			free(d);
			return base;
		}
		return xstrdup(raw);
	}
	d = demangle(raw);
	return d ? d : xstrdup(raw);
}

/*
 * Whether the outermost level l is better named by the symbol sym that
 * starts at its entry (see struct srcline): so the frame reads as with
 * --no-lines, and as perf, binutils' addr2line and llvm-symbolizer name it.
 */
static bool by_symbol(const struct srcline *l, const struct sym *sym, const char *symname)
{
	size_t n;

	if (l->inlined || !l->symbol_suffix || !l->func || !symname || l->entry != sym->addr)
		return false;
	n = strlen(l->func);
	return !strncmp(symname, l->func, n) && symname[n] == '.' && symname[n + 1];
}

int symbolize_addr(struct module_set *s, struct module *m, uint64_t addr, bool is_vaddr,
		   struct symres *r)
{
	const struct sym *sym;
	uint64_t vaddr = addr;

	memset(r, 0, sizeof(*r));
	module_load(s, m);
	if (!is_vaddr && !absolute(m) &&
	    addr_file_offset_to_vaddr(m->segs, m->nsegs, addr, &vaddr) < 0)
		return 0;
	sym = symtab_lookup(&m->syms, vaddr);
	if (sym) {
		r->symoff = vaddr - sym->addr;
		r->symname = symbolize_name(m, sym);
	}
	if (!absolute(m) && !s->no_lines)
		r->n = srcline_lookup(m, vaddr, r->lv, SRCLINE_MAX_DEPTH);
	if (r->n == 0 && r->symname) {
		r->lv[0].func = r->symname;
		r->n = 1;
	} else if (r->n > 0 && !r->lv[r->n - 1].func) {
		/* A place but no function DIE: the symbol names it, if any. */
		r->lv[r->n - 1].func = r->symname;
	} else if (r->n > 0 && sym && by_symbol(&r->lv[r->n - 1], sym, r->symname)) {
		r->lv[r->n - 1].func = r->symname;
	}
	return r->n;
}

void symres_release(struct symres *r)
{
	free(r->symname);
	r->symname = NULL;
}

/* The levels of frame i: the prefetch thread's, else resolved now. */
static int frame_levels(struct prefetch *pf, struct module_set *mods, const struct pm_frame *f,
			size_t i, struct symres *r)
{
	const struct cached_frame *c = pf && i < pf->nframes ? &pf->frames[i] : NULL;

	if (!c || !c->lv)
		return symbolize_addr(mods, mods->mods[f->module], f->addr, false, r);
	r->n = (int)c->n;
	r->symoff = c->symoff;
	r->symname = NULL; /* c keeps it */
	memcpy(r->lv, c->lv, c->n * sizeof(*c->lv));
	return r->n;
}

void symbolize_profile(struct profile *p, struct module_set *mods, struct prefetch *pf,
		       struct symbolize_stats *st)
{
	struct symbolize_stats local = {0};
	struct symres *r = xmalloc(sizeof(*r));

	for (size_t i = 0; i < p->nframes; i++) {
		struct pm_frame *f = &p->frames[i];

		local.frames++;
		if (f->module == PM_NONE || f->module >= mods->n || f->nlines)
			continue;
		if (!frame_levels(pf, mods, f, i, r) || !r->lv[r->n - 1].func) {
			/* Unnamed (a place without a function is no name). */
			symres_release(r);
			continue;
		}
		for (int k = 0; k < r->n; k++) {
			struct pm_line l = {0};

			l.func = strtab_add(&p->str, r->lv[k].func);
			l.file = r->lv[k].file ? strtab_add(&p->str, r->lv[k].file) : 0;
			l.line = r->lv[k].line;
			l.flags = r->lv[k].inlined ? PM_LINE_INLINED : 0;
			l.symoff = k == r->n - 1 ? r->symoff : 0;
			profile_add_line(p, (uint32_t)i, &l);
		}
		symres_release(r);
		local.resolved++;
	}
	free(r);
	for (size_t i = p->nmodules; i < mods->n; i++) {
		struct module *m = mods->mods[i];
		char hex[2 * BUILD_ID_MAX + 1];
		uint32_t flags = 0, id;

		build_id_hex(m->build_id, m->build_id_len, hex);
		if (m->kind == MODULE_KERNEL)
			flags = PM_MODULE_KERNEL;
		else if (m->kind == MODULE_VDSO)
			flags = PM_MODULE_VDSO;
		else if (m->kind == MODULE_ANON)
			flags = PM_MODULE_ANON;
		else if (m->kind == MODULE_PERFMAP)
			flags = PM_MODULE_PERFMAP;
		flags |= (uint32_t)m->reason << PM_MODULE_REASON_SHIFT;
		flags |= (uint32_t)m->lines_reason << PM_MODULE_LINES_SHIFT;
		id = profile_add_module(p, m->path, hex, flags);
		if (m->reason)
			p->modules[id].reason = strtab_add(&p->str, module_reason_text(m->reason));
	}
	if (st)
		*st = local;
}

static int cmp_missing(const void *a, const void *b)
{
	const struct missing *x = a, *y = b;

	if (x->unnamed != y->unnamed)
		return x->unnamed > y->unnamed ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

static int cmp_unplaced(const void *a, const void *b)
{
	const struct missing *x = a, *y = b;

	if (x->unplaced != y->unplaced)
		return x->unplaced > y->unplaced ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

/* Per module (and a last slot for no module), the counts of struct missing. */
static struct missing *count_missing(const struct profile *p)
{
	struct missing *m = xcalloc(p->nmodules + 1, sizeof(*m));
	uint64_t *weight = profile_stack_weights(p);

	for (size_t i = 0; i <= p->nmodules; i++)
		m[i].module = i < p->nmodules ? (uint32_t)i : PM_NONE;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct pm_stack *st = &p->stacks[i];

		for (uint32_t d = 0; d < st->depth && weight[i]; d++) {
			const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];
			struct missing *x = &m[f->module == PM_NONE ? p->nmodules : f->module];

			x->frames += weight[i];
			if (!f->nlines) {
				x->unnamed += weight[i];
				continue;
			}
			x->named += weight[i];
			if (!p->lines[f->line0].file)
				x->unplaced += weight[i];
		}
	}
	free(weight);
	return m;
}

size_t symbolize_missing_lines(const struct profile *p, struct missing **out)
{
	struct missing *m = count_missing(p);
	size_t n = 0;

	/*
	 * A few frames without lines are normal (PLT stubs, the C runtime's
	 * startup code): a module is listed from 5% of its named frames.
	 */
	for (size_t i = 0; i < p->nmodules; i++)
		if (m[i].unplaced && m[i].unplaced * 20 >= m[i].named &&
		    PM_MODULE_LINES(p->modules[i].flags))
			m[n++] = m[i];
	qsort(m, n, sizeof(*m), cmp_unplaced);
	*out = m;
	return n;
}

size_t symbolize_missing(const struct profile *p, struct missing **out)
{
	struct missing *m = count_missing(p);
	size_t n = 0;

	for (size_t i = 0; i <= p->nmodules; i++)
		if (m[i].unnamed)
			m[n++] = m[i];
	qsort(m, n, sizeof(*m), cmp_missing);
	*out = m;
	return n;
}

void symbolize_print_missing(const struct profile *p, FILE *f, size_t max)
{
	struct sbuf shown = {0}; /* paths come from other processes: shown printable */
	struct missing *m;
	size_t n = symbolize_missing(p, &m);

	for (size_t i = 0; i < n && i < max; i++) {
		enum module_reason r = REASON_NO_MAPPING;
		const char *name = "[unknown]";

		if (m[i].module != PM_NONE) {
			const struct pm_module *mod = &p->modules[m[i].module];

			r = (enum module_reason)PM_MODULE_REASON(mod->flags);
			name = strtab_get(&p->str, mod->path);
		}
		fprintf(f, "perfmini: %s: %.1f%% of %llu frames without a name",
			printable(&shown, name), 100.0 * (double)m[i].unnamed / (double)m[i].frames,
			(unsigned long long)m[i].frames);
		if (r != REASON_NONE)
			fprintf(f, ": %s; %s", module_reason_text(r), module_reason_fix(r));
		fputc('\n', f);
	}
	if (n > max)
		fprintf(f, "perfmini: and %zu more modules with unnamed frames\n", n - max);
	free(m);

	n = symbolize_missing_lines(p, &m);
	for (size_t i = 0; i < n && i < max; i++) {
		const struct pm_module *mod = &p->modules[m[i].module];
		enum module_lines r = (enum module_lines)PM_MODULE_LINES(mod->flags);

		fprintf(f, "perfmini: %s: %.1f%% of %llu named frames without a source line",
			printable(&shown, strtab_get(&p->str, mod->path)),
			100.0 * (double)m[i].unplaced / (double)m[i].named,
			(unsigned long long)m[i].named);
		if (*module_lines_text(r))
			fprintf(f, ": %s; %s", module_lines_text(r), module_lines_fix(r));
		fputc('\n', f);
	}
	if (n > max)
		fprintf(f, "perfmini: and %zu more modules with frames without lines\n", n - max);
	free(m);
	sbuf_release(&shown);
}

/* Resolves one frame on the prefetch thread, under its module's lock. */
static void resolve(struct prefetch *pf, const struct frame_job *j, struct symres *r)
{
	struct cached_frame *c;

	module_load(pf->set, j->m);
	pthread_mutex_lock(&j->m->lock);
	symbolize_addr(pf->set, j->m, j->addr, false, r);
	pthread_mutex_unlock(&j->m->lock);
	if (j->frame >= pf->nframes) {
		size_t n = pf->nframes ? pf->nframes : 256;

		while (n <= j->frame)
			n *= 2;
		pf->frames = xrealloc(pf->frames, n * sizeof(*pf->frames));
		memset(pf->frames + pf->nframes, 0, (n - pf->nframes) * sizeof(*pf->frames));
		pf->nframes = n;
	}
	c = &pf->frames[j->frame];
	c->n = (uint32_t)r->n;
	c->symoff = r->symoff;
	c->symname = r->symname; /* kept: the levels may name it */
	r->symname = NULL;
	c->lv = NULL;
	if (r->n) {
		c->lv = xmalloc((size_t)r->n * sizeof(*c->lv));
		memcpy(c->lv, r->lv, (size_t)r->n * sizeof(*c->lv));
	}
}

static void *prefetch_main(void *arg)
{
	struct prefetch *pf = arg;
	struct symres *r = xmalloc(sizeof(*r));

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		struct frame_job j;

		while (pf->head == pf->n && !pf->done)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->head == pf->n)
			break;
		j = pf->jobs[pf->head++];
		pthread_mutex_unlock(&pf->lock);
		resolve(pf, &j, r);
		pthread_mutex_lock(&pf->lock);
	}
	pthread_mutex_unlock(&pf->lock);
	free(r);
	return NULL;
}

struct prefetch *prefetch_start(struct module_set *s)
{
	struct prefetch *pf = xcalloc(1, sizeof(*pf));

	pf->set = s;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	if (pthread_create(&pf->thread, NULL, prefetch_main, pf) != 0) {
		/* Not fatal: the stop resolves everything itself. */
		pthread_mutex_destroy(&pf->lock);
		pthread_cond_destroy(&pf->cond);
		free(pf);
		return NULL;
	}
	return pf;
}

void prefetch_frame(struct prefetch *pf, struct module *m, uint32_t frame, uint64_t addr)
{
	if (!pf || (m->kind != MODULE_FILE && m->kind != MODULE_VDSO && m->kind != MODULE_KERNEL))
		return;
	pthread_mutex_lock(&pf->lock);
	xgrow(&pf->jobs, &pf->cap, pf->n + 1, sizeof(*pf->jobs));
	pf->jobs[pf->n].m = m;
	pf->jobs[pf->n].frame = frame;
	pf->jobs[pf->n].addr = addr;
	pf->n++;
	pthread_cond_signal(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
}

void prefetch_stop(struct prefetch *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->done = true;
	pthread_cond_signal(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf->jobs);
	pf->jobs = NULL;
}

void prefetch_free(struct prefetch *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->nframes; i++) {
		free(pf->frames[i].lv);
		free(pf->frames[i].symname);
	}
	free(pf->frames);
	free(pf);
}
