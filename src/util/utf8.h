/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utf8.h - UTF-8 decoding, and text from outside (names a target chose,
 * paths, symbols) made safe to show: on a terminal, in the folded format,
 * in JSON. Whatever the bytes given, what is appended is valid UTF-8.
 */
#ifndef PERFMINI_UTF8_H
#define PERFMINI_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sbuf.h"

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, its code point in
 * *cp; 0 when s starts none: a stray continuation byte, an overlong form,
 * a surrogate, a code point past U+10FFFF, or a sequence cut short.
 */
size_t utf8_char(const char *s, uint32_t *cp);
/* C0 and C1 controls and DEL: what a terminal may act on. */
bool utf8_is_control(uint32_t cp);
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
/* s made printable in b (emptied first); returns b's text, valid until b changes. */
const char *printable(struct sbuf *b, const char *s);

#endif
