/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_profile.c - building a profile (interning of strings, frames and
 * stacks) and the data file: encode/decode round trip, every way a damaged
 * file must be refused, and the atomic 0600 write.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "store/datafile.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"

/* The message of the last failed datafile_* call on a file. */
static char file_err[512];

START_TEST(test_strtab)
{
	struct strtab t;
	uint32_t a, b, c, offs[3000];
	char buf[32];

	strtab_init(&t);
	ck_assert_uint_eq(strtab_add(&t, ""), 0);
	ck_assert_str_eq(strtab_get(&t, 0), "");
	a = strtab_add(&t, "hello");
	b = strtab_add(&t, "world");
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(strtab_add(&t, "hello"), a);
	ck_assert_uint_eq(strtab_addn(&t, "hello, world", 5), a);
	c = strtab_addn(&t, "hell", 4); /* a prefix is a string of its own */
	ck_assert_uint_ne(c, a);
	ck_assert_str_eq(strtab_get(&t, c), "hell");
	ck_assert_str_eq(strtab_get(&t, a), "hello");

	/* Offsets stay valid and unique across growth. */
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "string number %d", i);
		offs[i] = strtab_add(&t, buf);
	}
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "string number %d", i);
		ck_assert_str_eq(strtab_get(&t, offs[i]), buf);
		ck_assert_uint_eq(strtab_add(&t, buf), offs[i]);
	}
	ck_assert_str_eq(strtab_get(&t, a), "hello");
	ck_assert_uint_eq(strtab_add(&t, "world"), b);
	strtab_release(&t);
}
END_TEST

START_TEST(test_intern_frames)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/usr/bin/x", "", 0);
	uint32_t f1 = profile_intern_frame(p, m, 0, 0x1000);
	uint32_t f2 = profile_intern_frame(p, m, 0, 0x1001);
	uint32_t f3 = profile_intern_frame(p, PM_NONE, 0, 0x1000);
	uint32_t f4 = profile_intern_frame(p, m, PM_FRAME_KERNEL, 0x1000);

	ck_assert_uint_ne(f1, f2);
	ck_assert_uint_ne(f1, f3);
	ck_assert_uint_ne(f1, f4);
	ck_assert_uint_ne(f3, f4);
	ck_assert_uint_eq(p->nframes, 4);
	ck_assert_uint_eq(profile_intern_frame(p, m, 0, 0x1000), f1);
	ck_assert_uint_eq(profile_intern_frame(p, PM_NONE, 0, 0x1000), f3);
	ck_assert_uint_eq(p->nframes, 4);
	ck_assert_uint_eq(p->frames[f2].module, m);
	ck_assert_uint_eq(p->frames[f2].addr, 0x1001);
	ck_assert_uint_eq(p->frames[f4].flags, PM_FRAME_KERNEL);
	ck_assert_uint_eq(p->frames[f4].nlines, 0);

	/* Many frames: ids stay stable while the index grows. */
	for (uint64_t a = 0; a < 5000; a++)
		ck_assert_uint_eq(profile_intern_frame(p, m, 0, 0x100000 + a), 4 + a);
	for (uint64_t a = 0; a < 5000; a++)
		ck_assert_uint_eq(profile_intern_frame(p, m, 0, 0x100000 + a), 4 + a);
	ck_assert_uint_eq(profile_intern_frame(p, m, 0, 0x1000), f1);
	profile_free(p);
}
END_TEST

START_TEST(test_intern_stacks)
{
	struct profile *p = profile_new();
	const uint32_t a[] = {1, 2, 3}, b[] = {3, 2, 1}, c[] = {1, 2};
	uint32_t sa, sb, sc;

	sa = profile_intern_stack(p, a, 3);
	sb = profile_intern_stack(p, b, 3);
	sc = profile_intern_stack(p, c, 2);
	ck_assert_uint_ne(sa, sb);
	ck_assert_uint_ne(sa, sc);
	ck_assert_uint_eq(profile_intern_stack(p, a, 3), sa);
	ck_assert_uint_eq(profile_intern_stack(p, a, 2), sc); /* a's prefix is c */
	ck_assert_uint_eq(p->nstacks, 3);
	ck_assert_uint_eq(p->nstack_frames, 8);
	ck_assert_uint_eq(p->stacks[sb].depth, 3);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(p->stack_frames[p->stacks[sb].off + i], b[i]);
	for (uint32_t i = 0; i < 2; i++)
		ck_assert_uint_eq(p->stack_frames[p->stacks[sc].off + i], c[i]);

	/* Many stacks, and the old ones still found. */
	for (uint32_t i = 0; i < 3000; i++) {
		uint32_t fr[2] = {100 + i, 101 + i};

		ck_assert_uint_eq(profile_intern_stack(p, fr, 2), 3 + i);
	}
	ck_assert_uint_eq(profile_intern_stack(p, b, 3), sb);
	profile_free(p);
}
END_TEST

/* keep_module: every module but the one arg points at. */
static bool keep_but(uint32_t module, void *arg)
{
	return module != *(const uint32_t *)arg;
}

/*
 * What a finished slice keeps for its names alone: the named frames of
 * the modules kept, which the slice after finds and takes lines from;
 * nothing of a module let go, and no stack.
 */
START_TEST(test_carry)
{
	struct profile *p = profile_new(), *c, *next;
	uint32_t m = profile_add_module(p, "/usr/bin/x", "", 0);
	uint32_t gone = profile_add_module(p, "/tmp/gone", "", 0);
	uint32_t f[3], fg, st, g;
	struct pm_line l = {.func = strtab_add(&p->str, "work"),
			    .file = strtab_add(&p->str, "w.c"),
			    .line = 42};
	struct pm_segment seg = {.module = gone};

	for (uint32_t i = 0; i < 3; i++)
		f[i] = profile_intern_frame(p, m, 0, 0x1000 + 16 * i);
	fg = profile_intern_frame(p, gone, 0, 0x1010);
	profile_add_line(p, f[1], &l);
	profile_add_line(p, fg, &l);
	profile_add_segment(p, &seg);
	st = profile_intern_stack(p, f, 3);
	profile_count_sample(p, st);
	next = profile_new_next(p, keep_but, &gone);
	c = profile_carry(p, keep_but, &gone);
	profile_free(p);

	/* The named frame of the module kept, its lines, and only it. */
	ck_assert_uint_eq(c->nframes, 1);
	ck_assert_uint_eq(c->nstacks + c->nstack_frames + c->nsegments, 0);
	ck_assert_ptr_null(c->stack_samples);
	ck_assert_uint_eq(profile_find_frame(c, m, 0, 0x1000), PM_NONE);
	ck_assert_uint_eq(profile_find_frame(c, gone, 0, 0x1010), PM_NONE);
	g = profile_find_frame(c, m, 0, 0x1010);
	ck_assert_uint_ne(g, PM_NONE);
	ck_assert_uint_eq(c->frames[g].nlines, 1);
	/* Its modules under the same ids; the one let go has no path and is dropped. */
	ck_assert_uint_eq(c->nmodules, 2);
	ck_assert_str_eq(strtab_get(&c->str, c->modules[m].path), "/usr/bin/x");
	ck_assert(profile_module_dropped(c, gone));
	ck_assert_uint_eq(c->modules[gone].path, 0);

	/* The slice after takes the name, and interns stacks of its own. */
	g = profile_intern_frame(next, m, 0, 0x1010);
	profile_copy_lines(next, g, c, profile_find_frame(c, m, 0, 0x1010));
	ck_assert_uint_eq(next->frames[g].nlines, 1);
	ck_assert_str_eq(strtab_get(&next->str, next->lines[next->frames[g].line0].func), "work");
	ck_assert_uint_eq(next->lines[next->frames[g].line0].line, 42);
	ck_assert_uint_eq(profile_intern_stack(next, &g, 1), 0);
	profile_free(c);
	profile_free(next);
}
END_TEST

START_TEST(test_meta)
{
	struct profile *p = profile_new();

	ck_assert_ptr_null(profile_get_meta(p, "command"));
	profile_set_meta(p, "command", "a.out");
	profile_set_meta(p, "event", "cpu-clock");
	profile_set_meta(p, "command", "b.out");
	ck_assert_uint_eq(p->nmeta, 2);
	ck_assert_str_eq(profile_get_meta(p, "command"), "b.out");
	ck_assert_str_eq(profile_get_meta(p, "event"), "cpu-clock");
	ck_assert_ptr_null(profile_get_meta(p, "comm"));
	profile_free(p);
}
END_TEST

/* A small profile with something in every array. */
static struct profile *make_profile(void)
{
	struct profile *p = profile_new();
	uint32_t mx, mk, f0, f1, fk, fu, s0, s1, s2;
	struct pm_line l;
	struct pm_sample s = {0};

	profile_set_meta(p, "command", "demo --fast");
	profile_set_meta(p, "event", "cpu-clock");
	mx = profile_add_module(p, "/usr/bin/demo", "0123456789abcdef0123456789abcdef01234567", 0);
	mk = profile_add_module(p, "[kernel.kallsyms]", "", PM_MODULE_KERNEL);
	profile_add_module(p, "[vdso]", NULL, PM_MODULE_VDSO);
	p->modules[mk].reason = strtab_add(&p->str, "kernel symbols hidden");

	f0 = profile_intern_frame(p, mx, 0, 0x1130);
	f1 = profile_intern_frame(p, mx, 0, 0x1207);
	fk = profile_intern_frame(p, mk, PM_FRAME_KERNEL, 0xffffffff81000123ULL);
	fu = profile_intern_frame(p, PM_NONE, 0, 0x7f00deadbeefULL);

