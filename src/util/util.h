/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - a transitional umbrella over util/'s headers, for the few
 * files of cmd/ not yet converted. New code includes the header of each
 * concern it uses instead; this header goes once nothing includes it.
 */
#ifndef PERFMINI_UTIL_H
#define PERFMINI_UTIL_H

#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/io.h"
#include "util/msg.h"
#include "util/parse.h"
#include "util/process.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#endif
