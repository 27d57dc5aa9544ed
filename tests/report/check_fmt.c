/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_fmt.c - the per-sample and timeline formats (report/fmt-script.c,
 * fmt-speedscope.c, fmt-firefox.c), which check_report does not cover,
 * read back as a user's tool reads them: --script lines field by field,
 * in time order, with the folded frames after the tab; --json lines each
 * parsed as JSON, frames innermost first, hostile names escaped so that
 * they decode to what was recorded; speedscope's and the Firefox
 * Profiler's files parsed as JSON, their frames, stacks and weights
 * followed through their indices on a profile small enough to work out
 * by hand.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report-synth.h"
#include "report/report.h"
#include "store/profile.h"
#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/sbuf.h"

/* A format's whole output (free it). */
static char *run_format(const char *name, const struct profile *p, const struct report_opts *o)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(report_write(report_format_find(name), p, o, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_uint_eq(strlen(text), n); /* no NUL byte in the output */
	return text;
}

/*
 * A strict JSON reader (RFC 8259): what a tool reading the output would
 * accept. Strings are decoded to UTF-8; raw bytes in strings must be valid
 * UTF-8 and no control character.
 */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum jtype type;
	bool b;
	double num;
	char *str;	     /* J_STR: decoded, NUL-terminated */
	char **keys;	     /* J_OBJ */
	struct json **items; /* J_ARR, J_OBJ */
	size_t n, cap;
};

struct jparser {
	const char *p;
	const char *err;
};

static struct json *jparse_value(struct jparser *jp, int depth);

static void jskip(struct jparser *jp)
{
	while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r')
		jp->p++;
}

static struct json *jnew(enum jtype t)
{
	struct json *j = xcalloc(1, sizeof(*j));

	j->type = t;
	return j;
}

static void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

static void jpush(struct json *j, char *key, struct json *v)
{
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 8;
		j->items = xrealloc(j->items, j->cap * sizeof(*j->items));
		if (j->type == J_OBJ)
			j->keys = xrealloc(j->keys, j->cap * sizeof(*j->keys));
	}
	if (j->type == J_OBJ)
		j->keys[j->n] = key;
	j->items[j->n++] = v;
}

static void put_utf8(struct sbuf *b, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sbuf_addn(b, u, n);
}

/* The length of the valid UTF-8 sequence at p (not ASCII), 0 if invalid. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	unsigned cp;

	if (!n || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	cp = n == 2   ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu)
	     : n == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu)
		      : (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 |
				(p[3] & 0x3fu);
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* A string at jp->p (its opening quote), decoded; NULL on error. */
static char *jparse_string(struct jparser *jp)
{
	struct sbuf b = SBUF_INIT;

	jp->p++;
	for (;;) {
		unsigned char c = (unsigned char)*jp->p;

		if (c == '"') {
			jp->p++;
			return sbuf_detach(&b, NULL);
		}
		if (c < 0x20) {
			jp->err = c ? "control character in a string" : "unterminated string";
			break;
		}
		if (c == '\\') {
			const char *esc = "\"\\/bfnrt", *dec = "\"\\/\b\f\n\r\t", *at;
			int cp;

			c = (unsigned char)jp->p[1];
			if (c && (at = strchr(esc, c))) {
				sbuf_addn(&b, dec + (at - esc), 1);
				jp->p += 2;
				continue;
			}
			if (c != 'u' || (cp = hex4(jp->p + 2)) < 0) {
				jp->err = "bad escape";
				break;
			}
			jp->p += 6;
			if (cp >= 0xd800 && cp < 0xdc00) {
				int lo = jp->p[0] == '\\' && jp->p[1] == 'u' ? hex4(jp->p + 2) : -1;

				if (lo < 0xdc00 || lo >= 0xe000) {
					jp->err = "lone surrogate";
					break;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				jp->p += 6;
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				jp->err = "lone surrogate";
				break;
			}
			put_utf8(&b, (unsigned)cp);
			continue;
		}
		if (c < 0x80) {
			sbuf_addn(&b, jp->p++, 1);
		} else {
			size_t n = utf8_len((const unsigned char *)jp->p);

			if (!n) {
				jp->err = "invalid UTF-8 in a string";
				break;
			}
			sbuf_addn(&b, jp->p, n);
			jp->p += n;
		}
	}
	sbuf_release(&b);
	return NULL;
}

static struct json *jparse_number(struct jparser *jp)
{
	const char *s = jp->p;
	struct json *j;
	char *copy, *end;

	if (*jp->p == '-')
		jp->p++;
	if (*jp->p == '0')
		jp->p++;
	else if (*jp->p >= '1' && *jp->p <= '9')
		while (*jp->p >= '0' && *jp->p <= '9')
			jp->p++;
	else
		return jp->err = "bad number", NULL;
	if (*jp->p == '.') {
		jp->p++;
		if (!(*jp->p >= '0' && *jp->p <= '9'))
			return jp->err = "bad fraction", NULL;
		while (*jp->p >= '0' && *jp->p <= '9')
			jp->p++;
	}
	if (*jp->p == 'e' || *jp->p == 'E') {
		jp->p++;
		if (*jp->p == '+' || *jp->p == '-')
			jp->p++;
		if (!(*jp->p >= '0' && *jp->p <= '9'))
			return jp->err = "bad exponent", NULL;
		while (*jp->p >= '0' && *jp->p <= '9')
			jp->p++;
	}
	j = jnew(J_NUM);
	copy = xstrndup(s, (size_t)(jp->p - s));
	j->num = strtod(copy, &end);
	ck_assert_uint_eq((size_t)(end - copy), strlen(copy));
	free(copy);
	return j;
}

static struct json *jparse_container(struct jparser *jp, int depth)
{
	bool obj = *jp->p == '{';
	struct json *j = jnew(obj ? J_OBJ : J_ARR);

	jp->p++;
	jskip(jp);
	if (*jp->p == (obj ? '}' : ']')) {
		jp->p++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		struct json *v;

		jskip(jp);
		if (obj) {
			if (*jp->p != '"' || !(key = jparse_string(jp))) {
				jp->err = jp->err ? jp->err : "object key expected";
				break;
			}
			jskip(jp);
			if (*jp->p != ':') {
				free(key);
				jp->err = "':' expected";
				break;
			}
			jp->p++;
		}
		if (!(v = jparse_value(jp, depth + 1))) {
			free(key);
			break;
		}
		jpush(j, key, v);
		jskip(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == (obj ? '}' : ']')) {
			jp->p++;
			return j;
		}
		jp->err = "',' or end expected";
		break;
	}
	json_free(j);
	return NULL;
}

static struct json *jparse_value(struct jparser *jp, int depth)
{
	struct json *j;

	if (depth > 64)
		return jp->err = "too deep", NULL;
	jskip(jp);
	switch (*jp->p) {
	case '{':
	case '[':
		return jparse_container(jp, depth);
	case '"': {
		char *s = jparse_string(jp);

		if (!s)
			return NULL;
		j = jnew(J_STR);
		j->str = s;
		return j;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};

		for (int i = 0; i < 3; i++) {
			if (!strncmp(jp->p, words[i], strlen(words[i]))) {
				jp->p += strlen(words[i]);
				j = jnew(i == 2 ? J_NULL : J_BOOL);
				j->b = i == 0;
				return j;
			}
		}
		return jp->err = "bad literal", NULL;
	}
	default:
		return jparse_number(jp);
	}
}

