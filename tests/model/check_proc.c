/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_proc.c - /proc/PID/maps parsing and the process model (MMAP2,
 * FORK, COMM applied by hand, never live: nothing is read from /proc).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "model/cgroup.h"
#include "model/proc.h"
#include "unit-helpers.h"
#include "util/array.h"

/* Parsing. */

struct lines {
	struct maps_line l[32];
	char path[32][256];
	int n;
};

static int keep_line(const struct maps_line *l, void *arg)
{
	struct lines *ls = arg;

	ck_assert_int_lt(ls->n, 32);
	ls->l[ls->n] = *l;
	snprintf(ls->path[ls->n], sizeof(ls->path[0]), "%s", l->path);
	ls->l[ls->n].path = ls->path[ls->n];
	ls->n++;
	return 0;
}

static int parse_text(const char *text, struct lines *ls)
{
	FILE *f = unit_text_stream(text);
	int n;

	memset(ls, 0, sizeof(*ls));
	n = proc_maps_parse(f, keep_line, ls);
	fclose(f);
	return n;
}

#define assert_line(ls, i, s, e, off, mj, mn, in, pr, p)  \
	do {                                              \
		const struct maps_line *_l = &(ls)->l[i]; \
		ck_assert_uint_eq(_l->start, s);          \
		ck_assert_uint_eq(_l->end, e);            \
		ck_assert_uint_eq(_l->pgoff, off);        \
		ck_assert_uint_eq(_l->maj, mj);           \
		ck_assert_uint_eq(_l->min, mn);           \
		ck_assert_uint_eq(_l->ino, in);           \
		ck_assert_uint_eq(_l->prot, pr);          \
		ck_assert_str_eq(_l->path, p);            \
	} while (0)

START_TEST(test_parse_normal)
{
	struct lines ls;
	const char *text =
		"55d4c3a00000-55d4c3a02000 r--p 00000000 fd:01 1835017                    "
		"/usr/bin/cat\n"
		"55d4c3a02000-55d4c3a07000 r-xp 00002000 fd:01 1835017                    "
		"/usr/bin/cat\n"
		"55d4c3a0a000-55d4c3a0b000 rw-p 00009000 fd:01 1835017                    "
		"/usr/bin/cat\n"
		"7f0a12345000-7f0a12367000 ---p 00000000 00:00 0 \n"
		"7ffe1c5d0000-7ffe1c5f1000 rw-p 00000000 00:00 0                          [stack]\n"
		"7ffe1c5f8000-7ffe1c5fa000 r-xp 00000000 00:00 0                          [vdso]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  "
		"[vsyscall]\n";

	ck_assert_int_eq(parse_text(text, &ls), 7);
	ck_assert_int_eq(ls.n, 7);
	assert_line(&ls, 0, 0x55d4c3a00000ULL, 0x55d4c3a02000ULL, 0, 0xfd, 1, 1835017, PROT_READ,
		    "/usr/bin/cat");
	assert_line(&ls, 1, 0x55d4c3a02000ULL, 0x55d4c3a07000ULL, 0x2000, 0xfd, 1, 1835017,
		    PROT_READ | PROT_EXEC, "/usr/bin/cat");
	assert_line(&ls, 2, 0x55d4c3a0a000ULL, 0x55d4c3a0b000ULL, 0x9000, 0xfd, 1, 1835017,
		    PROT_READ | PROT_WRITE, "/usr/bin/cat");
	assert_line(&ls, 3, 0x7f0a12345000ULL, 0x7f0a12367000ULL, 0, 0, 0, 0, 0, "");
	assert_line(&ls, 4, 0x7ffe1c5d0000ULL, 0x7ffe1c5f1000ULL, 0, 0, 0, 0,
		    PROT_READ | PROT_WRITE, "[stack]");
	assert_line(&ls, 5, 0x7ffe1c5f8000ULL, 0x7ffe1c5fa000ULL, 0, 0, 0, 0, PROT_READ | PROT_EXEC,
		    "[vdso]");
	assert_line(&ls, 6, 0xffffffffff600000ULL, 0xffffffffff601000ULL, 0, 0, 0, 0, PROT_EXEC,
		    "[vsyscall]");
}
END_TEST

START_TEST(test_parse_odd_paths)
{
	struct lines ls;
	const char *text =
		/* anonymous, no trailing space, no newline at the very end below */
		"7f0000000000-7f0000001000 rwxp 00000000 00:00 0\n"
		"7f0000001000-7f0000002000 r-xp 00003000 08:02 42         /opt/My App/lib foo.so\n"
		"7f0000002000-7f0000003000 r-xp 00000000 08:02 43         /tmp/libgone.so "
		"(deleted)\n"
		"7f0000003000-7f0000004000 r-xp 00000000 00:05 1234       /memfd:jit (deleted)\n"
		"7f0000004000-7f0000005000 r--s 00001000 103:02 99        /dev/shm/x\n"
		"7f0000005000-7f0000006000 r-xp 00000000 00:00 0          [anon:v8 code]";

	ck_assert_int_eq(parse_text(text, &ls), 6);
	assert_line(&ls, 0, 0x7f0000000000ULL, 0x7f0000001000ULL, 0, 0, 0, 0,
		    PROT_READ | PROT_WRITE | PROT_EXEC, "");
	assert_line(&ls, 1, 0x7f0000001000ULL, 0x7f0000002000ULL, 0x3000, 8, 2, 42,
		    PROT_READ | PROT_EXEC, "/opt/My App/lib foo.so");
	/* The kernel's suffix is reported as it is: it is not part of any real name. */
	assert_line(&ls, 2, 0x7f0000002000ULL, 0x7f0000003000ULL, 0, 8, 2, 43,
		    PROT_READ | PROT_EXEC, "/tmp/libgone.so (deleted)");
	assert_line(&ls, 3, 0x7f0000003000ULL, 0x7f0000004000ULL, 0, 0, 5, 1234,
		    PROT_READ | PROT_EXEC, "/memfd:jit (deleted)");
	assert_line(&ls, 4, 0x7f0000004000ULL, 0x7f0000005000ULL, 0x1000, 0x103, 2, 99, PROT_READ,
		    "/dev/shm/x");
	assert_line(&ls, 5, 0x7f0000005000ULL, 0x7f0000006000ULL, 0, 0, 0, 0, PROT_READ | PROT_EXEC,
		    "[anon:v8 code]");
}
END_TEST

