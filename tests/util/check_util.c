/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_util.c - the small helpers everything uses: text made printable
 * (and folded-safe), on every kind of byte sequence; pages of a private
 * file mapping given back, but never one written to.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/io.h"
#include "util/pages.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static char *shown(const char *s, bool folded)
{
	struct sbuf b = SBUF_INIT;
	char *out;

	if (folded)
		sbuf_add_sanitized(&b, s);
	else
		sbuf_add_printable(&b, s);
	out = xstrdup(b.buf);
	sbuf_release(&b);
	return out;
}

static void check_shown(const char *in, bool folded, const char *want)
{
	char *got = shown(in, folded);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_plain)
{
	check_shown("", false, "");
	check_shown("main", false, "main");
	check_shown("std::vector<int>::at(unsigned long) const", true,
		    "std::vector<int>::at(unsigned long) const");
	/* UTF-8 of every length stays: an e acute, a euro sign, an emoji, the last code point. */
	check_shown("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf", false,
		    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
	/* No-break space (U+00A0) is the first code point after C1. */
	check_shown("a\xc2\xa0"
		    "b",
		    false,
		    "a\xc2\xa0"
		    "b");
}
END_TEST

START_TEST(test_controls)
{
	/* An OSC 52 clipboard write, a colour change, a bell, DEL. */
	check_shown("x\033]52;c;SGVsbG8=\a", false, "x?]52;c;SGVsbG8=?");
	check_shown("\033[31mred\033[0m", false, "?[31mred?[0m");
	check_shown("tab\there\nline\r\x7f", false, "tab?here?line??");
	/* C1 controls in UTF-8 (CSI is U+009B): terminals obey them too. */
	check_shown("a\xc2\x9b"
		    "31mb\xc2\x80\xc2\x9f",
		    false, "a?31mb??");
}
END_TEST

START_TEST(test_invalid_utf8)
{
	/* A stray continuation byte, a raw C1 byte, a lone lead byte. */
	check_shown("a\x80"
		    "b",
		    false, "a?b");
	check_shown("a\x9b[31m", false, "a?[31m");
	check_shown("ab\xc3", false, "ab?");
	/* A sequence cut short, a thread name cut at 15 bytes in mid-character. */
	check_shown("\xe2\x82x", false, "??x");
	check_shown("worker-\xe6\x97", false, "worker-??");
	/* Overlong forms, surrogates, past U+10FFFF, bytes never used. */
	check_shown("\xc0\xaf\xe0\x80\xaf", false, "?????");
	check_shown("\xed\xa0\x80", false, "???");
	check_shown("\xf4\x90\x80\x80", false, "????");
	check_shown("\xf8\xfe\xff", false, "???");
}
END_TEST

START_TEST(test_utf8_char)
{
	uint32_t cp = 0;

	ck_assert_uint_eq(utf8_char("a", &cp), 1);
	ck_assert_uint_eq(cp, 'a');
	ck_assert_uint_eq(utf8_char("\xc3\xa9", &cp), 2); /* U+00E9 */
	ck_assert_uint_eq(cp, 0xe9);
	ck_assert_uint_eq(utf8_char("\xe2\x82\xac", &cp), 3); /* U+20AC */
	ck_assert_uint_eq(cp, 0x20ac);
	ck_assert_uint_eq(utf8_char("\xf0\x9f\x94\xa5", &cp), 4); /* U+1F525 */
	ck_assert_uint_eq(cp, 0x1f525);
	ck_assert_uint_eq(utf8_char("\xc3", &cp), 0); /* cut at the end */
	ck_assert_uint_eq(utf8_char("\xc3"
				    "a",
				    &cp),
			  0);					  /* cut by ASCII */
	ck_assert_uint_eq(utf8_char("\xa9", &cp), 0);		  /* stray continuation */
	ck_assert_uint_eq(utf8_char("\xc0\x80", &cp), 0);	  /* overlong NUL */
	ck_assert_uint_eq(utf8_char("\xe0\x80\xaf", &cp), 0);	  /* overlong '/' */
	ck_assert_uint_eq(utf8_char("\xed\xa0\x80", &cp), 0);	  /* surrogate */
	ck_assert_uint_eq(utf8_char("\xf4\x90\x80\x80", &cp), 0); /* past U+10FFFF */
	ck_assert(utf8_is_control(0x1b));
	ck_assert(utf8_is_control(0x7f));
	ck_assert(utf8_is_control(0x9b)); /* C1 CSI */
	ck_assert(!utf8_is_control(0xa0));
	ck_assert(!utf8_is_control(' '));
}
END_TEST

START_TEST(test_folded)
{
	/* The folded format's separator cannot leak into a frame's name. */
	check_shown("a;b;c", true, "a:b:c");
	check_shown("a;b", false, "a;b");
	check_shown("x;\033", true, "x:?");
}
END_TEST

/* Appending to what is there; printable() starts afresh. */
START_TEST(test_append)
{
	struct sbuf b = SBUF_INIT;

	sbuf_adds(&b, "pre:");
	sbuf_add_printable(&b, "\033x");
	ck_assert_str_eq(b.buf, "pre:?x");
	ck_assert_str_eq(printable(&b, "y\a"), "y?");
	ck_assert_uint_eq(b.len, 2);
	sbuf_release(&b);
}
END_TEST

/* Initialized, an sbuf is the shared "": a string, with nothing allocated. */
START_TEST(test_sbuf_init)
{
	struct sbuf a = SBUF_INIT, b;

	memset(&b, 0xff, sizeof(b));
	sbuf_init(&b);
	ck_assert_ptr_nonnull(a.buf);
	ck_assert_str_eq(a.buf, "");
	ck_assert_uint_eq(a.len, 0);
	ck_assert_uint_eq(a.cap, 0);
	ck_assert_ptr_eq(a.buf, sbuf_empty);
	ck_assert_ptr_eq(b.buf, sbuf_empty);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	/* Adding nothing allocates nothing; releasing it frees nothing. */
	sbuf_addn(&a, "x", 0);
	sbuf_adds(&a, "");
	sbuf_addf(&a, "%s", "");
	ck_assert_ptr_eq(a.buf, sbuf_empty);
	sbuf_release(&a);
	ck_assert_ptr_eq(a.buf, sbuf_empty);
	ck_assert_str_eq(sbuf_empty, "");
}
END_TEST

/* Reset empties the string and keeps its memory; release gives it back. */
START_TEST(test_sbuf_reset_release)
{
	struct sbuf b = SBUF_INIT;
	const char *was;
	size_t cap;

	sbuf_reset(&b);
	ck_assert_ptr_eq(b.buf, sbuf_empty);
	sbuf_addf(&b, "%s-%d", "abc", 42);
	ck_assert_str_eq(b.buf, "abc-42");
	ck_assert_uint_eq(b.len, 6);
	was = b.buf;
	cap = b.cap;
	ck_assert_uint_gt(cap, 6);
	sbuf_reset(&b);
	ck_assert_str_eq(b.buf, "");
	ck_assert_uint_eq(b.len, 0);
	ck_assert_ptr_eq(b.buf, was);
	ck_assert_uint_eq(b.cap, cap);
	sbuf_adds(&b, "de");
	ck_assert_str_eq(b.buf, "de");
	sbuf_truncate(&b, 5);
	ck_assert_str_eq(b.buf, "de");
	sbuf_truncate(&b, 1);
	ck_assert_str_eq(b.buf, "d");
	ck_assert_uint_eq(b.len, 1);
	sbuf_release(&b);
	ck_assert_ptr_eq(b.buf, sbuf_empty);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	/* Released, it is as good as new. */
	sbuf_adds(&b, "again");
	ck_assert_str_eq(b.buf, "again");
	sbuf_release(&b);
}
END_TEST

/* Detach hands over a string of the heap, even an empty one, and leaves "". */
START_TEST(test_sbuf_detach)
{
	struct sbuf b = SBUF_INIT;
	size_t len = 99;
	char *s;

	s = sbuf_detach(&b, &len);
	ck_assert_ptr_ne(s, sbuf_empty);
	ck_assert_str_eq(s, "");
	ck_assert_uint_eq(len, 0);
	free(s);
	sbuf_adds(&b, "hello");
	s = sbuf_detach(&b, &len);
	ck_assert_str_eq(s, "hello");
	ck_assert_uint_eq(len, 5);
	ck_assert_ptr_eq(b.buf, sbuf_empty);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	/* b no longer owns s: adding to b leaves s alone. */
	sbuf_adds(&b, "world");
	ck_assert_str_eq(s, "hello");
	free(s);
	s = sbuf_detach(&b, NULL);
	ck_assert_str_eq(s, "world");
	free(s);
	sbuf_release(&b);
}
END_TEST

/* A zeroed sbuf (static, calloc'd) is taken by every call, and a string after any. */
START_TEST(test_sbuf_zeroed)
{
	struct sbuf z;
	char *s;

	memset(&z, 0, sizeof(z));
	sbuf_addn(&z, "", 0);
	ck_assert_ptr_nonnull(z.buf);
	ck_assert_str_eq(z.buf, "");
	memset(&z, 0, sizeof(z));
	sbuf_reset(&z);
	ck_assert_ptr_eq(z.buf, sbuf_empty);
	memset(&z, 0, sizeof(z));
	ck_assert_str_eq(printable(&z, ""), "");
	memset(&z, 0, sizeof(z));
	sbuf_release(&z);
	ck_assert_ptr_eq(z.buf, sbuf_empty);
	memset(&z, 0, sizeof(z));
	s = sbuf_detach(&z, NULL);
	ck_assert_str_eq(s, "");
	free(s);
	memset(&z, 0, sizeof(z));
	sbuf_addf(&z, "%u", 7u);
	ck_assert_str_eq(z.buf, "7");
	sbuf_release(&z);
}
END_TEST

/* printable() and JSON on initialized, reset and reused buffers. */
START_TEST(test_sbuf_shown)
{
	struct sbuf b = SBUF_INIT;

	ck_assert_str_eq(printable(&b, ""), "");
	ck_assert_str_eq(printable(&b, "a\033b"), "a?b");
	ck_assert_str_eq(printable(&b, ""), "");
	ck_assert_uint_eq(b.len, 0);
	sbuf_reset(&b);
	sbuf_add_json(&b, "");
	ck_assert_str_eq(b.buf, "\"\"");
	sbuf_reset(&b);
	sbuf_add_json(&b, "q\"\\\x01\x9b\xff\xc3\xa9");
	ck_assert_str_eq(b.buf, "\"q\\\"\\\\\\u0001\\ufffd\\ufffd\xc3\xa9\"");
	sbuf_release(&b);
	sbuf_add_json(&b, "x");
	ck_assert_str_eq(b.buf, "\"x\"");
	sbuf_release(&b);
}
END_TEST

/* Shares as the summaries print them: never "0.0%" for a share above zero. */
START_TEST(test_sbuf_share)
{
	static const struct {
		uint64_t part, whole;
		const char *text;
	} cases[] = {
		{0, 100, "0%"},	   {1, 0, "0%"},    {1, 118763, "<0.1%"}, {1, 2001, "<0.1%"},
		{1, 1999, "0.1%"}, {1, 3, "33.3%"}, {2, 3, "66.7%"},	  {5, 5, "100.0%"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf b = SBUF_INIT;

		sbuf_add_share(&b, cases[i].part, cases[i].whole);
		ck_assert_str_eq(b.buf, cases[i].text);
		sbuf_release(&b);
	}
}
END_TEST

/* Whether the page at p is resident (pagemap's present bit). */
static bool resident(int pagemap, const void *p)
{
	uint64_t e = 0;
	long page = sysconf(_SC_PAGESIZE);

	ck_assert_int_eq(pread(pagemap, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)page * 8)),
			 8);
	return e >> 63;
}

