/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_ration.c - the CPU ration, on a clock the tests drive: a thread
 * that uses less than its share never waits, one that uses all it can is
 * held to its share and its burst, whatever the time saved up; a free
 * machine lets it run and forgives its debt; CPU time charged from
 * elsewhere; clocks that go back, jump far ahead or are unknown; the wait
 * it asks for; reading /proc/stat's idle time.
 */
#include "config.h"

#include <stdint.h>

#include "unit-helpers.h"
#include "util/clock.h"
#include "util/ration.h"

#define MS 1000000ULL
#define S  1000000000ULL

/* The naming thread's numbers (namer.c). */
static const struct ration_params params = {
	.share_permille = 5,
	.burst_ns = 20 * (int64_t)MS,
	.look_ns = 100 * MS,
	.charge_ns = 1 * MS,
	.wait_look_ns = 1 * S,
};

/* The time the tests drive. */
struct fake {
	uint64_t now, cpu, idle;
	unsigned idle_reads;
};

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static uint64_t fake_cpu(void *ctx)
{
	return ((struct fake *)ctx)->cpu;
}

static uint64_t fake_idle(void *ctx)
{
	struct fake *f = ctx;

	f->idle_reads++;
	return f->idle;
}

/* A ration on f, which starts at a time and an idle time other than 0. */
static struct ration *fake_ration(struct fake *f)
{
	struct ration_clock c = {fake_now, fake_cpu, fake_idle, f};

	*f = (struct fake){.now = 100000 * S, .idle = 50 * S};
	return ration_new(&params, &c);
}

/*
 * ns pass, of which the thread runs for cpu; the machine's CPUs are idle
 * for idle_permille of ns, all together (2000: two idle CPUs).
 */
static void pass(struct fake *f, uint64_t ns, uint64_t cpu, uint64_t idle_permille)
{
	f->now += ns;
	f->cpu += cpu;
	f->idle += ns / 1000 * idle_permille;
}

/*
 * Like the naming thread: runs jobs of job_ns while the ration allows,
 * waits as long as it says (in steps of at most 100 ms, as the namer
 * polls) otherwise, for total ns; the machine's idle time grows at
 * idle_permille. Returns the CPU time the thread used.
 */
static uint64_t run_greedy(struct ration *r, struct fake *f, uint64_t total, uint64_t job_ns,
			   uint64_t idle_permille)
{
	uint64_t end = f->now + total, used = 0;

	while (f->now < end) {
		uint64_t wait = ration_wait_ns(r);

		if (!wait) {
			pass(f, job_ns, job_ns, idle_permille);
			used += job_ns;
		} else {
			pass(f, wait < 100 * MS ? wait : 100 * MS, 0, idle_permille);
		}
	}
	return used;
}

/* 0.4% of a CPU, on a busy machine: never a wait. */
START_TEST(test_light_never_waits)
{
	struct fake f;
	struct ration *r = fake_ration(&f);

	for (int i = 0; i < 100000; i++) {
		pass(&f, 10 * MS, 40000, 0);
		ck_assert_uint_eq(ration_wait_ns(r), 0);
	}
	ck_assert(!ration_machine_free(r));
	ration_free(r);
}
END_TEST

/*
 * A thread that would use all the CPU it can, on a busy machine, for 100
 * s: it gets its share, 0.5 s, and its burst, 20 ms, and no more than a
 * job beyond (a job is not cut short), nor much less.
 */
START_TEST(test_greedy_held_to_share)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t used = run_greedy(r, &f, 100 * S, 2 * MS, 0);

	ck_assert_uint_le(used, 500 * MS + 20 * MS + 2 * MS);
	ck_assert_uint_ge(used, 500 * MS + 20 * MS - 10 * MS);
	ration_free(r);
}
END_TEST

/*
 * After an hour without running, the thread may use its burst at once,
 * and no more: an hour saved up is 20 ms, not 18 s.
 */
START_TEST(test_burst_cap)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t used = 0;

	ck_assert_uint_eq(ration_wait_ns(r), 0);
	pass(&f, 3600 * S, 0, 0);
	while (!ration_wait_ns(r)) {
		pass(&f, MS, MS, 0);
		used += MS;
		ck_assert_uint_lt(used, S);
	}
	/* 20 ms and what trickled in meanwhile (5 us a job), the last job overdrawing */
	ck_assert_uint_ge(used, 20 * MS);
	ck_assert_uint_le(used, 22 * MS);
	ration_free(r);
}
END_TEST

