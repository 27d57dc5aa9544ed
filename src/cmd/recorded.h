/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorded.h - a recording's files found again by report: a module's own
 * file at the path it was recorded at, or its separate debug file by
 * build-id, each checked to be the file recorded (its build-id), and
 * opened without following another user's file in its place.
 */
#ifndef PERFMINI_RECORDED_H
#define PERFMINI_RECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#include "elf/elfread.h"
#include "model/module.h"
#include "store/profile.h"
#include "util/sbuf.h"

/*
 * The module of the file at path, opened in mods; NULL with why. The
 * file there now is read for a module that was not ours or root's (owner)
 * only when it is still that owner's and has a build-id recorded (which
 * the caller compares, recorded_same_build): else root's report would
 * read whatever file a user put at the path.
 */
struct module *recorded_open(struct module_set *mods, const char *path, const char *build_id,
			     uint32_t owner, struct sbuf *why);

/* Whether e is the file recorded (build_id "" when none was: any file is). */
bool recorded_same_build(Elf *e, const char *build_id);

/*
 * The path of the debug file of build_id (lowercase hex) under the debug
 * directory dir, as debuggers lay them out: DIR/.build-id/XX/REST.debug,
 * XX the first byte. NULL when build_id is not 2 to 2 * BUILD_ID_MAX hex
 * digits: a recording's string never leaves dir. malloc'd.
 */
char *recorded_debug_path(const char *dir, const char *build_id);

/*
 * The debug file of build_id under the first of the ndirs dirs that has
 * it (a regular file, no link at its end, with that build-id), opened as
 * a module of mods; NULL when none has it.
 */
struct module *recorded_open_debug(struct module_set *mods, const char *const *dirs, size_t ndirs,
				   const char *build_id);

#endif