/* The JSON text of len bytes at s, which must be one value and nothing else. */
static struct json *json_parse_n(const char *s, size_t len)
{
	char *copy = xstrndup(s, len);
	struct jparser jp = {copy, NULL};
	struct json *j = jparse_value(&jp, 0);

	if (j) {
		jskip(&jp);
		if (*jp.p)
			jp.err = "text after the value";
	}
	ck_assert_msg(j && !jp.err, "invalid JSON (%s) at offset %td of: %.200s",
		      jp.err ? jp.err : "?", jp.p - copy, copy);
	free(copy);
	return j;
}

/* Member key of object j (which must have it). */
static struct json *jget(const struct json *j, const char *key)
{
	ck_assert_int_eq(j->type, J_OBJ);
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return j->items[i];
	ck_abort_msg("no member '%s'", key);
	return NULL;
}

static bool jhas(const struct json *j, const char *key)
{
	ck_assert_int_eq(j->type, J_OBJ);
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return true;
	return false;
}

static const struct json *jat(const struct json *j, size_t i)
{
	ck_assert_int_eq(j->type, J_ARR);
	ck_assert_uint_lt(i, j->n);
	return j->items[i];
}

static const char *jstr(const struct json *j)
{
	ck_assert_int_eq(j->type, J_STR);
	return j->str;
}

static double jnum(const struct json *j)
{
	ck_assert_int_eq(j->type, J_NUM);
	return j->num;
}

/* An integer-valued number. */
static uint64_t juint(const struct json *j)
{
	double v = jnum(j);

	ck_assert(v >= 0 && v == (double)(uint64_t)v);
	return (uint64_t)v;
}

/* The lines of text, each without its '\n' (free the array, not the lines). */
static size_t split_lines(char *text, char ***lines)
{
	size_t n = 0, cap = 0;
	char *save = NULL;

	*lines = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		xgrow(lines, &cap, n + 1, sizeof(**lines));
		(*lines)[n++] = l;
	}
	return n;
}

