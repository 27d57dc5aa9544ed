/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-speedscope.c - speedscope's own JSON file format (its
 * file-format-schema.json): every frame named in "shared", then one
 * "sampled" profile per thread, "comm (pid/tid)", whose samples are the
 * thread's events in time order, each a list of frame indices outermost
 * first, weighed in nanoseconds (a CPU sample its period, an off-CPU span
 * its duration). speedscope shows them as Time Order, Left Heavy and
 * Sandwich views, offline.
 *
 * Invariant: every frame index in a sample is below the number of shared
 * frames, and each profile's endValue - startValue is the sum of its
 * weights. A frame is one inlined level of a recorded frame, named as in
 * the folded format; frames that name alike (with the same file and line)
 * share an index.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/timeline.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct speedscope {
	const struct profile *p;
	const struct report_opts *o;
	struct sbuf frames;	 /* the shared frames' JSON objects, comma-separated */
	size_t (*frame_span)[2]; /* shared frame -> its object in frames: offset, length */
	size_t nframes, frames_cap;
	struct hmap frame_index;   /* hash of the object -> shared frame */
	struct hmap level_index;   /* recorded frame << 32 | level -> shared frame */
	struct sbuf stacks;	   /* each stack's "[a,b,c]", made once */
	uint64_t (*stack_span)[2]; /* profile stack -> offset + 1 in stacks, length */
	struct sbuf b;
};

/* Shared frame val's JSON object in frames (speedscope ctx). */
static const char *frame_text(uint64_t val, const void *ctx, size_t *len)
{
	const struct speedscope *s = ctx;

	*len = s->frame_span[val][1];
	return s->frames.buf + s->frame_span[val][0];
}

/*
 * The shared frame of one level of recorded frame f: its name, and its
 * file and line when known (the line of the code with --lines, else the
 * function's first line).
 */
static uint32_t shared_frame(struct speedscope *s, uint32_t f, uint32_t level)
{
	const struct profile *p = s->p;
	const struct pm_line *l = report_level_line(p, f, level, &s->o->names);
	struct hmap_slot *slot, *cached;
	uint32_t line;
	bool added;

	cached = hmap_insert(&s->level_index, (uint64_t)f << 32 | level, &added);
	if (!added)
		return (uint32_t)cached->val;
	sbuf_reset(&s->b);
	sbuf_adds(&s->b, "{\"name\":");
	{
		struct sbuf name = SBUF_INIT;

		report_level_name(p, f, level, &s->o->names, &name);
		sbuf_add_json(&s->b, name.buf);
		sbuf_release(&name);
	}
	if (l && *strtab_get(&p->str, l->file)) {
		sbuf_adds(&s->b, ",\"file\":");
		sbuf_add_json(&s->b, strtab_get(&p->str, l->file));
	}
	line = l ? (s->o->names.lines ? l->line : l->start_line) : 0;
	if (line)
		sbuf_addf(&s->b, ",\"line\":%u", line);
	sbuf_adds(&s->b, "}");
	slot = hmap_intern_str(&s->frame_index, s->b.buf, s->b.len, frame_text, s, &added);
	if (added) {
		xgrow(&s->frame_span, &s->frames_cap, s->nframes + 1, sizeof(*s->frame_span));
		if (s->nframes)
			sbuf_adds(&s->frames, ",");
		s->frame_span[s->nframes][0] = s->frames.len;
		s->frame_span[s->nframes][1] = s->b.len;
		sbuf_addn(&s->frames, s->b.buf, s->b.len);
		slot->val = s->nframes++;
	}
	cached = hmap_find(&s->level_index, (uint64_t)f << 32 | level);
	cached->val = slot->val;
	return (uint32_t)slot->val;
}

/* The "[outermost,...,leaf]" of profile stack sid, in s->stacks. */
static void stack_text(struct speedscope *s, struct timeline *t, uint32_t sid, const char **text,
		       size_t *len)
{
	if (!s->stack_span[sid][0]) {
		const uint32_t *frames;
		uint32_t n = timeline_frames(t, s->p, s->o, sid, &frames);
		size_t at = s->stacks.len;
		bool first = true;

		sbuf_adds(&s->stacks, "[");
		for (uint32_t d = n; d-- > 0;) {
			uint32_t f = frames[d];
			uint32_t levels = report_frame_levels(s->p, f, &s->o->names);

			for (uint32_t k = 0; k < levels; k++) {
				sbuf_addf(&s->stacks, "%s%u", first ? "" : ",",
					  shared_frame(s, f, k));
				first = false;
			}
		}
		sbuf_adds(&s->stacks, "]");
		s->stack_span[sid][0] = at + 1;
		s->stack_span[sid][1] = s->stacks.len - at;
	}
	*text = s->stacks.buf + s->stack_span[sid][0] - 1;
	*len = s->stack_span[sid][1];
}

int fmt_speedscope(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	struct speedscope s = {
		.p = p, .o = o, .frames = SBUF_INIT, .stacks = SBUF_INIT, .b = SBUF_INIT};
	struct timeline *t = timeline_new(p, o);
	struct sbuf profiles = SBUF_INIT, name = SBUF_INIT;
	const char *command = profile_get_meta(p, "command");
	size_t active = 0;

	hmap_init(&s.frame_index);
	hmap_init(&s.level_index);
	s.stack_span = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*s.stack_span));
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct tl_thread *th = &t->threads[i];

		if (th->weight > t->threads[active].weight)
			active = i;
		sbuf_reset(&name);
		sbuf_addf(&name, "%s (%u/%u)", strtab_get(&p->str, th->comm), th->pid, th->tid);
		sbuf_adds(&profiles, i ? ",\n{" : "{");
		sbuf_adds(&profiles, "\"type\":\"sampled\",\"name\":");
		sbuf_add_json(&profiles, name.buf);
		sbuf_addf(&profiles,
			  ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":%" PRIu64
			  ",\n\"samples\":[",
			  th->weight);
		for (size_t e = 0; e < th->n; e++) {
			const char *text;
			size_t len;

			stack_text(&s, t, t->events[th->first + e].stack, &text, &len);
			if (e)
				sbuf_adds(&profiles, ",");
			sbuf_addn(&profiles, text, len);
		}
		sbuf_adds(&profiles, "],\n\"weights\":[");
		for (size_t e = 0; e < th->n; e++)
			sbuf_addf(&profiles, "%s%" PRIu64, e ? "," : "",
				  t->events[th->first + e].weight);
		sbuf_adds(&profiles, "]}");
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"perfmini " PACKAGE_VERSION "\",\"name\":",
	      out);
	sbuf_reset(&name);
	sbuf_add_json(&name, command && *command ? command : o->input);
	fputs(name.buf, out);
	fprintf(out, ",\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[", active);
	if (s.frames.len)
		fwrite(s.frames.buf, 1, s.frames.len, out);
	fputs("]},\n\"profiles\":[", out);
	if (profiles.len)
		fwrite(profiles.buf, 1, profiles.len, out);
	fputs("]}\n", out);

	sbuf_release(&profiles);
	sbuf_release(&name);
	sbuf_release(&s.frames);
	sbuf_release(&s.stacks);
	sbuf_release(&s.b);
	free(s.frame_span);
	free(s.stack_span);
	hmap_release(&s.frame_index);
	hmap_release(&s.level_index);
	timeline_free(t);
	return 0;
}
