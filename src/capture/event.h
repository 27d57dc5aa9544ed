/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h - naming perf events, building their attr, and opening them.
 *
 * The attr is kept minimal: what the decoder and the process model need
 * (see DESIGN.md, events), timestamps on CLOCK_MONOTONIC so that records
 * from all CPUs and perfmini's own clock can be compared.
 */
#ifndef PERFMINI_EVENT_H
#define PERFMINI_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct event_desc {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* The event called name (cpu-clock, task-clock, cycles, ...), or NULL. */
const struct event_desc *event_find(const char *name);

/* What an event's modifiers (":u", ":k", as perf spells them) ask for. */
enum event_mods {
	EVENT_MOD_USER = 1 << 0,   /* u: only what happens in user code */
	EVENT_MOD_KERNEL = 1 << 1, /* k: only what happens in the kernel */
};

/*
 * The event spelled spec, as perf's -e takes it: a name of event_list's,
 * or a tracepoint "SYSTEM:NAME" of tracefs (its id read there, tracefs
 * mounted first as tracepoint_field does), either followed by ":MODS",
 * of u and k (both: no restriction). Fills *desc (its name is spec
 * itself) and *mods (enum event_mods). 0, or -EINVAL (not so spelled, or
 * another modifier), -ENOENT (no such event or tracepoint), -ENODEV (no
 * tracefs mounted) or -EACCES (tracefs not readable).
 */
int event_parse(const char *spec, struct event_desc *desc, unsigned *mods);
/* The kernel's highest sampling frequency (kernel.perf_event_max_sample_rate); 0 or -errno. */
int event_max_frequency(uint64_t *hz);
/* The known event names, NULL-terminated, for --help and errors. */
const struct event_desc *event_list(size_t *n);

struct event_opts {
	const struct event_desc *ev;
	uint64_t freq;	 /* samples per second, when period is 0 */
	uint64_t period; /* events per sample, or 0 */
	bool no_kernel;
	bool no_user; /* samples only where the event happens in the kernel (":k") */
	bool callchain;
	uint32_t dwarf_stack; /* DWARF and hybrid modes: bytes of user stack per sample, else 0 */
	uint64_t dwarf_regs;  /* DWARF and hybrid modes: the user registers to sample */
	bool hybrid;	      /* with dwarf_stack: the kernel's user callchain too */
	bool inherit;
	bool enable_on_exec;   /* starts disabled, enabled by the next exec */
	bool disabled;	       /* starts disabled, enabled by PERF_EVENT_IOC_ENABLE */
	uint32_t wakeup_bytes; /* wake the reader when this much is pending */
};

/* Fills attr from opts. */
void event_attr(struct perf_event_attr *attr, const struct event_opts *o);
/* Whether events count their lost samples (PERF_FORMAT_LOST): Linux 6.0 and later. */
bool event_has_format_lost(void);

/* perf_event_open(2): a descriptor or -errno. */
int event_open(const struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags);

/*
 * Parses a CPU list such as "0-3,6". Sets cpus[i] for each listed CPU
 * below max; returns the number of CPUs set, or -EINVAL.
 */
int cpulist_parse(const char *s, bool *cpus, int max);

/* The id of a tracepoint (system/name) in tracefs, mounted as tracepoint_field does; -errno. */
int tracepoint_id(const char *tracepoint, uint64_t *id);
/*
 * A tracepoint (system/name, as "sched/sched_wakeup") from tracefs
 * (/sys/kernel/tracing, else /sys/kernel/debug/tracing): its id, and the
 * offset and size of its field named field in a sample's raw data.
 * tracefs mounted at /sys/kernel/tracing first where it is not mounted
 * and this process may. 0, or -errno (-ENOENT: no such tracepoint or
 * field; -ENODEV: no tracefs mounted; -EACCES: tracefs not readable).
 */
int tracepoint_field(const char *tracepoint, const char *field, uint64_t *id, unsigned *offset,
		     unsigned *size);
/*
 * The same, from the text of a format file (tests): 0 or -ENOENT when it
 * has no field so named (or not well formed).
 */
int tracepoint_parse_field(const char *format, const char *field, unsigned *offset, unsigned *size);
/*
 * The longest filter this makes: the kernel takes less than a page, and
 * an event's filter can be set once (PERF_EVENT_IOC_SET_FILTER), so that
 * a new one means a new event.
 */
#define TP_FILTER_MAX 3072
/*
 * A tracepoint filter that passes the samples whose field is one of ids
 * (n of them, sorted and distinct), runs of consecutive ids as ranges:
 * "pid == 7 || (pid >= 10 && pid <= 12)". Into buf (cap bytes, at most
 * TP_FILTER_MAX used); its length, or 0 when it does not fit or n is 0.
 */
size_t tracepoint_id_filter(const char *field, const uint32_t *ids, size_t n, char *buf,
			    size_t cap);

#endif