	l = (struct pm_line){
		strtab_add(&p->str, "hot"), strtab_add(&p->str, "demo.c"), 10, 0, 0x10, 7, 0};
	profile_add_line(p, f0, &l);
	l = (struct pm_line){strtab_add(&p->str, "inlined_helper"),
			     strtab_add(&p->str, "demo.h"),
			     3,
			     PM_LINE_INLINED,
			     0x37,
			     1,
			     0};
	profile_add_line(p, f1, &l);
	l = (struct pm_line){
		strtab_add(&p->str, "main"), strtab_add(&p->str, "demo.c"), 42, 0, 0x57, 0, 0};
	profile_add_line(p, f1, &l);
	profile_add_segment(p, &(struct pm_segment){mx, 4, 0, 0, 0x5a4, 0x5a4});
	profile_add_segment(p, &(struct pm_segment){mx, 5, 0x5b0, 0x15b0, 0x1234, 0x1234});

	s0 = profile_intern_stack(p, (uint32_t[]){f0, f1}, 2);
	s1 = profile_intern_stack(p, (uint32_t[]){fk, f0, f1}, 3);
	s2 = profile_intern_stack(p, (uint32_t[]){fu}, 1);

	s.comm = strtab_add(&p->str, "demo");
	s.pid = 1000;
	s.tid = 1000;
	for (int i = 0; i < 6; i++) {
		s.cgroup = i % 2 ? strtab_add(&p->str, "/system.slice/demo.service") : 0;
		s.time = 1000000ULL * (uint64_t)i + 17;
		s.period = 250000 + (uint64_t)i;
		s.cpu = (uint32_t)i % 4;
		s.stack = i % 3 == 0 ? s0 : i % 3 == 1 ? s1 : s2;
		s.tid = 1000 + (uint32_t)i % 2;
		profile_add_sample(p, &s);
	}
	profile_add_thread(p, 1000, 1000, "demo");
	profile_add_thread(p, 1000, 1001, "demo-worker");
	p->threads[1].cgroup = strtab_add(&p->str, "/system.slice/demo.service");
	return p;
}

static void assert_same_profile(const struct profile *a, const struct profile *b)
{
	ck_assert_uint_eq(a->str.len, b->str.len);
	ck_assert_mem_eq(a->str.buf, b->str.buf, a->str.len);
	ck_assert_uint_eq(a->nmeta, b->nmeta);
	for (size_t i = 0; i < a->nmeta; i++) {
		ck_assert_uint_eq(a->meta[i].key, b->meta[i].key);
		ck_assert_uint_eq(a->meta[i].value, b->meta[i].value);
	}
	ck_assert_uint_eq(a->nmodules, b->nmodules);
	for (size_t i = 0; i < a->nmodules; i++) {
		ck_assert_uint_eq(a->modules[i].path, b->modules[i].path);
		ck_assert_uint_eq(a->modules[i].build_id, b->modules[i].build_id);
		ck_assert_uint_eq(a->modules[i].flags, b->modules[i].flags);
		ck_assert_uint_eq(a->modules[i].reason, b->modules[i].reason);
	}
	ck_assert_uint_eq(a->nframes, b->nframes);
	for (size_t i = 0; i < a->nframes; i++) {
		ck_assert_uint_eq(a->frames[i].module, b->frames[i].module);
		ck_assert_uint_eq(a->frames[i].flags, b->frames[i].flags);
		ck_assert_uint_eq(a->frames[i].addr, b->frames[i].addr);
		ck_assert_uint_eq(a->frames[i].line0, b->frames[i].line0);
		ck_assert_uint_eq(a->frames[i].nlines, b->frames[i].nlines);
	}
	ck_assert_uint_eq(a->nlines, b->nlines);
	for (size_t i = 0; i < a->nlines; i++) {
		ck_assert_uint_eq(a->lines[i].func, b->lines[i].func);
		ck_assert_uint_eq(a->lines[i].file, b->lines[i].file);
		ck_assert_uint_eq(a->lines[i].line, b->lines[i].line);
		ck_assert_uint_eq(a->lines[i].flags, b->lines[i].flags);
		ck_assert_uint_eq(a->lines[i].symoff, b->lines[i].symoff);
		ck_assert_uint_eq(a->lines[i].start_line, b->lines[i].start_line);
	}
	ck_assert_uint_eq(a->nsegments, b->nsegments);
	for (size_t i = 0; i < a->nsegments; i++)
		ck_assert_mem_eq(&a->segments[i], &b->segments[i], sizeof(a->segments[i]));
	ck_assert_uint_eq(a->nstack_frames, b->nstack_frames);
	for (size_t i = 0; i < a->nstack_frames; i++)
		ck_assert_uint_eq(a->stack_frames[i], b->stack_frames[i]);
	ck_assert_uint_eq(a->nstacks, b->nstacks);
	for (size_t i = 0; i < a->nstacks; i++) {
		ck_assert_uint_eq(a->stacks[i].off, b->stacks[i].off);
		ck_assert_uint_eq(a->stacks[i].depth, b->stacks[i].depth);
	}
	ck_assert_uint_eq(a->nsamples, b->nsamples);
	for (size_t i = 0; i < a->nsamples; i++) {
		const struct pm_sample *x = &a->samples[i], *y = &b->samples[i];

		ck_assert_uint_eq(x->time, y->time);
		ck_assert_uint_eq(x->period, y->period);
		ck_assert_uint_eq(x->pid, y->pid);
		ck_assert_uint_eq(x->tid, y->tid);
		ck_assert_uint_eq(x->cpu, y->cpu);
		ck_assert_uint_eq(x->stack, y->stack);
		ck_assert_uint_eq(x->comm, y->comm);
		ck_assert_uint_eq(x->cgroup, y->cgroup);
	}
	ck_assert_uint_eq(a->nthreads, b->nthreads);
	for (size_t i = 0; i < a->nthreads; i++) {
		ck_assert_uint_eq(a->threads[i].pid, b->threads[i].pid);
		ck_assert_uint_eq(a->threads[i].tid, b->threads[i].tid);
		ck_assert_uint_eq(a->threads[i].comm, b->threads[i].comm);
		ck_assert_uint_eq(a->threads[i].cgroup, b->threads[i].cgroup);
	}
}

static struct profile *decode(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	unsigned char *copy = unit_exact_copy(buf, len);
	struct profile *p;

	err[0] = '\0';
	p = datafile_decode(copy, len, err, errlen);
	free(copy);
	return p;
}

/*
 * The next slice's profile: the meta entries, the modules under the same
 * ids (paths, build-ids, flags, reasons) and their segments, nothing else.
 */
START_TEST(test_new_next)
{
	struct profile *p = make_profile(), *n = profile_new_next(p, NULL, NULL);

	ck_assert_uint_eq(n->nmodules, p->nmodules);
	for (size_t i = 0; i < p->nmodules; i++) {
		ck_assert_str_eq(strtab_get(&n->str, n->modules[i].path),
				 strtab_get(&p->str, p->modules[i].path));
		ck_assert_str_eq(strtab_get(&n->str, n->modules[i].build_id),
				 strtab_get(&p->str, p->modules[i].build_id));
		ck_assert_str_eq(strtab_get(&n->str, n->modules[i].reason),
				 strtab_get(&p->str, p->modules[i].reason));
		ck_assert_uint_eq(n->modules[i].flags, p->modules[i].flags);
	}
	ck_assert_str_eq(strtab_get(&n->str, n->modules[1].reason), "kernel symbols hidden");
	ck_assert_uint_eq(n->nsegments, 2);
	ck_assert_mem_eq(n->segments, p->segments, 2 * sizeof(*n->segments));
	ck_assert_str_eq(profile_get_meta(n, "command"), "demo --fast");
	ck_assert_uint_eq(n->nmeta, p->nmeta);
	ck_assert_uint_eq(n->nframes + n->nlines + n->nstacks + n->nstack_frames, 0);
	ck_assert_uint_eq(n->nsamples + n->nthreads + n->noffcpu, 0);
	/* Room for half as many frames and stacks as p has, its indexes grown at once. */
	ck_assert_uint_ge(n->frames_cap, p->nframes / 2);
	ck_assert_uint_ge(n->stacks_cap, p->nstacks / 2);
	ck_assert_uint_ge(n->lines_cap, p->nlines / 2);
	ck_assert_uint_ge(n->stack_frames_cap, p->nstack_frames / 2);
	ck_assert_uint_ge(n->frame_index.cap, p->nframes);
	ck_assert_uint_ge(n->stack_index.cap, p->nstacks);
	/* Its own interning: the same frame again is its first. */
	ck_assert_uint_eq(profile_intern_frame(n, 0, 0, 0x1207), 0);
	profile_free(p);
	profile_free(n);
}
END_TEST

/*
 * A module the next slice does not keep has its id, kind and owner there,
 * and no path, build-id, reason or segment, until a frame of it brings
 * its path back; the others are as they were.
 */