/*
 * A file of 8 pages, mapped privately and writable (as libelf maps the
 * files libdw reads): all read, page 2 written to. The other read pages
 * are given back (no longer resident) and read the file's bytes again;
 * page 2 keeps what was written there. Pages not resident between
 * read ones do not split what is given back.
 */
START_TEST(test_give_back)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/check-util-XXXXXX";
	int fd = mkstemp(path), pagemap = open("/proc/self/pagemap", O_RDONLY);
	unsigned char *buf = xmalloc((size_t)page * 8), *m;
	volatile unsigned sum = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(pagemap, 0);
	unlink(path);
	for (long i = 0; i < page * 8; i++)
		buf[i] = (unsigned char)(i / page + 1);
	ck_assert_int_eq(write(fd, buf, (size_t)page * 8), page * 8);
	m = mmap(NULL, (size_t)page * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ck_assert(m != MAP_FAILED);
	for (long i = 0; i < 8; i++)
		sum += m[i * page];
	m[2 * page + 5] = 0xee;
	for (long i = 0; i < 8; i++)
		ck_assert(resident(pagemap, m + i * page));
	/* Pages 0-7 but the written one: seven. */
	ck_assert_int_eq(pages_give_back(pagemap, (uintptr_t)m, (uintptr_t)(m + page * 8)), 7);
	for (long i = 0; i < 8; i++)
		ck_assert_msg(resident(pagemap, m + i * page) == (i == 2), "page %ld", i);
	ck_assert_uint_eq(m[2 * page + 5], 0xee);
	ck_assert_uint_eq(m[2 * page + 6], 3);
	for (long i = 0; i < page * 8; i++)
		if (i != 2 * page + 5)
			ck_assert_uint_eq(m[i], i / page + 1);
	/* Read again, given back again: pages 0 and 1 of the first three. */
	ck_assert_int_eq(pages_give_back(pagemap, (uintptr_t)m, (uintptr_t)(m + page * 3)), 2);
	ck_assert_uint_eq(m[2 * page + 5], 0xee);
	/* Nothing resident: nothing to give. */
	ck_assert_int_eq(pages_give_back(pagemap, (uintptr_t)m, (uintptr_t)(m + page * 2)), 0);
	/*
	 * All read (a fault maps its neighbours too), then pages 1 and 3
	 * dropped: given back across those holes, the span stopping at page
	 * 2 (written), pages 0 and 4-7 are five.
	 */
	for (long i = 0; i < 8; i++)
		sum += m[i * page];
	ck_assert_int_eq(madvise(m + page, (size_t)page, MADV_DONTNEED), 0);
	ck_assert_int_eq(madvise(m + 3 * page, (size_t)page, MADV_DONTNEED), 0);
	ck_assert_int_eq(pages_give_back(pagemap, (uintptr_t)m, (uintptr_t)(m + page * 8)), 5);
	for (long i = 0; i < 8; i++)
		ck_assert_msg(resident(pagemap, m + i * page) == (i == 2), "page %ld", i);
	ck_assert_uint_eq(m[2 * page + 5], 0xee);
	ck_assert_uint_eq(m[7 * page], 8);
	munmap(m, (size_t)page * 8);
	close(pagemap);
	close(fd);
	free(buf);
	(void)sum;
}
END_TEST

