/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reasons.c - the sentences that explain reasons.h's codes.
 */
#include "config.h"

#include "store/reasons.h"

const char *module_reason_text(enum module_reason r)
{
	switch (r) {
	case REASON_NONE:
		return "";
	case REASON_STRIPPED:
		return "stripped: only exported functions have names";
	case REASON_NO_SYMBOLS:
		return "no symbol table";
	case REASON_FILE_GONE:
		return "the file was gone or unreadable when perfmini opened it";
	case REASON_NOT_ELF:
		return "not an ELF file";
	case REASON_ANON:
		return "anonymous executable memory (JIT code) without a perf map";
	case REASON_KERNEL_HIDDEN:
		return "kernel addresses hidden by kernel.kptr_restrict";
	case REASON_NO_MAPPING:
		return "addresses in no known mapping (a frame-pointer chain broken by code "
		       "built without frame pointers, or lost records)";
	case REASON_VDSO:
		return "the vdso image could not be read";
	case REASON_NO_DESCRIPTORS:
		return "perfmini ran out of file descriptors to read it";
	case REASON_CHANGED:
		return "its file (or debug file) was cut short while perfmini read it: frames "
		       "met after that have no names";
	case REASON_PERFMAP_EMPTY:
		return "its perf map names no function (empty, or no line of it could be read)";
	case REASON_PERFMAP_REFUSED:
		return "its perf map was refused: it belongs to neither the process's user nor "
		       "root, has other links, or is a mount point (a bind mount)";
	case REASON_MEMORY:
		return "some of its frames were left unnamed to keep the recorder within its "
		       "memory budget (--max-memory)";
	}
	return "";
}

const char *module_lines_text(enum module_lines r)
{
	switch (r) {
	case LINES_OK:
		return "";
	case LINES_NO_DWARF:
		return "no DWARF debug information, in the file or in a debug file found";
	case LINES_COMPRESSION:
		return "its debug sections are compressed with a method perfmini cannot read";
	case LINES_EXPAND_FAILED:
		return "its compressed debug sections could not be expanded (damaged, or "
		       "too large)";
	case LINES_UNCOVERED:
		return "some of its code is in no DWARF unit (sources built without -g, or "
		       "assembly)";
	case LINES_MEMORY:
		return "its DWARF was not read, to keep the recorder within its memory budget "
		       "(--max-memory)";
	}
	return "";
}

const char *module_lines_fix(enum module_lines r)
{
	switch (r) {
	case LINES_NO_DWARF:
		return "build it with -g, or install its debug symbols (the -dbgsym or -dbg "
		       "package), point --debug-dir at them, or set DEBUGINFOD_URLS";
	case LINES_COMPRESSION:
	case LINES_EXPAND_FAILED:
		return "store them uncompressed: objcopy --decompress-debug-sections on the "
		       "file that holds them (the binary or its debug file)";
	case LINES_UNCOVERED:
		return "build every source file of it with -g";
	case LINES_MEMORY:
		return "perfmini report adds the lines from the file while it is unchanged; or "
		       "record with a larger --max-memory";
	default:
		return "";
	}
}

const char *module_reason_fix(enum module_reason r)
{
	switch (r) {
	case REASON_STRIPPED:
	case REASON_NO_SYMBOLS:
		return "install its debug symbols (the -dbgsym or -dbg package), point "
		       "--debug-dir at them, or set DEBUGINFOD_URLS";
	case REASON_FILE_GONE:
		return "keep the binary in place until perfmini has seen it";
	case REASON_ANON:
		return "have the runtime write /tmp/perf-PID.map (e.g. node --perf-basic-prof)";
	case REASON_PERFMAP_EMPTY:
		return "check that the runtime writes its map as it compiles (\"START SIZE "
		       "NAME\" lines, hexadecimal) and flushes it";
	case REASON_PERFMAP_REFUSED:
		return "let the runtime write /tmp/perf-PID.map itself, as a plain file of its "
		       "own, in the process's /tmp";
	case REASON_NO_DESCRIPTORS:
		return "raise the limit on open files ('ulimit -n', or LimitNOFILE= for a "
		       "service)";
	case REASON_CHANGED:
		return "do not rewrite a program's files in place while it is profiled";
	case REASON_MEMORY:
		return "perfmini report names them from the file while it is unchanged (or from "
		       "its debug file, --debug-dir); or record with a larger --max-memory";
	case REASON_KERNEL_HIDDEN:
		return "run as root or set kernel.kptr_restrict=0";
	case REASON_NO_MAPPING:
		return "if records were lost, lower -F or raise -m; if recorded with "
		       "--call-graph=fp, record in the default mode instead";
	default:
		return "";
	}
}
