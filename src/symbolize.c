/*
 * symbolize.c - names for frames; see symbolize.h.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
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

/* The symbol's name, demangled; malloc'd. */
static char *symbolize_name(const struct module *m, const struct sym *sym)
{
	const char *raw = symtab_name(&m->syms, sym);
	char *d = demangle(raw);

	return d ? d : xstrdup(raw);
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
	}
	return r->n;
}

void symres_release(struct symres *r)
{
	free(r->symname);
	r->symname = NULL;
}

/*
 * Declaration lines of real functions, by address: per compilation unit,
 * its subprograms with code (at any depth of namespaces and classes, not
 * inside other functions) and their DW_AT_decl_line (through the
 * specification or abstract origin), sorted by address. Built at a unit's
 * first lookup; one walk of the unit's top levels, then a binary search
 * per frame.
 */
struct decl_range {
	uint64_t lo, hi;
	uint32_t line;
};

struct decl_unit {
	struct decl_range *r;
	size_t n, cap;
};

static void decl_collect(struct decl_unit *u, Dwarf_Die *parent)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram: {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			int line = 0;

			if (dwarf_decl_line(&child, &line) != 0 || line <= 0)
				break;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				xgrow(&u->r, &u->cap, u->n + 1, sizeof(*u->r));
				u->r[u->n++] = (struct decl_range){lo, hi, (uint32_t)line};
			}
			break;
		}
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			decl_collect(u, &child);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_decl(const void *a, const void *b)
{
	const struct decl_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The declaration line of the function holding ELF address vaddr of m; 0 if unknown. */
static uint32_t decl_line(struct hmap *units, struct module *m, uint64_t vaddr)
{
	Dwarf_Addr addr = vaddr + m->dwbias, bias;
	Dwarf_Die *cu;
	struct hmap_slot *slot;
	struct decl_unit *u;
	size_t lo = 0, hi;

	if (!m->dwmod || !(cu = dwfl_module_addrdie(m->dwmod, addr, &bias)))
		return 0;
	/* A unit's offset in .debug_info is far below 2^40, a module id below 2^24. */
	slot = hmap_insert(units, ((uint64_t)m->id << 40 | dwarf_dieoffset(cu)) + 1, NULL);
	if (!slot->val) {
		u = xcalloc(1, sizeof(*u));
		decl_collect(u, cu);
		if (u->n)
			qsort(u->r, u->n, sizeof(*u->r), cmp_decl);
		slot->val = (uintptr_t)u;
	}
	u = (struct decl_unit *)(uintptr_t)slot->val;
	addr -= bias;
	hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < u->r[lo - 1].hi ? u->r[lo - 1].line : 0;
}

static void decl_units_release(struct hmap *units)
{
	for (size_t i = 0; i < units->cap; i++) {
		struct decl_unit *u;

		if (!units->slots[i].key)
			continue;
		u = (struct decl_unit *)(uintptr_t)units->slots[i].val;
		free(u->r);
		free(u);
	}
	hmap_release(units);
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
	struct hmap units; /* (module, unit) -> struct decl_unit */

	hmap_init(&units);
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
			struct module *m = mods->mods[f->module];
			struct pm_line l = {0};
			uint64_t vaddr;

			l.func = strtab_add(&p->str, r->lv[k].func);
			l.file = r->lv[k].file ? strtab_add(&p->str, r->lv[k].file) : 0;
			l.line = r->lv[k].line;
			l.flags = r->lv[k].inlined ? PM_LINE_INLINED : 0;
			l.symoff = k == r->n - 1 ? r->symoff : 0;
			/* The real function's declaration line (pprof's start_line). */
			if (k == r->n - 1 && !mods->no_lines && m->kind == MODULE_FILE &&
			    addr_file_offset_to_vaddr(m->segs, m->nsegs, f->addr, &vaddr) == 0)
				l.start_line = decl_line(&units, m, vaddr);
			profile_add_line(p, (uint32_t)i, &l);
		}
		symres_release(r);
		local.resolved++;
	}
	free(r);
	decl_units_release(&units);
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
		id = profile_add_module(p, m->path, hex, flags);
		if (m->reason)
			p->modules[id].reason = strtab_add(&p->str, module_reason_text(m->reason));
		/* The segments, for pprof to map offsets back to ELF addresses. */
		for (size_t k = 0; m->kind == MODULE_FILE && k < m->nsegs; k++) {
			struct pm_segment g = {
				.module = id,
				.flags = m->segs[k].flags,
				.offset = m->segs[k].offset,
				.vaddr = m->segs[k].vaddr,
				.filesz = m->segs[k].filesz,
				.memsz = m->segs[k].memsz,
			};

			profile_add_segment(p, &g);
		}
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

size_t symbolize_missing(const struct profile *p, struct missing **out)
{
	/* One slot per module, and the last for frames in no module. */
	struct missing *m = xcalloc(p->nmodules + 1, sizeof(*m));
	size_t n = 0;

	for (size_t i = 0; i <= p->nmodules; i++)
		m[i].module = i < p->nmodules ? (uint32_t)i : PM_NONE;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pm_stack *st = &p->stacks[p->samples[i].stack];

		for (uint32_t d = 0; d < st->depth; d++) {
			const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];
			struct missing *x = &m[f->module == PM_NONE ? p->nmodules : f->module];

			x->frames++;
			if (!f->nlines)
				x->unnamed++;
		}
	}
	for (size_t i = 0; i <= p->nmodules; i++)
		if (m[i].unnamed)
			m[n++] = m[i];
	qsort(m, n, sizeof(*m), cmp_missing);
	*out = m;
	return n;
}

void symbolize_print_missing(const struct profile *p, FILE *f, size_t max)
{
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
		fprintf(f, "perfmini: %s: %.1f%% of %llu frames without a name", name,
			100.0 * (double)m[i].unnamed / (double)m[i].frames,
			(unsigned long long)m[i].frames);
		if (r != REASON_NONE)
			fprintf(f, ": %s; %s", module_reason_text(r), module_reason_fix(r));
		fputc('\n', f);
	}
	if (n > max)
		fprintf(f, "perfmini: and %zu more modules with unnamed frames\n", n - max);
	free(m);
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