/*
 * Id lists, as -p/-t of record and --pid/--tid of report read them: each
 * id once, bounds as the caller says, nothing added from a bad list and
 * the item at fault named.
 */
START_TEST(test_id_list)
{
	static const char *const bad[][2] = {
		{"", ""},     {"1,,2", "1,,2"}, {",1", ",1"}, {"1,", "1,"},   {"x", "x"},
		{"1,0", "0"}, {"2,3,-4", "-4"}, {"99", "99"}, {"1, 2", " 2"}, {"0x", "0x"},
	};
	uint32_t *ids = NULL;
	size_t n = 0;
	char why[16];

	ck_assert_int_eq(parse_id_list("7,0x10,7,3", 1, 98, &ids, &n, why, sizeof(why)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(ids[0], 7);
	ck_assert_uint_eq(ids[1], 16);
	ck_assert_uint_eq(ids[2], 3);
	/* Appended, and what is there already is not added twice. */
	ck_assert_int_eq(parse_id_list("3,98,1", 1, 98, &ids, &n, why, sizeof(why)), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(ids[3], 98);
	ck_assert_uint_eq(ids[4], 1);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(parse_id_list(bad[i][0], 1, 98, &ids, &n, why, sizeof(why)) ==
				      -EINVAL,
			      "'%s' was taken", bad[i][0]);
		ck_assert_uint_eq(n, 5);
		ck_assert_msg(strcmp(why, bad[i][1]) == 0, "'%s': '%s' named", bad[i][0], why);
	}
	/* Zero where the caller allows it, and the whole 32-bit range. */
	ck_assert_int_eq(parse_id_list("0,4294967295", 0, UINT32_MAX, &ids, &n, why, sizeof(why)),
			 0);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(ids[6], 4294967295u);
	free(ids);
}
END_TEST

static uint64_t u64_at(const void *arr, size_t i)
{
	return ((const uint64_t *)arr)[i];
}

/* The count of keys at or below the one sought, equal keys included. */
START_TEST(test_bsearch_last_le)
{
	static const uint64_t keys[] = {10, 20, 20, 30, UINT64_MAX};

	ck_assert_uint_eq(bsearch_last_le(keys, 0, 50, u64_at), 0);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, 9, u64_at), 0);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, 10, u64_at), 1);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, 19, u64_at), 1);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, 20, u64_at), 3);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, 29, u64_at), 3);
	ck_assert_uint_eq(bsearch_last_le(keys, 4, UINT64_MAX, u64_at), 4);
	ck_assert_uint_eq(bsearch_last_le(keys, 5, UINT64_MAX, u64_at), 5);
}
END_TEST

