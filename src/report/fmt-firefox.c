/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-firefox.c - the Firefox Profiler's processed profile format, version
 * 55 (preprocessedProfileVersion 55: the last one in which each thread
 * holds its own tables and string array), already symbolicated: the
 * profiler opens it as it is, and upgrades it to its current version.
 *
 * One thread per recorded thread, "comm", grouped into processes by pid
 * (processName: the main thread's name). Its samples are its events in
 * time order, times in milliseconds from the recording's start; CPU
 * samples count one each (weightType "samples"), off-CPU spans and wall
 * samples weigh their milliseconds ("tracing-ms"). Each table is a set of
 * columns of one length: stackTable (frame, prefix), frameTable (one row
 * per inlined level of a recorded frame), funcTable (name, file, first
 * line), resourceTable (one per module, pointing into the shared libs),
 * nativeSymbols empty. With off-CPU time and wake-ups recorded, each
 * sleep a wake-up ended is an interval marker, from the switch-out to the
 * wake-up, named after the waker ("Woken by COMM PID/TID").
 *
 * Invariant: every index points into its table or the thread's
 * stringArray, and a stack's prefix is below its own index.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "report/timeline.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define FIREFOX_VERSION 55
#define GECKO_VERSION	31 /* the Gecko format's version beside it */

enum category { CAT_OTHER, CAT_USER, CAT_KERNEL };

/* A JSON array built one value at a time. */
struct column {
	struct sbuf b;
};

static void col_sep(struct column *c)
{
	sbuf_adds(&c->b, c->b.len ? "," : "[");
}

static void col_u64(struct column *c, uint64_t v)
{
	col_sep(c);
	sbuf_addf(&c->b, "%" PRIu64, v);
}

static void col_raw(struct column *c, const char *json)
{
	col_sep(c);
	sbuf_adds(&c->b, json);
}

/* An index, or null for PM_NONE. */
static void col_index(struct column *c, uint32_t v)
{
	if (v == PM_NONE)
		col_raw(c, "null");
	else
		col_u64(c, v);
}

/* Writes "name":[...] and empties c. */
static void col_put(struct sbuf *out, const char *name, struct column *c)
{
	sbuf_addf(out, "\"%s\":", name);
	if (c->b.len)
		sbuf_addn(out, c->b.buf, c->b.len);
	else
		sbuf_adds(out, "[");
	sbuf_adds(out, "],");
	sbuf_reset(&c->b);
}

/* One thread's tables, emptied between threads. */
struct tables {
	/* stringArray */
	struct column strings;
	struct sbuf text; /* the strings, each NUL-terminated */
	size_t *string_at;
	size_t nstrings, strings_cap;
	struct hmap string_index;
	/* samples */
	struct column s_stack, s_time, s_weight;
	/* stackTable */
	struct column st_frame, st_prefix;
	size_t nstacks;
	struct hmap stack_index; /* (prefix + 1) << 32 | frame -> stack */
	/* frameTable */
	struct column f_address, f_inline, f_category, f_subcategory, f_func, f_native, f_window,
		f_line, f_column;
	size_t nframes;
	struct hmap frame_index; /* recorded frame << 32 | level -> frame */
	/* funcTable */
	struct column fn_name, fn_is_js, fn_relevant, fn_resource, fn_file, fn_line, fn_column;
	uint32_t (*func_key)[3]; /* name, file, resource */
	size_t nfuncs, funcs_cap;
	struct hmap func_index;
	/* resourceTable */
	struct column r_lib, r_name, r_host, r_type;
	size_t nresources;
	/* markers */
	struct column m_data, m_name, m_start, m_end, m_phase, m_category;
	size_t nmarkers;
	struct hmap resource_index; /* module -> resource */
};

struct firefox {
	const struct profile *p;
	const struct report_opts *o;
	struct timeline *t;
	struct tables tb;
	uint32_t *lib_of; /* module -> lib + 1, 0 for none yet */
	struct sbuf libs; /* their JSON objects, comma-separated */
	uint32_t nlibs;
	uint32_t *stack_of; /* profile stack -> its stack + 1 in this thread, 0 none yet */
	struct sbuf b;
};

/* String val of the thread's stringArray (tables ctx). */
static const char *string_at(uint64_t val, const void *ctx, size_t *len)
{
	const struct tables *tb = ctx;
	const char *at = tb->text.buf + tb->string_at[val];

	*len = strlen(at);
	return at;
}

/* The index of s in the thread's stringArray, added if new. */
static uint32_t string_of(struct tables *tb, const char *s)
{
	struct hmap_slot *slot;
	bool added;

	slot = hmap_intern_str(&tb->string_index, s, strlen(s), string_at, tb, &added);
	if (added) {
		xgrow(&tb->string_at, &tb->strings_cap, tb->nstrings + 1, sizeof(*tb->string_at));
		tb->string_at[tb->nstrings] = tb->text.len;
		sbuf_addn(&tb->text, s, strlen(s) + 1);
		col_sep(&tb->strings);
		sbuf_add_json(&tb->strings.b, s);
		slot->val = tb->nstrings++;
	}
	return (uint32_t)slot->val;
}

/* The shared lib of module m, added to libs if new. */
static uint32_t lib_of(struct firefox *x, uint32_t m)
{
	const struct profile *p = x->p;
	const char *path = strtab_get(&p->str, p->modules[m].path);
	const char *build_id = strtab_get(&p->str, p->modules[m].build_id);
	const char *arch = profile_get_meta(p, "arch");

	if (x->lib_of[m])
		return x->lib_of[m] - 1;
	if (x->nlibs)
		sbuf_adds(&x->libs, ",\n");
	sbuf_adds(&x->libs, "{\"arch\":");
	sbuf_add_json(&x->libs, arch ? arch : "");
	sbuf_adds(&x->libs, ",\"name\":");
	sbuf_add_json(&x->libs, report_base_name(path));
	sbuf_adds(&x->libs, ",\"path\":");
	sbuf_add_json(&x->libs, path);
	sbuf_adds(&x->libs, ",\"debugName\":");
	sbuf_add_json(&x->libs, report_base_name(path));
	sbuf_adds(&x->libs, ",\"debugPath\":");
	sbuf_add_json(&x->libs, path);
	sbuf_adds(&x->libs, ",\"breakpadId\":\"\",\"codeId\":");
	if (*build_id)
		sbuf_add_json(&x->libs, build_id);
	else
		sbuf_adds(&x->libs, "null");
	sbuf_adds(&x->libs, "}");
	x->lib_of[m] = ++x->nlibs;
	return x->lib_of[m] - 1;
}

/* The resource of module m (PM_NONE: none, -1), added if new. */
static int64_t resource_of(struct firefox *x, uint32_t m)
{
	struct tables *tb = &x->tb;
	struct hmap_slot *slot;
	bool added;

	if (m == PM_NONE)
		return -1;
	slot = hmap_insert(&tb->resource_index, m, &added);
	if (added) {
		const char *path = strtab_get(&x->p->str, x->p->modules[m].path);

		col_u64(&tb->r_lib, lib_of(x, m));
		col_u64(&tb->r_name, string_of(tb, report_base_name(path)));
		col_raw(&tb->r_host, "null");
		col_u64(&tb->r_type, 1); /* a library */
		slot->val = tb->nresources++;
	}
	return (int64_t)slot->val;
}

struct func_key {
	const struct tables *tb;
	uint32_t key[3];
};

static bool same_func(uint64_t val, const void *arg)
{
	const struct func_key *k = arg;

	return memcmp(k->tb->func_key[val], k->key, sizeof(k->key)) == 0;
}

/* The func of one level of recorded frame f: its name, file and first line. */
static uint32_t func_of(struct firefox *x, uint32_t f, uint32_t level, const struct pm_line *l)
{
	const struct profile *p = x->p;
	struct tables *tb = &x->tb;
	int64_t res = resource_of(x, p->frames[f].module);
	struct func_key k = {tb, {0, PM_NONE, (uint32_t)res}};
	struct hmap_slot *slot;
	bool added;

	sbuf_reset(&x->b);
	report_level_name(p, f, level, &x->o->names, &x->b);
	k.key[0] = string_of(tb, x->b.buf);
	if (l && *strtab_get(&p->str, l->file))
		k.key[1] = string_of(tb, strtab_get(&p->str, l->file));
	slot = hmap_intern(&tb->func_index, hash_bytes(k.key, sizeof(k.key)), same_func, &k,
			   &added);
	if (added) {
		xgrow(&tb->func_key, &tb->funcs_cap, tb->nfuncs + 1, sizeof(*tb->func_key));
		memcpy(tb->func_key[tb->nfuncs], k.key, sizeof(k.key));
		col_u64(&tb->fn_name, k.key[0]);
		col_raw(&tb->fn_is_js, "false");
		col_raw(&tb->fn_relevant, "false");
		col_sep(&tb->fn_resource);
		sbuf_addf(&tb->fn_resource.b, "%" PRId64, res);
		col_index(&tb->fn_file, k.key[1]);
		col_index(&tb->fn_line, l && l->start_line ? l->start_line : PM_NONE);
		col_raw(&tb->fn_column, "null");
		slot->val = tb->nfuncs++;
	}
	return (uint32_t)slot->val;
}

/* The frame of one level of recorded frame f, added if new. */
static uint32_t frame_of(struct firefox *x, uint32_t f, uint32_t level)
{
	const struct profile *p = x->p;
	const struct pm_frame *fr = &p->frames[f];
	const struct pm_line *l = report_level_line(p, f, level, &x->o->names);
	struct tables *tb = &x->tb;
	struct hmap_slot *slot;
	uint32_t func;
	bool added;

	slot = hmap_find(&tb->frame_index, (uint64_t)f << 32 | level);
	if (slot)
		return (uint32_t)slot->val;
	func = func_of(x, f, level, l);
	/* Addresses are relative to their lib: file offsets of modules. */
	col_sep(&tb->f_address);
	if (fr->module != PM_NONE && !(fr->flags & PM_FRAME_KERNEL))
		sbuf_addf(&tb->f_address.b, "%" PRIu64, fr->addr);
	else
		sbuf_adds(&tb->f_address.b, "-1");
	col_u64(&tb->f_inline, level);
	col_u64(&tb->f_category, fr->flags & PM_FRAME_KERNEL ? CAT_KERNEL : CAT_USER);
	col_u64(&tb->f_subcategory, 0);
	col_u64(&tb->f_func, func);
	col_raw(&tb->f_native, "null");
	col_raw(&tb->f_window, "null");
	col_index(&tb->f_line, l && l->line ? l->line : PM_NONE);
	col_raw(&tb->f_column, "null");
	slot = hmap_insert(&tb->frame_index, (uint64_t)f << 32 | level, &added);
	slot->val = tb->nframes++;
	return (uint32_t)slot->val;
}

/* The stack of prefix (PM_NONE: a root) and frame, added if new. */
static uint32_t stack_of(struct tables *tb, uint32_t prefix, uint32_t frame)
{
	struct hmap_slot *slot;
	bool added;

	slot = hmap_insert(&tb->stack_index, (uint64_t)(prefix + 1ULL) << 32 | frame, &added);
	if (added) {
		col_u64(&tb->st_frame, frame);
		col_index(&tb->st_prefix, prefix);
		slot->val = tb->nstacks++;
	}
	return (uint32_t)slot->val;
}

/* The thread's stack of profile stack sid: its kept frames, outermost first. */
static uint32_t thread_stack(struct firefox *x, uint32_t sid)
{
	const uint32_t *frames;
	uint32_t n, prefix = PM_NONE;

	if (x->stack_of[sid])
		return x->stack_of[sid] - 1;
	n = timeline_frames(x->t, x->p, x->o, sid, &frames);
	for (uint32_t d = n; d-- > 0;) {
		uint32_t f = frames[d];
		uint32_t levels = report_frame_levels(x->p, f, &x->o->names);

		for (uint32_t k = 0; k < levels; k++)
			prefix = stack_of(&x->tb, prefix, frame_of(x, f, k));
	}
	x->stack_of[sid] = prefix + 1; /* PM_NONE + 1 == 0: an empty stack, null */
	return prefix;
}

/* Empties tb for the next thread; a zeroed tb (x's, at first) is initialized by it. */
static void tables_reset(struct tables *tb)
{
	struct column *cols[] = {
		&tb->strings,	 &tb->s_stack,	     &tb->s_time,      &tb->s_weight,
		&tb->st_frame,	 &tb->st_prefix,     &tb->f_address,   &tb->f_inline,
		&tb->f_category, &tb->f_subcategory, &tb->f_func,      &tb->f_native,
		&tb->f_window,	 &tb->f_line,	     &tb->f_column,    &tb->fn_name,
		&tb->fn_is_js,	 &tb->fn_relevant,   &tb->fn_resource, &tb->fn_file,
		&tb->fn_line,	 &tb->fn_column,     &tb->r_lib,       &tb->r_name,
		&tb->r_host,	 &tb->r_type,	     &tb->m_data,      &tb->m_name,
		&tb->m_start,	 &tb->m_end,	     &tb->m_phase,     &tb->m_category,
	};
	struct hmap *maps[] = {&tb->string_index, &tb->stack_index, &tb->frame_index,
			       &tb->func_index, &tb->resource_index};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		sbuf_reset(&cols[i]->b);
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		hmap_release(maps[i]);
		hmap_init(maps[i]);
	}
	sbuf_reset(&tb->text);
	tb->nstrings = tb->nstacks = tb->nframes = tb->nfuncs = tb->nresources = tb->nmarkers = 0;
}