/* --script: a line per sample in time order; fields, then the folded frames. */
START_TEST(test_script)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};
	char *text = run_format("script", p, &o), **lines;
	size_t n = split_lines(text, &lines);
	double last = -1;

	ck_assert_uint_eq(n, 100);
	ck_assert_str_eq(lines[0], "0.000000000 100 100 0 1001001 app\t"
				   "__libc_start_call_main;main;work;mid_inl_[i];leaf_inl_[i]");
	for (size_t i = 0; i < n; i++) {
		unsigned pid, tid, cpu;
		unsigned long long period;
		char comm[64];
		double t;
		const char *tab = strchr(lines[i], '\t');

		ck_assert_msg(sscanf(lines[i], "%lf %u %u %u %llu %63[^\t]", &t, &pid, &tid, &cpu,
				     &period, comm) == 6,
			      "line '%s'", lines[i]);
		ck_assert_ptr_nonnull(tab);
		ck_assert_ptr_null(strchr(tab + 1, '\t'));
		ck_assert_msg(t >= last, "line %zu out of time order: %s", i, lines[i]);
		last = t;
		ck_assert_uint_lt(cpu, 4);
		ck_assert(period == 1001001 || (period == 500000 && pid == 200));
	}
	/* The S1 sample at 1.0 s comes before S3's at the same time (file order). */
	for (size_t i = 0; i < n; i++) {
		if (strncmp(lines[i], "1.000000000 ", 12))
			continue;
		ck_assert_str_eq(lines[i], "1.000000000 100 100 0 1001001 app\t"
					   "__libc_start_call_main;main;work;mid_inl_[i];"
					   "leaf_inl_[i]");
		ck_assert_str_eq(lines[i + 1], "1.000000000 100 101 0 1001001 worker\t"
					       "__libc_start_call_main;main;recurse;recurse;"
					       "recurse;recurse");
		break;
	}
	free(lines);
	free(text);

	/* Kernel frames: "_[k]"; unresolved frames by module and offset; ';' out of comm. */
	text = run_format("script", p, &o);
	ck_assert_ptr_nonnull(strstr(text, "\n1.500000000 200 200 1 1001001 other\t"
					   "entry_SYSCALL_64_[k];clear_page_erms_[k]\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n2.500000000 200 200 0 500000 other\t"
					   "__libc_start_call_main;main;"
					   "operator<<(std::ostream&, \"q'\");"
					   "[libc.so.6+0x9a2b0]\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n0.250000000 300 300 0 1001001 java\t"
					   "[unknown];LambdaForm$MH.invoke\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n2.950000000 100 101 0 1001001 work:er\t"));
	ck_assert_ptr_null(strstr(text, "work;er"));
	free(text);

	/* Filtered: pid 200 only (S5 and S6). */
	o.pids = (uint32_t[]){200};
	o.npids = 1;
	text = run_format("script", p, &o);
	n = split_lines(text, &lines);
	ck_assert_uint_eq(n, 10);
	free(lines);
	free(text);
	/* --no-kernel keeps S6's samples, with no frame left; --kernel-only drops S5's. */
	o.no_kernel = true;
	text = run_format("script", p, &o);
	ck_assert_ptr_null(strstr(text, "_[k]"));
	n = split_lines(text, &lines);
	ck_assert_uint_eq(n, 10);
	ck_assert_str_eq(lines[0], "1.500000000 200 200 0 1001001 other\t");
	free(lines);
	free(text);
	o.no_kernel = false;
	o.kernel_only = true;
	text = run_format("script", p, &o);
	ck_assert_str_eq(text, "1.500000000 200 200 0 1001001 other\t"
			       "entry_SYSCALL_64_[k];clear_page_erms_[k]\n"
			       "1.500000000 200 200 1 1001001 other\t"
			       "entry_SYSCALL_64_[k];clear_page_erms_[k]\n");
	free(text);
	profile_free(p);
}
END_TEST

/*
 * --script and --json of the off-CPU and wall views: the spans as lines,
 * at their switch-out times, their time off the CPU as period; in the
 * wall view among the samples in time order. --json marks them.
 */
START_TEST(test_script_offcpu)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .sample_type = REPORT_OFF_CPU};
	struct pm_offcpu x = {.time = 1200000000, .duration = 3000000, .pid = 100, .tid = 100};
	char *text, **lines;
	size_t n, at = 0;

	x.stack = p->samples[0].stack;
	x.comm = p->samples[0].comm;
	profile_add_offcpu(p, &x);
	x.time = 250000000;
	x.duration = 7000;
	profile_add_offcpu(p, &x);
	text = run_format("script", p, &o);
	ck_assert_str_eq(text, "0.250000000 100 100 0 7000 app\t"
			       "__libc_start_call_main;main;work;mid_inl_[i];leaf_inl_[i]\n"
			       "1.200000000 100 100 0 3000000 app\t"
			       "__libc_start_call_main;main;work;mid_inl_[i];leaf_inl_[i]\n");
	free(text);
	text = run_format("json", p, &o);
	ck_assert_ptr_nonnull(strstr(text, "\"period\":3000000,\"off_cpu\":true,"));
	ck_assert_ptr_null(strstr(text, "\"off_cpu\":false"));
	free(text);
	/* Wall: the 100 samples and both spans, in time order. */
	o.sample_type = REPORT_WALL;
	text = run_format("script", p, &o);
	n = split_lines(text, &lines);
	ck_assert_uint_eq(n, 102);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(lines[i], "1.200000000 100 100 0 3000000 ", 30) == 0)
			at = i;
		ck_assert(i == 0 || strtod(lines[i - 1], NULL) <= strtod(lines[i], NULL));
	}
	ck_assert_uint_gt(at, 0);
	ck_assert_double_le(strtod(lines[at - 1], NULL), 1.2);
	ck_assert_double_ge(strtod(lines[at + 1], NULL), 1.2);
	free(lines);
	free(text);
	/* The CPU view has no span. */
	o.sample_type = REPORT_CPU;
	text = run_format("json", p, &o);
	ck_assert_ptr_null(strstr(text, "\"off_cpu\":true"));
	n = split_lines(text, &lines);
	ck_assert_uint_eq(n, 100);
	free(lines);
	free(text);
	profile_free(p);
}
END_TEST

