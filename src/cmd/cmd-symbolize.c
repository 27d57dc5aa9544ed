/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-symbolize.c - "perfmini symbolize": addresses to names, for people
 * and for tests, through the same code that symbolizes recordings.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "model/proc.h"
#include "symbol/symbolize.h"
#include "util/msg.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct target {
	struct module_set mods;
	struct symbolizer *syms;
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
 * Each address's lines are made in out, then written at once; where, the
 * module's path as shown, is made again only when the module changes.
 */
static struct sbuf out = SBUF_INIT, where = SBUF_INIT;
static const struct module *where_of;

/* n in hexadecimal, with 0x. */
static void add_hex(struct sbuf *b, uint64_t n)
{
	char buf[20], *p = buf + sizeof(buf);

	do
		*--p = "0123456789abcdef"[n & 0xf];
	while (n >>= 4);
	*--p = 'x';
	*--p = '0';
	sbuf_addn(b, p, (size_t)(buf + sizeof(buf) - p));
}

static void add_dec(struct sbuf *b, uint32_t n)
{
	char buf[10], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + n % 10);
	while (n /= 10);
	sbuf_addn(b, p, (size_t)(buf + sizeof(buf) - p));
}

/* "FILE:LINE" or "??:0", as addr2line writes an unknown place. */
static void add_place(const struct srcline *l)
{
	if (l->file)
		sbuf_add_printable(&out, l->file);
	else
		sbuf_adds(&out, "??");
	sbuf_adds(&out, ":");
	add_dec(&out, l->line);
	if (l->col) {
		sbuf_adds(&out, ":");
		add_dec(&out, l->col);
	}
}

/* "ADDR ?? MODULE\n". */
static void add_unnamed(uint64_t addr)
{
	add_hex(&out, addr);
	sbuf_adds(&out, " ?? ");
	sbuf_addn(&out, where.buf, where.len);
	sbuf_adds(&out, "\n");
}

/* The lines made for one address, written. */
static void put_out(void)
{
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_reset(&out);
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

	if (!m) {
		map = model_find(&t->model, t->pid, addr);
		m = map ? map->mod : NULL;
		/* Memory that maps no file: JIT code, named by the perf map if any. */
		if (!m || m->kind == MODULE_ANON) {
			m = model_perfmap(&t->model, t->pid, map != NULL);
			if (m && m->fd < 0)
				m = NULL; /* the process wrote no perf map */
		} else
			frame_addr = addr_to_file_offset(addr, map->start, map->pgoff);
	}
	if (!m || m != where_of) {
		sbuf_reset(&where);
		sbuf_add_printable(&where, m ? m->path : map ? "[anon]" : "[no mapping]");
		where_of = m;
	}
	if (!m || !symbolize_addr(t->syms, m, frame_addr, m == t->exe, &r)) {
		add_unnamed(addr);
		put_out();
		if (m)
			symres_release(&r);
		return;
	}
	if (r.symname || r.lv[r.n - 1].func) {
		add_hex(&out, addr);
		sbuf_adds(&out, " ");
		sbuf_add_printable(&out, r.symname ? r.symname : r.lv[r.n - 1].func);
		sbuf_adds(&out, "+");
		add_hex(&out, r.symoff);
		sbuf_adds(&out, " ");
		sbuf_addn(&out, where.buf, where.len);
		sbuf_adds(&out, "\n");
	} else {
		add_unnamed(addr);
	}
	for (int i = 0; i < r.n; i++) {
		if (!r.lv[i].file && !r.lv[i].line)
			continue;
		sbuf_adds(&out, i ? "  inlined into " : "  ");
		if (r.lv[i].func)
			sbuf_add_printable(&out, r.lv[i].func);
		else
			sbuf_adds(&out, "??");
		sbuf_adds(&out, " at ");
		add_place(&r.lv[i]);
		sbuf_adds(&out, "\n");
	}
	put_out();
	symres_release(&r);
}

/* symbolize's options. */
struct symbolize_opts {
	const char *exe; /* -e */
	uint32_t pid;	 /* -p */
	const char **debug_dirs;
	size_t ndebug_dirs;
};

#define S struct symbolize_opts