START_TEST(test_parse_malformed)
{
	struct lines ls;
	const char *text = "garbage\n"
			   "\n"
			   "12345\n"
			   "1000-2000\n"
			   "1000-2000 r-xp\n"
			   "2000-1000 r-xp 00000000 08:02 7 /end/before/start\n"
			   "3000-3000 r-xp 00000000 08:02 7 /empty\n"
			   "zzzz-4000 r-xp 00000000 08:02 7 /bad/start\n"
			   "4000-5000 r-x 00000000 08:02 7 /short/perms\n"
			   "5000-6000 r-xp 00000000 08:02 /no/inode\n"
			   "6000-7000 r-xp 00000000 0802 7 /no/colon\n"
			   "7000-8000 r-xp zz 08:02 7 /bad/offset\n"
			   "8000 9000 r-xp 00000000 08:02 7 /no/dash\n"
			   "a000-b000 r-xp 00000000 08:02 77 /good\n";

	ck_assert_int_eq(parse_text(text, &ls), 1);
	assert_line(&ls, 0, 0xa000, 0xb000, 0, 8, 2, 77, PROT_READ | PROT_EXEC, "/good");
}
END_TEST

/* A very long path: lines are not cut at a fixed buffer size. */
START_TEST(test_parse_long_path)
{
	char *text = malloc(8192), path[5000];
	struct lines ls;
	FILE *f;
	int n;

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(text, 8192, "1000-2000 r-xp 00000000 08:02 5 %s\n3000-4000 r-xp 0 08:02 6 /x\n",
		 path);
	f = unit_text_stream(text);
	memset(&ls, 0, sizeof(ls));
	n = proc_maps_parse(f, keep_line, &ls);
	fclose(f);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(ls.l[1].start, 0x3000);
	ck_assert_str_eq(ls.path[1], "/x");
	free(text);
}
END_TEST

static int stop_at_second(const struct maps_line *l, void *arg)
{
	int *seen = arg;

	(void)l;
	return ++*seen == 2 ? -ECANCELED : 0;
}

START_TEST(test_parse_stop)
{
	FILE *f = unit_text_stream("1000-2000 r-xp 0 08:02 5 /a\n"
				   "2000-3000 r-xp 0 08:02 5 /a\n"
				   "3000-4000 r-xp 0 08:02 5 /a\n");
	int seen = 0;

	ck_assert_int_eq(proc_maps_parse(f, stop_at_second, &seen), -ECANCELED);
	ck_assert_int_eq(seen, 2);
	fclose(f);
}
END_TEST

/* The model. */

struct fixture {
	struct module_set mods;
	struct model m;
};

static void fx_init(struct fixture *fx)
{
	module_set_init(&fx->mods);
	model_init(&fx->m, &fx->mods, false);
}

static void fx_release(struct fixture *fx)
{
	model_release(&fx->m);
	module_set_release(&fx->mods);
}

/* Paths that do not exist, so nothing is opened. */
static const struct module_key app = {"/nonexistent/bin/app", 8, 2, 1001, 0};
static const struct module_key libc = {"/nonexistent/lib/libc.so.6", 8, 2, 1002, 0};
static const struct module_key libfoo = {"/nonexistent/lib/libfoo.so", 8, 2, 1003, 0};
static const struct module_key newapp = {"/nonexistent/bin/other", 8, 2, 1004, 0};

#define RX (PROT_READ | PROT_EXEC)

START_TEST(test_model_mmap_find)
{
	struct fixture fx;
	const struct mapping *map;

	fx_init(&fx);
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0x1000, &app, RX);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x10000, 0x28000, &libc, RX);

	map = model_find(&fx.m, 100, 0x401234);
	ck_assert_ptr_nonnull(map);
	ck_assert_uint_eq(map->start, 0x400000);
	ck_assert_uint_eq(map->end, 0x402000);
	ck_assert_uint_eq(map->pgoff, 0x1000);
	ck_assert_uint_eq(map->prot, RX);
	ck_assert_ptr_nonnull(map->mod);
	ck_assert_str_eq(map->mod->path, app.path);
	ck_assert_uint_eq(map->mod->ino, app.ino);
	ck_assert_uint_eq(map->mod->maj, 8);
	ck_assert_uint_eq(map->mod->min, 2);
	ck_assert_int_eq(map->mod->kind, MODULE_FILE);
	ck_assert_int_eq(map->mod->fd, -1);

	map = model_find(&fx.m, 100, 0x7f000000ffffULL);
	ck_assert_ptr_nonnull(map);
	ck_assert_str_eq(map->mod->path, libc.path);
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x402000));
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x1000));
	ck_assert_ptr_null(model_find(&fx.m, 999, 0x401234)); /* another process */
	fx_release(&fx);
}
END_TEST

/* One file mapped by two processes is one module. */
START_TEST(test_model_module_identity)
{
	struct fixture fx;
	struct module_key renamed = libc;
	const struct mapping *a, *b, *c;

	fx_init(&fx);
	renamed.path = "/nonexistent/lib/x86_64-linux-gnu/libc.so.6"; /* same dev, inode */
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x10000, 0, &libc, RX);
	model_mmap(&fx.m, 200, 0x7f1000000000ULL, 0x10000, 0, &renamed, RX);
	model_mmap(&fx.m, 300, 0x7f2000000000ULL, 0x10000, 0, &libfoo, RX);
	a = model_find(&fx.m, 100, 0x7f0000000000ULL);
	b = model_find(&fx.m, 200, 0x7f1000000000ULL);
	c = model_find(&fx.m, 300, 0x7f2000000000ULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(a->mod, b->mod);
	ck_assert_ptr_ne(a->mod, c->mod);
	ck_assert_uint_eq(fx.mods.n, 2);
	fx_release(&fx);
}
END_TEST

/*
 * An inode number given again to a new file (the old one deleted) is
 * another module when the generations differ; an unknown generation (0,
 * from /proc/PID/maps) matches either.
 */
START_TEST(test_model_inode_reused)
{
	struct fixture fx;
	struct module_key first = app, second = app, seen = app;
	const struct mapping *a, *b, *c;

	fx_init(&fx);
	first.gen = 7;
	second.gen = 8;
	second.path = "/nonexistent/bin/conftest2";
	seen.gen = 0;
	model_mmap(&fx.m, 100, 0x400000, 0x10000, 0, &first, RX);
	model_mmap(&fx.m, 200, 0x400000, 0x10000, 0, &second, RX);
	model_mmap(&fx.m, 300, 0x400000, 0x10000, 0, &seen, RX);
	a = model_find(&fx.m, 100, 0x400000);
	b = model_find(&fx.m, 200, 0x400000);
	c = model_find(&fx.m, 300, 0x400000);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(a->mod, b->mod);
	ck_assert_str_eq(b->mod->path, "/nonexistent/bin/conftest2");
	ck_assert_ptr_eq(c->mod, a->mod);
	fx_release(&fx);
}
END_TEST