/* Bytes of any value, NULs among them, written in place after room was made. */
START_TEST(test_sbuf_bytes)
{
	struct sbuf b = SBUF_INIT;
	static const char rec[5] = {1, 0, 2, 0, 3};

	for (int i = 0; i < 1000; i++) {
		sbuf_grow(&b, sizeof(rec));
		memcpy(b.buf + b.len, rec, sizeof(rec));
		sbuf_setlen(&b, b.len + sizeof(rec));
	}
	sbuf_addn(&b, rec, sizeof(rec));
	ck_assert_uint_eq(b.len, 1001 * sizeof(rec));
	ck_assert_int_eq(b.buf[b.len], '\0');
	for (size_t i = 0; i < b.len; i++)
		ck_assert_int_eq(b.buf[i], rec[i % sizeof(rec)]);
	/* Room made, then less written than the room: only that counts. */
	sbuf_reset(&b);
	sbuf_grow(&b, 100);
	b.buf[0] = 'x';
	sbuf_setlen(&b, 1);
	ck_assert_str_eq(b.buf, "x");
	sbuf_release(&b);
}
END_TEST

/* A table grown by id: what it held stays, every element added is 0. */
START_TEST(test_xgrow_zero)
{
	uint64_t *t = NULL;
	size_t cap = 0;

	xgrow_zero(&t, &cap, 3, sizeof(*t));
	ck_assert_uint_ge(cap, 3);
	for (size_t i = 0; i < cap; i++)
		ck_assert_uint_eq(t[i], 0);
	for (size_t i = 0; i < cap; i++)
		t[i] = i + 1;
	xgrow_zero(&t, &cap, cap, sizeof(*t)); /* room enough: nothing changes */
	for (size_t i = 0; i < cap; i++)
		ck_assert_uint_eq(t[i], i + 1);
	{
		size_t old = cap;

		xgrow_zero(&t, &cap, 1000, sizeof(*t));
		ck_assert_uint_ge(cap, 1000);
		for (size_t i = 0; i < old; i++)
			ck_assert_uint_eq(t[i], i + 1);
		for (size_t i = old; i < cap; i++)
			ck_assert_uint_eq(t[i], 0);
	}
	free(t);
}
END_TEST

