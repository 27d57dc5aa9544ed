/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_event.c - CPU list parsing, event names, and the attr perfmini asks
 * the kernel for (DESIGN.md, events).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <time.h>

#include "capture/event.h"
#include "unit-helpers.h"
#include "util/array.h"

#define MAXCPU 8

/* The CPUs set, as a string of 0 and 1, or the error. */
static int parse(const char *s, char out[MAXCPU + 1])
{
	bool cpus[MAXCPU] = {false};
	int n = cpulist_parse(s, cpus, MAXCPU);

	for (int i = 0; i < MAXCPU; i++)
		out[i] = cpus[i] ? '1' : '0';
	out[MAXCPU] = '\0';
	return n;
}

START_TEST(test_cpulist_valid)
{
	char set[MAXCPU + 1];

	ck_assert_int_eq(parse("0", set), 1);
	ck_assert_str_eq(set, "10000000");
	ck_assert_int_eq(parse("7", set), 1);
	ck_assert_str_eq(set, "00000001");
	ck_assert_int_eq(parse("0-3,6", set), 5);
	ck_assert_str_eq(set, "11110010");
	ck_assert_int_eq(parse("2-2", set), 1);
	ck_assert_str_eq(set, "00100000");
	ck_assert_int_eq(parse("0-7", set), 8);
	ck_assert_str_eq(set, "11111111");
	ck_assert_int_eq(parse("5,1,3", set), 3);
	ck_assert_str_eq(set, "01010100");
	/* A CPU listed twice counts once. */
	ck_assert_int_eq(parse("1-3,2,3-4", set), 4);
	ck_assert_str_eq(set, "01111000");
}
END_TEST

START_TEST(test_cpulist_invalid)
{
	static const char *const bad[] = {
		"",
		"a",
		"2-1",
		"0,",
		",0",
		"0,,1",
		"-1",
		"1-",
		"-",
		"8",
		"0-8",
		"1 ",
		" 1",
		"1;2",
		"0x1",
		"1-a",
		"99999999999999999999999",
		"3-2,1",
	};
	char set[MAXCPU + 1];
	bool cpus[MAXCPU] = {false};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(parse(bad[i], set) == -EINVAL, "\"%s\" accepted", bad[i]);
	ck_assert_int_eq(cpulist_parse(NULL, cpus, MAXCPU), -EINVAL);
}
END_TEST

START_TEST(test_event_find)
{
	const struct event_desc *e, *list;
	size_t n = 0;

	e = event_find("cpu-clock");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, "cpu-clock");
	ck_assert_uint_eq(e->type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(e->config, PERF_COUNT_SW_CPU_CLOCK);
	e = event_find("task-clock");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->config, PERF_COUNT_SW_TASK_CLOCK);
	e = event_find("cycles");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->type, PERF_TYPE_HARDWARE);
	ck_assert_uint_eq(e->config, PERF_COUNT_HW_CPU_CYCLES);
	e = event_find("instructions");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->config, PERF_COUNT_HW_INSTRUCTIONS);

	ck_assert_ptr_null(event_find(""));
	ck_assert_ptr_null(event_find("cpu"));
	ck_assert_ptr_null(event_find("CPU-CLOCK"));
	ck_assert_ptr_null(event_find("cpu-clock "));

	/* Every listed event is found under its name, and names are unique. */
	list = event_list(&n);
	ck_assert_uint_gt(n, 2);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_eq(event_find(list[i].name), &list[i]);
		for (size_t j = i + 1; j < n; j++)
			ck_assert_str_ne(list[i].name, list[j].name);
	}
}
END_TEST

