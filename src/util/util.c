/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - allocation wrappers, messages and small helpers; see util.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

const char *progname = "perfmini";

static void __attribute__((noreturn)) oom(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", progname, size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		oom(size);
	return q;
}

void xgrow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t n = *cap;

	if (need <= n)
		return;
	if (n < 16)
		n = 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			oom(SIZE_MAX);
		n *= 2;
	}
	*p = xrealloc(*p, n * sz);
	*cap = n;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return s;
}

static void __attribute__((format(printf, 2, 0)))
vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	exit(1);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	while (n >= 8) {
		h = hash_u64(h ^ load_u64(b));
		b += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;

		memcpy(&t, b, n);
		h = hash_u64(h ^ t);
	}
	return h;
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

uint64_t hash_fast(const void *p, size_t n)
{
	const uint64_t k0 = 0x9e3779b97f4a7c15ULL, k1 = 0xc2b2ae3d27d4eb4fULL;
	const unsigned char *b = p;
	uint64_t h0 = k1 ^ n, h1 = k0;

	for (; n >= 16; b += 16, n -= 16) {
		h0 = rotl64((h0 ^ load_u64(b)) * k0, 29);
		h1 = rotl64((h1 ^ load_u64(b + 8)) * k1, 29);
	}
	if (n >= 8) {
		h0 = rotl64((h0 ^ load_u64(b)) * k0, 29);
		b += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;

		memcpy(&t, b, n);
		h1 = rotl64((h1 ^ t) * k1, 29);
	}
	return hash_u64(h0 ^ rotl64(h1, 32));
}

int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = s[2] ? strtoull(s + 2, &end, 16) : (end = (char *)s, 0);
	else
		v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_id_list(const char *s, uint32_t lo, uint32_t hi, uint32_t **ids, size_t *n, char *bad,
		  size_t badlen)
{
	size_t n0 = *n, cap = *n;

	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		char item[32];
		uint64_t v;
		bool seen = false;

		if (len == 0 || len >= sizeof(item)) {
			snprintf(bad, badlen, "%s", len ? p : s);
			if (len)
				bad[len < badlen ? len : badlen - 1] = '\0';
			*n = n0;
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (parse_u64(item, &v) < 0 || v < lo || v > hi) {
			snprintf(bad, badlen, "%s", item);
			*n = n0;
			return -EINVAL;
		}
		for (size_t i = 0; i < *n && !seen; i++)
			seen = (*ids)[i] == (uint32_t)v;
		if (!seen) {
			xgrow(ids, &cap, *n + 1, sizeof(**ids));
			(*ids)[(*n)++] = (uint32_t)v;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	xgrow(&b->buf, &b->cap, b->len + n + 1, 1);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	xgrow(&b->buf, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

size_t utf8_char(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c;
	size_t n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also the end of the string */
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

bool utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/* Appends str with what may not be shown as '?', and ';' as ':' when folded. */
static void add_shown(struct sbuf *b, const char *str, bool folded)
{
	const unsigned char *s = (const unsigned char *)str, *run = s;

	/* Runs of what may stay are copied at once. */
	sbuf_addn(b, "", 0);
	while (*s) {
		uint32_t cp;
		size_t n = utf8_char((const char *)s, &cp);
		const char *instead = NULL;

		if (folded && n == 1 && *s == ';')
			instead = ":";
		else if (n == 0 || utf8_is_control(cp))
			instead = "?";
		if (instead) {
			sbuf_addn(b, (const char *)run, (size_t)(s - run));
			sbuf_addn(b, instead, 1);
			s += n ? n : 1;
			run = s;
		} else {
			s += n;
		}
	}
	sbuf_addn(b, (const char *)run, (size_t)(s - run));
}

void sbuf_add_printable(struct sbuf *b, const char *s)
{
	add_shown(b, s, false);
}

void sbuf_add_sanitized(struct sbuf *b, const char *s)
{
	add_shown(b, s, true);
}

void sbuf_add_json(struct sbuf *b, const char *s)
{
	sbuf_adds(b, "\"");
	while (*s) {
		uint32_t cp;
		size_t n = utf8_char(s, &cp);

		if (n == 0)
			sbuf_adds(b, "\\ufffd");
		else if (cp == '"' || cp == '\\')
			sbuf_addf(b, "\\%c", (int)cp);
		else if (utf8_is_control(cp))
			sbuf_addf(b, "\\u%04x", (unsigned)cp);
		else
			sbuf_addn(b, s, n);
		s += n ? n : 1;
	}
	sbuf_adds(b, "\"");
}

const char *printable(struct sbuf *b, const char *s)
{
	b->len = 0;
	sbuf_add_printable(b, s);
	return b->buf;
}

void sbuf_release(struct sbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

bool process_alive(uint32_t pid)
{
	char path[64], buf[512], state = 0;
	size_t n;
	FILE *f;
	char *rp;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold spaces and parentheses. */
	rp = strrchr(buf, ')');
	if (rp && rp[1] == ' ')
		state = rp[2];
	return state && state != 'Z' && state != 'X';
}

int unnamed_file(const char *name)
{
	const char *dirs[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (dirs[i] && *dirs[i] &&
		    (fd = open(dirs[i], O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			return fd;
	fd = memfd_create(name, MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
