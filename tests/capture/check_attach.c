/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_attach.c - opening a recording's events (capture/attach.c): the
 * CPU selection (the online CPUs, a list, a malformed list, an offline
 * CPU, each failure saying what failed); a process that is gone; and,
 * where perf events are permitted, a child of the test with three
 * threads: one event per thread and selected CPU, one ring per CPU that
 * every later event of the CPU writes into, a second event beside each
 * whose ids are told from the first's, enabling, draining and releasing;
 * how full a tracking ring is (this thread's renames in it).
 * The events are software dummies: they count nothing, so nothing here
 * depends on timing.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/attach.h"
#include "capture/event.h"
#include "unit-helpers.h"

/* A software event that never fires, on user space only. */
static struct perf_event_attr dummy_attr(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID;
	attr.sample_id_all = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return attr;
}

static size_t count_cpus(const struct attach *a)
{
	size_t n = 0;

	for (int c = 0; c < ATTACH_MAX_CPUS; c++)
		n += a->cpus[c];
	return n;
}

/* No list: the online CPUs; a list: those; a malformed list or an offline CPU: refused. */
START_TEST(test_cpus)
{
	struct perf_event_attr attr = dummy_attr();
	struct attach a;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	attach_init(&a, &attr, 8);
	ck_assert_int_eq(a.failed, ATTACH_OK);
	ck_assert_int_eq(a.failed_cpu, -1);
	ck_assert_uint_eq(a.pages, 8);
	ck_assert_uint_eq(a.page_size, (size_t)sysconf(_SC_PAGESIZE));

	ck_assert_int_eq(attach_cpus(&a, NULL), 0);
	ck_assert_uint_eq(count_cpus(&a), (size_t)online);

	ck_assert_int_eq(attach_cpus(&a, "0"), 0);
	ck_assert_uint_eq(count_cpus(&a), 1);
	ck_assert(a.cpus[0]);

	ck_assert_int_eq(attach_cpus(&a, "1-"), -EINVAL);
	ck_assert_int_eq(a.failed, ATTACH_CPUS);
	ck_assert_int_eq(a.failed_cpu, -1);

	a.failed = ATTACH_OK;
	ck_assert_int_eq(attach_cpus(&a, "0,4095"), -ENODEV);
	ck_assert_int_eq(a.failed, ATTACH_CPUS);
	ck_assert_int_eq(a.failed_cpu, 4095);
	attach_release(&a);
	attach_release(&a); /* twice: nothing left to release */
}
END_TEST

/* A process that has exited and been reaped cannot be attached to. */
START_TEST(test_process_gone)
{
	struct perf_event_attr attr = dummy_attr();
	struct attach a;
	pid_t child = fork();
	int status;

	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	attach_init(&a, &attr, 1);
	ck_assert_int_eq(attach_cpus(&a, "0"), 0);
	ck_assert_int_eq(attach_process(&a, (uint32_t)child), -ESRCH);
	ck_assert_int_eq(a.failed, ATTACH_OPEN);
	ck_assert_uint_eq(a.nfds, 0);
	ck_assert_uint_eq(a.nrings, 0);
	attach_release(&a);
}
END_TEST

/* A child with three threads, all blocked until the test ends it. */
struct family {
	pid_t pid;
	int hold; /* write end of the pipe the threads wait on */
};

static int hold_fd;

static void *blocked_thread(void *arg)
{
	char c;

	(void)arg;
	while (read(hold_fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void family_start(struct family *f)
{
	int hold[2], ready[2];
	char c;

	ck_assert_int_eq(pipe(hold), 0);
	ck_assert_int_eq(pipe(ready), 0);
	f->pid = fork();
	ck_assert_int_ge(f->pid, 0);
	if (f->pid == 0) {
		pthread_t t[2];

		close(hold[1]);
		close(ready[0]);
		hold_fd = hold[0];
		for (int i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, blocked_thread, NULL))
				_exit(1);
		/* Every thread exists once pthread_create returned. */
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		blocked_thread(NULL);
		_exit(0);
	}
	close(hold[0]);
	close(ready[1]);
	f->hold = hold[1];
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
}

static void family_end(struct family *f)
{
	int status;

	close(f->hold); /* the threads' reads return: the child exits */
	ck_assert_int_eq(waitpid(f->pid, &status, 0), f->pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

static size_t count_records;

static int count_record(const struct perf_event_header *hdr, void *arg)
{
	(void)hdr, (void)arg;
	count_records++;
	return 0;
}

/* One event per thread and CPU, all of a CPU writing into its one ring. */
START_TEST(test_process_threads)
{
	struct perf_event_attr attr = dummy_attr();
	struct family fam;
	struct attach a;

	family_start(&fam);
	attach_init(&a, &attr, 4);
	ck_assert_int_eq(attach_cpus(&a, "0"), 0);
	ck_assert_int_eq(attach_process(&a, (uint32_t)fam.pid), 0);
	ck_assert_int_eq(a.failed, ATTACH_OK);
	ck_assert_uint_eq(a.nfds, 3);
	ck_assert_uint_eq(a.nrings, 1);
	ck_assert_int_eq(a.rings[0].cpu, 0);
	ck_assert_int_eq(a.rings[0].fd, a.fds[0]);
	ck_assert_uint_eq(a.rings[0].maplen, (1 + a.pages) * a.page_size);
	ck_assert(a.pages == 4 || a.pages_reduced);
	ck_assert_int_eq(attach_enable(&a), 0);
	ck_assert_int_eq(attach_disable(&a), 0);
	count_records = 0;
	ck_assert_uint_eq(attach_drain(&a, count_record, NULL), 0);
	attach_release(&a);
	ck_assert_uint_eq(a.nfds, 0);
	ck_assert_uint_eq(a.nrings, 0);

	/* Every selected CPU has its ring: here, all of them. */
	attach_init(&a, &attr, 1);
	ck_assert_int_eq(attach_cpus(&a, NULL), 0);
	ck_assert_int_eq(attach_process(&a, (uint32_t)fam.pid), 0);
	ck_assert_uint_eq(a.nrings, count_cpus(&a));
	ck_assert_uint_eq(a.nfds, 3 * count_cpus(&a));
	for (size_t i = 0; i < a.nrings; i++) {
		ck_assert(a.cpus[a.rings[i].cpu]);
		for (size_t j = 0; j < i; j++)
			ck_assert_int_ne(a.rings[i].cpu, a.rings[j].cpu);
	}
	attach_release(&a);
	family_end(&fam);
}
END_TEST

/* The second event of every thread: its ids, and only those, are second. */
START_TEST(test_second_event)
{
	struct perf_event_attr attr = dummy_attr(), attr2 = dummy_attr();
	struct family fam;
	struct attach a;
	size_t second = 0;

	attr2.context_switch = 1;
	family_start(&fam);
	attach_init(&a, &attr, 1);
	attach_add_second(&a, &attr2);
	ck_assert(!attach_is_second(&a, 1));
	ck_assert_int_eq(attach_cpus(&a, "0"), 0);
	ck_assert_int_eq(attach_process(&a, (uint32_t)fam.pid), 0);
	ck_assert_uint_eq(a.nfds, 6);
	ck_assert_uint_eq(a.nrings, 1);
	ck_assert_uint_eq(a.ids2.count, 3);
	for (size_t i = 0; i < a.nfds; i++) {
		uint64_t id;

		ck_assert_int_eq(ioctl(a.fds[i], PERF_EVENT_IOC_ID, &id), 0);
		/* Each thread's event, then its second. */
		ck_assert(attach_is_second(&a, id) == (i % 2 == 1));
		second += attach_is_second(&a, id);
	}
	ck_assert_uint_eq(second, 3);
	attach_release(&a);
	family_end(&fam);
}
END_TEST

/* A thread that is gone: -ESRCH, said to be an open that failed. */
START_TEST(test_thread_gone)
{
	struct perf_event_attr attr = dummy_attr();
	struct attach a;
	pid_t child = fork();
	int status;

	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	attach_init(&a, &attr, 1);
	ck_assert_int_eq(attach_cpus(&a, "0"), 0);
	ck_assert_int_eq(attach_thread(&a, child), -ESRCH);
	ck_assert_int_eq(a.failed, ATTACH_OPEN);
	ck_assert_uint_eq(a.nfds, 0);
	attach_release(&a);
}
END_TEST

/* Whether this process may open perf events on its own threads. */
static bool perf_permitted(void)
{
	struct perf_event_attr attr = dummy_attr();
	int fd = event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * The tracking rings' fill: this thread renamed 64 times (a COMM record
 * each, some 40 bytes) into a one-page tracking ring is past a quarter of
 * it; drained, none.
 */
START_TEST(test_tracking_fill)
{
	struct perf_event_attr attr = dummy_attr(), track = dummy_attr();
	struct attach a;
	char name[16];
	unsigned fill;
	cpu_set_t was, one;

	track.comm = 1;
	track.watermark = 1;
	track.wakeup_watermark = 1;
	attach_init(&a, &attr, 1);
	attach_add_tracking(&a, &track, 1);
	ck_assert_int_eq(attach_cpus(&a, NULL), 0);
	ck_assert_int_eq(attach_thread(&a, (pid_t)syscall(SYS_gettid)), 0);
	ck_assert_uint_eq(attach_tracking_fill(&a), 0);
	/* On one CPU, so that one ring has every record. */
	ck_assert_int_eq(sched_getaffinity(0, sizeof(was), &was), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ck_assert_int_eq(attach_enable(&a), 0);
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "fill-%d", i);
		ck_assert_int_eq(prctl(PR_SET_NAME, name), 0);
	}
	ck_assert_int_eq(attach_disable(&a), 0);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(was), &was), 0);
	fill = attach_tracking_fill(&a);
	ck_assert_msg(fill >= 25 && fill <= 100, "fill %u%%", fill);
	count_records = 0;
	ck_assert_uint_eq(attach_drain(&a, count_record, NULL), 0);
	ck_assert_uint_ge(count_records, 64);
	ck_assert_uint_eq(attach_tracking_fill(&a), 0);
	attach_release(&a);
}
END_TEST

static Suite *attach_suite(void)
{
	Suite *s = suite_create("attach");
	TCase *tc = tcase_create("cpus");

	tcase_add_test(tc, test_cpus);
	tcase_add_test(tc, test_process_gone);
	suite_add_tcase(s, tc);
	if (perf_permitted()) {
		tc = tcase_create("events");
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, test_process_threads);
		tcase_add_test(tc, test_second_event);
		tcase_add_test(tc, test_thread_gone);
		tcase_add_test(tc, test_tracking_fill);
		suite_add_tcase(s, tc);
	} else {
		fputs("check_attach: perf events not permitted here: only the CPU tests run\n",
		      stderr);
	}
	return s;
}

int main(void)
{
	return unit_run(attach_suite());
}