/* A regular file read whole, and the same bytes through a pipe (grown as they come). */
START_TEST(test_read_whole)
{
	char path[] = "/tmp/check_util.XXXXXX", *buf;
	int fd = mkstemp(path), p[2];
	size_t n = 100000, len;
	char *want = xmalloc(n);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		want[i] = (char)('a' + i % 26);
	ck_assert_int_eq(write_all(fd, want, n), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(read_whole(fd, &buf, &len), 0);
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(buf, want, n) == 0 && buf[n] == '\0');
	free(buf);
	/* From where the file stands: its last 10 bytes. */
	ck_assert_int_eq(lseek(fd, (off_t)n - 10, SEEK_SET), (off_t)n - 10);
	ck_assert_int_eq(read_whole(fd, &buf, &len), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert(memcmp(buf, want + n - 10, 10) == 0 && buf[10] == '\0');
	free(buf);
	close(fd);

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write_all(p[1], want, 50000), 0); /* fits in the pipe */
	close(p[1]);
	ck_assert_int_eq(read_whole(p[0], &buf, &len), 0);
	ck_assert_uint_eq(len, 50000);
	ck_assert(memcmp(buf, want, 50000) == 0 && buf[50000] == '\0');
	free(buf);
	close(p[0]);

	ck_assert_int_eq(read_whole(-1, &buf, &len), -EBADF);
	ck_assert_ptr_null(buf);
	free(want);
}
END_TEST

