/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attach.c - opening a recording's events and mapping their rings; see
 * attach.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/attach.h"
#include "capture/event.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/parse.h"
#include "util/process.h"

void attach_init(struct attach *a, const struct perf_event_attr *attr, unsigned pages)
{
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->page_size = (size_t)sysconf(_SC_PAGESIZE);
	a->pages = pages;
	a->failed_cpu = -1;
}

static int fail(struct attach *a, enum attach_failure what, int err);

void attach_add_second(struct attach *a, const struct perf_event_attr *attr2)
{
	a->attr2 = *attr2;
	a->has_attr2 = true;
	hmap_init(&a->ids2);
}

void attach_add_tracking(struct attach *a, const struct perf_event_attr *track, unsigned pages)
{
	a->track = *track;
	a->has_track = true;
	a->track_pages = pages;
}

void attach_add_wake(struct attach *a, const struct perf_event_attr *wake)
{
	a->wake = *wake;
	a->has_wake = true;
	a->wake_err = 0;
	hmap_init(&a->ids_wake);
}

bool attach_is_wake(const struct attach *a, uint64_t id)
{
	return a->ids_wake.count && hmap_find(&a->ids_wake, id) != NULL;
}

/*
 * Opens the wake-up event of tid on cpu into ring_fd; a refusal ends the
 * wake-up events (has_wake false, wake_err its -errno), never the attach.
 * Its id in *idp.
 */
static void open_wake(struct attach *a, pid_t tid, int cpu, int ring_fd, uint64_t *idp)
{
	uint64_t id;
	bool added;
	int fd = event_open(&a->wake, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) == 0 &&
	    ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) {
		xgrow(&a->fds, &a->fds_cap, a->nfds + 1, sizeof(*a->fds));
		a->fds[a->nfds++] = fd;
		hmap_insert(&a->ids_wake, id, &added);
		*idp = id;
		return;
	}
	a->wake_err = fd < 0 ? fd : -errno;
	a->has_wake = false;
	if (fd >= 0)
		close(fd);
}

void attach_open_wake_wide(struct attach *a)
{
	a->wakes = xcalloc(a->nrings ? a->nrings : 1, sizeof(*a->wakes));
	for (size_t i = 0; i < a->nrings && a->has_wake; i++)
		if (!a->rings[i].tracking) {
			open_wake(a, -1, a->rings[i].cpu, a->rings[i].fd, &a->wakes[i].id);
			if (a->has_wake)
				a->wakes[i].at = a->nfds - 1;
		}
}

/*
 * An event of attr on cpu, its samples through filter, into ring_fd, its
 * id into ids and *idp, enabled if the events are or attr's is opened
 * so: its fd, or -errno.
 */