START_TEST(test_event_attr)
{
	struct event_opts o = {
		.ev = event_find("cpu-clock"),
		.freq = 999,
		.callchain = true,
		.inherit = true,
	};
	const uint64_t want = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	struct perf_event_attr a;

	event_attr(&a, &o);
	ck_assert_uint_eq(a.size, sizeof(a));
	ck_assert_uint_eq(a.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(a.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(a.freq, 1);
	ck_assert_uint_eq(a.sample_freq, 999);
	/* What the decoder and the model need; nothing the decoder cannot parse. */
	ck_assert_uint_eq(a.sample_type & want, want);
	ck_assert_uint_eq(a.sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK), 0);
	ck_assert(a.mmap2 && a.comm && a.comm_exec && a.task && a.sample_id_all);
	ck_assert_uint_eq(a.inherit, 1);
	ck_assert_uint_eq(a.exclude_kernel, 0);
	ck_assert_uint_eq(a.use_clockid, 1);
	ck_assert_int_eq(a.clockid, CLOCK_MONOTONIC);
	ck_assert_uint_eq(a.disabled, 0);

	o.period = 10000;
	o.no_kernel = true;
	o.callchain = false;
	o.enable_on_exec = true;
	event_attr(&a, &o);
	ck_assert_uint_eq(a.freq, 0);
	ck_assert_uint_eq(a.sample_period, 10000);
	ck_assert_uint_eq(a.exclude_kernel, 1);
	ck_assert_uint_eq(a.sample_type & PERF_SAMPLE_CALLCHAIN, 0);
	ck_assert_uint_eq(a.disabled, 1);
	ck_assert_uint_eq(a.enable_on_exec, 1);
	ck_assert_uint_eq(a.exclude_user, 0);
	o.no_kernel = false;
	o.no_user = true; /* ":k" */
	event_attr(&a, &o);
	ck_assert_uint_eq(a.exclude_user, 1);
	ck_assert_uint_eq(a.exclude_kernel, 0);
}
END_TEST

/*
 * perf's spellings of -e: a known event with :u, :k (both: neither), its
 * name the spelling itself; what is not so spelled is refused before
 * tracefs is read (tracepoints themselves: run-perf-spellings.sh).
 */
START_TEST(test_event_parse)
{
	static const char *const bad[] = {
		"cpu-clock:", "cpu-clock:p",  "cpu-clock:uu:k",	      "cpu-clock:u:k",
		"a/b:c",      "sched:x/../y", "sched:sched_switch:q", ":sched_switch",
		"sched:",     "sched:a b"};
	struct event_desc d;
	unsigned mods;

	ck_assert_int_eq(event_parse("cpu-clock", &d, &mods), 0);
	ck_assert_str_eq(d.name, "cpu-clock");
	ck_assert_uint_eq(d.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(mods, 0);
	ck_assert_int_eq(event_parse("cpu-clock:u", &d, &mods), 0);
	ck_assert_str_eq(d.name, "cpu-clock:u");
	ck_assert_uint_eq(d.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(mods, EVENT_MOD_USER);
	ck_assert_int_eq(event_parse("task-clock:k", &d, &mods), 0);
	ck_assert_uint_eq(d.config, PERF_COUNT_SW_TASK_CLOCK);
	ck_assert_uint_eq(mods, EVENT_MOD_KERNEL);
	ck_assert_int_eq(event_parse("cycles:ku", &d, &mods), 0);
	ck_assert_uint_eq(d.type, PERF_TYPE_HARDWARE);
	ck_assert_uint_eq(mods, 0);
	ck_assert_int_eq(event_parse("no-such-event", &d, &mods), -ENOENT);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(event_parse(bad[i], &d, &mods) == -EINVAL, "'%s' taken", bad[i]);
}
END_TEST

/* A tracepoint's format: each field's offset and size, by its own name only. */
START_TEST(test_tracepoint_format)
{
	static const char format[] =
		"name: sched_wakeup\nID: 374\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
	unsigned off = 0, size = 0;

	ck_assert_int_eq(tracepoint_parse_field(format, "pid", &off, &size), 0);
	ck_assert_uint_eq(off, 24);
	ck_assert_uint_eq(size, 4);
	ck_assert_int_eq(tracepoint_parse_field(format, "comm", &off, &size), 0);
	ck_assert_uint_eq(off, 8);
	ck_assert_uint_eq(size, 16);
	ck_assert_int_eq(tracepoint_parse_field(format, "common_pid", &off, &size), 0);
	ck_assert_uint_eq(off, 4);
	ck_assert_int_eq(tracepoint_parse_field(format, "target_cpu", &off, &size), -ENOENT);
	ck_assert_int_eq(tracepoint_parse_field(format, "id", &off, &size), -ENOENT);
	ck_assert_int_eq(tracepoint_parse_field("\tfield:int x;\toffset:;\n", "x", &off, &size),
			 -ENOENT);
	ck_assert_int_eq(tracepoint_parse_field("", "pid", &off, &size), -ENOENT);
}
END_TEST

START_TEST(test_tracepoint_id_filter)
{
	const uint32_t ids[] = {7, 10, 11, 12, 4000000, 4000001};
	uint32_t many[400];
	char buf[TP_FILTER_MAX + 64];
	size_t len;

	len = tracepoint_id_filter("pid", ids, 6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "pid == 7 || (pid >= 10 && pid <= 12) || "
			      "(pid >= 4000000 && pid <= 4000001)");
	ck_assert_uint_eq(len, strlen(buf));
	ck_assert_uint_eq(tracepoint_id_filter("pid", ids, 1, buf, sizeof(buf)), 8);
	ck_assert_str_eq(buf, "pid == 7");
	ck_assert_uint_eq(tracepoint_id_filter("pid", ids, 0, buf, sizeof(buf)), 0);
	/* Too long for the buffer given, or for the kernel: none. */
	ck_assert_uint_eq(tracepoint_id_filter("pid", ids, 6, buf, 20), 0);
	ck_assert_uint_eq(tracepoint_id_filter("pid", ids, 6, buf, 0), 0);
	for (size_t i = 0; i < 400; i++)
		many[i] = 1000000 + 2 * (uint32_t)i; /* no runs: 400 terms of 17 bytes or more */
	ck_assert_uint_eq(tracepoint_id_filter("pid", many, 400, buf, sizeof(buf)), 0);
	for (size_t i = 0; i < 400; i++)
		many[i] = 1000000 + (uint32_t)i; /* one run */
	len = tracepoint_id_filter("pid", many, 400, buf, sizeof(buf));
	ck_assert_str_eq(buf, "(pid >= 1000000 && pid <= 1000399)");
	ck_assert_uint_eq(len, strlen(buf));
}
END_TEST

static Suite *event_suite(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("cpulist");

	tcase_add_test(tc, test_cpulist_valid);
	tcase_add_test(tc, test_cpulist_invalid);
	tcase_add_test(tc, test_tracepoint_format);
	tcase_add_test(tc, test_tracepoint_id_filter);
	suite_add_tcase(s, tc);

	tc = tcase_create("events");
	tcase_add_test(tc, test_event_find);
	tcase_add_test(tc, test_event_attr);
	tcase_add_test(tc, test_event_parse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(event_suite());
}