static void tables_release(struct tables *tb)
{
	struct column *cols[] = {
		&tb->strings,	 &tb->s_stack,	     &tb->s_time,      &tb->s_weight,
		&tb->st_frame,	 &tb->st_prefix,     &tb->f_address,   &tb->f_inline,
		&tb->f_category, &tb->f_subcategory, &tb->f_func,      &tb->f_native,
		&tb->f_window,	 &tb->f_line,	     &tb->f_column,    &tb->fn_name,
		&tb->fn_is_js,	 &tb->fn_relevant,   &tb->fn_resource, &tb->fn_file,
		&tb->fn_line,	 &tb->fn_column,     &tb->r_lib,       &tb->r_name,
		&tb->r_host,	 &tb->r_type,	     &tb->m_data,      &tb->m_name,
		&tb->m_start,	 &tb->m_end,	     &tb->m_phase,     &tb->m_category,
	};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		sbuf_release(&cols[i]->b);
	sbuf_release(&tb->text);
	free(tb->string_at);
	free(tb->func_key);
	hmap_release(&tb->string_index);
	hmap_release(&tb->stack_index);
	hmap_release(&tb->frame_index);
	hmap_release(&tb->func_index);
	hmap_release(&tb->resource_index);
}

/* Milliseconds of ns, exactly, as a JSON number. */
static void add_ms(struct sbuf *b, uint64_t ns)
{
	sbuf_addf(b, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);
}