static int open_filtered(struct attach *a, const struct perf_event_attr *attr, struct hmap *ids,
			 int cpu, int ring_fd, const char *filter, uint64_t *idp)
{
	struct perf_event_attr at = *attr;
	bool added;
	int fd, err;

	at.disabled = 1;
	fd = event_open(&at, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	if ((filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) ||
	    ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, idp) < 0 ||
	    ((a->enabled || !attr->disabled) && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	hmap_insert(ids, *idp, &added);
	return fd;
}

/*
 * How long the id of an event replaced stays known: its samples drained
 * before it was closed may wait in the time-ordering queue for a while.
 */
#define GONE_NS 10000000000ULL

/* The ids of events replaced GONE_NS before now forgotten; id (of ids) to be. */
static void forget_gone(struct attach *a, uint64_t now, struct hmap *ids, uint64_t id)
{
	size_t first = 0;

	while (first < a->ngone && a->gone[first].at + GONE_NS <= now) {
		hmap_remove(a->gone[first].ids, a->gone[first].id, NULL);
		first++;
	}
	if (first) {
		memmove(a->gone, a->gone + first, (a->ngone - first) * sizeof(*a->gone));
		a->ngone -= first;
	}
	if (!ids)
		return;
	xgrow(&a->gone, &a->gone_cap, a->ngone + 1, sizeof(*a->gone));
	a->gone[a->ngone++] = (struct attach_gone){ids, id, now};
}

/* Each CPU's event of attr (slots, by ring) opened again, its samples through filter. */
static int refilter(struct attach *a, const struct perf_event_attr *attr, struct hmap *ids,
		    struct attach_wide *slots, const char *filter, uint64_t now)
{
	forget_gone(a, now, NULL, 0);
	for (size_t i = 0; i < a->nrings; i++) {
		struct attach_wide *w = &slots[i];
		uint64_t id;
		int fd;

		if (a->rings[i].tracking)
			continue;
		fd = open_filtered(a, attr, ids, a->rings[i].cpu, a->rings[i].fd, filter, &id);
		if (fd < 0)
			return fd;
		close(a->fds[w->at]);
		a->fds[w->at] = fd;
		forget_gone(a, now, ids, w->id);
		w->id = id;
	}
	return 0;
}

int attach_filter_wake(struct attach *a, const char *filter, uint64_t now)
{
	if (!a->wake_wide || !a->has_wake || !a->wakes)
		return -ENOENT;
	return refilter(a, &a->wake, &a->ids_wake, a->wakes, filter, now);
}

int attach_filter_switch(struct attach *a, const char *filter, uint64_t now)
{
	if (!a->has_switch_wide || !a->switches)
		return -ENOENT;
	return refilter(a, &a->switch_wide, &a->ids_switch, a->switches, filter, now);
}

bool attach_is_switch(const struct attach *a, uint64_t id)
{
	return a->ids_switch.count && hmap_find(&a->ids_switch, id) != NULL;
}

void attach_open_switch_wide(struct attach *a, const struct perf_event_attr *sw)
{
	a->switch_wide = *sw;
	a->has_switch_wide = true;
	hmap_init(&a->ids_switch);
	a->switches = xcalloc(a->nrings ? a->nrings : 1, sizeof(*a->switches));
	for (size_t i = 0; i < a->nrings; i++) {
		uint64_t id;
		int fd;

		if (a->rings[i].tracking)
			continue;
		fd = open_filtered(a, &a->switch_wide, &a->ids_switch, a->rings[i].cpu,
				   a->rings[i].fd, NULL, &id);
		if (fd < 0) {
			a->has_switch_wide = false;
			return;
		}
		xgrow(&a->fds, &a->fds_cap, a->nfds + 1, sizeof(*a->fds));
		a->switches[i] = (struct attach_wide){a->nfds, id};
		a->fds[a->nfds++] = fd;
	}
}

bool attach_is_second(const struct attach *a, uint64_t id)
{
	/* Inherited events' samples carry their parent's id. */
	return hmap_find(&a->ids2, id) != NULL;
}

/* Opens the second event of tid on cpu into ring_fd; 0 or -errno. */
static int open_second(struct attach *a, pid_t tid, int cpu, int ring_fd)
{
	uint64_t id;
	bool added;
	int fd = event_open(&a->attr2, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return fail(a, ATTACH_OPEN, fd);
	xgrow(&a->fds, &a->fds_cap, a->nfds + 1, sizeof(*a->fds));
	a->fds[a->nfds++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
		a->failed_cpu = cpu;
		return fail(a, ATTACH_REDIRECT, -errno);
	}
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return fail(a, ATTACH_OPEN, -errno);
	hmap_insert(&a->ids2, id, &added);
	return 0;
}

void attach_release(struct attach *a)
{
	for (size_t i = 0; i < a->nrings; i++) {
		ring_release(&a->rings[i].ring);
		munmap(a->rings[i].base, a->rings[i].maplen);
	}
	for (size_t i = 0; i < a->nfds; i++)
		close(a->fds[i]);
	free(a->fds);
	free(a->rings);
	free(a->wakes);
	free(a->switches);
	free(a->gone);
	a->gone = NULL;
	a->ngone = a->gone_cap = 0;
	hmap_release(&a->ids_switch);
	a->wakes = NULL;
	a->switches = NULL;
	hmap_release(&a->ids2);
	hmap_release(&a->ids_wake);
	a->fds = NULL;
	a->rings = NULL;
	a->nfds = a->nrings = 0;
}

static int fail(struct attach *a, enum attach_failure what, int err)
{
	a->failed = what;
	return err;
}

int attach_cpus(struct attach *a, const char *cpulist)
{
	static bool want[ATTACH_MAX_CPUS];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];

	if (!f)
		return fail(a, ATTACH_CPUS, -EIO);
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return fail(a, ATTACH_CPUS, -EIO);
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	memset(a->cpus, 0, sizeof(a->cpus));
	if (cpulist_parse(buf, a->cpus, ATTACH_MAX_CPUS) <= 0)
		return fail(a, ATTACH_CPUS, -EIO);
	if (!cpulist)
		return 0;
	memset(want, 0, sizeof(want));
	if (cpulist_parse(cpulist, want, ATTACH_MAX_CPUS) <= 0)
		return fail(a, ATTACH_CPUS, -EINVAL);
	for (int c = 0; c < ATTACH_MAX_CPUS; c++) {
		if (want[c] && !a->cpus[c]) {
			a->failed_cpu = c;
			return fail(a, ATTACH_CPUS, -ENODEV);
		}
		a->cpus[c] = want[c];
	}
	return 0;
}

static struct attach_ring *ring_of_cpu(struct attach *a, int cpu, bool tracking)
{
	for (size_t i = 0; i < a->nrings; i++)
		if (a->rings[i].cpu == cpu && a->rings[i].tracking == tracking)
			return &a->rings[i];
	return NULL;
}

/*
 * Maps the ring of r->fd, of *pages data pages, halving them while the
 * locked-memory limit refuses (*pages then says how many).
 */
static int map_ring(struct attach *a, struct attach_ring *r, unsigned *pages)
{
	for (unsigned n = *pages;; n /= 2) {
		size_t len = (n + 1) * a->page_size;
		void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

		if (base != MAP_FAILED) {
			r->base = base;
			r->maplen = len;
			if (n != *pages && !r->tracking)
				a->pages_reduced = true;
			*pages = n;
			return ring_init(&r->ring, base, a->page_size, n * a->page_size);
		}
		if ((errno != EPERM && errno != ENOMEM) || n <= 1)
			return -errno;
	}
}

/*
 * Opens the event attr of tid on cpu into the CPU's ring of its kind,
 * mapping the ring if it is the first; *ring_fd gets the ring's event.
 * 0 or -errno.
 */
static int open_into_ring(struct attach *a, const struct perf_event_attr *attr, pid_t tid, int cpu,
			  bool tracking, int *ring_fd)
{
	struct attach_ring *r;
	int fd, ret;

	fd = event_open(attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fail(a, ATTACH_OPEN, fd);
	xgrow(&a->fds, &a->fds_cap, a->nfds + 1, sizeof(*a->fds));
	a->fds[a->nfds++] = fd;
	r = ring_of_cpu(a, cpu, tracking);
	if (r) {
		*ring_fd = r->fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			a->failed_cpu = cpu;
			return fail(a, ATTACH_REDIRECT, -errno);
		}
		return 0;
	}
	a->rings = xrealloc(a->rings, (a->nrings + 1) * sizeof(*a->rings));
	r = &a->rings[a->nrings];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->fd = fd;
	r->tracking = tracking;
	ret = map_ring(a, r, tracking ? &a->track_pages : &a->pages);
	if (ret < 0) {
		a->failed_cpu = cpu;
		return fail(a, ATTACH_MMAP, ret);
	}
	a->nrings++;
	*ring_fd = fd;
	return 0;
}

int attach_thread(struct attach *a, pid_t tid)
{
	for (int cpu = 0; cpu < ATTACH_MAX_CPUS; cpu++) {
		int ring_fd, track_fd, ret;
		uint64_t id;

		if (!a->cpus[cpu])
			continue;
		ret = open_into_ring(a, &a->attr, tid, cpu, false, &ring_fd);
		if (ret == 0 && a->has_attr2)
			ret = open_second(a, tid, cpu, ring_fd);
		if (ret == 0 && a->has_wake && !a->wake_wide)
			open_wake(a, tid, cpu, ring_fd, &id);
		if (ret == 0 && a->has_track)
			ret = open_into_ring(a, &a->track, tid, cpu, true, &track_fd);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int attach_process(struct attach *a, uint32_t pid)
{
	struct hmap done; /* tid + 1 of the threads opened */
	char path[64];
	bool found_new = true;
	int ret = 0;

	if (!process_alive(pid))
		return fail(a, ATTACH_OPEN, -ESRCH);
	hmap_init(&done);
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	while (found_new && ret == 0) {
		DIR *d = opendir(path);
		struct dirent *de;

		if (!d)
			break; /* gone: done, or -ESRCH below */
		found_new = false;
		while ((de = readdir(d))) {
			uint64_t tid;
			bool added;

			if (parse_u64(de->d_name, &tid) || tid == 0 || tid > UINT32_MAX)
				continue;
			if (hmap_find(&done, tid))
				continue;
			ret = attach_thread(a, (pid_t)tid);
			if (ret == -ESRCH) {
				ret = 0; /* the thread exited meanwhile */
				continue;
			}
			if (ret < 0)
				break;
			hmap_insert(&done, tid, &added);
			found_new = true;
		}
		closedir(d);
	}
	if (ret == 0 && !done.count)
		ret = fail(a, ATTACH_OPEN, -ESRCH);
	hmap_release(&done);
	return ret;
}

static int ioctl_all(struct attach *a, unsigned long req)
{
	int ret = 0;

	for (size_t i = 0; i < a->nfds; i++)
		if (ioctl(a->fds[i], req, 0) < 0 && ret == 0)
			ret = -errno;
	return ret;
}

int attach_enable(struct attach *a)
{
	a->enabled = true;
	return ioctl_all(a, PERF_EVENT_IOC_ENABLE);
}

int attach_disable(struct attach *a)
{
	a->enabled = false;
	return ioctl_all(a, PERF_EVENT_IOC_DISABLE);
}

size_t attach_drain(struct attach *a, ring_record_fn fn, void *arg)
{
	size_t bad = 0;

	for (size_t i = 0; i < a->nrings; i++) {
		a->draining_tracking = a->rings[i].tracking;
		if (ring_drain(&a->rings[i].ring, fn, arg) == -EBADMSG)
			bad++;
	}
	a->draining_tracking = false;
	return bad;
}

uint64_t attach_lost(const struct attach *a)
{
	uint64_t sum = 0, v[2];

	for (size_t i = 0; i < a->nfds; i++)
		if (read(a->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v[1];
	return sum;
}

unsigned attach_tracking_fill(const struct attach *a)
{
	unsigned most = 0;

	for (size_t i = 0; i < a->nrings; i++) {
		const struct ring *r = &a->rings[i].ring;
		uint64_t head, pending;

		if (!a->rings[i].tracking || !r->size)
			continue;
		head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
		pending = head - r->meta->data_tail;
		if (pending * 100 / r->size > most)
			most = (unsigned)(pending * 100 / r->size);
	}
	return most;
}