START_TEST(test_new_next_drops)
{
	struct profile *p = make_profile(), *n;
	uint32_t gone = 0, other = 1;

	p->modules[0].owner = 1000;
	p->modules[0].flags |= 3u << PM_MODULE_REASON_SHIFT;
	p->modules[0].reason = strtab_add(&p->str, "no symbols");
	n = profile_new_next(p, keep_but, &gone);
	ck_assert_uint_eq(n->nmodules, p->nmodules);
	ck_assert_str_eq(strtab_get(&n->str, n->modules[0].path), "");
	ck_assert_str_eq(strtab_get(&n->str, n->modules[0].build_id), "");
	ck_assert_uint_eq(n->modules[0].reason, 0);
	ck_assert_uint_eq(PM_MODULE_REASON(n->modules[0].flags), 0);
	ck_assert_uint_eq(n->modules[0].owner, 1000);
	ck_assert_uint_eq(n->nsegments, 0);
	ck_assert(profile_module_dropped(n, 0));
	ck_assert(!profile_module_dropped(n, 1));
	ck_assert(!profile_module_dropped(n, 7));
	ck_assert(!profile_module_has_segments(n, 0));
	ck_assert_str_eq(strtab_get(&n->str, n->modules[1].reason), "kernel symbols hidden");
	ck_assert_uint_eq(n->modules[1].flags, PM_MODULE_KERNEL);
	profile_module_back(n, 0, "/usr/bin/demo");
	profile_module_back(n, 1, "/elsewhere"); /* kept: as it was */
	ck_assert_str_eq(strtab_get(&n->str, n->modules[0].path), "/usr/bin/demo");
	ck_assert_str_eq(strtab_get(&n->str, n->modules[1].path), "[kernel.kallsyms]");
	profile_free(n);
	/* The demo program kept: its facts and both segments go on. */
	n = profile_new_next(p, keep_but, &other);
	ck_assert_str_eq(strtab_get(&n->str, n->modules[0].build_id),
			 "0123456789abcdef0123456789abcdef01234567");
	ck_assert_str_eq(strtab_get(&n->str, n->modules[0].reason), "no symbols");
	ck_assert_uint_eq(n->nsegments, 2);
	ck_assert(profile_module_has_segments(n, 0));
	ck_assert(!profile_module_dropped(n, 0));
	ck_assert(profile_module_dropped(n, 1));
	ck_assert_uint_eq(n->modules[1].flags, PM_MODULE_KERNEL);
	ck_assert_uint_eq(n->modules[1].reason, 0);
	profile_free(n);
	profile_free(p);
}
END_TEST

/*
 * A module dropped in one slice and mapped again before the next (kept
 * by the next's keep) is dropped in the next as well: the slice before
 * has no path of it to carry, and a frame of it brings its path back.
 * One given back in the slice before goes on with its path.
 */
START_TEST(test_new_next_dropped_again)
{
	struct profile *p = make_profile(), *a, *b, *c;
	uint32_t gone = 0, none = UINT32_MAX;

	a = profile_new_next(p, keep_but, &gone);
	ck_assert(profile_module_dropped(a, 0));
	b = profile_new_next(a, keep_but, &none);
	ck_assert(profile_module_dropped(b, 0));
	ck_assert_str_eq(strtab_get(&b->str, b->modules[0].path), "");
	profile_module_back(b, 0, "/usr/bin/demo");
	ck_assert_str_eq(strtab_get(&b->str, b->modules[0].path), "/usr/bin/demo");
	ck_assert(!profile_module_dropped(b, 1));
	c = profile_new_next(b, keep_but, &none);
	ck_assert(!profile_module_dropped(c, 0));
	ck_assert_str_eq(strtab_get(&c->str, c->modules[0].path), "/usr/bin/demo");
	profile_free(c);
	profile_free(b);
	profile_free(a);
	profile_free(p);
}
END_TEST

/* Which modules have segments, as they are added, whatever was looked at before. */
START_TEST(test_module_has_segments)
{
	struct profile *p = profile_new();
	struct pm_segment g = {.module = 3, .filesz = 0x1000, .memsz = 0x1000};

	ck_assert(!profile_module_has_segments(p, 0));
	profile_add_segment(p, &g);
	ck_assert(profile_module_has_segments(p, 3));
	ck_assert(!profile_module_has_segments(p, 2));
	ck_assert(!profile_module_has_segments(p, 100));
	ck_assert(!profile_module_has_segments(p, PM_NONE));
	g.module = 0;
	profile_add_segment(p, &g);
	g.module = 70;
	profile_add_segment(p, &g);
	ck_assert(profile_module_has_segments(p, 0));
	ck_assert(profile_module_has_segments(p, 70));
	ck_assert(profile_module_has_segments(p, 3));
	ck_assert(!profile_module_has_segments(p, 69));
	profile_free(p);
}
END_TEST

