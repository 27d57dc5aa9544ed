/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-helpers.h - what the Check unit tests (tests/STAGE/check_*.c) share:
 * running a suite, and feeding string input to parsers that take a FILE *.
 */
#ifndef PERFMINI_UNIT_HELPERS_H
#define PERFMINI_UNIT_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <check.h>

/* Runs s with CK_NORMAL output; returns the exit status for main(). */
int unit_run(Suite *s);

/* A read-only stream over the NUL-terminated text s (which must outlive it). */
FILE *unit_text_stream(const char *s);

/*
 * A copy of n bytes in a heap block of exactly n bytes, so that ASan and
 * valgrind catch any read past the end. Free with free().
 */
void *unit_exact_copy(const void *p, size_t n);

/* A small deterministic PRNG (xorshift64*), so random tests repeat. */
uint64_t unit_rand(uint64_t *state);

#endif