/* The frame object at index i of a --json line's frames. */
static void assert_json_frame(const struct json *frames, size_t i, const char *name,
			      const char *folded, const char *module, const char *addr,
			      const char *file, unsigned line, bool inlined, bool kernel)
{
	const struct json *f = jat(frames, i);

	ck_assert_str_eq(jstr(jget(f, "name")), name);
	ck_assert_str_eq(jstr(jget(f, "folded")), folded);
	if (module)
		ck_assert_str_eq(jstr(jget(f, "module")), module);
	else
		ck_assert_int_eq(jget(f, "module")->type, J_NULL);
	ck_assert_str_eq(jstr(jget(f, "addr")), addr);
	if (file)
		ck_assert_str_eq(jstr(jget(f, "file")), file);
	else
		ck_assert(!jhas(f, "file"));
	if (line)
		ck_assert_uint_eq(juint(jget(f, "line")), line);
	else
		ck_assert(!jhas(f, "line"));
	ck_assert_int_eq(jget(f, "inlined")->type, J_BOOL);
	ck_assert_int_eq(jget(f, "inlined")->b, inlined);
	ck_assert_int_eq(jget(f, "kernel")->b, kernel);
}

/* The --json line whose time_ns is t and tid is tid (free it). */
static struct json *json_line(char **lines, size_t n, uint64_t t, uint32_t tid)
{
	for (size_t i = 0; i < n; i++) {
		struct json *j = json_parse_n(lines[i], strlen(lines[i]));

		if (juint(jget(j, "time_ns")) == t && juint(jget(j, "tid")) == tid)
			return j;
		json_free(j);
	}
	ck_abort_msg("no sample at %llu ns", (unsigned long long)t);
	return NULL;
}

/* --json: every line one valid object; frames innermost first, one object per level. */
START_TEST(test_json)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1};
	char *text = run_format("json", p, &o), **lines;
	size_t n = split_lines(text, &lines);
	struct json *j, *frames;

	ck_assert_uint_eq(n, 100);
	for (size_t i = 0; i < n; i++) {
		j = json_parse_n(lines[i], strlen(lines[i]));
		ck_assert_uint_ge(jget(j, "frames")->n, 1);
		ck_assert_double_eq_tol(jnum(jget(j, "time")) * 1e9,
					(double)juint(jget(j, "time_ns")), 1);
		json_free(j);
	}

	j = json_line(lines, n, 0, 100);
	ck_assert_uint_eq(juint(jget(j, "pid")), 100);
	ck_assert_uint_eq(juint(jget(j, "cpu")), 0);
	ck_assert_uint_eq(juint(jget(j, "period")), 1001001);
	ck_assert_str_eq(jstr(jget(j, "comm")), "app");
	frames = jget(j, "frames");
	ck_assert_uint_eq(frames->n, 5);
	assert_json_frame(frames, 0, "leaf_inl", "leaf_inl_[i]", "/usr/bin/app", "0x1200",
			  "/src/app/leaf.h", 7, true, false);
	assert_json_frame(frames, 1, "mid_inl", "mid_inl_[i]", "/usr/bin/app", "0x1200",
			  "/src/app/mid.h", 12, true, false);
	assert_json_frame(frames, 2, "work", "work", "/usr/bin/app", "0x1200", "/src/app/work.c",
			  99, false, false);
	assert_json_frame(frames, 3, "main", "main", "/usr/bin/app", "0x1100", "/src/app/app.c", 50,
			  false, false);
	assert_json_frame(frames, 4, "__libc_start_call_main", "__libc_start_call_main",
			  "/usr/lib/x86_64-linux-gnu/libc.so.6", "0x29d90", NULL, 0, false, false);
	json_free(j);

	/* Kernel frames, an unresolved one, one in no mapping; comm as it was. */
	j = json_line(lines, n, 1500000000, 200);
	frames = jget(j, "frames");
	ck_assert_uint_eq(frames->n, 2);
	assert_json_frame(frames, 0, "clear_page_erms", "clear_page_erms_[k]", "[kernel.kallsyms]",
			  "0xffffffff81001000", NULL, 0, false, true);
	json_free(j);
	j = json_line(lines, n, 2500000000, 200);
	assert_json_frame(jget(j, "frames"), 0, "[libc.so.6+0x9a2b0]", "[libc.so.6+0x9a2b0]",
			  "/usr/lib/x86_64-linux-gnu/libc.so.6", "0x9a2b0", NULL, 0, false, false);
	assert_json_frame(jget(j, "frames"), 1, "operator<<(std::ostream&, \"q'\")",
			  "operator<<(std::ostream&, \"q'\")", "/usr/bin/app", "0x1500",
			  "/src/app/out.cc", 3, false, false);
	json_free(j);
	j = json_line(lines, n, 250000000, 300);
	assert_json_frame(jget(j, "frames"), 1, "[unknown]", "[unknown]", NULL, "0x7f00dead0000",
			  NULL, 0, false, false);
	json_free(j);
	j = json_line(lines, n, 2950000000, 101);
	ck_assert_str_eq(jstr(jget(j, "comm")), "work;er");
	json_free(j);
	free(lines);
	free(text);

	/* --no-inline: one object per frame, the real function. */
	o.names.no_inline = true;
	text = run_format("json", p, &o);
	n = split_lines(text, &lines);
	j = json_line(lines, n, 0, 100);
	ck_assert_uint_eq(jget(j, "frames")->n, 3);
	assert_json_frame(jget(j, "frames"), 0, "work", "work", "/usr/bin/app", "0x1200",
			  "/src/app/work.c", 99, false, false);
	json_free(j);
	free(lines);
	free(text);
	profile_free(p);
}
END_TEST