/*
 * Past the budget of open files, the oldest module not used yet is let
 * go; a used one never is, and one let go is opened again when used.
 */
START_TEST(test_module_budget)
{
	char dir[] = "/tmp/check_proc.XXXXXX", path[5][64];
	struct module_set set;
	struct module *m[5];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	module_set_init(&set);
	module_set_budget(&set, 2);
	for (int i = 0; i < 5; i++) {
		struct module_key k;
		struct stat st;
		FILE *f;

		snprintf(path[i], sizeof(path[i]), "%s/m%d", dir, i);
		f = fopen(path[i], "w");
		ck_assert_ptr_nonnull(f);
		fputs("code", f);
		fclose(f);
		ck_assert_int_eq(stat(path[i], &st), 0);
		k = (struct module_key){path[i], major(st.st_dev), minor(st.st_dev), st.st_ino, 0};
		m[i] = module_set_get(&set, &k, 0, 0, 0);
		ck_assert_int_ge(m[i]->fd, 0);
		if (i == 0)
			ck_assert_int_ge(module_use(&set, m[0]), 0);
	}
	/* m0 is used and kept; of the others, only the newest fits the budget. */
	ck_assert_int_ge(m[0]->fd, 0);
	ck_assert_int_eq(m[1]->fd, -1);
	ck_assert_int_eq(m[2]->fd, -1);
	ck_assert_int_eq(m[3]->fd, -1);
	ck_assert_int_ge(m[4]->fd, 0);
	ck_assert_uint_eq(set.pinned, 2);
	ck_assert(m[1]->unpinned);
	/* Used after it was let go: opened again, and kept. */
	ck_assert_int_ge(module_use(&set, m[1]), 0);
	ck_assert_int_ge(m[1]->fd, 0);
	ck_assert(!m[1]->unpinned);
	module_set_release(&set);
	for (int i = 0; i < 5; i++)
		unlink(path[i]);
	rmdir(dir);
}
END_TEST

/*
 * A module whose file could not be opened (a program gone before its
 * mapping was seen) is let go all the same: marked retired and not used,
 * no descriptor counted.
 */
START_TEST(test_module_unpin_unopened)
{
	char dir[] = "/tmp/pm-unopened.XXXXXX", path[64];
	struct module_set set;
	struct module_key k;
	struct module *m;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/gone", dir);
	k = (struct module_key){path, 8, 1, 12345, 0};
	module_set_init(&set);
	m = module_set_get(&set, &k, 0, 0, 0);
	ck_assert_int_eq(m->fd, -1);
	ck_assert_int_eq(module_use(&set, m), -1);
	ck_assert(m->used);
	ck_assert(!m->retired);
	ck_assert(!module_unpin(&set, m)); /* no file closed */
	ck_assert(m->retired);
	ck_assert(!m->used);
	ck_assert_uint_eq(set.pinned, 0);
	/* The same file met again: the same module, still without a file. */
	ck_assert_ptr_eq(module_set_get(&set, &k, 0, 0, 0), m);
	ck_assert_int_eq(m->fd, -1);
	module_set_release(&set);
	rmdir(dir);
}
END_TEST

/*
 * Files that take one inode number in turn (a program deleted, the next
 * one written) are modules of their own by their generation; one met
 * without a generation (read from /proc/PID/maps) is the latest of its
 * inode, and a module met so first is the file its inode's generation
 * names later.
 */
START_TEST(test_module_generations)
{
	struct module_set set;
	struct module *m[64], *any, *old;
	struct module_key k = {"/gone/storm", 254, 1, 777, 0};
	struct module_key other = {"/gone/other", 254, 1, 778, 0};

	module_set_init(&set);
	for (uint64_t g = 1; g <= 64; g++) {
		k.gen = g * 7919;
		m[g - 1] = module_set_get(&set, &k, 0, 0, 0);
		ck_assert_uint_eq(m[g - 1]->id, g - 1);
	}
	ck_assert_uint_eq(set.n, 64);
	for (uint64_t g = 1; g <= 64; g++) {
		k.gen = g * 7919;
		ck_assert_ptr_eq(module_set_get(&set, &k, 0, 0, 0), m[g - 1]);
	}
	k.gen = 0;
	any = module_set_get(&set, &k, 0, 0, 0);
	ck_assert_ptr_eq(any, m[63]);
	ck_assert_uint_eq(set.n, 64);
	/* Met first without its generation: the same module once it is said. */
	old = module_set_get(&set, &other, 0, 0, 0);
	other.gen = 31;
	ck_assert_ptr_eq(module_set_get(&set, &other, 0, 0, 0), old);
	ck_assert_uint_eq(set.n, 65);
	module_set_release(&set);
}
END_TEST

/* m mapped once and let go again, then let go (retire.c's way): ready to be given back. */
static void let_go(struct module_set *set, struct module *m)
{
	uint32_t *ids;

	module_mapped(m, 1);
	module_mapped(m, -1);
	ck_assert_uint_eq(module_set_take_idle(set, &ids), 1);
	free(ids);
	module_unpin(set, m);
}

/*
 * A program gone that nothing was made of gives its id back to the next
 * new module, whose row is then said reused; one touched keeps its id;
 * the generations of one inode stay in their chain, latest first, with
 * those given back out of it.
 */