/* A small file: cut to the buffer, NUL-terminated; a missing one says so. */
START_TEST(test_read_small)
{
	char path[] = "/tmp/check_util.XXXXXX", buf[8];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write_all(fd, "0::/a/b\n", 8), 0);
	close(fd);
	ck_assert_int_eq(read_small(path, buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "0::/a/b");
	ck_assert_int_eq(read_small(path, buf, 4), 3);
	ck_assert_str_eq(buf, "0::");
	unlink(path);
	ck_assert_int_eq(read_small(path, buf, sizeof(buf)), -ENOENT);
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("printable");

	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_controls);
	tcase_add_test(tc, test_invalid_utf8);
	tcase_add_test(tc, test_utf8_char);
	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_append);
	suite_add_tcase(s, tc);
	tc = tcase_create("sbuf");
	tcase_add_test(tc, test_sbuf_init);
	tcase_add_test(tc, test_sbuf_reset_release);
	tcase_add_test(tc, test_sbuf_detach);
	tcase_add_test(tc, test_sbuf_zeroed);
	tcase_add_test(tc, test_sbuf_shown);
	tcase_add_test(tc, test_sbuf_share);
	tcase_add_test(tc, test_sbuf_bytes);
	suite_add_tcase(s, tc);
	tc = tcase_create("parsing");
	tcase_add_test(tc, test_id_list);
	tcase_add_test(tc, test_bsearch_last_le);
	suite_add_tcase(s, tc);
	tc = tcase_create("pages");
	tcase_add_test(tc, test_give_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("alloc");
	tcase_add_test(tc, test_xgrow_zero);
	suite_add_tcase(s, tc);
	tc = tcase_create("io");
	tcase_add_test(tc, test_read_whole);
	tcase_add_test(tc, test_read_small);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(util_suite());
}