/*
 * Names and thread names of any bytes reach JSON escaped, and decode to
 * what was recorded (bytes not UTF-8 as U+FFFD); the script line keeps
 * them on one line.
 */
START_TEST(test_json_hostile)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/bin/we\"ird\\path", "", 0);
	uint32_t f = profile_intern_frame(p, m, 0, 0x10);
	struct pm_line l = {0};
	struct pm_sample s = {.pid = 1, .tid = 1, .period = 1};
	struct report_opts o = {.rows = -1};
	struct json *j, *fr;
	char *text;

	l.func = strtab_add(&p->str, "a\"b\\c\nd\x01"
				     "e\x7f\xc2\x9b\xff\xc3\xa9/\t");
	l.file = strtab_add(&p->str, "/src/\"x\".c");
	profile_add_line(p, f, &l);
	s.comm = strtab_add(&p->str, "t\x1b]0;x\x07");
	s.stack = profile_intern_stack(p, &f, 1);
	profile_add_sample(p, &s);
	text = run_format("json", p, &o);
	ck_assert_ptr_nonnull(strchr(text, '\n'));
	ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
	j = json_parse_n(text, strlen(text));
	ck_assert_str_eq(jstr(jget(j, "comm")), "t\x1b]0;x\x07");
	fr = (struct json *)jat(jget(j, "frames"), 0);
	ck_assert_str_eq(jstr(jget(fr, "name")), "a\"b\\c\nd\x01"
						 "e\x7f\xc2\x9b\xef\xbf\xbd\xc3\xa9/\t");
	ck_assert_str_eq(jstr(jget(fr, "module")), "/bin/we\"ird\\path");
	ck_assert_str_eq(jstr(jget(fr, "file")), "/src/\"x\".c");
	/* The folded name has no control character left. */
	for (const char *c = jstr(jget(fr, "folded")); *c; c++)
		ck_assert_int_ge((unsigned char)*c, 0x20);
	json_free(j);
	/* No raw control character in the text itself. */
	for (const char *c = text; *c; c++)
		ck_assert(*c == '\n' || (unsigned char)*c >= 0x20);
	free(text);

	text = run_format("script", p, &o);
	ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
	ck_assert_ptr_null(strchr(text, '\x1b'));
	ck_assert_ptr_null(strchr(text, '\x01'));
	free(text);
	profile_free(p);
}
END_TEST

/*
 * Two threads of process 10: "a" (tid 10) samples main;f at 0 ms (period
 * 1000) and main;g at 1 ms (period 2000), g with an inlined g_inl; "b"
 * (tid 11) main;f at 0.5 ms (period 500). Samples added out of time order.
 */
static struct profile *tiny_profile(void)
{
	struct profile *p = profile_new();
	uint32_t m = profile_add_module(p, "/bin/x", "abcd", 0);
	uint32_t fmain = profile_intern_frame(p, m, 0, 0x100);
	uint32_t ff = profile_intern_frame(p, m, 0, 0x200);
	uint32_t fg = profile_intern_frame(p, m, 0, 0x300);
	struct pm_line l = {0};
	struct pm_sample s = {0};

	l.file = strtab_add(&p->str, "/src/x.c");
	l.func = strtab_add(&p->str, "main");
	l.line = 10;
	l.start_line = 9;
	profile_add_line(p, fmain, &l);
	l.func = strtab_add(&p->str, "f");
	l.line = 20;
	l.start_line = 19;
	profile_add_line(p, ff, &l);
	l.func = strtab_add(&p->str, "g_inl");
	l.line = 31;
	l.start_line = 30;
	l.flags = PM_LINE_INLINED;
	profile_add_line(p, fg, &l);
	l.func = strtab_add(&p->str, "g");
	l.line = 40;
	l.start_line = 39;
	l.flags = 0;
	profile_add_line(p, fg, &l);
	profile_set_meta(p, "command", "record -F 1000 -- ./x");
	profile_set_meta(p, "frequency", "1000");
	profile_set_meta(p, "duration-ns", "2000000");