/*
 * On a machine with a CPU and more idle, once the first look has seen it
 * (the verdict before any look is busy), all the CPU the thread wants.
 * The machine is looked at no more than every look_ns.
 */
START_TEST(test_free_machine)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	unsigned reads;

	pass(&f, 150 * MS, 0, 1500);
	reads = f.idle_reads;
	for (int i = 0; i < 10000; i++) {
		pass(&f, MS, MS, 1500);
		ck_assert_uint_eq(ration_wait_ns(r), 0);
		ck_assert(ration_machine_free(r));
	}
	/* 10 s, one look every 100 ms */
	ck_assert_uint_le(f.idle_reads - reads, 101);
	ck_assert_uint_ge(f.idle_reads - reads, 99);
	ration_free(r);
}
END_TEST

/* Exactly half a CPU idle is free; a little less is busy (and the thread charged). */
START_TEST(test_half_idle_threshold)
{
	struct fake f;
	struct ration *r = fake_ration(&f);

	pass(&f, 100 * MS, MS, 500);
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ck_assert(ration_machine_free(r));
	pass(&f, 100 * MS, MS, 499);
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ck_assert(!ration_machine_free(r));
	ration_free(r);
}
END_TEST

/*
 * A thread deep in debt (a second of CPU on a busy machine: 200 s to wait)
 * runs again within wait_look_ns and a poll once the machine is free.
 */
START_TEST(test_debt_forgiven_when_free)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t wait, waited = 0;

	pass(&f, S, S, 0);
	wait = ration_wait_ns(r);
	ck_assert_uint_gt(wait, 190 * S);
	ck_assert_uint_lt(wait, 200 * S);
	/* Still busy: no forgiveness, only the slow refill. */
	for (int i = 0; i < 30; i++) {
		pass(&f, 100 * MS, 0, 100);
		ck_assert_uint_gt(ration_wait_ns(r), 0);
	}
	while ((wait = ration_wait_ns(r))) {
		pass(&f, 100 * MS, 0, 1000);
		waited += 100 * MS;
		ck_assert_uint_le(waited, S + 100 * MS);
	}
	ck_assert(ration_machine_free(r));
	ration_free(r);
}
END_TEST

/*
 * The wait asked for is what the share takes to pay the debt: after half
 * of it the thread still waits, about half as long; after all of it (and
 * a rounding), it runs.
 */
START_TEST(test_wait_length)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t wait, half;

	pass(&f, 0, 30 * MS, 0); /* 20 ms of burst: 10 ms of debt, 2 s at 0.5% */
	wait = ration_wait_ns(r);
	ck_assert_uint_eq(wait, 2 * S);
	pass(&f, S, 0, 0);
	half = ration_wait_ns(r);
	ck_assert_uint_eq(half, S);
	pass(&f, S, 0, 0);
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ration_free(r);
}
END_TEST

/* CPU time used elsewhere for the thread is charged on a busy machine, not on a free one. */
START_TEST(test_charge)
{
	struct fake f;
	struct ration *r = fake_ration(&f);

	ration_charge(r, 25 * MS); /* 5 ms over the burst: 1 s */
	ck_assert_uint_eq(ration_wait_ns(r), S);
	pass(&f, S, 0, 2000);
	ck_assert_uint_eq(ration_wait_ns(r), 0);

	pass(&f, 100 * MS, MS, 2000); /* charged after a look: free */
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ck_assert(ration_machine_free(r));
	ration_charge(r, 25 * MS);
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ration_free(r);
}
END_TEST

/*
 * The clock going back is time standing still: the debt is not paid by
 * it (the wait stays), nor the bucket filled; once time goes on from
 * there, the refill goes on. The CPU clock going back charges nothing
 * and refunds nothing.
 */
START_TEST(test_clock_backwards)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t wait;

	pass(&f, 0, 30 * MS, 0);
	wait = ration_wait_ns(r);
	ck_assert_uint_eq(wait, 2 * S);
	f.now -= 3600 * S;
	ck_assert_uint_eq(ration_wait_ns(r), 2 * S);
	pass(&f, S, 0, 0);
	ck_assert_uint_eq(ration_wait_ns(r), S);
	f.cpu -= 20 * MS;
	ck_assert_uint_eq(ration_wait_ns(r), S);
	ck_assert(!ration_machine_free(r));
	/* From the new reading on, CPU time is charged again. */
	pass(&f, 0, 2 * MS, 0);
	ck_assert_uint_eq(ration_wait_ns(r), S + 400 * MS);
	ration_free(r);
}
END_TEST