START_TEST(test_module_recycle)
{
	struct module_set set;
	struct module_key k = {"/gone/storm", 254, 1, 777, 0};
	struct module *g[4], *kept, *fresh;
	uint32_t *ids;

	module_set_init(&set);
	for (uint64_t i = 0; i < 4; i++) {
		k.gen = 100 + i;
		g[i] = module_set_get(&set, &k, 0, 0, 0);
	}
	ck_assert_uint_eq(set.made, 4);
	/* Mapped still, or touched: not given back. */
	module_mapped(g[1], 1);
	ck_assert(!module_set_recycle(&set, g[1]));
	module_mapped(g[1], -1);
	ck_assert(!module_set_recycle(&set, g[1])); /* idle, not let go yet */
	ck_assert_uint_eq(module_set_take_idle(&set, &ids), 1);
	free(ids);
	let_go(&set, g[0]);
	module_touch(g[0]);
	ck_assert(!module_set_recycle(&set, g[0]));
	/* The middle of the chain, then its latest. */
	let_go(&set, g[1]);
	let_go(&set, g[3]);
	ck_assert(module_set_recycle(&set, g[1]));
	ck_assert(g[1]->free);
	ck_assert(!module_set_recycle(&set, g[1]));
	ck_assert(module_set_recycle(&set, g[3]));
	ck_assert_uint_eq(set.nfree, 2);
	ck_assert_uint_eq(g[2]->prev_same_ino, g[0]->id + 1);
	ck_assert_uint_eq(g[0]->next_same_ino, g[2]->id + 1);
	ck_assert_uint_eq(g[2]->next_same_ino, 0);
	/* Unlisted while what was made of it is forgotten: found no more, its id kept. */
	ck_assert(module_set_unlist(&set, g[0]));
	ck_assert(!g[0]->free);
	/* Their keys find nothing now: each is a module made anew. */
	k.gen = 0;
	ck_assert_ptr_eq(module_set_get(&set, &k, 0, 0, 0), g[2]);
	ck_assert_uint_eq(g[2]->next_same_ino, 0);
	ck_assert_uint_eq(g[2]->prev_same_ino, 0); /* the others are out of the chain */
	k.gen = 103;
	fresh = module_set_get(&set, &k, 0, 0, 0);
	ck_assert_uint_eq(fresh->id, 3); /* the id given back last */
	ck_assert(!fresh->free && !fresh->retired && !fresh->touched);
	ck_assert_str_eq(fresh->path, "/gone/storm");
	ck_assert_uint_eq(fresh->prev_same_ino, g[2]->id + 1);
	ck_assert_uint_eq(set.nreused, 1);
	ck_assert_uint_eq(set.reused[0], 3);
	ck_assert_uint_eq(set.n, 4);
	ck_assert_uint_eq(set.made, 5);
	/* Another file altogether takes the other id. */
	kept = module_set_get(&set, &(struct module_key){"/gone/other", 254, 1, 778, 5}, 0, 0, 0);
	ck_assert_uint_eq(kept->id, 1);
	ck_assert_uint_eq(set.nfree, 0);
	ck_assert_uint_eq(set.n, 4);
	/* The first generation, unlisted, is not found: its key makes a module anew. */
	k.gen = 100;
	fresh = module_set_get(&set, &k, 0, 0, 0);
	ck_assert_ptr_ne(fresh, g[0]);
	ck_assert_uint_eq(fresh->id, 4);
	ck_assert_uint_eq(fresh->prev_same_ino, 3 + 1);
	/* Forgotten by the stages above, it gives its id back. */
	module_forgotten(g[0]);
	ck_assert(module_set_recycle(&set, g[0]));
	ck_assert_uint_eq(set.free_ids[set.nfree - 1], 0);
	module_set_release(&set);
}
END_TEST

START_TEST(test_model_pseudo_files)
{
	struct fixture fx;
	const struct module_key vdso = {"[vdso]", 0, 0, 0, 0};
	const struct module_key anon = {"", 0, 0, 0, 0};
	const struct module_key jit = {"//anon", 0, 0, 0, 0};
	const struct mapping *map;

	fx_init(&fx);
	model_mmap(&fx.m, 100, 0x7ffe00000000ULL, 0x2000, 0, &vdso, RX);
	model_mmap(&fx.m, 100, 0x10000000, 0x1000, 0, &anon, RX | PROT_WRITE);
	model_mmap(&fx.m, 100, 0x20000000, 0x1000, 0, &jit, RX);
	map = model_find(&fx.m, 100, 0x7ffe00000100ULL);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(map->mod->kind, MODULE_VDSO);
	map = model_find(&fx.m, 100, 0x10000000);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(map->mod->kind, MODULE_ANON);
	map = model_find(&fx.m, 100, 0x20000000);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(map->mod->kind, MODULE_ANON);
	ck_assert_int_eq(module_kind_of("[vsyscall]", 0), MODULE_VDSO);
	ck_assert_int_eq(module_kind_of("/usr/lib/libc.so.6", 5), MODULE_FILE);
	fx_release(&fx);
}
END_TEST

/* dlclose + dlopen of another library at the same address. */
START_TEST(test_model_remap)
{
	struct fixture fx;
	const struct mapping *map;

	fx_init(&fx);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x4000, 0, &libfoo, RX);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x2000, 0x1000, &libc, RX);
	map = model_find(&fx.m, 100, 0x7f0000000000ULL);
	ck_assert_str_eq(map->mod->path, libc.path);
	ck_assert_uint_eq(map->pgoff, 0x1000);
	map = model_find(&fx.m, 100, 0x7f0000003000ULL);
	ck_assert_str_eq(map->mod->path, libfoo.path);
	ck_assert_uint_eq(map->start, 0x7f0000002000ULL);
	ck_assert_uint_eq(map->pgoff, 0x2000);
	fx_release(&fx);
}
END_TEST

/* A data mapping over code (munmap + mmap of data) removes that code. */
START_TEST(test_model_data_over_code)
{
	struct fixture fx;

	fx_init(&fx);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x4000, 0, &libfoo, RX);
	model_mmap(&fx.m, 100, 0x7f0000001000ULL, 0x1000, 0, &libc, PROT_READ | PROT_WRITE);
	ck_assert_ptr_nonnull(model_find(&fx.m, 100, 0x7f0000000fffULL));
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x7f0000001000ULL));
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x7f0000001fffULL));
	ck_assert_ptr_nonnull(model_find(&fx.m, 100, 0x7f0000002000ULL));
	ck_assert_uint_eq(model_find(&fx.m, 100, 0x7f0000002000ULL)->pgoff, 0x2000);
	ck_assert_uint_eq(maps_count(model_process(&fx.m, 100)->maps), 2);
	fx_release(&fx);
}
END_TEST

START_TEST(test_model_fork)
{
	struct fixture fx;
	const struct mapping *pm, *cm;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "parent", false);
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0, &app, RX);
	model_fork(&fx.m, 200, 100, 200, 100);

	pm = model_find(&fx.m, 100, 0x400000);
	cm = model_find(&fx.m, 200, 0x400000);
	ck_assert_ptr_nonnull(cm);
	ck_assert_ptr_ne(pm, cm); /* a copy, not the same tree */
	ck_assert_ptr_eq(pm->mod, cm->mod);
	ck_assert_uint_eq(cm->end, 0x402000);
	ck_assert_str_eq(model_process(&fx.m, 200)->comm, "parent");
	ck_assert_str_eq(model_thread(&fx.m, 200, 200)->comm, "parent");

	/* Later changes stay in the process that made them. */
	model_mmap(&fx.m, 200, 0x7f0000000000ULL, 0x1000, 0, &libfoo, RX);
	ck_assert_ptr_nonnull(model_find(&fx.m, 200, 0x7f0000000000ULL));
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x7f0000000000ULL));
	model_mmap(&fx.m, 100, 0x7f1000000000ULL, 0x1000, 0, &libc, RX);
	ck_assert_ptr_null(model_find(&fx.m, 200, 0x7f1000000000ULL));
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0, &libc, PROT_READ);
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x400000));
	ck_assert_ptr_nonnull(model_find(&fx.m, 200, 0x400000));
	fx_release(&fx);
}
END_TEST