	s.pid = 10;
	s.tid = 10;
	s.comm = strtab_add(&p->str, "a");
	s.time = 1000000;
	s.period = 2000;
	s.stack = profile_intern_stack(p, (uint32_t[]){fg, fmain}, 2);
	profile_add_sample(p, &s);
	s.time = 0;
	s.period = 1000;
	s.stack = profile_intern_stack(p, (uint32_t[]){ff, fmain}, 2);
	profile_add_sample(p, &s);
	s.tid = 11;
	s.comm = strtab_add(&p->str, "b");
	s.time = 500000;
	s.period = 500;
	profile_add_sample(p, &s);
	profile_add_thread(p, 10, 10, "a");
	profile_add_thread(p, 10, 11, "b");
	return p;
}

/* The names of a speedscope sample's frames, outermost first, joined by ';'. */
static void speedscope_stack(const struct json *frames, const struct json *sample, struct sbuf *b)
{
	b->len = 0;
	sbuf_adds(b, "");
	for (size_t i = 0; i < sample->n; i++) {
		uint64_t k = juint(jat(sample, i));

		ck_assert_uint_lt(k, frames->n);
		sbuf_addf(b, "%s%s", i ? ";" : "", jstr(jget(jat(frames, k), "name")));
	}
}

/*
 * speedscope: a sampled profile per thread; each sample's frames (shared,
 * outermost first, an inlined level a frame of its own) and its weight,
 * the period in ns; endValue the sum of the weights.
 */
START_TEST(test_speedscope)
{
	struct profile *p = tiny_profile();
	struct report_opts o = {.rows = -1, .input = "x.data"};
	char *text = run_format("speedscope", p, &o);
	struct json *j = json_parse_n(text, strlen(text));
	const struct json *frames, *profiles, *a, *b;
	struct sbuf st = SBUF_INIT;

	ck_assert_str_eq(jstr(jget(j, "$schema")),
			 "https://www.speedscope.app/file-format-schema.json");
	ck_assert_str_eq(jstr(jget(j, "name")), "record -F 1000 -- ./x");
	frames = jget(jget(j, "shared"), "frames");
	ck_assert_uint_eq(frames->n, 4); /* main, f, g, g_inl */
	profiles = jget(j, "profiles");
	ck_assert_uint_eq(profiles->n, 2);
	ck_assert_uint_eq(juint(jget(j, "activeProfileIndex")), 0);

	a = jat(profiles, 0);
	ck_assert_str_eq(jstr(jget(a, "type")), "sampled");
	ck_assert_str_eq(jstr(jget(a, "name")), "a (10/10)");
	ck_assert_str_eq(jstr(jget(a, "unit")), "nanoseconds");
	ck_assert_uint_eq(juint(jget(a, "startValue")), 0);
	ck_assert_uint_eq(juint(jget(a, "endValue")), 3000);
	ck_assert_uint_eq(jget(a, "samples")->n, 2);
	speedscope_stack(frames, jat(jget(a, "samples"), 0), &st);
	ck_assert_str_eq(st.buf, "main;f");
	speedscope_stack(frames, jat(jget(a, "samples"), 1), &st);
	ck_assert_str_eq(st.buf, "main;g;g_inl_[i]");
	ck_assert_uint_eq(juint(jat(jget(a, "weights"), 0)), 1000);
	ck_assert_uint_eq(juint(jat(jget(a, "weights"), 1)), 2000);

	b = jat(profiles, 1);
	ck_assert_str_eq(jstr(jget(b, "name")), "b (10/11)");
	ck_assert_uint_eq(juint(jget(b, "endValue")), 500);
	speedscope_stack(frames, jat(jget(b, "samples"), 0), &st);
	ck_assert_str_eq(st.buf, "main;f");
	ck_assert_uint_eq(juint(jat(jget(b, "weights"), 0)), 500);
	/* The same frame in both threads is one shared frame. */
	ck_assert_uint_eq(juint(jat(jat(jget(b, "samples"), 0), 1)),
			  juint(jat(jat(jget(a, "samples"), 0), 1)));

	/* Each frame's file and its function's first line (no --lines). */
	for (size_t i = 0; i < frames->n; i++) {
		const struct json *f = jat(frames, i);

		ck_assert_str_eq(jstr(jget(f, "file")), "/src/x.c");
		if (!strcmp(jstr(jget(f, "name")), "g_inl_[i]"))
			ck_assert_uint_eq(juint(jget(f, "line")), 30);
		if (!strcmp(jstr(jget(f, "name")), "f"))
			ck_assert_uint_eq(juint(jget(f, "line")), 19);
	}
	sbuf_release(&st);
	json_free(j);
	free(text);
	profile_free(p);
}
END_TEST

