/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setup.c - a recording session made, started and let go: its output and
 * parts made first, then the command and the events, then the clock; see
 * session.h.
 */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/launch.h"
#include "elf/elfread.h"
#include "model/order.h"
#include "model/proc.h"
#include "session/session-int.h"
#include "stack/stack.h"
#include "stack/unwind.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/msg.h"

void session_on_sample(struct session *s, session_sample_fn fn, void *arg)
{
	s->on_sample = fn;
	s->on_sample_arg = arg;
}

const struct profile *session_profile(struct session *s)
{
	/* Frames refer to the modules met since the last flush: those too. */
	naming_add_modules(s);
	return s->out.prof;
}

/* Setting up and tearing down. */

/* The model's text finder: code moved to anonymous memory, through the file's segments. */
static int moved_text(void *arg, const struct module *mod, const struct maps_line *nb, uint64_t lo,
		      uint64_t hi, uint64_t *off)
{
	(void)arg;
	return elf_moved_text(mod->fd, nb->start, nb->end, nb->pgoff, nb->prot, lo, hi, off);
}

/* The stacker's hook for each new frame. */
static void on_new_frame(void *arg, struct module *m, uint32_t frame, uint64_t addr)
{
	struct session *s = arg;

	/* Its file is kept open from now on (and opened again if it was let go). */
	if (m->kind == MODULE_FILE)
		module_use(&s->mods, m);
	naming_new_frame(s, m, frame, addr);
}

/* A session of o whose output is made: NULL after saying why. */
static struct session *session_make(const struct record_opts *o, bool live)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->o = o;
	s->offline = !live;
	if (output_create(&s->out, o) < 0) {
		free(s);
		return NULL;
	}
	module_set_init(&s->mods);
	if (naming_init(&s->nm, &s->mods, o) < 0) {
		output_abandon(&s->out);
		output_release(&s->out);
		module_set_release(&s->mods);
		free(s);
		return NULL;
	}
	model_init(&s->model, &s->mods, live);
	model_set_text_finder(&s->model, moved_text, NULL);
	order_init(&s->q);
	if (o->ev.dwarf_stack)
		s->unwinder = unwinder_new(&s->model);
	stacker_init(&s->stk, &s->model, s->out.prof, s->unwinder, on_new_frame, s);
	unwind_stats_init(&s->unw_done);
	hmap_init(&s->pending);
	threads_init(&s->th);
	waits_init(&s->wt, o->off_cpu_min_ns, s);
	return s;
}

/*
 * Blocks of at least this many bytes are mapped for themselves and
 * unmapped when freed. glibc starts at the same size but raises it to the
 * size of each such block freed (up to 32 MiB), after which a slice's
 * tables and a library's symbols come from the heap, where a block freed
 * amid others stays resident: beside a clang loop, 10 minutes of slices
 * grew 10% that way, 3% with the size fixed, at the same CPU.
 */
#define MAPPED_BLOCK_BYTES (128 << 10)

struct session *session_new(const struct record_opts *o)
{
	/* A long recording's large blocks go back to the system as freed (above). */
	mallopt(M_MMAP_THRESHOLD, MAPPED_BLOCK_BYTES);
	return session_make(o, true);
}

struct session *session_new_offline(const struct record_opts *o, const struct decode_layout *layout)
{
	struct session *s = session_make(o, false);

	if (!s)
		return NULL;
	events_offline(&s->ev, layout);
	s->start_ns = 1;
	s->wall_start = time(NULL);
	output_slice_started(s);
	if (output_flush(s, true) < 0) {
		session_free(s);
		return NULL;
	}
	return s;
}

/* The events opened (the command started first, stopped before its exec); -1 once said. */
static int open_targets(struct session *s)
{
	const struct record_opts *o = s->o;
	int ret;

	if (o->argv)
		s->privileged = meta_privileged_command(o->argv);
	if (o->argv && (ret = launch_start(&s->child, o->argv, o->command_detached)) < 0) {
		error("cannot start '%s': %s", o->argv[0], strerror(-ret));
		return -1;
	}
	module_set_budget(&s->mods, events_raise_nofile());
	if (events_open(&s->ev, o, o->argv ? s->child.pid : 0) < 0) {
		if (o->argv)
			launch_abort(&s->child);
		return -1;
	}
	/* The cgroups made from now on come as records. */
	if (s->ev.cgroup_sampled)
		threads_cgroups_walk(&s->th);
	return 0;
}

/* Starts what is to be recorded: the command, the events; then the clock. */
int session_start(struct session *s)
{
	const struct record_opts *o = s->o;
	int ret;

	if (open_targets(s) < 0)
		return -1;
	/*
	 * A whole-system recording, which always has kernel frames, reads the
	 * kernel's symbols (/proc/kallsyms: some 50 ms of the kernel's time,
	 * the largest single read of a recording) before the sampling starts,
	 * not during it: the programs profiled do not compete with it, nor
	 * does it show in the profile, where the recorder samples itself; a
	 * live view's kernel frames have their names from its first refresh.
	 * (A command's recording leaves it to the naming thread: a short
	 * command may have no kernel frame to name.) The naming thread has no
	 * job yet to touch the symbolizer with.
	 */
	if ((o->system_wide || o->live_view) && !o->ev.no_kernel && !s->ev.kernel_dropped)
		naming_read_kernel(&s->nm, &s->mods);
	s->start_ns = now_ns();
	s->wall_start = time(NULL);
	/* Every event at once, after the start (a command's are enabled by its exec). */
	if ((!o->argv || o->system_wide) && (ret = events_enable(&s->ev)) < 0) {
		error("cannot enable the events: %s", strerror(-ret));
		return -1;
	}
	/* The targets' wake-ups and switches alone, from now. */
	events_filter_start(&s->ev, o, o->argv ? s->child.pid : 0, now_ns());
	/* Attached processes: their mappings from before the events saw any. */
	for (size_t i = 0; i < o->npids; i++)
		model_process(&s->model, o->pids[i]);
	if (o->argv && (ret = launch_release(&s->child)) < 0) {
		error("cannot run '%s': %s", o->argv[0], strerror(-ret));
		return -1;
	}
	output_slice_started(s);
	/* The file gets its name with its first sample. */
	return output_flush(s, true);
}

bool session_cut_short(const struct session *s)
{
	return s->nm.cut_why != NULL;
}

void session_stop_command(struct session *s)
{
	if (s->o->argv && !s->offline)
		launch_stop(&s->child);
}

/*
 * Frees a session (only where leaks are checked: the exit frees it all
 * else). Never one whose naming was cut short: the caller ends the
 * process instead, its naming thread perhaps still using what s holds.
 */
void session_free(struct session *s)
{
	if (!FREE_AT_EXIT || !s)
		return;
	naming_release(&s->nm);
	events_release(&s->ev);
	order_release(&s->q);
	hmap_release(&s->pending);
	waits_release(&s->wt);
	stacker_release(&s->stk);
	unwind_stats_release(&s->unw_done);
	unwinder_free(s->unwinder);
	model_release(&s->model);
	threads_release(&s->th);
	retire_release(&s->rt);
	module_set_release(&s->mods);
	output_release(&s->out);
	free(s->privileged);
	free(s);
}
