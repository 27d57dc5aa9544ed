/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - allocation that fails loudly, error reporting, small helpers.
 *
 * Every allocation wrapper either returns memory or ends the process with a
 * one-line message: out of memory is not a condition callers handle.
 */
#ifndef PERFMINI_UTIL_H
#define PERFMINI_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Whether a command frees what it kept until its end. Freeing a
 * recording's modules, DWARF and profile just before exit takes
 * milliseconds at the moment the user waits, and returns nothing exit
 * would not; only builds that check for leaks (--enable-sanitizers) do it.
 */
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Grows *p (of *cap elements of size sz) to hold at least need elements. */
void xgrow(void *pp, size_t *cap, size_t need, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable string; buf is NUL-terminated once anything was added. */
struct sbuf {
	char *buf;
	size_t len, cap;
};

void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_release(struct sbuf *b);
/*
 * Appends s made safe to show on a terminal: every control character (C0,
 * DEL, and C1, which terminals obey too: a name from another process
 * could otherwise set the clipboard or move the cursor) and every byte
 * that is not part of valid UTF-8 turns into '?', so that the result is
 * valid UTF-8 as well.
 */
void sbuf_add_printable(struct sbuf *b, const char *s);
/* The same, and ';' (the folded format's separator) into ':'. */
void sbuf_add_sanitized(struct sbuf *b, const char *s);
/*
 * Appends s as a JSON string: quoted, '"' and '\' escaped, controls (C1
 * too: a terminal may act on them) as \uXXXX escapes, and each byte that is
 * not part of valid UTF-8 as U+FFFD, so that any bytes give valid JSON.
 */
void sbuf_add_json(struct sbuf *b, const char *s);
/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, its code point in
 * *cp; 0 when s starts none: a stray continuation byte, an overlong form,
 * a surrogate, a code point past U+10FFFF, or a sequence cut short.
 */
size_t utf8_char(const char *s, uint32_t *cp);
/* C0 and C1 controls and DEL: what a terminal may act on. */
bool utf8_is_control(uint32_t cp);
/* s made printable in b (emptied first); returns b's text, valid until b changes. */
const char *printable(struct sbuf *b, const char *s);

/* The program name used as the prefix of every message. */
extern const char *progname;

/* "perfmini: <message>" on stderr, then exit(1). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "perfmini: <message>" on stderr. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "perfmini: warning: <message>" on stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Unaligned little-endian-as-host loads and stores (record bytes may be unaligned). */
static inline uint16_t load_u16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline uint32_t load_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline uint64_t load_u64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline void store_u16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}
static inline void store_u64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * Little-endian whatever the host: the byte order of files perfmini
 * writes (the data file's integers).
 */
static inline void put_le32(void *p, uint32_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}
static inline void put_le64(void *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32((unsigned char *)p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t get_le32(const void *p)
{
	const unsigned char *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t get_le64(const void *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32((const unsigned char *)p + 4) << 32;
}

/*
 * In an array of n elements sorted by key, the number of leading ones
 * whose key is at most key: the index just after the last such element,
 * 0 when there is none. key_at(arr, i) is element i's key. Inline, so
 * that a constant key_at is inlined into the search too.
 */
static inline size_t bsearch_last_le(const void *arr, size_t n, uint64_t key,
				     uint64_t (*key_at)(const void *arr, size_t i))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at(arr, mid) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A 64-bit mix (splitmix64 finalizer), for hash tables. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}
uint64_t hash_bytes(const void *p, size_t n);
/*
 * A hash of n bytes for the per-sample paths (call chains, stacks): one
 * multiply a word on two independent lanes, mixed by hash_u64 at the end;
 * about four times as fast as hash_bytes on long inputs. Not stable across
 * versions: nothing stored may depend on it.
 */
uint64_t hash_fast(const void *p, size_t n);

/* Parses a whole string as unsigned decimal (leading zeros allowed) or 0x-hex; -EINVAL otherwise. */
int parse_u64(const char *s, uint64_t *out);
/*
 * Appends the ids of s, a comma-separated list of numbers (parse_u64's),
 * each from lo to hi, to the *n of *ids, each once: an id listed twice,
 * or already there, is not added again. A list with an empty item or a
 * bad number adds nothing: -EINVAL, with the item at fault (the whole
 * list when an item is empty) in bad.
 */
int parse_id_list(const char *s, uint32_t lo, uint32_t hi, uint32_t **ids, size_t *n, char *bad,
		  size_t badlen);
/* Monotonic clock in nanoseconds (the clock perf timestamps use). */
uint64_t now_ns(void);
/*
 * The same clock, cheaper and as of the last tick (a few ms late): for
 * "at most once a second" checks on hot paths; never mixed with now_ns.
 */
uint64_t now_coarse_ns(void);
/* The CPU time the calling thread has used, in nanoseconds; 0 when unknown. */
uint64_t thread_cpu_ns(void);
/* Whether process pid exists and has not exited (a zombie has). */
bool process_alive(uint32_t pid);
/*
 * An unnamed file for data that waits: on disk under $TMPDIR, /var/tmp or
 * /tmp (its pages are page cache, not the caller's memory), else in
 * memory (a memfd called name). Gone when the last descriptor closes.
 * Returns the descriptor (close-on-exec), or -errno.
 */
int unnamed_file(const char *name);
/* Writes all of buf to fd, again after a short write or EINTR; 0 or -errno (-ENOSPC for nothing written). */
int write_all(int fd, const void *buf, size_t len);
/* The same at file offset off (pwrite), leaving the file position alone. */
int pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

#endif