/* On the synthetic recording: each profile's endValue is the sum of its weights. */
START_TEST(test_speedscope_synth)
{
	struct profile *p = synth_profile();
	struct report_opts o = {.rows = -1, .input = "app.data"};
	char *text = run_format("speedscope", p, &o);
	struct json *j = json_parse_n(text, strlen(text));
	const struct json *frames = jget(jget(j, "shared"), "frames"),
			  *profiles = jget(j, "profiles");
	size_t samples = 0;

	ck_assert_uint_eq(profiles->n, 4); /* app, worker (work;er is thread 101), other, java */
	for (size_t i = 0; i < profiles->n; i++) {
		const struct json *pr = jat(profiles, i), *ss = jget(pr, "samples"),
				  *ws = jget(pr, "weights");
		uint64_t sum = 0;

		ck_assert_uint_eq(ss->n, ws->n);
		for (size_t k = 0; k < ss->n; k++) {
			const struct json *s = jat(ss, k);

			for (size_t d = 0; d < s->n; d++)
				ck_assert_uint_lt(juint(jat(s, d)), frames->n);
			sum += juint(jat(ws, k));
		}
		ck_assert_uint_eq(juint(jget(pr, "endValue")), sum);
		samples += ss->n;
	}
	ck_assert_uint_eq(samples, 100);
	json_free(j);
	free(text);
	profile_free(p);
}
END_TEST

/* The names of a Firefox thread's stack st, outermost first, joined by ';'. */
static void firefox_stack(const struct json *th, uint64_t st, struct sbuf *b)
{
	const struct json *stacks = jget(th, "stackTable"), *frames = jget(th, "frameTable"),
			  *funcs = jget(th, "funcTable"), *strings = jget(th, "stringArray");
	const char *names[64];
	size_t n = 0;

	for (const struct json *k = jat(jget(stacks, "frame"), st);; n++) {
		const struct json *prefix = jat(jget(stacks, "prefix"), st);
		uint64_t fr = juint(k), fn = juint(jat(jget(frames, "func"), fr));

		ck_assert_uint_lt(n, ARRAY_SIZE(names));
		names[n] = jstr(jat(strings, juint(jat(jget(funcs, "name"), fn))));
		if (prefix->type == J_NULL)
			break;
		ck_assert_uint_lt(juint(prefix), st); /* a prefix comes before its stack */
		st = juint(prefix);
		k = jat(jget(stacks, "frame"), st);
	}
	b->len = 0;
	sbuf_adds(b, "");
	for (size_t i = n + 1; i-- > 0;)
		sbuf_addf(b, "%s%s", i == n ? "" : ";", names[i]);
}

/* Every column of a table has its length. */
static void assert_table(const struct json *t, const char *const *cols, size_t ncols)
{
	uint64_t len = juint(jget(t, "length"));

	for (size_t i = 0; i < ncols; i++)
		ck_assert_msg(jget(t, cols[i])->n == len, "column %s: %zu, length %llu", cols[i],
			      jget(t, cols[i])->n, (unsigned long long)len);
}

/*
 * The Firefox Profiler: a thread per recorded thread, grouped by pid; its
 * samples' stacks followed through stackTable, frameTable, funcTable and
 * stringArray; times in ms; the module as a resource and a lib.
 */
