/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zcache.h - expanded copies of ELF files with compressed debug sections,
 * kept between runs.
 *
 * Expanding a file's compressed debug sections (elfz.h) costs a pass of
 * zlib or zstd over all of its DWARF at every run that names a frame of
 * its module: libc6-dbg's debug file of Debian 12 expands to 10 MB, some
 * 70 ms of CPU at each recording. The copy is kept in a directory,
 * named by the source file's device, inode, size and change time, and
 * used again while that file is unchanged.
 *
 * The directory is $PERFMINI_CACHE_DIR, else $XDG_CACHE_HOME/perfmini/
 * expanded, else ~/.cache/perfmini/expanded (made 0700 where missing);
 * an empty PERFMINI_CACHE_DIR turns the cache off. It is trusted only
 * when it is the user's own and no one else may write to it; a copy
 * only when it is the user's own regular file of the expanded size. At
 * most ZCACHE_BYTES are kept: the copies used least recently go first.
 */
#ifndef PERFMINI_ZCACHE_H
#define PERFMINI_ZCACHE_H

#include <stdint.h>
#include <sys/stat.h>

#define ZCACHE_BYTES (1ULL << 30)

/*
 * A descriptor (read-only) of the copy of the file src describes,
 * expanded to size bytes; -1 when there is none.
 */
int zcache_find(const struct stat *src, uint64_t size);

/*
 * An unnamed file in the cache directory to expand the file src
 * describes into, for zcache_keep; -1 when there is no cache.
 */
int zcache_new(void);

/*
 * Keeps fd (from zcache_new, written whole) as the copy of the file src
 * describes, then lets the oldest copies go past ZCACHE_BYTES. fd stays
 * the caller's; failing to keep it changes nothing for the caller.
 */
void zcache_keep(int fd, const struct stat *src);

/*
 * Removes the copies (files named *.x) of directory dir used least
 * recently (by modification time, which zcache_find sets) until the rest
 * take at most max_bytes of disk.
 */
void zcache_trim(int dir, uint64_t max_bytes);
/* The same for the files of dir whose names end in suffix. */
void zcache_trim_files(int dir, const char *suffix, uint64_t max_bytes);
/*
 * The cache's directory (opened once, trusted as above: the user's own,
 * that no one else may write to), or -1 when there is none; not to be
 * closed. namecache.h keeps its files below it.
 */
int zcache_dir(void);

#endif