/*
 * Clocks jumping far ahead: a jump of the time fills the bucket to its
 * cap, no more (no overflow into a debt); a jump of the CPU time makes a
 * debt, bounded, that a free machine forgives.
 */
START_TEST(test_clock_jumps)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t used = 0;

	f.now = UINT64_MAX - S;
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	while (!ration_wait_ns(r)) {
		pass(&f, MS, MS, 0);
		used += MS;
		ck_assert_uint_lt(used, S);
	}
	ck_assert_uint_le(used, 22 * MS);

	ration_free(r);
	r = fake_ration(&f);
	f.cpu = UINT64_MAX - S;
	ck_assert_uint_gt(ration_wait_ns(r), 1000000 * S); /* some 30,000 years */
	for (int i = 0; ration_wait_ns(r); i++) {
		ck_assert_int_lt(i, 20); /* a look within wait_look_ns: free */
		pass(&f, 100 * MS, 0, 2000);
	}
	ration_free(r);
}
END_TEST

/* A thread whose CPU time is unknown (0) is never charged, never held back. */
START_TEST(test_cpu_unknown)
{
	struct fake f;
	struct ration *r = fake_ration(&f);

	for (int i = 0; i < 1000; i++) {
		pass(&f, MS, 0, 0);
		ck_assert_uint_eq(ration_wait_ns(r), 0);
	}
	ration_free(r);
}
END_TEST

/* A machine whose idle time is unknown (0) is busy: the ration holds. */
START_TEST(test_idle_unknown)
{
	struct fake f;
	struct ration *r = fake_ration(&f);
	uint64_t used;

	f.idle = 0;
	used = run_greedy(r, &f, 10 * S, MS, 0);
	ck_assert_uint_le(used, 50 * MS + 20 * MS + MS);
	ck_assert(!ration_machine_free(r));
	ration_free(r);
}
END_TEST

/*
 * The system's clocks: with an hour of burst, a thread that has not used
 * an hour of CPU runs; with none, a thread that has used some waits (the
 * machine never looked at: the verdict before any look is busy).
 */
START_TEST(test_system_clock)
{
	struct ration_params hour = params, none = params;
	volatile uint64_t spin = 0;
	struct ration *r;

	hour.burst_ns = 3600 * (int64_t)S;
	r = ration_new(&hour, NULL);
	ck_assert_uint_eq(ration_wait_ns(r), 0);
	ration_free(r);

	none.burst_ns = 0;
	none.look_ns = none.wait_look_ns = UINT64_MAX;
	r = ration_new(&none, NULL);
	while (thread_cpu_ns() < 2 * MS)
		spin++;
	ck_assert_uint_gt(ration_wait_ns(r), 0);
	ration_free(r);
	ration_free(NULL);
}
END_TEST

START_TEST(test_stat_idle)
{
	ck_assert_uint_eq(
		ration_stat_idle_ns("cpu  10 20 30 400 50 6 7 0 0 0\ncpu0 1 2 3 4 5\n", 100),
		(400 + 50) * 10 * MS);
	ck_assert_uint_eq(ration_stat_idle_ns("cpu 1 2 3 4 5", 1000), 9 * MS);
	ck_assert_uint_eq(ration_stat_idle_ns("cpu 1 2 3 4", 100), 0);
	ck_assert_uint_eq(ration_stat_idle_ns("", 100), 0);
	ck_assert_uint_eq(ration_stat_idle_ns("cpu 1 2 3 4 5", 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ration");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_light_never_waits);
	tcase_add_test(tc, test_greedy_held_to_share);
	tcase_add_test(tc, test_burst_cap);
	tcase_add_test(tc, test_free_machine);
	tcase_add_test(tc, test_half_idle_threshold);
	tcase_add_test(tc, test_debt_forgiven_when_free);
	tcase_add_test(tc, test_wait_length);
	tcase_add_test(tc, test_charge);
	tcase_add_test(tc, test_clock_backwards);
	tcase_add_test(tc, test_clock_jumps);
	tcase_add_test(tc, test_cpu_unknown);
	tcase_add_test(tc, test_idle_unknown);
	tcase_add_test(tc, test_system_clock);
	tcase_add_test(tc, test_stat_idle);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