START_TEST(test_firefox)
{
	static const char *const stack_cols[] = {"frame", "prefix"};
	static const char *const frame_cols[] = {"address", "inlineDepth", "category", "func",
						 "line"};
	static const char *const func_cols[] = {"name", "resource", "fileName", "lineNumber"};
	struct profile *p = tiny_profile();
	struct report_opts o = {.rows = -1, .input = "x.data"};
	char *text = run_format("firefox", p, &o);
	struct json *j = json_parse_n(text, strlen(text));
	const struct json *meta = jget(j, "meta"), *threads = jget(j, "threads"), *a, *b, *lib;
	const struct json *frames, *funcs, *strings;
	struct sbuf st = SBUF_INIT;

	ck_assert_uint_eq(juint(jget(meta, "preprocessedProfileVersion")), 55);
	ck_assert_double_eq_tol(jnum(jget(meta, "interval")), 1.0, 1e-9);
	ck_assert_double_eq_tol(jnum(jget(meta, "profilingEndTime")), 2.0, 1e-9);
	ck_assert_uint_eq(threads->n, 2);

	a = jat(threads, 0);
	ck_assert_str_eq(jstr(jget(a, "name")), "a");
	ck_assert_str_eq(jstr(jget(a, "processName")), "a");
	ck_assert_str_eq(jstr(jget(a, "pid")), "10");
	ck_assert_uint_eq(juint(jget(a, "tid")), 10);
	ck_assert(jget(a, "isMainThread")->b);
	ck_assert_str_eq(jstr(jget(jget(a, "samples"), "weightType")), "samples");
	ck_assert_int_eq(jget(jget(a, "samples"), "weight")->type, J_NULL);
	ck_assert_uint_eq(juint(jget(jget(a, "samples"), "length")), 2);
	ck_assert_double_eq_tol(jnum(jat(jget(jget(a, "samples"), "time"), 0)), 0.0, 1e-9);
	ck_assert_double_eq_tol(jnum(jat(jget(jget(a, "samples"), "time"), 1)), 1.0, 1e-9);
	firefox_stack(a, juint(jat(jget(jget(a, "samples"), "stack"), 0)), &st);
	ck_assert_str_eq(st.buf, "main;f");
	firefox_stack(a, juint(jat(jget(jget(a, "samples"), "stack"), 1)), &st);
	ck_assert_str_eq(st.buf, "main;g;g_inl_[i]");
	assert_table(jget(a, "stackTable"), stack_cols, ARRAY_SIZE(stack_cols));
	assert_table(jget(a, "frameTable"), frame_cols, ARRAY_SIZE(frame_cols));
	assert_table(jget(a, "funcTable"), func_cols, ARRAY_SIZE(func_cols));

	/* The frames: file offsets, inline depth, the line of the code; functions' first lines. */
	frames = jget(a, "frameTable");
	funcs = jget(a, "funcTable");
	strings = jget(a, "stringArray");
	ck_assert_uint_eq(juint(jget(frames, "length")), 4);
	for (size_t i = 0; i < 4; i++) {
		uint64_t fn = juint(jat(jget(frames, "func"), i));
		const char *name = jstr(jat(strings, juint(jat(jget(funcs, "name"), fn))));
		bool inl = !strcmp(name, "g_inl_[i]");

		ck_assert_uint_eq(juint(jat(jget(frames, "inlineDepth"), i)), inl);
		ck_assert_uint_eq(juint(jat(jget(frames, "category"), i)), 1);
		if (inl || !strcmp(name, "g"))
			ck_assert_uint_eq(juint(jat(jget(frames, "address"), i)), 0x300);
		if (inl) {
			ck_assert_uint_eq(juint(jat(jget(frames, "line"), i)), 31);
			ck_assert_uint_eq(juint(jat(jget(funcs, "lineNumber"), fn)), 30);
		}
		ck_assert_str_eq(jstr(jat(strings, juint(jat(jget(funcs, "fileName"), fn)))),
				 "/src/x.c");
		ck_assert_uint_eq(juint(jat(jget(funcs, "resource"), fn)), 0);
	}
	ck_assert_str_eq(jstr(jat(strings, juint(jat(jget(jget(a, "resourceTable"), "name"), 0)))),
			 "x");

	b = jat(threads, 1);
	ck_assert_str_eq(jstr(jget(b, "name")), "b");
	ck_assert_str_eq(jstr(jget(b, "processName")), "a");
	ck_assert(!jget(b, "isMainThread")->b);
	ck_assert_uint_eq(juint(jget(b, "tid")), 11);
	ck_assert_double_eq_tol(jnum(jat(jget(jget(b, "samples"), "time"), 0)), 0.5, 1e-9);
	firefox_stack(b, juint(jat(jget(jget(b, "samples"), "stack"), 0)), &st);
	ck_assert_str_eq(st.buf, "main;f");

	ck_assert_uint_eq(jget(j, "libs")->n, 1);
	lib = jat(jget(j, "libs"), 0);
	ck_assert_str_eq(jstr(jget(lib, "name")), "x");
	ck_assert_str_eq(jstr(jget(lib, "path")), "/bin/x");
	ck_assert_str_eq(jstr(jget(lib, "codeId")), "abcd");
	sbuf_release(&st);
	json_free(j);
	free(text);

	/* Wall time: the samples weigh their periods, in ms. */
	o.sample_type = REPORT_WALL;
	text = run_format("firefox", p, &o);
	j = json_parse_n(text, strlen(text));
	a = jat(jget(j, "threads"), 0);
	ck_assert_str_eq(jstr(jget(jget(a, "samples"), "weightType")), "tracing-ms");
	ck_assert_double_eq_tol(jnum(jat(jget(jget(a, "samples"), "weight"), 0)), 0.001, 1e-12);
	ck_assert_double_eq_tol(jnum(jat(jget(jget(a, "samples"), "weight"), 1)), 0.002, 1e-12);
	json_free(j);
	free(text);
	profile_free(p);
}
END_TEST

/* The reader itself refuses what is not JSON, so that the tests above can fail. */
START_TEST(test_reader)
{
	static const char *const bad[] = {
		"{\"a\":1,}", "[1 2]",	       "\"\x01\"", "\"\\x\"", "\"\xff\"", "01",
		"{a:1}",      "[\"\\ud800\"]", "[1] [2]",  "tru",     "1.",	  "",
	};
	static const char good[] = "{\"k\":[1,-2.5e3,true,null,\"\\u00e9\\ud83d\\ude00\"]}";
	struct json *j;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct jparser jp = {bad[i], NULL};

		j = jparse_value(&jp, 0);
		if (j) {
			jskip(&jp);
			if (*jp.p)
				jp.err = "text after the value";
		}
		ck_assert_msg(jp.err != NULL, "accepted '%s'", bad[i]);
		json_free(j);
	}
	j = json_parse_n(good, strlen(good));
	ck_assert_double_eq(jnum(jat(jget(j, "k"), 1)), -2500);
	ck_assert_str_eq(jstr(jat(jget(j, "k"), 4)), "\xc3\xa9\xf0\x9f\x98\x80");
	json_free(j);
}
END_TEST

static Suite *fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("formats");

	tcase_add_test(tc, test_reader);
	tcase_add_test(tc, test_script);
	tcase_add_test(tc, test_script_offcpu);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_json_hostile);
	tcase_add_test(tc, test_speedscope);
	tcase_add_test(tc, test_speedscope_synth);
	tcase_add_test(tc, test_firefox);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(fmt_suite());
}
