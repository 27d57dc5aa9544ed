/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svg-script.h - the JavaScript that makes fmt-svg's flame graph
 * interactive (hover, zoom, search), kept apart from the SVG writer, and
 * the escaping of the names the file holds.
 *
 * Its contract with the SVG (fmt-svg.c): the root <svg> carries width,
 * data-pad (the margin on each side, in px), data-samples (what the full
 * width stands for), data-top and data-bottom (the space above and below
 * the frames), data-frame-height and data-min-share (a frame is drawn
 * when it has at least 1/data-min-share of the samples of the frame
 * zoomed into); <script id="tree" type="application/json"> holds the
 * whole tree: {"names", "kinds", "fills": per distinct (name, kind);
 * "nodes": NAME, SAMPLES, CHILDREN per frame in preorder, children in
 * drawing order}. With --diff the <svg> carries data-base-samples and
 * data-max-change, and each node a fourth number, the base's samples;
 * with the noise's marks, data-noise ("marks", or "only" for
 * --diff-significant) and a fifth number, the mark of the node's
 * function (1 grew, -1 shrank beyond the noise, 0), whose frames' rects
 * are of class "m". The script draws into <g id="frames">, each frame a
 * <g class="f"> holding <title>NAME (N samples, P%)</title>, a <rect>
 * and a <text>, and resizes the picture (and the rect "background") to
 * the frames drawn; the controls have the ids reset, search, matched
 * and status. The script contains no "]]>", so it sits in a CDATA
 * section.
 */
#ifndef PERFMINI_SVG_SCRIPT_H
#define PERFMINI_SVG_SCRIPT_H

#include <stdio.h>

extern const char svg_script[];

/*
 * s as XML character data (&, <, >, quotes as entities), or as the inside
 * of a JSON string within a CDATA section ('"' and '\\' escaped, '<',
 * '>' and '&' as \\u escapes, so no "]]>"); in both, bytes that are not
 * valid UTF-8, control characters and XML's non-characters as '?'.
 */
void svg_xml_text(FILE *out, const char *s);
void svg_json_text(FILE *out, const char *s);

#endif
