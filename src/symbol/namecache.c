/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namecache.c - names kept between recordings by build-id; see
 * namecache.h.
 *
 * A file: "PMNAMES1", a 32-bit count, then each address: its file offset
 * and symbol offset (64 bits each), its number of levels (8 bits, 1 to
 * SRCLINE_MAX_DEPTH), and each level innermost first: line, column and
 * declaration line (32 bits each), flags (8 bits: 1 inlined, 2 a
 * symbol's suffix names it better), entry (64 bits), then its function
 * and its file, each a 16-bit length (0xffff: none), that many bytes and
 * a NUL.
 * Numbers as the host stores them: the files are this machine's own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/namecache.h"
#include "symbol/zcache.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/cursor.h"
#include "util/hmap.h"
#include "util/io.h"
#include "util/sbuf.h"

#define MAGIC	   "PMNAMES1"
#define SUFFIX	   ".n"
#define NO_STR	   0xffff
#define FILE_BYTES (64u << 20) /* a file larger is not read */

struct nc_entry {
	uint64_t off, symoff;
	uint32_t lv; /* its first level in the cache's levels */
	int n;
};

/*
 * Blocks of strings, where a string kept stays put: the first of
 * STR_BLOCK_MIN bytes (most modules keep few names), each next twice the
 * last, up to STR_BLOCK_MAX (or one string's size).
 */
#define STR_BLOCK_MIN 1024u
#define STR_BLOCK_MAX (64u << 10)

struct namecache {
	char name[96];	   /* BUILD-ID.n */
	unsigned users;	   /* namecache_hold's, and the opener's */
	struct hmap index; /* off -> entry index */
	struct nc_entry *e;
	size_t n, cap;
	size_t from_file; /* e[0 .. from_file) were read from the file */
	/*
	 * The entries' levels, one after another, and their strings, each
	 * kept once (the addresses of one function share its name and file):
	 * in blocks, strs_index by hash -> the string.
	 */
	struct srcline *lv;
	size_t nlv, lv_cap;
	char **blocks;
	size_t nblocks, block_used, block_cap;
	struct hmap strs_index;
};

/* The directory of the names, in the cache's: made if missing; -1 when none or untrusted. */
static int names_dir(void)
{
	int cache = zcache_dir(), fd;
	struct stat st;

	if (cache < 0)
		return -1;
	if (mkdirat(cache, "names", 0700) < 0 && errno != EEXIST)
		return -1;
	fd = openat(cache, "names", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *kept_text(uint64_t val, const void *ctx, size_t *len)
{
	const char *s = (const char *)(uintptr_t)val;

	(void)ctx;
	*len = strlen(s);
	return s;
}

/* s as c keeps it, kept now if it was not; NULL stays NULL. */
static const char *keep_str(struct namecache *c, const char *s)
{
	size_t len;
	bool added;
	struct hmap_slot *slot;
	char *at;

	if (!s)
		return NULL;
	len = strlen(s);
	slot = hmap_intern_str(&c->strs_index, s, len, kept_text, c, &added);
	if (!added)
		return (const char *)(uintptr_t)slot->val;
	if (!c->nblocks || c->block_used + len + 1 > c->block_cap) {
		size_t cap = c->nblocks ? 2 * c->block_cap : STR_BLOCK_MIN;

		if (cap > STR_BLOCK_MAX)
			cap = STR_BLOCK_MAX;
		c->block_cap = len + 1 > cap ? len + 1 : cap;
		c->blocks = xrealloc(c->blocks, (c->nblocks + 1) * sizeof(*c->blocks));
		c->blocks[c->nblocks++] = xmalloc(c->block_cap);
		c->block_used = 0;
	}
	at = c->blocks[c->nblocks - 1] + c->block_used;
	memcpy(at, s, len + 1);
	c->block_used += len + 1;
	slot->val = (uint64_t)(uintptr_t)at;
	return at;
}

static void add(struct namecache *c, uint64_t off, uint64_t symoff, const struct srcline *lv, int n)
{
	bool added;
	struct hmap_slot *s = hmap_insert(&c->index, off, &added);

	if (!added)
		return;
	xgrow(&c->e, &c->cap, c->n + 1, sizeof(*c->e));
	xgrow(&c->lv, &c->lv_cap, c->nlv + (size_t)n, sizeof(*c->lv));
	c->e[c->n] = (struct nc_entry){off, symoff, (uint32_t)c->nlv, n};
	for (int k = 0; k < n; k++) {
		struct srcline *to = &c->lv[c->nlv++];

		*to = lv[k];
		to->func = keep_str(c, lv[k].func);
		to->file = keep_str(c, lv[k].file);
	}
	s->val = c->n++;
}

/* Every address and string c keeps let go. */
static void forget_all(struct namecache *c)
{
	for (size_t i = 0; i < c->nblocks; i++)
		free(c->blocks[i]);
	free(c->blocks);
	c->blocks = NULL;
	c->nblocks = c->block_used = c->block_cap = 0;
	hmap_release(&c->strs_index);
	hmap_release(&c->index);
	c->n = c->nlv = 0;
}

/* A string of the file, in it: NULL for none; false when it does not parse. */
static bool read_str(struct cur *c, const char **s)
{
	uint64_t len = cur_fixed(c, 2);

	*s = NULL;
	if (len == NO_STR)
		return !c->bad;
	if (!cur_avail(c, len + 1) || c->p[len] != '\0')
		return false;
	*s = (const char *)c->p;
	c->p += len + 1;
	return true;
}

/* One address of the file into c; false when it does not parse. */
static bool read_entry(struct namecache *nc, struct cur *c)
{
	struct srcline lv[SRCLINE_MAX_DEPTH];
	uint64_t off = cur_fixed(c, 8), symoff = cur_fixed(c, 8);
	int n = (int)cur_fixed(c, 1);

	if (c->bad || n < 1 || n > SRCLINE_MAX_DEPTH)
		return false;
	memset(lv, 0, sizeof(lv));
	for (int k = 0; k < n; k++) {
		uint8_t flags;

		lv[k].line = (uint32_t)cur_fixed(c, 4);
		lv[k].col = (uint32_t)cur_fixed(c, 4);
		lv[k].decl_line = (uint32_t)cur_fixed(c, 4);
		flags = (uint8_t)cur_fixed(c, 1);
		lv[k].inlined = flags & 1;
		lv[k].symbol_suffix = flags & 2;
		lv[k].entry = cur_fixed(c, 8);
		if (!read_str(c, &lv[k].func) || !read_str(c, &lv[k].file))
			return false;
	}
	/* The outermost level has a function: only named addresses are kept. */
	if (!lv[n - 1].func)
		return false;
	add(nc, off, symoff, lv, n);
	return true;
}

/* The file's addresses into c; on any fault, none of them. */
static void read_file(struct namecache *c, int fd)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	struct cur cur;
	uint64_t count;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size > FILE_BYTES || read_whole(fd, &buf, &len) < 0)
		return;
	cur = (struct cur){(const uint8_t *)buf, (const uint8_t *)buf + len, false};
	if (len < 12 || memcmp(buf, MAGIC, 8) != 0)
		goto out;
	cur.p += 8;
	count = cur_fixed(&cur, 4);
	for (uint64_t i = 0; i < count && i < NAMECACHE_ENTRIES; i++)
		if (!read_entry(c, &cur))
			break;
	if (cur.bad || c->n != count || cur.p != cur.end) {
		/* Damaged: as if there were none. */
		forget_all(c);
	}
	/* Read whole: the room the arrays grew by past it given back. */
	if (c->n) {
		c->e = xrealloc(c->e, c->n * sizeof(*c->e));
		c->cap = c->n;
		c->lv = xrealloc(c->lv, c->nlv * sizeof(*c->lv));
		c->lv_cap = c->nlv;
	}
	futimens(fd, NULL); /* used now: the last to go */
out:
	free(buf);
	c->from_file = c->n;
}

static bool hex_id(const char *id)
{
	size_t n = strlen(id);

	if (n < 2 || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

struct namecache *namecache_open(const char *build_id)
{
	struct namecache *c;
	int dir, fd;

	if (!hex_id(build_id) || (dir = names_dir()) < 0)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->users = 1;
	hmap_init(&c->index);
	hmap_init(&c->strs_index);
	snprintf(c->name, sizeof(c->name), "%s" SUFFIX, build_id);
	fd = openat(dir, c->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		read_file(c, fd);
		close(fd);
	}
	close(dir);
	return c;
}

bool namecache_is(const struct namecache *c, const char *build_id)
{
	size_t n = strlen(build_id);

	return !strncmp(c->name, build_id, n) && !strcmp(c->name + n, SUFFIX);
}

struct namecache *namecache_hold(struct namecache *c)
{
	c->users++;
	return c;
}

bool namecache_release(struct namecache *c)
{
	return --c->users == 0;
}

bool namecache_find(const struct namecache *c, uint64_t off, struct symres *r)
{
	const struct hmap_slot *s = hmap_find(&c->index, off);
	const struct nc_entry *e;

	if (!s)
		return false;
	e = &c->e[s->val];
	r->n = e->n;
	r->symoff = e->symoff;
	r->symname = NULL;
	memcpy(r->lv, c->lv + e->lv, (size_t)e->n * sizeof(*r->lv));
	return true;
}

void namecache_add(struct namecache *c, uint64_t off, const struct symres *r)
{
	if (r->n < 1 || r->n > SRCLINE_MAX_DEPTH || !r->lv[r->n - 1].func ||
	    c->n >= NAMECACHE_ENTRIES)
		return;
	add(c, off, r->symoff, r->lv, r->n);
}

static void put_str(struct sbuf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	uint16_t v = s && len < NO_STR ? (uint16_t)len : NO_STR;

	sbuf_addn(b, (const char *)&v, sizeof(v));
	if (v != NO_STR)
		sbuf_addn(b, s, len + 1); /* with its NUL */
}

static void put_num(struct sbuf *b, uint64_t v, size_t n)
{
	sbuf_addn(b, (const char *)&v, n); /* little-endian: the low n bytes */
}

/* The bytes of the file built at most before they are written. */
#define SAVE_CHUNK (64u << 10)

/* What b holds, to fd; b emptied. 0, or -errno. */
static int put_out(int fd, struct sbuf *b)
{
	int ret = write_all(fd, b->buf, b->len) < 0 ? -errno : 0;

	sbuf_truncate(b, 0);
	return ret;
}

/* c's entries to fd, SAVE_CHUNK bytes at a time through b. 0, or -errno. */
static int put_entries(const struct namecache *c, int fd, struct sbuf *b)
{
	int ret;

	sbuf_addn(b, MAGIC, 8);
	put_num(b, c->n, 4);
	for (size_t i = 0; i < c->n; i++) {
		const struct nc_entry *e = &c->e[i];
		const struct srcline *lv = c->lv + e->lv;

		put_num(b, e->off, 8);
		put_num(b, e->symoff, 8);
		put_num(b, (uint64_t)e->n, 1);
		for (int k = 0; k < e->n; k++) {
			put_num(b, lv[k].line, 4);
			put_num(b, lv[k].col, 4);
			put_num(b, lv[k].decl_line, 4);
			put_num(b, (lv[k].inlined ? 1u : 0u) | (lv[k].symbol_suffix ? 2u : 0u), 1);
			put_num(b, lv[k].entry, 8);
			put_str(b, lv[k].func);
			put_str(b, lv[k].file);
		}
		if (b->len >= SAVE_CHUNK && (ret = put_out(fd, b)) < 0)
			return ret;
	}
	return put_out(fd, b);
}

int namecache_save(struct namecache *c)
{
	struct sbuf b = SBUF_INIT;
	char proc[64];
	int dir, fd, ret;

	if (c->n == c->from_file)
		return 0;
	if ((dir = names_dir()) < 0)
		return -ENOENT;
	/*
	 * Written to an unnamed file a chunk at a time (a big program's
	 * entries take megabytes, which the recorder's peak would hold at
	 * its stop), then named over the old one. Not synced: a file a crash
	 * left with blocks never written does not parse, and is as none.
	 */
	fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	ret = fd < 0 ? -errno : put_entries(c, fd, &b);
	if (ret == 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		unlinkat(dir, c->name, 0);
		if (linkat(AT_FDCWD, proc, dir, c->name, AT_SYMLINK_FOLLOW) < 0)
			ret = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (ret == 0) {
		c->from_file = c->n;
		zcache_trim_files(dir, SUFFIX, NAMECACHE_BYTES);
	}
	close(dir);
	sbuf_release(&b);
	return ret;
}

void namecache_free(struct namecache *c)
{
	if (!c)
		return;
	forget_all(c);
	free(c->e);
	free(c->lv);
	free(c);
}

size_t namecache_count(const struct namecache *c, size_t *from_file)
{
	*from_file = c->from_file;
	return c->n;
}