/* A new thread shares its process's address space. */
START_TEST(test_model_thread_shares_maps)
{
	struct fixture fx;
	struct thread *t;

	fx_init(&fx);
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0, &app, RX);
	model_fork(&fx.m, 100, 100, 101, 100); /* pthread_create */
	t = model_thread(&fx.m, 100, 101);
	ck_assert_uint_eq(t->pid, 100);
	ck_assert_uint_eq(t->tid, 101);
	/* A thread is not a process: no second address space was made. */
	ck_assert_uint_eq(fx.m.procs.count, 1);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x1000, 0, &libfoo, RX);
	ck_assert_ptr_nonnull(model_find(&fx.m, 100, 0x7f0000000000ULL));
	fx_release(&fx);
}
END_TEST

START_TEST(test_model_exec)
{
	struct fixture fx;
	const struct mapping *map;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "sh", false);
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0, &app, RX);
	model_mmap(&fx.m, 100, 0x7f0000000000ULL, 0x1000, 0, &libc, RX);
	model_comm(&fx.m, 100, 100, "other", true);
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x400000));
	ck_assert_ptr_null(model_find(&fx.m, 100, 0x7f0000000000ULL));
	ck_assert_uint_eq(maps_count(model_process(&fx.m, 100)->maps), 0);
	ck_assert_str_eq(model_process(&fx.m, 100)->comm, "other");
	ck_assert_str_eq(model_thread(&fx.m, 100, 100)->comm, "other");
	/* The new image arrives as MMAP2 after the COMM. */
	model_mmap(&fx.m, 100, 0x400000, 0x3000, 0, &newapp, RX);
	map = model_find(&fx.m, 100, 0x402000);
	ck_assert_ptr_nonnull(map);
	ck_assert_str_eq(map->mod->path, newapp.path);
	fx_release(&fx);
}
END_TEST

/* exec in a child leaves the parent's address space alone. */
START_TEST(test_model_fork_exec)
{
	struct fixture fx;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "bash", false);
	model_mmap(&fx.m, 100, 0x400000, 0x2000, 0, &app, RX);
	model_fork(&fx.m, 200, 100, 200, 100);
	model_comm(&fx.m, 200, 200, "ls", true);
	ck_assert_ptr_null(model_find(&fx.m, 200, 0x400000));
	ck_assert_ptr_nonnull(model_find(&fx.m, 100, 0x400000));
	ck_assert_str_eq(model_process(&fx.m, 100)->comm, "bash");
	ck_assert_str_eq(model_thread(&fx.m, 100, 100)->comm, "bash");
	ck_assert_str_eq(model_process(&fx.m, 200)->comm, "ls");
	fx_release(&fx);
}
END_TEST

START_TEST(test_model_thread_comm)
{
	struct fixture fx;
	uint64_t gen;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "server", false);
	model_fork(&fx.m, 100, 100, 101, 100);
	ck_assert_str_eq(model_thread(&fx.m, 100, 101)->comm, "server");

	/* prctl(PR_SET_NAME) in a thread renames the thread only. */
	gen = model_thread(&fx.m, 100, 101)->comm_gen; /* the user's "server" is of it */
	model_comm(&fx.m, 100, 101, "worker", false);
	ck_assert_uint_ne(model_thread(&fx.m, 100, 101)->comm_gen, gen); /* stale: told */
	ck_assert_str_eq(model_thread(&fx.m, 100, 101)->comm, "worker");
	ck_assert_str_eq(model_thread(&fx.m, 100, 100)->comm, "server");
	ck_assert_str_eq(model_process(&fx.m, 100)->comm, "server");

	/* A thread started by the worker inherits the worker's name. */
	model_fork(&fx.m, 100, 100, 102, 101);
	ck_assert_str_eq(model_thread(&fx.m, 100, 102)->comm, "worker");

	/* Renaming the main thread renames the process. */
	model_comm(&fx.m, 100, 100, "server-main", false);
	ck_assert_str_eq(model_process(&fx.m, 100)->comm, "server-main");
	ck_assert_str_eq(model_thread(&fx.m, 100, 101)->comm, "worker");

	/* A thread first met in a sample takes the process's name. */
	ck_assert_str_eq(model_thread(&fx.m, 100, 150)->comm, "server-main");

	/* Names are cut to the kernel's 15 characters. */
	model_comm(&fx.m, 100, 101, "a-very-long-thread-name", false);
	ck_assert_str_eq(model_thread(&fx.m, 100, 101)->comm, "a-very-long-thr");
	fx_release(&fx);
}
END_TEST

static void *named_thread(void *arg)
{
	pthread_barrier_t *b = arg;

	pthread_barrier_wait(b); /* named, tid published */
	pthread_barrier_wait(b); /* the test is done */
	return NULL;
}

static pid_t named_tid;

static void *publish_tid(void *arg)
{
	named_tid = gettid();
	pthread_setname_np(pthread_self(), "real-name");
	return named_thread(arg);
}

/*
 * A live model names a thread first met in a sample from /proc (it may
 * have been renamed before the recording), but a forked one after the
 * thread that forked, as the kernel does, reading nothing: a thread
 * churner would cost a /proc open per thread.
 */
START_TEST(test_model_fork_reads_nothing)
{
	struct module_set mods;
	struct model m;
	pthread_barrier_t b;
	pthread_t th;
	uint32_t pid = (uint32_t)getpid();

	ck_assert_int_eq(pthread_barrier_init(&b, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, publish_tid, &b), 0);
	pthread_barrier_wait(&b);

	module_set_init(&mods);
	model_init(&m, &mods, true);
	model_comm(&m, pid, pid, "parent", false);
	model_fork(&m, pid, pid, (uint32_t)named_tid, pid);
	ck_assert_str_eq(model_thread(&m, pid, (uint32_t)named_tid)->comm, "parent");
	ck_assert_uint_eq(m.names_read, 0);
	model_release(&m);

	model_init(&m, &mods, true);
	model_comm(&m, pid, pid, "parent", false);
	ck_assert_str_eq(model_thread(&m, pid, (uint32_t)named_tid)->comm, "real-name");
	ck_assert_uint_eq(m.names_read, 1);
	model_release(&m);
	module_set_release(&mods);

	pthread_barrier_wait(&b);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&b);
}
END_TEST

/*
 * A live process whose exec was seen got every mapping as a record: an
 * address in none of them (a word of a broken frame-pointer chain) reads
 * no /proc/PID/maps, nor does its child's; after lost records it does,
 * once. A process met without its exec is read again (at most once a
 * second): its mappings may predate the recording.
 */
