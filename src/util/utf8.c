/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utf8.c - UTF-8 decoding and text made safe to show; see utf8.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "util/sbuf.h"
#include "util/utf8.h"

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
		size_t n;
		const char *instead = NULL;

		/* Printable ASCII, nearly every byte of a name or a path, stays. */
		if (*s >= 0x20 && *s < 0x7f && (*s != ';' || !folded)) {
			s++;
			continue;
		}
		n = utf8_char((const char *)s, &cp);
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
	sbuf_reset(b);
	sbuf_add_printable(b, s);
	return b->buf;
}