START_TEST(test_round_trip)
{
	struct profile *p = make_profile(), *q;
	unsigned char *buf;
	size_t len;
	char err[256];

	buf = datafile_encode(p, &len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(len % 8, 0);
	ck_assert_mem_eq(buf, DATAFILE_MAGIC, 8);
	q = decode(buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "decode failed: %s", err);
	assert_same_profile(p, q);
	ck_assert_str_eq(profile_get_meta(q, "command"), "demo --fast");
	ck_assert_str_eq(strtab_get(&q->str, q->lines[q->frames[1].line0].func), "inlined_helper");
	profile_free(q);
	free(buf);
	profile_free(p);
}
END_TEST

START_TEST(test_round_trip_empty)
{
	struct profile *p = profile_new(), *q;
	unsigned char *buf;
	size_t len;
	char err[256];

	buf = datafile_encode(p, &len);
	q = decode(buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "decode failed: %s", err);
	assert_same_profile(p, q);
	profile_free(q);
	free(buf);
	profile_free(p);
}
END_TEST

/* The encoded image of the small profile. */
static unsigned char *small_file(size_t *len)
{
	struct profile *p = make_profile();
	unsigned char *buf = datafile_encode(p, len);

	profile_free(p);
	return buf;
}

START_TEST(test_decode_empty_and_magic)
{
	static const unsigned char junk[32] = "PERFMINX\1\0\0\0";
	char err[256];

	ck_assert_ptr_null(decode(junk, 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "empty"), "message: %s", err);
	ck_assert_ptr_null(decode(junk, sizeof(junk), err, sizeof(err)));
	ck_assert_msg(strstr(err, "magic"), "message: %s", err);
	ck_assert_ptr_null(decode((const unsigned char *)"\x7f"
							 "ELF\2\1\1\0",
				  8, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not a perfmini data file"), "message: %s", err);
}
END_TEST

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

START_TEST(test_decode_versions)
{
	size_t len;
	unsigned char *buf = small_file(&len);
	char err[256];

	put32(buf + 8, DATAFILE_VERSION + 1);
	ck_assert_ptr_null(decode(buf, len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "newer perfmini"), "message: %s", err);
	put32(buf + 8, 0xffffffff);
	ck_assert_ptr_null(decode(buf, len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "newer perfmini"), "message: %s", err);
	put32(buf + 8, 0);
	ck_assert_ptr_null(decode(buf, len, err, sizeof(err)));
	ck_assert_uint_gt(strlen(err), 0);
	free(buf);
}
END_TEST

START_TEST(test_decode_truncated)
{
	size_t len;
	unsigned char *buf = small_file(&len);
	char err[256];

	/*
	 * A file of one chunk: cut before its SYNC it is refused, naming
	 * where; cut after it (in END) it reads whole, said cut short.
	 */
	for (size_t n = 1; n < len; n++) {
		struct profile *q = decode(buf, n, err, sizeof(err));

		if (n < len - 24) {
			ck_assert_msg(q == NULL, "a prefix of %zu of %zu bytes decoded", n, len);
			ck_assert_msg(strstr(err, "offset"),
				      "prefix of %zu bytes: message without offset: %s", n, err);
			continue;
		}
		ck_assert_msg(q != NULL, "a prefix of %zu of %zu bytes: %s", n, len, err);
		/* Where the part not read starts. */
		ck_assert_uint_le(q->cut_at, n);
		ck_assert_uint_ge(q->cut_at, len - 24);
		ck_assert_uint_gt(q->nsamples, 0);
		profile_free(q);
	}
	free(buf);
}
END_TEST

/*
 * A whole file with a section's size made too large (its CRCs all
 * right): damaged, not cut short, since it ends with a whole END. And a
 * SYNC that says other samples or another time than its records hold
 * (its checksum made right) is refused.
 */
START_TEST(test_decode_damaged)
{
	size_t len, at = 24;
	unsigned char *buf = small_file(&len);
	char err[256];

	while (at + 16 <= len && get32(buf + at) != DF_SYNC) {
		uint64_t size = get64(buf + at + 8);

		if (get32(buf + at) == DF_RUN && get32(buf + at + 16) == DF_SAMPLES) {
			put_le64(buf + at + 8, len);
			ck_assert_ptr_null(decode(buf, len, err, sizeof(err)));
			ck_assert_msg(strstr(err, "damaged at offset"), "message: %s", err);
			put_le64(buf + at + 8, size);
		}
		at += 16 + size;
		at += (8 - at % 8) % 8;
	}
	ck_assert_uint_eq(get32(buf + at), DF_SYNC);
	for (int field = 0; field < 2; field++) {
		unsigned char *d = buf + at + 16 + 8 * field;
		uint64_t was = get64(d);

		put_le64(d, was + 1000);
		put_le32(buf + at + 4, (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + at + 16,
						       (uInt)get64(buf + at + 8)));
		ck_assert_ptr_null(decode(buf, len, err, sizeof(err)));
		ck_assert_msg(strstr(err, "bad sync section"), "message: %s", err);
		put_le64(d, was);
	}
	free(buf);
}
END_TEST

/* A flipped bit in any section's payload is caught by its checksum. */
START_TEST(test_decode_flipped)
{
	size_t len, at = 24, sections = 0;
	unsigned char *buf = small_file(&len);
	struct profile *q;
	char err[256];

	while (at + 16 <= len) {
		uint32_t type = get32(buf + at);
		uint64_t size = get64(buf + at + 8);

		ck_assert_uint_le(at + 16 + size, len);
		for (uint64_t i = 0; i < size; i += size / 3 + 1) {
			buf[at + 16 + i] ^= 0x20;
			ck_assert_msg(decode(buf, len, err, sizeof(err)) == NULL,
				      "section %u: flipped byte %llu accepted", type,
				      (unsigned long long)i);
			ck_assert_msg(strstr(err, "checksum"), "message: %s", err);
			ck_assert_msg(strstr(err, "offset"), "message: %s", err);
			buf[at + 16 + i] ^= 0x20;
		}
		sections += size > 0;
		if (type == DF_END)
			break;
		at += 16 + size;
		at += (8 - at % 8) % 8;
	}
	ck_assert_uint_ge(sections, 9); /* every section of the small profile has data */
	/* And restored, it decodes again. */
	q = decode(buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	profile_free(q);
	free(buf);
}
END_TEST

/* A profile whose cross-references are broken must be refused on reading. */
static void break_sample_stack(struct profile *p)
{
	p->samples[2].stack = (uint32_t)p->nstacks;
}

static void break_sample_comm(struct profile *p)
{
	p->samples[0].comm = (uint32_t)p->str.len;
}

static void break_sample_cgroup(struct profile *p)
{
	p->samples[1].cgroup = (uint32_t)p->str.len + 3;
}

static void break_thread_cgroup(struct profile *p)
{
	p->threads[1].cgroup = (uint32_t)p->str.len;
}

static void break_stack_frame(struct profile *p)
{
	p->stack_frames[p->nstack_frames - 1] = (uint32_t)p->nframes;
}

static void break_stack_range(struct profile *p)
{
	p->stacks[1].depth = (uint32_t)p->nstack_frames;
}

static void break_stack_off(struct profile *p)
{
	p->stacks[0].off = UINT32_MAX;
	p->stacks[0].depth = 2;
}

static void break_frame_module(struct profile *p)
{
	p->frames[0].module = (uint32_t)p->nmodules;
}

static void break_frame_lines(struct profile *p)
{
	p->frames[1].line0 = (uint32_t)p->nlines - 1; /* 2 lines from the last one */
}

static void break_frame_lines_wrap(struct profile *p)
{
	p->frames[1].nlines = UINT32_MAX;
}

static void break_line_func(struct profile *p)
{
	p->lines[1].func = 0x7fffffff;
}

static void break_line_file(struct profile *p)
{
	p->lines[0].file = (uint32_t)p->str.len + 5;
}

static void break_module_path(struct profile *p)
{
	p->modules[1].path = (uint32_t)p->str.len;
}

static void break_module_reason(struct profile *p)
{
	p->modules[0].reason = UINT32_MAX;
}

static void break_meta(struct profile *p)
{
	p->meta[1].value = (uint32_t)p->str.len;
}

static void break_thread(struct profile *p)
{
	p->threads[1].comm = (uint32_t)p->str.len;
}

static void break_segment(struct profile *p)
{
	p->segments[1].module = (uint32_t)p->nmodules;
}

static void break_segment_size(struct profile *p)
{
	p->segments[0].filesz = p->segments[0].memsz + 1;
}

/* Stacks that share their entries: every index in range, but more walked than stored. */
static void break_stacks_shared(struct profile *p)
{
	p->stacks[0].off = p->stacks[1].off;
	p->stacks[0].depth = p->stacks[1].depth;
}

/* A frame that claims another's lines too. */
static void break_lines_shared(struct profile *p)
{
	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].nlines == 1) {
			p->frames[i].line0 = 0;
			p->frames[i].nlines = (uint32_t)p->nlines;
			return;
		}
}

/* An off-CPU span on the profile's first stack. */
static void add_offcpu(struct profile *p)
{
	struct pm_offcpu o = {
		123456, 20000000, 10, 11, 1, 0, p->samples[0].comm, PM_OFFCPU_PREEMPTED};

	profile_add_offcpu(p, &o);
}

static void break_offcpu_stack(struct profile *p)
{
	add_offcpu(p);
	p->offcpu[0].stack = (uint32_t)p->nstacks;
}

static void break_offcpu_flags(struct profile *p)
{
	add_offcpu(p);
	p->offcpu[0].flags = 6;
}

static void break_offcpu_comm(struct profile *p)
{
	add_offcpu(p);
	p->offcpu[0].comm = (uint32_t)p->str.len;
}

static void break_strings(struct profile *p)
{
	p->str.buf[p->str.len - 1] = 'x'; /* the table must end in a NUL */
}

static const struct {
	const char *name;
	void (*fn)(struct profile *p);
	const char *word; /* the message names what is wrong */
} breakers[] = {
	{"sample stack", break_sample_stack, "sample"},
	{"sample comm", break_sample_comm, "sample"},
	{"sample cgroup", break_sample_cgroup, "sample"},
	{"thread cgroup", break_thread_cgroup, "thread"},
	{"stack frame", break_stack_frame, "stack frame"},
	{"stack range", break_stack_range, "stack"},
	{"stack offset", break_stack_off, "stack"},
	{"frame module", break_frame_module, "frame"},
	{"frame lines", break_frame_lines, "frame"},
	{"frame lines wrap", break_frame_lines_wrap, "frame"},
	{"line func", break_line_func, "line"},
	{"line file", break_line_file, "line"},
	{"module path", break_module_path, "module"},
	{"module reason", break_module_reason, "module"},
	{"meta", break_meta, "meta"},
	{"thread", break_thread, "thread"},
	{"segment module", break_segment, "segment"},
	{"segment size", break_segment_size, "segment"},
	{"strings", break_strings, "strings"},
	{"stacks shared", break_stacks_shared, "stacks hold"},
	{"lines shared", break_lines_shared, "frames hold"},
	{"off-CPU stack", break_offcpu_stack, "off-CPU interval"},
	{"off-CPU flags", break_offcpu_flags, "off-CPU interval"},
	{"off-CPU comm", break_offcpu_comm, "off-CPU interval"},
};

/* Off-CPU spans come back as written; a file without any has no section 12. */
START_TEST(test_round_trip_offcpu)
{
	struct profile *p = make_profile(), *q;
	unsigned char *buf, *plain;
	size_t len, plain_len;
	char err[256];

	plain = datafile_encode(p, &plain_len);
	add_offcpu(p);
	buf = datafile_encode(p, &len);
	/* A RUN of one record: section header, RUN header, the record. */
	ck_assert_uint_eq(len, plain_len + 16 + 16 + 40);
	q = decode(buf, len, err, sizeof(err));
	ck_assert_msg(q != NULL, "decode failed: %s", err);
	assert_same_profile(p, q);
	ck_assert_uint_eq(q->noffcpu, 1);
	ck_assert_mem_eq(&q->offcpu[0], &p->offcpu[0], sizeof(struct pm_offcpu));
	profile_free(q);
	q = decode(plain, plain_len, err, sizeof(err));
	ck_assert_msg(q != NULL, "decode failed: %s", err);
	ck_assert_uint_eq(q->noffcpu, 0);
	profile_free(q);
	free(plain);
	free(buf);
	profile_free(p);
}
END_TEST

START_TEST(test_decode_bad_index)
{
	struct profile *p = make_profile();
	unsigned char *buf;
	size_t len;
	char err[256];

	breakers[_i].fn(p);
	buf = datafile_encode(p, &len);
	ck_assert_msg(decode(buf, len, err, sizeof(err)) == NULL, "%s: broken profile accepted",
		      breakers[_i].name);
	ck_assert_msg(strstr(err, breakers[_i].word), "%s: message: %s", breakers[_i].name, err);
	free(buf);
	profile_free(p);
}
END_TEST

/* Hand-made files: a header, then sections given as (type, payload). */
struct file {
	unsigned char b[4096];
	size_t len;
};

static void file_header(struct file *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->b, DATAFILE_MAGIC, 8);
	put32(f->b + 8, 1); /* version 1: an empty END, no whole-file checksum */
	f->len = 24;
}

static void file_section(struct file *f, uint32_t type, const void *payload, size_t size)
{
	uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), payload, (uInt)size);

	put32(f->b + f->len, type);
	put32(f->b + f->len + 4, crc);
	put32(f->b + f->len + 8, (uint32_t)size);
	put32(f->b + f->len + 12, 0);
	if (size)
		memcpy(f->b + f->len + 16, payload, size);
	f->len += 16 + size;
	while (f->len % 8)
		f->b[f->len++] = 0;
}