START_TEST(test_model_tracked_reads_nothing)
{
	struct module_set mods;
	struct model m;
	uint32_t pid = (uint32_t)getpid();
	uint64_t stray = 0x10; /* in no mapping, here or in /proc */

	module_set_init(&mods);
	model_init(&m, &mods, true);
	model_comm(&m, pid, pid, "exec", true);
	ck_assert_ptr_null(model_find(&m, pid, stray));
	ck_assert_ptr_null(model_find(&m, pid, stray + 1));
	ck_assert_uint_eq(m.reseeds, 0);
	model_fork(&m, pid + 1, pid, pid + 1, pid);
	ck_assert_ptr_null(model_find(&m, pid + 1, stray));
	ck_assert_uint_eq(m.reseeds, 0);
	model_lost(&m);
	ck_assert_ptr_null(model_find(&m, pid, stray));
	ck_assert_uint_eq(m.reseeds, 1);
	ck_assert_ptr_null(model_find(&m, pid, stray));
	ck_assert_uint_eq(m.reseeds, 1);
	model_release(&m);

	/* Not seen exec'ing: read when first met, and not again within the second. */
	model_init(&m, &mods, true);
	ck_assert_ptr_null(model_find(&m, pid, stray));
	ck_assert_uint_eq(m.reseeds, 1);
	ck_assert_ptr_null(model_find(&m, pid, stray));
	ck_assert_uint_eq(m.reseeds, 1);
	model_release(&m);
	module_set_release(&mods);
}
END_TEST

/*
 * fork() in a renamed thread: the kernel copies the forking task's comm,
 * so the child process is named after the thread, not after the parent's
 * main thread.
 */
START_TEST(test_model_fork_from_thread)
{
	struct fixture fx;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "server", false);
	model_fork(&fx.m, 100, 100, 101, 100);
	model_comm(&fx.m, 100, 101, "worker", false);
	model_fork(&fx.m, 300, 100, 300, 101);
	ck_assert_str_eq(model_thread(&fx.m, 300, 300)->comm, "worker");
	ck_assert_str_eq(model_process(&fx.m, 300)->comm, "worker");
	/* So is a thread of the child first met in a sample. */
	ck_assert_str_eq(model_thread(&fx.m, 300, 301)->comm, "worker");
	fx_release(&fx);
}
END_TEST

/* A tid reused by another process belongs to the new one. */
START_TEST(test_model_tid_reuse)
{
	struct fixture fx;
	struct thread *t;
	uint64_t serial, gen;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "old", false);
	model_comm(&fx.m, 500, 500, "new", false);
	t = model_thread(&fx.m, 100, 4242);
	ck_assert_uint_eq(t->pid, 100);
	ck_assert_str_eq(t->comm, "old");
	serial = t->serial;
	gen = t->comm_gen;
	t = model_thread(&fx.m, 500, 4242);
	ck_assert_uint_eq(t->pid, 500);
	ck_assert_str_eq(t->comm, "new");
	/* Another thread, of another name: what a user kept of the old is not the new's. */
	ck_assert_uint_ne(t->serial, serial);
	ck_assert_uint_ne(t->comm_gen, gen);
	fx_release(&fx);
}
END_TEST

START_TEST(test_model_unknown_process)
{
	struct fixture fx;
	struct process *p;

	fx_init(&fx);
	p = model_process(&fx.m, 4321);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->pid, 4321);
	ck_assert_uint_eq(maps_count(p->maps), 0);
	ck_assert_uint_eq(p->seeded_ns, 0); /* not live: /proc was not read */
	ck_assert_ptr_eq(model_process(&fx.m, 4321), p);
	ck_assert_str_eq(model_process(&fx.m, 0)->comm, "swapper");
	ck_assert_ptr_null(model_find(&fx.m, 4321, 0x400000));
	ck_assert_uint_eq(fx.m.reseeds, 0);
	fx_release(&fx);
}
END_TEST

/* A process the model forgot, for test_model_exit. */
static void note_gone(uint32_t id, bool proc, void *arg)
{
	uint32_t *last = arg;

	if (proc)
		*last = id;
}

/*
 * Exits: the dead linger, found as they were by the samples taken on
 * their way out, until reaped: then a thread's exit forgets the thread,
 * the leader's the process and its mappings; a pid used again later is a
 * new process with no mappings.
 */
START_TEST(test_model_exit)
{
	struct fixture fx;
	uint32_t gone = 0;

	fx_init(&fx);
	model_comm(&fx.m, 500, 500, "server", true);
	model_mmap(&fx.m, 500, 0x400000, 0x1000, 0, &app, RX);
	model_fork(&fx.m, 500, 500, 501, 500);
	model_comm(&fx.m, 500, 501, "worker", false);
	ck_assert_uint_eq(fx.m.threads.count, 2);
	model_exit(&fx.m, 500, 501, 1000);
	/* Sampled after its exit record: still the worker. */
	ck_assert_str_eq(model_thread(&fx.m, 500, 501)->comm, "worker");
	ck_assert_uint_eq(fx.m.threads.count, 2);
	model_reap(&fx.m, 1000, note_gone, &gone);
	ck_assert_uint_eq(fx.m.threads.count, 2); /* not before its time */
	model_reap(&fx.m, 1001, note_gone, &gone);
	ck_assert_uint_eq(fx.m.threads.count, 1);
	ck_assert_uint_eq(gone, 0);
	ck_assert_ptr_nonnull(model_find(&fx.m, 500, 0x400010));
	/* An exit of a thread never seen changes nothing. */
	model_exit(&fx.m, 500, 777, 1100);
	ck_assert_uint_ne(model_maps_generation(&fx.m, 500), 0);
	ck_assert_str_eq(model_thread(&fx.m, 500, 500)->comm, "server");
	model_exit(&fx.m, 500, 500, 1200);
	model_exit(&fx.m, 500, 500, 1250); /* twice: one death */
	/* Its last samples still find its mappings and its name. */
	ck_assert_ptr_nonnull(model_find(&fx.m, 500, 0x400010));
	ck_assert_str_eq(model_thread(&fx.m, 500, 500)->comm, "server");
	ck_assert_uint_eq(fx.m.procs.count, 1);
	model_reap(&fx.m, UINT64_MAX, note_gone, &gone);
	ck_assert_uint_eq(gone, 500);
	ck_assert_uint_eq(fx.m.threads.count, 0);
	ck_assert_uint_eq(fx.m.procs.count, 0);
	ck_assert_uint_eq(fx.m.ndead, 0);
	/* Gone, though last looked up. */
	ck_assert_uint_eq(model_maps_generation(&fx.m, 500), 0);
	/* The pid again: a stranger, without the old mappings. */
	ck_assert_ptr_null(model_find(&fx.m, 500, 0x400010));
	ck_assert_str_eq(model_thread(&fx.m, 500, 500)->comm, "pid-500");
	model_exit(&fx.m, 999, 999, 1300);
	ck_assert_uint_eq(fx.m.ndead, 0);
	fx_release(&fx);
}
END_TEST

