/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.h - what /proc says of a process by its id.
 */
#ifndef PERFMINI_PROCESS_H
#define PERFMINI_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether process pid exists and has not exited (a zombie has). */
bool process_alive(uint32_t pid);
/* Calls fn with each thread id of process pid (/proc/PID/task); how many. */
size_t process_each_task(uint32_t pid, void (*fn)(uint32_t tid, void *arg), void *arg);

#endif
