/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-symbolize.c - "perfmini symbolize": addresses to names, for people
 * and for tests, through the same code that symbolizes recordings.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cmd/cmd.h"
#include "model/proc.h"
#include "symbol/symbolize.h"
#include "util/util.h"

static const char usage[] =
	"usage: perfmini symbolize -e FILE [options] [ADDR...]\n"
	"       perfmini symbolize -p PID [options] [ADDR...]\n"
	"\n"
	"Prints the function holding each address, one line per address:\n"
	"ADDR FUNCTION+0xOFFSET MODULE (\"?\?\" when there is no name). Addresses are\n"
	"hexadecimal, with or without 0x; without ADDR arguments they are read from\n"
	"standard input, one per line.\n"
	"\n"
	"  -e, --exe FILE        ADDRs are ELF addresses (as in the file's symbol\n"
	"                        table) of FILE\n"
	"  -p, --pid PID         ADDRs are runtime addresses in the live process PID\n"
	"      --debug-dir DIR   also look for debug files under DIR (by build-id and\n"
	"                        by name); may be repeated\n"
	"  -h, --help            this help\n"
	"\n"
	"See perfmini(1).\n";

enum { OPT_DEBUG_DIR = 256 };

static const struct option options[] = {
	{"exe", required_argument, NULL, 'e'},
	{"pid", required_argument, NULL, 'p'},
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct target {
	struct module_set mods;
	struct symbolizer syms;
	struct model model; /* -p */
	struct module *exe; /* -e */
	uint32_t pid;
};

static int parse_addr(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return errno || *end ? -EINVAL : 0;
}

/*
 * Names and paths come from binaries and processes that may be anyone's:
 * what is printed is made printable first (no terminal control codes).
 */
static struct sbuf shown[3];

/* "FILE:LINE" or "??:0", as addr2line writes an unknown place. */
static void print_place(const struct srcline *l)
{
	printf("%s:%u", l->file ? printable(&shown[0], l->file) : "??", l->line);
	if (l->col)
		printf(":%u", l->col);
}

/*
 * One address: "ADDR FUNCTION+0xOFF MODULE", then, when DWARF knows the
 * place, one line per function level, innermost first:
 *   "  FUNCTION at FILE:LINE[:COL]" and "  inlined into FUNCTION at ..."
 * for the levels around it.
 */
static void print_one(struct target *t, uint64_t addr)
{
	const struct mapping *map = NULL;
	struct module *m = t->exe;
	struct symres r;
	uint64_t frame_addr = addr;
	const char *where;

	if (!m) {
		map = model_find(&t->model, t->pid, addr);
		m = map ? map->mod : NULL;
		/* Memory that maps no file: JIT code, named by the perf map if any. */
		if (!m || m->kind == MODULE_ANON) {
			m = model_perfmap(&t->model, t->pid);
			if (m && m->fd < 0)
				m = NULL; /* the process wrote no perf map */
		} else
			frame_addr = addr_to_file_offset(addr, map->start, map->pgoff);
	}
	where = printable(&shown[2], m ? m->path : map ? "[anon]" : "[no mapping]");
	if (!m || !symbolize_addr(&t->syms, m, frame_addr, m == t->exe, &r)) {
		printf("0x%llx ?\? %s\n", (unsigned long long)addr, where);
		if (m)
			symres_release(&r);
		return;
	}
	if (r.symname || r.lv[r.n - 1].func)
		printf("0x%llx %s+0x%llx %s\n", (unsigned long long)addr,
		       printable(&shown[1], r.symname ? r.symname : r.lv[r.n - 1].func),
		       (unsigned long long)r.symoff, where);
	else
		printf("0x%llx ?\? %s\n", (unsigned long long)addr, where);
	for (int i = 0; i < r.n; i++) {
		if (!r.lv[i].file && !r.lv[i].line)
			continue;
		printf("  %s%s at ", i ? "inlined into " : "",
		       r.lv[i].func ? printable(&shown[1], r.lv[i].func) : "??");
		print_place(&r.lv[i]);
		putchar('\n');
	}
	symres_release(&r);
}

int cmd_symbolize(int argc, char **argv)
{
	struct target t;
	const char *exe = NULL;
	uint64_t pid = 0, addr;
	int c, ret = 0;

	memset(&t, 0, sizeof(t));
	module_set_init(&t.mods);
	symbolizer_init(&t.syms, &t.mods, false);
	while ((c = getopt_long(argc, argv, "e:p:h", options, NULL)) != -1) {
		switch (c) {
		case 'e':
			exe = optarg;
			break;
		case 'p':
			if (parse_u64(optarg, &pid) || pid == 0 || pid > INT32_MAX) {
				return cmd_usage_error("symbolize", "bad process id '%s'", optarg);
			}
			break;
		case OPT_DEBUG_DIR:
			if (symbolizer_add_debug_dir(&t.syms, optarg) < 0)
				die("bad --debug-dir '%s': %s", optarg, strerror(errno));
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cmd_usage_error("symbolize", NULL);
		}
	}
	if (!exe == !pid) {
		return cmd_usage_error("symbolize", "give one of -e FILE and -p PID");
	}
	if (exe) {
		struct stat st;
		char *full = realpath(exe, NULL);
		struct module_key k = {.path = full};

		if (!full || stat(full, &st) < 0)
			die("cannot open '%s': %s", exe, strerror(errno));
		k.maj = major(st.st_dev);
		k.min = minor(st.st_dev);
		k.ino = st.st_ino;
		t.exe = module_set_get(&t.mods, &k, 0, 0, 0);
		free(full);
		if (t.exe->fd < 0)
			die("cannot open '%s'", exe);
		{
			const struct symfile *f = symfile_get(&t.syms, t.exe);

			if (symfile_reason(f) && symfile_reason(f) != REASON_STRIPPED &&
			    !symfile_nsyms(f))
				warning("%s: %s", exe, module_reason_text(symfile_reason(f)));
		}
	} else {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%llu", (unsigned long long)pid);
		if (stat(path, &st) < 0)
			die("no such process: %llu", (unsigned long long)pid);
		t.pid = (uint32_t)pid;
		model_init(&t.model, &t.mods, true);
		model_process(&t.model, t.pid);
	}
	if (optind < argc) {
		for (int i = optind; i < argc; i++) {
			if (parse_addr(argv[i], &addr)) {
				error("bad address '%s'", argv[i]);
				ret = 1;
				continue;
			}
			print_one(&t, addr);
		}
	} else {
		char *line = NULL;
		size_t cap = 0;

		while (getline(&line, &cap, stdin) > 0) {
			if (parse_addr(line, &addr)) {
				line[strcspn(line, "\n")] = '\0';
				error("bad address '%s'", line);
				ret = 1;
				continue;
			}
			print_one(&t, addr);
		}
		free(line);
	}
	if (pid)
		model_release(&t.model);
	symbolizer_release(&t.syms);
	module_set_release(&t.mods);
	for (size_t i = 0; i < ARRAY_SIZE(shown); i++)
		sbuf_release(&shown[i]);
	if (fflush(stdout) != 0)
		ret = 1;
	return ret;
}