/*
 * A fork that takes the tid or pid of the just dead, before they are
 * reaped, makes a new thread and process: the parent's mappings and name,
 * not the dead's; the reaping then forgets only the dead.
 */
static void count_thread(struct thread *t, void *arg)
{
	(void)t;
	(*(size_t *)arg)++;
}

START_TEST(test_model_exit_reused)
{
	struct fixture fx;
	uint32_t gone = 0;
	size_t seen = 0;
	struct thread *t;

	fx_init(&fx);
	model_comm(&fx.m, 100, 100, "parent", true);
	model_mmap(&fx.m, 100, 0x500000, 0x1000, 0, &libc, RX);
	model_fork(&fx.m, 200, 100, 200, 100);
	model_comm(&fx.m, 200, 200, "child", true);
	model_mmap(&fx.m, 200, 0x400000, 0x1000, 0, &app, RX);
	model_fork(&fx.m, 200, 200, 201, 200);
	model_exit(&fx.m, 200, 201, 10);
	model_exit(&fx.m, 200, 200, 11);
	/* Pid 200 and tid 201 again, before the reaping. */
	model_fork(&fx.m, 200, 100, 200, 100);
	ck_assert_str_eq(model_process(&fx.m, 200)->comm, "parent");
	ck_assert_ptr_null(model_find(&fx.m, 200, 0x400010));
	ck_assert_ptr_nonnull(model_find(&fx.m, 200, 0x500010));
	model_fork(&fx.m, 200, 200, 201, 200);
	t = model_thread(&fx.m, 200, 201);
	ck_assert(!t->exited);
	ck_assert_str_eq(t->comm, "parent");
	/* A dead tid sampled under another pid is another thread too. */
	model_fork(&fx.m, 100, 100, 101, 100);
	model_exit(&fx.m, 100, 101, 12);
	ck_assert_uint_eq(model_thread(&fx.m, 300, 101)->pid, 300);
	ck_assert(!model_thread(&fx.m, 300, 101)->exited);
	/* Every thread once: the living, and the dead whose tid another took (200, 201, 101). */
	model_each_thread(&fx.m, count_thread, &seen);
	ck_assert_uint_eq(seen, fx.m.threads.count + 3);
	model_reap(&fx.m, UINT64_MAX, note_gone, &gone);
	ck_assert_uint_eq(gone, 0); /* pid 200 is the new process's */
	seen = 0;
	model_each_thread(&fx.m, count_thread, &seen);
	ck_assert_uint_eq(seen, fx.m.threads.count);
	ck_assert_ptr_eq(model_thread(&fx.m, 200, 201), t);
	ck_assert_ptr_nonnull(model_find(&fx.m, 200, 0x500010));
	ck_assert_uint_eq(fx.m.procs.count, 3);
	fx_release(&fx);
}
END_TEST

/*
 * A live process's JIT module: an address in no mapping makes none while
 * the process has no perf map (most never do), but finds the map once it
 * is written; anonymous executable memory makes one at once.
 */
START_TEST(test_model_perfmap_found)
{
	struct module_set mods;
	struct model m;
	struct module *jit;
	char path[64];
	size_t before;
	FILE *f;

	module_set_init(&mods);
	model_init(&m, &mods, true);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	model_process(&m, (uint32_t)getpid()); /* its mappings read: their modules made */
	before = mods.n;
	ck_assert_ptr_null(model_perfmap(&m, (uint32_t)getpid(), false));
	ck_assert_uint_eq(mods.n, before);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "7f0000001000 100 jitted\n");
	fclose(f);
	/* Looked for again 20 ms after the first look. */
	usleep(60000);
	jit = model_perfmap(&m, (uint32_t)getpid(), false);
	unlink(path);
	ck_assert_ptr_nonnull(jit);
	ck_assert_int_eq(jit->kind, MODULE_PERFMAP);
	ck_assert_int_ge(jit->fd, 0);
	ck_assert_uint_eq(mods.n, before + 1);
	ck_assert_ptr_eq(model_perfmap(&m, (uint32_t)getpid(), true), jit);
	/* Anonymous executable memory: the module comes first, its map maybe later. */
	model_process(&m, 1);
	before = mods.n;
	jit = model_perfmap(&m, 1, true);
	ck_assert_ptr_nonnull(jit);
	ck_assert_int_eq(jit->kind, MODULE_PERFMAP);
	ck_assert_uint_eq(mods.n, before + 1);
	model_release(&m);
	module_set_release(&mods);
}
END_TEST

/* The pid a process knows itself by, from /proc/PID/status text. */
static int nspid_of(const char *text, uint32_t *out)
{
	FILE *f = unit_text_stream(text);
	int ret = perfmap_nspid_parse(f, out);

	fclose(f);
	return ret;
}

START_TEST(test_nspid)
{
	uint32_t ns = 0;

	/* The host's pid first, then each nested namespace's: the last wins. */
	ck_assert_int_eq(nspid_of("Name:\tnode\nPid:\t4242\nNSpid:\t4242\t17\t1\n", &ns), 0);
	ck_assert_uint_eq(ns, 1);
	ck_assert_int_eq(nspid_of("Tgid:\t9\nNSpid:\t9\nNStgid:\t9\n", &ns), 0);
	ck_assert_uint_eq(ns, 9);
	/* Before Linux 4.1 there is no such line. */
	ck_assert_int_eq(nspid_of("Name:\tx\nPid:\t5\n", &ns), -ENOENT);
	ck_assert_int_eq(nspid_of("", &ns), -ENOENT);
	/* Garbage is refused, never taken for pid 0 or a huge pid. */
	ck_assert_int_eq(nspid_of("NSpid:\n", &ns), -EINVAL);
	ck_assert_int_eq(nspid_of("NSpid:\tabc\n", &ns), -EINVAL);
	ck_assert_int_eq(nspid_of("NSpid:\t12\t0\n", &ns), -EINVAL);
	ck_assert_int_eq(nspid_of("NSpid:\t12\t99999999999\n", &ns), -EINVAL);
	ck_assert_int_eq(nspid_of("NSpid:\t12\t-1\n", &ns), -EINVAL);
	ck_assert_uint_eq(ns, 9);
}
END_TEST

