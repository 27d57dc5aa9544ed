/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.c - perf event names, attrs and perf_event_open; see event.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture/event.h"
#include "util/array.h"
#include "util/io.h"

static const struct event_desc events[] = {
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

const struct event_desc *event_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (strcmp(events[i].name, name) == 0)
			return &events[i];
	return NULL;
}

const struct event_desc *event_list(size_t *n)
{
	*n = ARRAY_SIZE(events);
	return events;
}

/*
 * Whether the kernel counts the samples an event lost (PERF_FORMAT_LOST,
 * Linux 6.0): an older one refuses the bit, and the open would fail for
 * it.
 */
bool event_has_format_lost(void)
{
	static int has = -1;
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (has < 0)
		has = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
		      major >= 6;
	return has;
}

void event_attr(struct perf_event_attr *attr, const struct event_opts *o)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = o->ev->type;
	attr->config = o->ev->config;
	if (o->period) {
		attr->sample_period = o->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD;
	if (o->callchain)
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->dwarf_stack) {
		/*
		 * The kernel's chain for kernel frames (hybrid: and for the user
		 * frames beyond the copy), registers and stack for the rest.
		 */
		attr->sample_type |=
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->exclude_callchain_user = !o->hybrid;
		attr->sample_regs_user = o->dwarf_regs;
		attr->sample_stack_user = o->dwarf_stack;
	}
	attr->exclude_kernel = o->no_kernel;
	attr->exclude_user = o->no_user;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	attr->inherit = o->inherit;
	attr->disabled = o->enable_on_exec || o->disabled;
	attr->enable_on_exec = o->enable_on_exec;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* How many samples the kernel dropped, read at the stop (attach_lost). */
	if (event_has_format_lost())
		attr->read_format = PERF_FORMAT_LOST;
	if (o->wakeup_bytes) {
		attr->watermark = 1;
		attr->wakeup_watermark = o->wakeup_bytes;
	} else {
		attr->wakeup_events = 1;
	}
}

int event_open(const struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int cpulist_parse(const char *s, bool *cpus, int max)
{
	int n = 0;

	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		char *end;
		long a, b;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtol(s, &end, 10);
		}
		if (b < a || b >= max)
			return -EINVAL;
		for (long c = a; c <= b; c++) {
			if (!cpus[c])
				n++;
			cpus[c] = true;
		}
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -EINVAL;
	}
	return n;
}

int tracepoint_parse_field(const char *format, const char *field, unsigned *offset, unsigned *size)
{
	size_t n = strlen(field);

	/* "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;" */
	for (const char *l = format; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *decl = strstr(l, "field:"), *semi, *name, *end = strchr(l, '\n');
		unsigned long off, sz;
		char *after;

		if (!decl || (end && decl > end) || !(semi = strchr(decl, ';')) ||
		    (end && semi > end))
			continue;
		/* The name: the last word before ';', an array's "[...]" left out. */
		name = semi;
		if (name > decl && name[-1] == ']')
			while (name > decl && *name != '[')
				name--;
		if ((size_t)(name - decl) < n || memcmp(name - n, field, n) ||
		    (name[-(long)n - 1] != ' ' && name[-(long)n - 1] != '*'))
			continue;
		if (!(decl = strstr(semi, "offset:")) || (end && decl > end))
			return -ENOENT;
		off = strtoul(decl + 7, &after, 10);
		if (after == decl + 7 || !(decl = strstr(after, "size:")) || (end && decl > end))
			return -ENOENT;
		sz = strtoul(decl + 5, &after, 10);
		if (after == decl + 5 || off > 65535 || sz == 0 || sz > 65535)
			return -ENOENT;
		*offset = (unsigned)off;
		*size = (unsigned)sz;
		return 0;
	}
	return -ENOENT;
}

/* The text of tracefs file events/TRACEPOINT/NAME into buf; 0 or -errno. */
static int tracefs_read(const char *tracepoint, const char *name, char *buf, size_t size)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	int err = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		char path[256];
		ssize_t got;

		snprintf(path, sizeof(path), "%s/events/%s/%s", roots[i], tracepoint, name);
		got = read_small(path, buf, size);
		if (got == -EACCES || got == -EPERM)
			err = -EACCES;
		if (got > 0)
			return 0;
	}
	return err;
}

/* Whether tracefs is mounted at either place tracefs_read looks. */
static bool tracefs_mounted(void)
{
	struct stat st;

	return stat("/sys/kernel/tracing/events", &st) == 0 ||
	       stat("/sys/kernel/debug/tracing/events", &st) == 0;
}

