/*
 * svg-script.h - the JavaScript that makes fmt-svg's flame graph
 * interactive (hover, zoom, search), kept apart from the SVG writer.
 *
 * Its contract with the SVG (fmt-svg.c): the root <svg> carries width,
 * data-pad (the margin on each side, in px) and data-samples (what the
 * full width stands for); every frame is a
 * <g class="f"> holding <title>NAME (N samples, P%)</title>, a <rect> and
 * a <text>; the controls have the ids reset, search, matched and status.
 * The script contains no "]]>", so it sits in a CDATA section.
 */
#ifndef PERFMINI_SVG_SCRIPT_H
#define PERFMINI_SVG_SCRIPT_H

extern const char svg_script[];

#endif