/* The name of process pid: its main thread's, else that of its first thread. */
static const char *process_name(const struct firefox *x, uint32_t pid, uint32_t fallback)
{
	const struct profile *p = x->p;

	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].pid == pid && p->threads[i].tid == pid)
			return strtab_get(&p->str, p->threads[i].comm);
	for (size_t i = 0; i < x->t->nthreads; i++)
		if (x->t->threads[i].pid == pid && x->t->threads[i].tid == pid)
			return strtab_get(&p->str, x->t->threads[i].comm);
	return strtab_get(&p->str, fallback);
}

/* A thread's stack, frame, function and resource tables, from its columns. */
static void write_tables(struct tables *tb, struct sbuf *out)
{
	sbuf_adds(out, "\"stackTable\":{");
	col_put(out, "frame", &tb->st_frame);
	col_put(out, "prefix", &tb->st_prefix);
	sbuf_addf(out, "\"length\":%zu},\n", tb->nstacks);

	sbuf_adds(out, "\"frameTable\":{");
	col_put(out, "address", &tb->f_address);
	col_put(out, "inlineDepth", &tb->f_inline);
	col_put(out, "category", &tb->f_category);
	col_put(out, "subcategory", &tb->f_subcategory);
	col_put(out, "func", &tb->f_func);
	col_put(out, "nativeSymbol", &tb->f_native);
	col_put(out, "innerWindowID", &tb->f_window);
	col_put(out, "line", &tb->f_line);
	col_put(out, "column", &tb->f_column);
	sbuf_addf(out, "\"length\":%zu},\n", tb->nframes);

	sbuf_adds(out, "\"funcTable\":{");
	col_put(out, "name", &tb->fn_name);
	col_put(out, "isJS", &tb->fn_is_js);
	col_put(out, "relevantForJS", &tb->fn_relevant);
	col_put(out, "resource", &tb->fn_resource);
	col_put(out, "fileName", &tb->fn_file);
	col_put(out, "lineNumber", &tb->fn_line);
	col_put(out, "columnNumber", &tb->fn_column);
	sbuf_addf(out, "\"length\":%zu},\n", tb->nfuncs);

	sbuf_adds(out, "\"resourceTable\":{");
	col_put(out, "lib", &tb->r_lib);
	col_put(out, "name", &tb->r_name);
	col_put(out, "host", &tb->r_host);
	col_put(out, "type", &tb->r_type);
	sbuf_addf(out, "\"length\":%zu},\n", tb->nresources);
}