START_TEST(test_decode_handmade)
{
	static const char strings[] = "\0main\0demo";
	unsigned char meta[8];
	struct file f;
	struct profile *q;
	char err[256];

	/* Unknown section types are skipped: later minor versions stay readable. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, sizeof(strings));
	file_section(&f, 77, "future!", 7);
	put32(meta, 1);
	put32(meta + 4, 6);
	file_section(&f, DF_META, meta, 8);
	file_section(&f, DF_END, NULL, 0);
	q = decode(f.b, f.len, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	ck_assert_str_eq(profile_get_meta(q, "main"), "demo");
	ck_assert_uint_eq(q->nsamples, 0);
	profile_free(q);

	/* Start lines apply to the lines, whichever section comes first; their count must match. */
	{
		unsigned char starts[8], lines[48] = {0};

		put32(starts, 17);
		put32(starts + 4, 0);
		put32(lines, 1);
		put32(lines + 24, 6);
		file_header(&f);
		file_section(&f, DF_STRINGS, strings, sizeof(strings));
		file_section(&f, DF_START_LINES, starts, 8);
		file_section(&f, DF_LINES, lines, 48);
		file_section(&f, DF_END, NULL, 0);
		q = decode(f.b, f.len, err, sizeof(err));
		ck_assert_msg(q != NULL, "%s", err);
		ck_assert_uint_eq(q->nlines, 2);
		ck_assert_uint_eq(q->lines[0].start_line, 17);
		ck_assert_uint_eq(q->lines[1].start_line, 0);
		profile_free(q);
		file_header(&f);
		file_section(&f, DF_STRINGS, strings, sizeof(strings));
		file_section(&f, DF_LINES, lines, 48);
		file_section(&f, DF_START_LINES, starts, 4);
		file_section(&f, DF_END, NULL, 0);
		ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
		ck_assert_msg(strstr(err, "start lines") && strstr(err, "1 entries for 2 lines"),
			      "%s", err);
		/* Without the section (older files) the lines have no start line. */
		file_header(&f);
		file_section(&f, DF_STRINGS, strings, sizeof(strings));
		file_section(&f, DF_LINES, lines, 48);
		file_section(&f, DF_END, NULL, 0);
		q = decode(f.b, f.len, err, sizeof(err));
		ck_assert_msg(q != NULL, "%s", err);
		ck_assert_uint_eq(q->lines[0].start_line, 0);
		profile_free(q);
	}

	/* The same section twice. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, sizeof(strings));
	file_section(&f, DF_META, meta, 8);
	file_section(&f, DF_META, meta, 8);
	file_section(&f, DF_END, NULL, 0);
	ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "second meta"), "%s", err);

	/* A payload that is not a whole number of records. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, sizeof(strings));
	file_section(&f, DF_META, meta, 6);
	file_section(&f, DF_END, NULL, 0);
	ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "meta") && strstr(err, "offset"), "%s", err);

	/* An empty strings section. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, 0);
	file_section(&f, DF_END, NULL, 0);
	ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "strings"), "%s", err);

	/* No END section: the file ends after a complete section. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, sizeof(strings));
	ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "offset"), "%s", err);

	/* A section size far beyond the file. */
	file_header(&f);
	file_section(&f, DF_STRINGS, strings, sizeof(strings));
	put32(f.b + 24 + 12, 0x80000000);
	file_section(&f, DF_END, NULL, 0);
	ck_assert_ptr_null(decode(f.b, f.len, err, sizeof(err)));
	ck_assert_msg(strstr(err, "offset"), "%s", err);
}
END_TEST

/* Writing. */

static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/check_profile.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

/* The names in dir, space-separated and sorted. */
static void list_dir(const char *dir, char *out, size_t outlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[16];
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ck_assert_int_lt(n, 16);
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char *t = names[i];

				names[i] = names[j];
				names[j] = t;
			}
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		snprintf(out + strlen(out), outlen - strlen(out), "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
}