/*
 * Mounts tracefs at /sys/kernel/tracing, as perf does, where nothing
 * mounted it (a machine or container without systemd) and this process
 * may; whether it is there now.
 */
static bool tracefs_mount(void)
{
	struct stat st;

	if (stat("/sys/kernel/tracing", &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	return mount("nodev", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		     NULL) == 0 &&
	       stat("/sys/kernel/tracing/events", &st) == 0;
}

int tracepoint_id(const char *tracepoint, uint64_t *id)
{
	char buf[64], *end;
	int ret;

	ret = tracefs_read(tracepoint, "id", buf, sizeof(buf));
	if (ret == -ENOENT && !tracefs_mounted()) {
		if (!tracefs_mount())
			return -ENODEV;
		ret = tracefs_read(tracepoint, "id", buf, sizeof(buf));
	}
	if (ret < 0)
		return ret;
	*id = strtoull(buf, &end, 10);
	return end == buf ? -ENOENT : 0;
}

int tracepoint_field(const char *tracepoint, const char *field, uint64_t *id, unsigned *offset,
		     unsigned *size)
{
	char buf[4096];
	int ret;

	if ((ret = tracepoint_id(tracepoint, id)) < 0)
		return ret;
	if ((ret = tracefs_read(tracepoint, "format", buf, sizeof(buf))) < 0)
		return ret;
	return tracepoint_parse_field(buf, field, offset, size);
}

size_t tracepoint_id_filter(const char *field, const uint32_t *ids, size_t n, char *buf, size_t cap)
{
	size_t len = 0;

	if (cap > TP_FILTER_MAX)
		cap = TP_FILTER_MAX;
	for (size_t i = 0, j; i < n; i = j) {
		int w;

		for (j = i + 1; j < n && ids[j] == ids[j - 1] + 1; j++)
			;
		if (j - i == 1)
			w = snprintf(buf + len, cap - len, "%s%s == %u", len ? " || " : "", field,
				     ids[i]);
		else
			w = snprintf(buf + len, cap - len, "%s(%s >= %u && %s <= %u)",
				     len ? " || " : "", field, ids[i], field, ids[j - 1]);
		if (w < 0 || (size_t)w >= cap - len)
			return 0;
		len += (size_t)w;
	}
	return len;
}

/* MODS of ":MODS": u and k; -EINVAL for any other letter or none. */
static int parse_mods(const char *s, unsigned *mods)
{
	*mods = 0;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s == 'u')
			*mods |= EVENT_MOD_USER;
		else if (*s == 'k')
			*mods |= EVENT_MOD_KERNEL;
		else
			return -EINVAL;
	}
	/* Both: everywhere, as without. */
	if (*mods == (EVENT_MOD_USER | EVENT_MOD_KERNEL))
		*mods = 0;
	return 0;
}

/* Whether s (len bytes) is a tracefs name: letters, digits and '_' (and none of "/.."). */
static bool tracefs_name(const char *s, size_t len)
{
	if (len == 0 || len > 96)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

int event_parse(const char *spec, struct event_desc *desc, unsigned *mods)
{
	size_t first = strcspn(spec, ":"), second;
	const struct event_desc *known;
	char name[256];
	uint64_t id;
	int ret;

	*mods = 0;
	if (first >= sizeof(name))
		return -EINVAL;
	memcpy(name, spec, first);
	name[first] = '\0';
	if ((known = event_find(name))) {
		*desc = *known;
		desc->name = spec;
		return spec[first] ? parse_mods(spec + first + 1, mods) : 0;
	}
	if (!spec[first])
		return -ENOENT;
	/* SYSTEM:NAME[:MODS], read from tracefs as SYSTEM/NAME. */
	second = strcspn(spec + first + 1, ":");
	if (!tracefs_name(spec, first) || !tracefs_name(spec + first + 1, second))
		return -EINVAL;
	if (spec[first + 1 + second] && parse_mods(spec + first + 2 + second, mods) < 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "%.*s/%.*s", (int)first, spec, (int)second, spec + first + 1);
	if ((ret = tracepoint_id(name, &id)) < 0)
		return ret;
	*desc = (struct event_desc){spec, PERF_TYPE_TRACEPOINT, id};
	return 0;
}

int event_max_frequency(uint64_t *hz)
{
	char buf[32], *end;
	ssize_t got;
	int fd = open("/proc/sys/kernel/perf_event_max_sample_rate", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -EIO;
	buf[got] = '\0';
	*hz = strtoull(buf, &end, 10);
	return end == buf || *hz == 0 ? -EIO : 0;
}