static const struct cmd_opt options[] = {
	{OPT_STRING, "exe", 'e', "FILE", OPT_AT(S, exe), .what = "a file name",
	 .complete = COMPLETE_FILE,
	 .help = "ADDRs are ELF addresses (as in the file's symbol table) of FILE"},
	{OPT_NUMBER, "pid", 'p', "PID", OPT_SIZE(S, pid), .min = 1, .max = INT32_MAX,
	 .what = "a process id", .complete = COMPLETE_PIDS,
	 .help = "ADDRs are runtime addresses in the live process PID"},
	{OPT_STRINGS, "debug-dir", 0, "DIR", OPT_LIST(S, debug_dirs, ndebug_dirs),
	 .complete = COMPLETE_DIR, .help = CMD_DEBUG_DIR_HELP},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef S

const struct cmd_spec symbolize_spec = {
	.name = "symbolize",
	.usage = "usage: perfmini symbolize -e FILE [options] [ADDR...]\n"
		 "       perfmini symbolize -p PID [options] [ADDR...]\n"
		 "\n"
		 "Prints the function holding each address, one line per address:\n"
		 "ADDR FUNCTION+0xOFFSET MODULE (\"?\?\" when there is no name). Addresses are\n"
		 "hexadecimal, with or without 0x; without ADDR arguments they are read from\n"
		 "standard input, one per line.\n"
		 "\n",
	.epilogue = "See perfmini(1).\n",
	.opts = options,
};

/* The target of -e FILE: its module, warned about when it cannot be named. */
static void open_exe(struct target *t, const char *exe)
{
	const struct symfile *f;
	struct stat st;
	char *full = realpath(exe, NULL);
	struct module_key k = {.path = full};

	if (!full || stat(full, &st) < 0)
		die("cannot open '%s': %s", exe, strerror(errno));
	k.maj = major(st.st_dev);
	k.min = minor(st.st_dev);
	k.ino = st.st_ino;
	t->exe = module_set_get(&t->mods, &k, 0, 0, 0);
	free(full);
	if (t->exe->fd < 0)
		die("cannot open '%s'", exe);
	f = symfile_get(t->syms, t->exe);
	if (symfile_reason(f) && symfile_reason(f) != REASON_STRIPPED && !symfile_nsyms(f))
		warning("%s: %s", exe, module_reason_text(symfile_reason(f)));
}

/* The target of -p PID: the process's mappings as they are now. */
static void open_pid(struct target *t, uint32_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &st) < 0)
		die("no such process: %u", pid);
	t->pid = pid;
	model_init(&t->model, &t->mods, true);
	model_process(&t->model, t->pid);
}

/* One address of the command line or of a line of input: 0, or 1 when it is bad. */
static int symbolize_one(struct target *t, char *text)
{
	uint64_t addr;

	if (parse_addr(text, &addr)) {
		text[strcspn(text, "\n")] = '\0';
		error("bad address '%s'", text);
		return 1;
	}
	print_one(t, addr);
	return 0;
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize_opts o = {0};
	struct target t;
	int first, ret;

	ret = cmd_parse(&symbolize_spec, argc, argv, &o, &first);
	if (ret < 0 && !o.exe == !o.pid)
		ret = cmd_usage_error("symbolize", "give one of -e FILE and -p PID");
	if (ret >= 0) {
		free(o.debug_dirs);
		return ret;
	}
	ret = 0;
	memset(&t, 0, sizeof(t));
	module_set_init(&t.mods);
	t.syms = symbolizer_new(&t.mods, false);
	for (size_t i = 0; i < o.ndebug_dirs; i++)
		if (symbolizer_add_debug_dir(t.syms, o.debug_dirs[i]) < 0)
			die("bad --debug-dir '%s': %s", o.debug_dirs[i], strerror(errno));
	free(o.debug_dirs);
	if (o.exe)
		open_exe(&t, o.exe);
	else
		open_pid(&t, o.pid);
	if (first < argc) {
		for (int i = first; i < argc; i++)
			ret |= symbolize_one(&t, argv[i]);
	} else {
		char *line = NULL;
		size_t cap = 0;

		while (getline(&line, &cap, stdin) > 0)
			ret |= symbolize_one(&t, line);
		free(line);
	}
	if (o.pid)
		model_release(&t.model);
	symbolizer_free(t.syms);
	module_set_release(&t.mods);
	sbuf_release(&out);
	sbuf_release(&where);
	if (fflush(stdout) != 0)
		ret = 1;
	return ret;
}