START_TEST(test_write_read)
{
	struct profile *p = make_profile(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/perfmini.data", dir), names[256];
	unsigned char *buf;
	size_t written = 0, len;
	struct stat st;
	mode_t old = umask(0);

	ck_assert_int_eq(datafile_write(p, path, &written, file_err, sizeof(file_err)), 0);
	umask(old);
	buf = datafile_encode(p, &len);
	ck_assert_uint_eq(written, len);
	free(buf);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq((uint64_t)st.st_size, written);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "perfmini.data"); /* no temporary file left */

	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_ptr_nonnull(q);
	assert_same_profile(p, q);
	profile_free(q);

	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/*
 * Samples, threads and off-CPU spans added one by one as a recording
 * does, with a chunk flushed every few hundred: the file reads back as
 * the whole profile, the records added first and those the profile holds
 * after, into a file or through a pipe.
 */
static void stream_profile(struct profile *p, const char *path, size_t keep)
{
	struct datafile_out *out;
	struct pm_sample *all = p->samples;
	struct pm_thread *threads = p->threads;
	struct pm_offcpu *spans = p->offcpu;
	size_t n = p->nsamples, nt = p->nthreads, ns = p->noffcpu;

	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	p->nsamples = p->nthreads = p->noffcpu = 0;
	for (size_t i = 0; i < n - keep; i++) {
		datafile_add_sample(out, &all[i]);
		if (i % 700 == 699)
			ck_assert_int_eq(datafile_flush(out, p, file_err, sizeof(file_err)), 0);
	}
	for (size_t i = 0; i < nt - 1; i++)
		datafile_add_thread(out, &threads[i]);
	for (size_t i = 0; i + 1 < ns; i++)
		datafile_add_offcpu(out, &spans[i]);
	p->samples = all + (n - keep);
	p->nsamples = keep;
	p->threads = threads + nt - 1;
	p->nthreads = 1;
	p->offcpu = ns ? spans + ns - 1 : spans;
	p->noffcpu = ns ? 1 : 0;
	ck_assert_int_eq(datafile_commit(&out, p, NULL, file_err, sizeof(file_err)), 0);
	ck_assert_ptr_null(out); /* ended with the file */
	p->samples = all;
	p->nsamples = n;
	p->threads = threads;
	p->nthreads = nt;
	p->offcpu = spans;
	p->noffcpu = ns;
}

START_TEST(test_stream_samples)
{
	struct profile *p = make_profile(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/s.data", dir), names[256];
	unsigned char *got = xmalloc(1 << 20);
	size_t n = 0;
	int fds[2];
	char *dev;

	/* Enough samples for several chunks. */
	for (uint32_t i = 0; p->nsamples < 5000; i++) {
		struct pm_sample s = p->samples[i % 3];

		s.time += i;
		profile_add_sample(p, &s);
	}
	for (uint32_t i = 0; i < 1000; i++)
		profile_add_thread(p, 2000 + i / 10, 2000 + i, i % 2 ? "demo" : "churned");
	for (uint32_t i = 0; i < 700; i++) {
		struct pm_offcpu s = {.time = 1000 + i,
				      .duration = 50 + i,
				      .pid = 1,
				      .tid = 2,
				      .cpu = i % 2,
				      .stack = p->samples[i % 3].stack,
				      .comm = p->samples[0].comm,
				      .flags = i % 3 == 0};

		profile_add_offcpu(p, &s);
	}
	stream_profile(p, path, 7);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->cut_at, 0);
	assert_same_profile(p, q);
	profile_free(q);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "s.data");
	unlink(path);

	/* A pipe: the same bytes. A smaller profile, to fit the pipe's buffer. */
	p->nsamples = 300;
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) > 0, 1);
	dev = xasprintf("/dev/fd/%d", fds[1]);
	stream_profile(p, dev, 0);
	close(fds[1]);
	for (ssize_t r; (r = read(fds[0], got + n, (1 << 20) - n)) > 0;)
		n += (size_t)r;
	close(fds[0]);
	q = decode(got, n, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	assert_same_profile(p, q);
	profile_free(q);
	free(got);
	free(dev);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/* A frame at address addr of module 0, in a stack of its own, sampled at time t. */
static void grow_profile(struct profile *p, uint64_t addr, uint64_t t, struct datafile_out *out)
{
	uint32_t f = profile_intern_frame(p, 0, 0, addr);
	uint32_t st = profile_intern_stack(p, &f, 1);
	struct pm_sample s = {.time = t, .period = 1, .pid = 1, .tid = 1, .stack = st};

	datafile_add_sample(out, &s);
}

/*
 * A recording's file at every moment: chunks as frames, stacks and
 * strings come, frames named after they were written. The file read
 * while the recording goes (cut short) holds the samples of its chunks;
 * cut at every offset it holds those of the chunks complete there, or is
 * refused before the first; read whole it is the profile.
 */
START_TEST(test_stream_chunks)
{
	struct profile *p = profile_new(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/c.data", dir);
	struct datafile_out *out;
	size_t syncs[8], nsync = 0, samples_at[8], len;
	unsigned char *buf;

	profile_add_module(p, "/bin/demo", "", 0);
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	ck_assert_int_eq(access(path, F_OK), -1); /* no name before the first chunk */
	for (uint64_t k = 0; k < 4; k++) {
		struct stat st;

		for (uint64_t i = 0; i < 10; i++)
			grow_profile(p, 0x1000 + 16 * (k * 5 + i % 5), k * 100 + i, out);
		/* The frames of the chunk before get their names now. */
		for (size_t f = 0; k && f < p->nframes; f++) {
			struct pm_line l = {.func = strtab_add(&p->str, "named"),
					    .line = (uint32_t)f};

			if (!p->frames[f].nlines && p->frames[f].addr < 0x1000 + 16 * k * 5)
				profile_add_line(p, (uint32_t)f, &l);
		}
		ck_assert_int_eq(datafile_flush(out, p, file_err, sizeof(file_err)), 0);
		ck_assert_int_eq(stat(path, &st), 0);
		syncs[nsync] = (size_t)st.st_size;
		samples_at[nsync++] = (size_t)(k + 1) * 10;
		q = datafile_read(path, false, file_err, sizeof(file_err));
		ck_assert_msg(q != NULL, "%s", file_err);
		ck_assert_uint_eq(q->nsamples, (k + 1) * 10);
		ck_assert_uint_eq(q->cut_at, (uint64_t)st.st_size);
		ck_assert_uint_eq(q->cut_time, k * 100 + 9);
		for (size_t f = 0; f < q->nframes; f++)
			ck_assert_uint_eq(q->frames[f].nlines, p->frames[f].nlines);
		profile_free(q);
	}
	ck_assert_int_eq(datafile_commit(&out, p, &len, file_err, sizeof(file_err)), 0);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->cut_at, 0);
	ck_assert_uint_eq(q->nsamples, 40);
	ck_assert_uint_gt(q->nlines, 0);
	profile_free(q);
	{
		FILE *f = fopen(path, "r");

		buf = xmalloc(len);
		ck_assert_uint_eq(fread(buf, 1, len, f), len);
		fclose(f);
	}
	for (size_t n = 1; n < len; n++) {
		size_t want = 0;

		for (size_t k = 0; k < nsync; k++)
			if (n >= syncs[k])
				want = samples_at[k];
		q = decode(buf, n, file_err, sizeof(file_err));
		if (!want) {
			ck_assert_msg(q == NULL, "cut at %zu before the first chunk: read", n);
			continue;
		}
		ck_assert_msg(q != NULL, "cut at %zu: %s", n, file_err);
		ck_assert_uint_ge(q->nsamples, want);
		ck_assert_uint_le(q->cut_at, n);
		ck_assert_uint_gt(q->cut_at, 0);
		profile_free(q);
	}
	free(buf);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/*
 * A slice's file read cut short names the module of its frames, one the
 * slice carried by number alone and that got its path back after the
 * file's first chunk.
 */
START_TEST(test_stream_module_back)
{
	struct profile *p = make_profile(), *n, *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/b.data", dir);
	struct datafile_out *out;
	uint32_t gone = 0;

	n = profile_new_next(p, keep_but, &gone);
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	ck_assert_int_eq(datafile_flush(out, n, file_err, sizeof(file_err)), 0);
	profile_module_back(n, 0, "/usr/bin/demo");
	grow_profile(n, 0x1130, 5, out);
	ck_assert_int_eq(datafile_flush(out, n, file_err, sizeof(file_err)), 0);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_gt(q->cut_at, 0);
	ck_assert_uint_eq(q->nsamples, 1);
	ck_assert_uint_eq(q->nmodules, n->nmodules);
	ck_assert_str_eq(strtab_get(&q->str, q->modules[0].path), "/usr/bin/demo");
	ck_assert_str_eq(strtab_get(&q->str, q->modules[1].path), "[kernel.kallsyms]");
	profile_free(q);
	datafile_abandon(&out);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(n);
	profile_free(p);
}
END_TEST

/*
 * A slice's row of a program let go, given to a new program after the
 * file's first chunk: the file read cut short, and read whole, names the
 * new one there, with its owner; the other rows are as they were.
 */
START_TEST(test_stream_module_reuse)
{
	struct profile *p = make_profile(), *n, *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/r.data", dir);
	struct datafile_out *out;
	uint32_t gone = 0;

	n = profile_new_next(p, keep_but, &gone);
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	ck_assert_int_eq(datafile_flush(out, n, file_err, sizeof(file_err)), 0);
	profile_module_reuse(n, 2, "/tmp/storm-3", 0);
	profile_module_reuse(n, 0, "/tmp/storm-2", 0);
	n->modules[0].owner = 65533;
	ck_assert(!profile_module_dropped(n, 0));
	grow_profile(n, 0x1130, 5, out);
	ck_assert_int_eq(datafile_flush(out, n, file_err, sizeof(file_err)), 0);
	for (int whole = 0; whole < 2; whole++) {
		if (whole)
			ck_assert_int_eq(datafile_commit(&out, n, NULL, file_err, sizeof(file_err)),
					 0);
		q = datafile_read(path, false, file_err, sizeof(file_err));
		ck_assert_msg(q != NULL, "%s", file_err);
		ck_assert_uint_eq(q->cut_at != 0, !whole);
		ck_assert_uint_eq(q->nsamples, 1);
		ck_assert_uint_eq(q->nmodules, n->nmodules);
		ck_assert_str_eq(strtab_get(&q->str, q->modules[0].path), "/tmp/storm-2");
		ck_assert_str_eq(strtab_get(&q->str, q->modules[0].build_id), "");
		ck_assert_uint_eq(q->modules[0].owner, 65533);
		ck_assert_str_eq(strtab_get(&q->str, q->modules[1].path), "[kernel.kallsyms]");
		ck_assert_uint_eq(q->modules[1].flags, PM_MODULE_KERNEL);
		ck_assert_str_eq(strtab_get(&q->str, q->modules[2].path), "/tmp/storm-3");
		ck_assert_uint_eq(q->modules[2].flags, 0);
		profile_free(q);
	}
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(n);
	profile_free(p);
}
END_TEST

/*
 * A file sealed, then finished after the next began (--switch-output):
 * the frames it holds get the names found since, and nothing the
 * profile gained after the seal (frames, stacks) reaches it; its meta
 * entries are those it is finished with (a slice's counts of its
 * unwinds and names, settled then).
 */
START_TEST(test_seal_names)
{
	struct profile *p = profile_new(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/s.data", dir);
	struct datafile_out *out, *next;
	char *next_path = xasprintf("%s/n.data", dir);
	struct pm_line l = {0};

	profile_add_module(p, "/bin/demo", "", 0);
	profile_set_meta(p, "slice", "first");
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	for (uint64_t i = 0; i < 6; i++)
		grow_profile(p, 0x1000 + 16 * i, i, out);
	ck_assert_int_eq(datafile_seal(out, p, file_err, sizeof(file_err)), 0);
	ck_assert_uint_eq(datafile_pending(out), 0);
	/* The next file's records, and a name for the sealed file's frame 2. */
	ck_assert_int_eq(datafile_create(&next, next_path, 0, file_err, sizeof(file_err)), 0);
	profile_set_meta(p, "slice", "second");
	for (uint64_t i = 0; i < 4; i++)
		grow_profile(p, 0x2000 + 16 * i, 10 + i, next);
	l.func = strtab_add(&p->str, "found_late");
	l.line = 7;
	profile_add_line(p, 2, &l);
	l.func = strtab_add(&p->str, "of_the_next");
	profile_add_line(p, 7, &l);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->frames[2].nlines, 0);
	ck_assert_uint_gt(q->cut_at, 0); /* readable, not finished */
	ck_assert_str_eq(profile_get_meta(q, "slice"), "first");
	ck_assert_ptr_null(profile_get_meta(q, "unwind-stacks"));
	profile_free(q);
	profile_set_meta(p, "unwind-stacks", "6");
	ck_assert_int_eq(datafile_commit_names(&out, p, file_err, sizeof(file_err)), 0);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->cut_at, 0);
	ck_assert_uint_eq(q->nsamples, 6);
	ck_assert_uint_eq(q->nframes, 6);
	ck_assert_uint_eq(q->nstacks, 6);
	ck_assert_uint_eq(q->frames[2].nlines, 1);
	ck_assert_str_eq(strtab_get(&q->str, q->lines[q->frames[2].line0].func), "found_late");
	ck_assert_uint_eq(q->frames[3].nlines, 0);
	ck_assert_str_eq(profile_get_meta(q, "slice"), "second");
	ck_assert_str_eq(profile_get_meta(q, "unwind-stacks"), "6");
	profile_free(q);
	datafile_abandon(&next); /* never named: gone */
	ck_assert_ptr_null(next);
	ck_assert_int_ne(access(next_path, F_OK), 0);
	free(next_path);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/*
 * The frames of stack sid of p, leaf first, as "0x1010 mid,0x1000 main":
 * each address and its name ("?" unnamed).
 */
static void stack_text(const struct profile *p, uint32_t sid, char *buf, size_t len)
{
	const struct pm_stack *st = &p->stacks[sid];
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t d = 0; d < st->depth && at < len; d++) {
		const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];

		at += (size_t)snprintf(buf + at, len - at, "%s0x%llx %s", d ? "," : "",
				       (unsigned long long)f->addr,
				       f->nlines ? strtab_get(&p->str, p->lines[f->line0].func)
						 : "?");
	}
}

/* Names frame f of p func (one line). */
static void name_frame(struct profile *p, uint32_t f, const char *func)
{
	struct pm_line l = {.func = strtab_add(&p->str, func), .line = 1};

	profile_add_line(p, f, &l);
}

/*
 * A file of its own tables (datafile_own_tables): it holds only the
 * stacks its samples, spans and wake-ups use, numbered by first use,
 * and their frames and lines, across chunks, a frame named after it was
 * written getting its name in a later one; a second file (the next
 * slice) only its own, though the profile holds them all.
 */
