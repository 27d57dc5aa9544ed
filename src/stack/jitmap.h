/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitmap.h - which line of a JIT's perf map names an address at a
 * sample's time.
 *
 * A runtime reuses the addresses of its code (V8 frees and moves code: a
 * comparator is compiled where another function was) and its perf map
 * only grows, so the map at the end names an address by whichever of its
 * lines the reader prefers, for the whole recording. Here a line takes
 * effect from when it was written: the recorder reads what was appended
 * since it last looked, each new line taking effect from that last look
 * (it was written after it), and gives every address the line that last
 * covered it, in the map's order, as the samples' times reach the lines'
 * effect. A sample is named by the line in force at its time; a later
 * line over the same address wins for later samples. The recording
 * thread's; the map is read through pread, at most every JITMAP_READ_NS,
 * at most JITMAP_READ_MAX bytes a look and PERFMAP_MAX_BYTES in all.
 */
#ifndef PERFMINI_JITMAP_H
#define PERFMINI_JITMAP_H

#include <stdint.h>

#define JITMAP_READ_NS	5000000ULL /* 5 ms */
#define JITMAP_READ_MAX (1u << 20)

/* The most address ranges kept: past that the map is given up (its lines answer 0). */
#define JITMAP_MAX_SPANS (1u << 20)

struct jitmap;

struct jitmap *jitmap_new(void);
void jitmap_free(struct jitmap *j);

/*
 * The line in force for addr at time t (the samples' clock: monotonic)
 * of the perf map open at fd: its byte offset + 1, or 0 when none covers
 * addr then (or the map was given up). Times must not go back from one
 * call to the next by more than the look before (samples come in order).
 */
uint64_t jitmap_line(struct jitmap *j, int fd, uint64_t addr, uint64_t t);

#endif
