/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.h - what /proc says of a process by its id.
 */
#ifndef PERFMINI_PROCESS_H
#define PERFMINI_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

/* Whether process pid exists and has not exited (a zombie has). */
bool process_alive(uint32_t pid);

#endif