/* The marker of the wake-up that ended off-CPU span index, if one was seen. */
static void add_wake_marker(struct firefox *x, uint32_t index)
{
	const struct profile *p = x->p;
	const struct pm_offcpu *s = &p->offcpu[index];
	struct tables *tb = &x->tb;
	uint64_t sleeping, runnable;
	const struct pm_wakeup *w = aggregate_offcpu_split(p, s, &sleeping, &runnable);
	uint32_t stack;

	if (!w || (s->flags & PM_OFFCPU_PREEMPTED))
		return;
	/* The waker's stack, as the marker's cause: its frames join this thread's tables. */
	stack = thread_stack(x, w->stack);
	sbuf_reset(&x->b);
	sbuf_adds(&x->b, "{\"type\":\"Wakeup\",\"waker\":");
	sbuf_add_json(&x->b, strtab_get(&p->str, w->comm));
	sbuf_addf(&x->b, ",\"wakerPid\":%u,\"wakerTid\":%u", w->pid, w->tid);
	if (stack != PM_NONE) {
		sbuf_adds(&x->b, ",\"cause\":{\"time\":");
		add_ms(&x->b, s->time + sleeping);
		sbuf_addf(&x->b, ",\"stack\":%u}", stack);
	}
	sbuf_adds(&x->b, "}");
	col_raw(&tb->m_data, x->b.buf);
	sbuf_reset(&x->b);
	sbuf_addf(&x->b, "Woken by %s %u/%u", strtab_get(&p->str, w->comm), w->pid, w->tid);
	col_u64(&tb->m_name, string_of(tb, x->b.buf));
	col_sep(&tb->m_start);
	add_ms(&tb->m_start.b, s->time);
	col_sep(&tb->m_end);
	add_ms(&tb->m_end.b, s->time + sleeping);
	col_u64(&tb->m_phase, 1); /* an interval */
	col_u64(&tb->m_category, CAT_OTHER);
	tb->nmarkers++;
}