/* A text finder that knows one layout: text at offset 0x1000, 0x3000 long, after the headers. */
static int fake_text(void *arg, const struct module *mod, const struct maps_line *nb, uint64_t lo,
		     uint64_t hi, uint64_t *off)
{
	uint64_t base = nb->start - nb->pgoff;

	(*(int *)arg)++;
	(void)mod;
	if (lo < base + 0x1000 || hi > base + 0x4000)
		return -ENOENT;
	*off = lo - base;
	return 0;
}

/*
 * /proc/PID/maps of a program whose text moved to anonymous memory: the
 * anonymous executable mapping between the file's own is the file's text,
 * whichever neighbour says so; elsewhere anonymous code stays anonymous.
 */
START_TEST(test_model_moved_text)
{
	static const char *const maps[] = {
		/* the file before and after */
		"555500000000-555500001000 r--p 00000000 08:02 1001 /nonexistent/bin/app\n"
		"555500001000-555500004000 r-xp 00000000 00:00 0 \n"
		"555500004000-555500005000 r--p 00004000 08:02 1001 /nonexistent/bin/app\n"
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n",
		/* the file after only; the part moved, the rest still the file's */
		"555500001000-555500002000 r-xp 00000000 00:00 0 \n"
		"555500002000-555500004000 r-xp 00002000 08:02 1001 /nonexistent/bin/app\n",
	};
	const struct mapping *map;

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		struct fixture fx;
		int calls = 0;
		FILE *f = fmemopen((void *)maps[i], strlen(maps[i]), "r");

		fx_init(&fx);
		model_set_text_finder(&fx.m, fake_text, &calls);
		ck_assert_int_eq(model_seed_file(&fx.m, model_process(&fx.m, 100), f), 0);
		fclose(f);
		map = model_find(&fx.m, 100, 0x555500001234ULL);
		ck_assert_ptr_nonnull(map);
		ck_assert_ptr_nonnull(map->mod);
		ck_assert_str_eq(map->mod->path, app.path);
		ck_assert_int_eq(map->mod->kind, MODULE_FILE);
		ck_assert_uint_eq(map->start, 0x555500001000ULL);
		ck_assert_uint_eq(map->pgoff, 0x1000);
		if (i == 0) {
			map = model_find(&fx.m, 100, 0x7f0000000010ULL);
			ck_assert_ptr_nonnull(map);
			ck_assert_int_eq(map->mod->kind, MODULE_ANON);
		}
		ck_assert_int_ge(calls, 1);
		fx_release(&fx);
	}
}
END_TEST

/* The cgroup2 mount in mountinfo text (escapes undone), and a process's v2 path. */
START_TEST(test_cgroup_text)
{
	static const char hybrid[] =
		"24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
		"31 24 0:26 / /sys/fs/cgroup ro shared:9 - tmpfs tmpfs ro,mode=755\n"
		"35 31 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		"32 31 0:27 / /sys/fs/cgroup/uni\\040fied rw shared:10 - cgroup2 cgroup2 rw\n";
	static const char v1[] = "35 31 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n";
	char buf[64], *m;

	m = cgroup_mount_in(hybrid);
	ck_assert_str_eq(m, "/sys/fs/cgroup/uni fied");
	free(m);
	ck_assert_ptr_null(cgroup_mount_in(v1));
	ck_assert_ptr_null(cgroup_mount_in(""));
	/* Optional fields before the " - " are skipped; a bare v2 system. */
	m = cgroup_mount_in(
		"30 23 0:26 / /sys/fs/cgroup rw shared:4 master:1 - cgroup2 cgroup2 rw");
	ck_assert_str_eq(m, "/sys/fs/cgroup");
	free(m);

	ck_assert(cgroup_line_in("4:memory:/a\n0::/system.slice/x.service\n", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "/system.slice/x.service");
	ck_assert(cgroup_line_in("0::/", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "/");
	ck_assert(!cgroup_line_in("4:memory:/a\n", buf, sizeof(buf)));
	ck_assert(!cgroup_line_in(
		"0::/far/too/long/for/a/buffer/of/sixty/four/bytes/which/it/is/not/by/far", buf,
		sizeof(buf)));
}
END_TEST

/* cgroups_add and cgroups_path: a path by id; a new path for an id replaces the old. */
START_TEST(test_cgroups_ids)
{
	struct cgroups c;

	cgroups_init(&c);
	free(c.mount);
	c.mount = NULL; /* no walks */
	cgroups_add(&c, 1, "/");
	cgroups_add(&c, 77, "/a.service");
	ck_assert_str_eq(cgroups_path(&c, 77, 0), "/a.service");
	ck_assert_str_eq(cgroups_path(&c, 1, 0), "/");
	ck_assert_ptr_null(cgroups_path(&c, 78, 0));
	cgroups_add(&c, 77, "/b.service");
	ck_assert_str_eq(cgroups_path(&c, 77, 0), "/b.service");
	cgroups_release(&c);
}
END_TEST

static Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("maps text");

	tcase_add_test(tc, test_parse_normal);
	tcase_add_test(tc, test_parse_odd_paths);
	tcase_add_test(tc, test_parse_malformed);
	tcase_add_test(tc, test_parse_long_path);
	tcase_add_test(tc, test_parse_stop);
	tcase_add_test(tc, test_nspid);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_add_test(tc, test_model_mmap_find);
	tcase_add_test(tc, test_model_module_identity);
	tcase_add_test(tc, test_model_inode_reused);
	tcase_add_test(tc, test_module_budget);
	tcase_add_test(tc, test_model_pseudo_files);
	tcase_add_test(tc, test_model_remap);
	tcase_add_test(tc, test_model_moved_text);
	tcase_add_test(tc, test_model_data_over_code);
	tcase_add_test(tc, test_model_fork);
	tcase_add_test(tc, test_model_thread_shares_maps);
	tcase_add_test(tc, test_model_exec);
	tcase_add_test(tc, test_model_fork_exec);
	tcase_add_test(tc, test_model_fork_reads_nothing);
	tcase_add_test(tc, test_model_thread_comm);
	tcase_add_test(tc, test_model_fork_from_thread);
	tcase_add_test(tc, test_model_tid_reuse);
	tcase_add_test(tc, test_model_unknown_process);
	tcase_add_test(tc, test_model_exit);
	tcase_add_test(tc, test_model_exit_reused);
	tcase_add_test(tc, test_model_tracked_reads_nothing);
	tcase_add_test(tc, test_model_perfmap_found);
	tcase_add_test(tc, test_cgroup_text);
	tcase_add_test(tc, test_cgroups_ids);
	tcase_add_test(tc, test_module_unpin_unopened);
	tcase_add_test(tc, test_module_generations);
	tcase_add_test(tc, test_module_recycle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(proc_suite());
}