START_TEST(test_own_tables)
{
	struct profile *p = profile_new(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/o.data", dir);
	char *path2 = xasprintf("%s/o2.data", dir), text[160];
	struct datafile_out *out;
	uint32_t f[5], st[4];

	profile_add_module(p, "/bin/demo", "", 0);
	for (int i = 0; i < 5; i++)
		f[i] = profile_intern_frame(p, 0, 0, 0x1000 + 16 * (uint64_t)i);
	name_frame(p, f[4], "unused");
	name_frame(p, f[0], "main");
	st[0] = profile_intern_stack(p, (uint32_t[]){f[0]}, 1);
	st[1] = profile_intern_stack(p, (uint32_t[]){f[1], f[0]}, 2);
	st[2] = profile_intern_stack(p, (uint32_t[]){f[2], f[1], f[0]}, 3);
	st[3] = profile_intern_stack(p, (uint32_t[]){f[3], f[0]}, 2);
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	datafile_own_tables(out, 1000, 100);
	datafile_add_sample(out, &(struct pm_sample){.time = 1, .period = 1, .stack = st[2]});
	datafile_add_sample(out, &(struct pm_sample){.time = 2, .period = 1, .stack = st[0]});
	datafile_add_sample(out, &(struct pm_sample){.time = 3, .period = 1, .stack = st[2]});
	ck_assert_int_eq(datafile_flush(out, p, file_err, sizeof(file_err)), 0);
	name_frame(p, f[2], "leaf"); /* written unnamed */
	datafile_add_offcpu(out, &(struct pm_offcpu){.time = 4, .duration = 5, .stack = st[3]});
	datafile_add_wakeup(out, &(struct pm_wakeup){.flags = PM_WAKEUP_SEEN, .stack = st[0]});
	ck_assert_int_eq(datafile_commit(&out, p, NULL, file_err, sizeof(file_err)), 0);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->nstacks, 3); /* st[1] is used by none */
	ck_assert_uint_eq(q->nframes, 4); /* f[4] by no stack */
	ck_assert_uint_eq(q->nsamples, 3);
	stack_text(q, q->samples[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "0x1020 leaf,0x1010 ?,0x1000 main");
	ck_assert_uint_eq(q->samples[2].stack, q->samples[0].stack);
	stack_text(q, q->samples[1].stack, text, sizeof(text));
	ck_assert_str_eq(text, "0x1000 main");
	stack_text(q, q->offcpu[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "0x1030 ?,0x1000 main");
	ck_assert_uint_eq(q->wakeups[0].stack, q->samples[1].stack);
	profile_free(q);
	/* The next slice: one sample of st[1], its leaf named meanwhile. */
	name_frame(p, f[1], "mid");
	ck_assert_int_eq(datafile_create(&out, path2, 0, file_err, sizeof(file_err)), 0);
	datafile_own_tables(out, 0, 0);
	datafile_add_sample(out, &(struct pm_sample){.time = 9, .period = 1, .stack = st[1]});
	ck_assert_int_eq(datafile_commit(&out, p, NULL, file_err, sizeof(file_err)), 0);
	q = datafile_read(path2, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->nstacks, 1);
	ck_assert_uint_eq(q->nstack_frames, 2);
	ck_assert_uint_eq(q->nframes, 2);
	ck_assert_uint_eq(q->nlines, 2);
	stack_text(q, q->samples[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "0x1010 mid,0x1000 main");
	profile_free(q);
	unlink(path);
	unlink(path2);
	rmdir(dir);
	free(path);
	free(path2);
	free(dir);
	profile_free(p);
}
END_TEST

/*
 * A sealed file of its own tables: a frame it holds unnamed, named after
 * the seal, gets its name in the names-only chunk, in the file's
 * numbering; frames and stacks the profile gained after the seal are not
 * written to it.
 */
START_TEST(test_seal_own_tables)
{
	struct profile *p = profile_new(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/so.data", dir), text[160];
	struct datafile_out *out;
	uint32_t f[3], st[2];

	profile_add_module(p, "/bin/demo", "", 0);
	for (int i = 0; i < 3; i++)
		f[i] = profile_intern_frame(p, 0, 0, 0x1000 + 16 * (uint64_t)i);
	st[0] = profile_intern_stack(p, (uint32_t[]){f[2], f[1]}, 2);
	ck_assert_int_eq(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
	datafile_own_tables(out, 0, 0);
	datafile_add_sample(out, &(struct pm_sample){.time = 1, .period = 1, .stack = st[0]});
	ck_assert_int_eq(datafile_seal(out, p, file_err, sizeof(file_err)), 0);
	name_frame(p, f[1], "outer");
	name_frame(p, f[2], "inner");
	st[1] = profile_intern_stack(p, (uint32_t[]){f[0]}, 1); /* the next file's */
	ck_assert_int_eq(datafile_commit_names(&out, p, file_err, sizeof(file_err)), 0);
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_msg(q != NULL, "%s", file_err);
	ck_assert_uint_eq(q->cut_at, 0);
	ck_assert_uint_eq(q->nframes, 2);
	ck_assert_uint_eq(q->nstacks, 1);
	stack_text(q, q->samples[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "0x1020 inner,0x1010 outer");
	profile_free(q);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/* An existing file is replaced whole, and its old mode does not survive. */
START_TEST(test_write_replaces)
{
	struct profile *p = make_profile(), *q;
	char *dir = make_tmpdir(), *path = xasprintf("%s/out.data", dir), names[256];
	struct stat st;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("old contents", f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(datafile_write(p, path, NULL, file_err, sizeof(file_err)), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "out.data");
	q = datafile_read(path, false, file_err, sizeof(file_err));
	ck_assert_ptr_nonnull(q);
	assert_same_profile(p, q);
	profile_free(q);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

START_TEST(test_write_read_errors)
{
	struct profile *p = make_profile();
	char *dir = make_tmpdir(), *path = xasprintf("%s/missing/out.data", dir);
	char *cut = xasprintf("%s/cut.data", dir), names[256];
	unsigned char *buf;
	size_t len;
	FILE *f;

	/* A directory that does not exist: an error, nothing created. */
	{
		struct datafile_out *out = (struct datafile_out *)dir; /* anything but NULL */

		ck_assert_int_lt(datafile_create(&out, path, 0, file_err, sizeof(file_err)), 0);
		ck_assert_ptr_null(out);
		datafile_abandon(&out); /* nothing to do */
	}
	ck_assert_int_lt(datafile_write(p, path, NULL, file_err, sizeof(file_err)), 0);
	ck_assert_msg(strstr(file_err, "cannot create") && strstr(file_err, path), "message: %s",
		      file_err);
	ck_assert_ptr_null(datafile_read(path, false, file_err, sizeof(file_err)));
	ck_assert_msg(strstr(file_err, "cannot open") && strstr(file_err, path), "message: %s",
		      file_err);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "");

	/* A file cut before its first chunk ended is refused. */
	buf = datafile_encode(p, &len);
	f = fopen(cut, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, 100, f), 100);
	fclose(f);
	ck_assert_ptr_null(datafile_read(cut, false, file_err, sizeof(file_err)));
	ck_assert_msg(strstr(file_err, cut) && strstr(file_err, "truncated"), "message: %s",
		      file_err);
	free(buf);

	unlink(cut);
	rmdir(dir);
	free(cut);
	free(path);
	free(dir);
	profile_free(p);
}
END_TEST

/* A recording of one stack main;hot in module path, n samples, one span with or without its wake-up. */
static struct profile *merge_part(const char *path, uint64_t addr, unsigned n, bool wakeup)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, path, "ab12", 0);
	uint32_t f[2] = {profile_intern_frame(p, m, 0, addr), profile_intern_frame(p, m, 0, 0x10)};
	struct pm_line l = {.func = strtab_add(&p->str, "hot"), .line = 3};
	struct pm_sample s = {.period = 1,
			      .pid = 1,
			      .tid = 1,
			      .comm = strtab_add(&p->str, "app"),
			      .cgroup = strtab_add(&p->str, "/app.service")};
	struct pm_offcpu o = {.duration = 100, .pid = 1, .tid = 1};

	profile_add_line(p, f[0], &l);
	l.func = strtab_add(&p->str, "main");
	profile_add_line(p, f[1], &l);
	s.stack = profile_intern_stack(p, f, 2);
	for (unsigned i = 0; i < n; i++)
		profile_add_sample(p, &s);
	o.stack = s.stack;
	o.comm = s.comm;
	profile_add_offcpu(p, &o);
	if (wakeup) {
		struct pm_wakeup w = {.delay = 60,
				      .pid = 1,
				      .tid = 2,
				      .stack = s.stack,
				      .comm = s.comm,
				      .flags = PM_WAKEUP_SEEN};

		profile_add_wakeup(p, &w);
	}
	profile_set_meta(p, "samples", n == 3 ? "3" : "4");
	profile_add_thread(p, 1, 1, "app");
	p->threads[0].cgroup = s.cgroup;
	return p;
}

/*
 * profile_merge: modules matched by path and build-id, frames and stacks
 * interned (one stack for the same frames), the counts summed, a span
 * without a wake-up given an empty one beside one that has it.
 */
START_TEST(test_merge)
{
	struct profile *a = merge_part("/bin/app", 0x100, 3, false);
	struct profile *b = merge_part("/bin/app", 0x100, 4, true);
	struct profile *c = merge_part("/bin/other", 0x200, 2, false);
	struct profile *m = profile_new();

	profile_merge(m, a);
	profile_merge(m, b);
	ck_assert_uint_eq(m->nsamples, 7);
	ck_assert_uint_eq(m->nmodules, 1);
	ck_assert_uint_eq(m->nframes, 2);
	ck_assert_uint_eq(m->nstacks, 1);
	ck_assert_uint_eq(m->samples[6].stack, m->samples[0].stack);
	ck_assert_str_eq(strtab_get(&m->str, m->samples[6].comm), "app");
	ck_assert_str_eq(strtab_get(&m->str, m->samples[6].cgroup), "/app.service");
	ck_assert_str_eq(strtab_get(&m->str, m->threads[0].cgroup), "/app.service");
	ck_assert_uint_eq(profile_get_meta_u64(m, "samples"), 7);
	ck_assert_uint_eq(m->noffcpu, 2);
	ck_assert_uint_eq(m->nwakeups, 2);
	ck_assert_uint_eq(m->wakeups[0].flags, 0);
	ck_assert_uint_eq(m->wakeups[1].flags, PM_WAKEUP_SEEN);
	ck_assert_uint_eq(m->wakeups[1].delay, 60);
	profile_merge(m, c);
	ck_assert_uint_eq(m->nmodules, 2);
	ck_assert_uint_eq(m->nstacks, 2);
	ck_assert_uint_eq(m->nsamples, 9);
	ck_assert_uint_eq(m->noffcpu, 3);
	ck_assert_uint_eq(m->nwakeups, 3);
	ck_assert_uint_eq(m->nthreads, 3);
	/* The other module's frames are frames of their own, named as in their file. */
	ck_assert_uint_eq(m->nframes, 4);
	ck_assert_uint_eq(m->frames[2].module, 1);
	ck_assert_str_eq(strtab_get(&m->str, m->lines[m->frames[2].line0].func), "hot");
	profile_free(a);
	profile_free(b);
	profile_free(c);
	profile_free(m);
}
END_TEST

/*
 * Modules matched by path and build-id: the same build is the same
 * module, one without a build-id is the first of its path (and gives it
 * its build-id), another build is a module of its own; among thousands.
 */
START_TEST(test_merge_module_match)
{
	struct profile *d = profile_new(), *s = profile_new(), *m = profile_new();
	const char *want[][2] = {
		{"/bin/x", "bb"}, {"/bin/x", ""}, {"/bin/x", "cc"}, {"/bin/y", "dd"}};
	const uint32_t at[] = {1, 0, 4003, 2};
	char path[32];

	profile_add_module(d, "/bin/x", "aa", 0);
	profile_add_module(d, "/bin/x", "bb", 0);
	profile_add_module(d, "/bin/y", "", 0);
	for (int i = 0; i < 4000; i++) {
		snprintf(path, sizeof(path), "/run/p%d", i);
		profile_add_module(d, path, "", 0);
	}
	for (int i = 0; i < 4; i++) {
		uint32_t id = profile_add_module(s, want[i][0], want[i][1], 0);
		uint32_t f = profile_intern_frame(s, id, 0, 0x10);

		profile_count_sample(s, profile_intern_stack(s, &f, 1));
	}
	profile_merge(m, d);
	profile_merge(m, s);
	ck_assert_uint_eq(m->nmodules, 4004);
	for (int i = 0; i < 4; i++) {
		const struct pm_frame *f = &m->frames[m->stack_frames[m->stacks[i].off]];

		ck_assert_uint_eq(f->module, at[i]);
	}
	ck_assert_str_eq(strtab_get(&m->str, m->modules[2].build_id), "dd");
	ck_assert_str_eq(strtab_get(&m->str, m->modules[4003].build_id), "cc");
	ck_assert_str_eq(strtab_get(&m->str, m->modules[4002].path), "/run/p3999");
	profile_free(d);
	profile_free(s);
	profile_free(m);
}
END_TEST

/* A slice of a recording started at 1000: its own counts and duration, from slice_ms. */
static struct profile *slice_meta(uint64_t slice_ms, uint64_t dur_ms, const char *start,
				  const char *lost)
{
	struct profile *p = profile_new();
	char buf[32];

	profile_set_meta(p, "start-time", start);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)slice_ms * 1000000);
	profile_set_meta(p, "slice-start-ns", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)dur_ms * 1000000);
	profile_set_meta(p, "duration-ns", buf);
	profile_set_meta(p, "lost-records", lost);
	return p;
}

/*
 * Slices of one recording merged: their own lost counts summed, and the
 * duration from the first's start to the last's end (five 60 s slices
 * are 300 s, not the recording's whole length, nor one slice's); files
 * of other recordings keep the longest.
 */
START_TEST(test_merge_slices)
{
	struct profile *m = profile_new();

	for (int i = 0; i < 5; i++) {
		struct profile *s = slice_meta(120000 + (uint64_t)i * 60000, 60000, "1000", "3");

		profile_merge(m, s);
		profile_free(s);
	}
	ck_assert_uint_eq(profile_get_meta_u64(m, "duration-ns"), 300000000000ULL);
	ck_assert_uint_eq(profile_get_meta_u64(m, "slice-start-ns"), 120000000000ULL);
	ck_assert_uint_eq(profile_get_meta_u64(m, "lost-records"), 15);
	{
		struct profile *other = slice_meta(0, 400000, "2000", "0");

		profile_merge(m, other);
		profile_free(other);
	}
	ck_assert_uint_eq(profile_get_meta_u64(m, "duration-ns"), 400000000000ULL);
	profile_free(m);
}
END_TEST

/*
 * A slice that holds a module by its path alone (one not kept by
 * profile_new_next, sampled again before its facts came) merged before or
 * after one with its facts: one module, with the build-id and the
 * segments, whichever came first.
 */
START_TEST(test_merge_dropped)
{
	uint32_t gone = 0;

	for (int first_full = 0; first_full < 2; first_full++) {
		struct profile *full = make_profile(),
			       *bare = profile_new_next(full, keep_but, &gone);
		struct profile *m = profile_new();
		size_t demo = 0, n = 0;

		profile_module_back(bare, 0, "/usr/bin/demo");

		profile_merge(m, first_full ? full : bare);
		profile_merge(m, first_full ? bare : full);
		for (size_t i = 0; i < m->nmodules; i++)
			if (!strcmp(strtab_get(&m->str, m->modules[i].path), "/usr/bin/demo")) {
				demo = i;
				n++;
			}
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(strtab_get(&m->str, m->modules[demo].build_id),
				 "0123456789abcdef0123456789abcdef01234567");
		n = 0;
		for (size_t g = 0; g < m->nsegments; g++)
			n += m->segments[g].module == demo;
		ck_assert_uint_eq(n, 2);
		profile_free(full);
		profile_free(bare);
		profile_free(m);
	}
}
END_TEST

/*
 * Slices that each counted their own unwinds and kept names: merged, the
 * counts add up, and the lines of where stacks were cut are summed by
 * (reason, module), a pair of one slice only kept as it is. A slice
 * without unwinding (frame pointers) adds nothing, and files without
 * any get no such entries.
 */
START_TEST(test_merge_unwind_counts)
{
	struct profile *m = profile_new(), *a = slice_meta(0, 1000, "1000", "0");
	struct profile *b = slice_meta(1000, 1000, "1000", "0"),
		       *c = slice_meta(2000, 10, "1000", "0");
	struct profile *none = profile_new();
	const char *cut;

	profile_set_meta(a, "unwind-stacks", "100");
	profile_set_meta(a, "unwind-complete", "90");
	profile_set_meta(a, "names-kept", "7");
	profile_set_meta(a, "unwind-cut",
			 "6\tstack copy too small\t/lib/libx.so\n"
			 "4\tended before the entry\t/bin/a\n");
	profile_set_meta(b, "unwind-stacks", "50");
	profile_set_meta(b, "unwind-complete", "48");
	profile_set_meta(b, "unwind-cut", "2\tstack copy too small\t/lib/libx.so\n");
	profile_set_meta(c, "unwind-stacks", "30");
	profile_set_meta(c, "unwind-complete", "29");
	profile_set_meta(c, "names-kept", "3");
	profile_set_meta(c, "unwind-cut", "1\tended before the entry\t/bin/b\n");
	profile_merge(m, a);
	profile_merge(m, b);
	profile_merge(m, c);
	ck_assert_uint_eq(profile_get_meta_u64(m, "unwind-stacks"), 180);
	ck_assert_uint_eq(profile_get_meta_u64(m, "unwind-complete"), 167);
	ck_assert_uint_eq(profile_get_meta_u64(m, "names-kept"), 10);
	cut = profile_get_meta(m, "unwind-cut");
	ck_assert_ptr_nonnull(strstr(cut, "8\tstack copy too small\t/lib/libx.so\n"));
	ck_assert_ptr_nonnull(strstr(cut, "4\tended before the entry\t/bin/a\n"));
	ck_assert_ptr_nonnull(strstr(cut, "1\tended before the entry\t/bin/b\n"));
	ck_assert_uint_eq(strlen(cut), strlen("8\tstack copy too small\t/lib/libx.so\n"
					      "4\tended before the entry\t/bin/a\n"
					      "1\tended before the entry\t/bin/b\n"));
	profile_free(a);
	profile_free(b);
	profile_free(c);
	profile_free(m);

	m = profile_new();
	a = slice_meta(0, 1000, "1000", "0");
	profile_merge(m, a);
	profile_merge(m, none);
	ck_assert_ptr_null(profile_get_meta(m, "unwind-stacks"));
	ck_assert_ptr_null(profile_get_meta(m, "unwind-cut"));
	ck_assert_ptr_null(profile_get_meta(m, "names-kept"));
	profile_free(a);
	profile_free(none);
	profile_free(m);
}
END_TEST

static Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("build");

	tcase_add_test(tc, test_strtab);
	tcase_add_test(tc, test_intern_frames);
	tcase_add_test(tc, test_intern_stacks);
	tcase_add_test(tc, test_carry);
	tcase_add_test(tc, test_new_next);
	tcase_add_test(tc, test_new_next_drops);
	tcase_add_test(tc, test_new_next_dropped_again);
	tcase_add_test(tc, test_module_has_segments);
	tcase_add_test(tc, test_meta);
	suite_add_tcase(s, tc);

	tc = tcase_create("datafile");
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_round_trip_empty);
	tcase_add_test(tc, test_round_trip_offcpu);
	tcase_add_test(tc, test_decode_empty_and_magic);
	tcase_add_test(tc, test_decode_versions);
	tcase_add_test(tc, test_decode_truncated);
	tcase_add_test(tc, test_decode_flipped);
	tcase_add_test(tc, test_decode_damaged);
	tcase_add_test(tc, test_merge_slices);
	tcase_add_test(tc, test_merge_dropped);
	tcase_add_test(tc, test_merge_unwind_counts);
	tcase_add_loop_test(tc, test_decode_bad_index, 0, (int)ARRAY_SIZE(breakers));
	tcase_add_test(tc, test_decode_handmade);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_write_read);
	tcase_add_test(tc, test_stream_samples);
	tcase_add_test(tc, test_stream_chunks);
	tcase_add_test(tc, test_stream_module_back);
	tcase_add_test(tc, test_stream_module_reuse);
	tcase_add_test(tc, test_seal_names);
	tcase_add_test(tc, test_own_tables);
	tcase_add_test(tc, test_seal_own_tables);
	tcase_add_test(tc, test_write_replaces);
	tcase_add_test(tc, test_write_read_errors);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_merge_module_match);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(profile_suite());
}