static void write_thread(struct firefox *x, const struct tl_thread *th, struct sbuf *out)
{
	const struct profile *p = x->p;
	struct tables *tb = &x->tb;
	bool timed = x->o->sample_type != REPORT_CPU;
	size_t first = th - x->t->threads;

	tables_reset(tb);
	memset(x->stack_of, 0, (p->nstacks ? p->nstacks : 1) * sizeof(*x->stack_of));
	for (size_t i = 0; i < th->n; i++) {
		const struct tl_event *e = &x->t->events[th->first + i];

		col_index(&tb->s_stack, thread_stack(x, e->stack));
		col_sep(&tb->s_time);
		add_ms(&tb->s_time.b, e->time);
		if (timed) {
			col_sep(&tb->s_weight);
			add_ms(&tb->s_weight.b, e->weight);
		}
		if (e->offcpu)
			add_wake_marker(x, e->index);
	}
	sbuf_adds(out, first ? ",\n{" : "{");
	sbuf_adds(out, "\"processType\":\"default\",\"processStartupTime\":0,"
		       "\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
		       "\"pausedRanges\":[],\"name\":");
	sbuf_add_json(out, strtab_get(&p->str, th->comm));
	sbuf_adds(out, ",\"processName\":");
	sbuf_add_json(out, process_name(x, th->pid, th->comm));
	sbuf_addf(out, ",\"isMainThread\":%s,\"pid\":\"%u\",\"tid\":%u,\n",
		  th->pid == th->tid ? "true" : "false", th->pid, th->tid);

	sbuf_adds(out, "\"samples\":{");
	col_put(out, "stack", &tb->s_stack);
	col_put(out, "time", &tb->s_time);
	if (timed) {
		col_put(out, "weight", &tb->s_weight);
		sbuf_adds(out, "\"weightType\":\"tracing-ms\",");
	} else {
		sbuf_adds(out, "\"weight\":null,\"weightType\":\"samples\",");
	}
	sbuf_addf(out, "\"length\":%zu},\n", th->n);

	sbuf_adds(out, "\"markers\":{");
	col_put(out, "data", &tb->m_data);
	col_put(out, "name", &tb->m_name);
	col_put(out, "startTime", &tb->m_start);
	col_put(out, "endTime", &tb->m_end);
	col_put(out, "phase", &tb->m_phase);
	col_put(out, "category", &tb->m_category);
	sbuf_addf(out, "\"length\":%zu},\n", tb->nmarkers);

	write_tables(tb, out);

	sbuf_adds(out, "\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],"
		       "\"functionSize\":[],\"length\":0},\n");
	col_put(out, "stringArray", &tb->strings);
	out->len--; /* col_put's trailing comma */
	sbuf_adds(out, "}");
}

int fmt_firefox(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	struct firefox x = {.p = p, .o = o, .libs = SBUF_INIT, .b = SBUF_INIT};
	struct sbuf threads = SBUF_INIT, meta = SBUF_INIT;
	uint64_t freq = profile_get_meta_u64(p, "frequency"),
		 period = profile_get_meta_u64(p, "period");
	uint64_t duration = profile_get_meta_u64(p, "duration-ns");

	x.t = timeline_new(p, o);
	x.lib_of = xcalloc(p->nmodules ? p->nmodules : 1, sizeof(*x.lib_of));
	x.stack_of = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*x.stack_of));
	for (size_t i = 0; i < x.t->nthreads; i++) {
		write_thread(&x, &x.t->threads[i], &threads);
		if (x.t->threads[i].end_time > duration)
			duration = x.t->threads[i].end_time;
	}

	/* The sampling interval in ms: cpu-clock periods are nanoseconds. */
	sbuf_adds(&meta, "{\"meta\":{\"interval\":");
	if (freq)
		sbuf_addf(&meta, "%.6f", 1000.0 / (double)freq);
	else if (period)
		add_ms(&meta, period);
	else
		sbuf_adds(&meta, "1");
	sbuf_addf(&meta,
		  ",\"startTime\":%" PRIu64 ",\"profilingStartTime\":0,\"profilingEndTime\":",
		  profile_get_meta_u64(p, "start-time") * 1000);
	add_ms(&meta, duration);
	sbuf_addf(&meta,
		  ",\"processType\":0,\"product\":\"perfmini\",\"stackwalk\":1,"
		  "\"version\":%d,\"preprocessedProfileVersion\":%d,\"symbolicated\":true,"
		  "\"importedFrom\":\"perfmini " PACKAGE_VERSION "\",\"markerSchema\":[],\n"
		  "\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":"
		  "[\"Other\"]},{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":"
		  "[\"Other\"]},{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":"
		  "[\"Other\"]}]},\n\"threads\":[",
		  GECKO_VERSION, FIREFOX_VERSION);
	fwrite(meta.buf, 1, meta.len, out);
	if (threads.len)
		fwrite(threads.buf, 1, threads.len, out);
	fputs("],\n\"libs\":[", out);
	if (x.libs.len)
		fwrite(x.libs.buf, 1, x.libs.len, out);
	fputs("]}\n", out);

	sbuf_release(&threads);
	sbuf_release(&meta);
	sbuf_release(&x.libs);
	sbuf_release(&x.b);
	tables_release(&x.tb);
	free(x.lib_of);
	free(x.stack_of);
	timeline_free(x.t);
	return 0;
}
