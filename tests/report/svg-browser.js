// SPDX-License-Identifier: GPL-2.0-or-later
// svg-browser.js - the flame graph in a real browser: Chromium, headless,
// driven by puppeteer-core over the DevTools protocol.
//
//   node svg-browser.js WIDE.SVG SYNTH.SVG OUTDIR
//
// WIDE.SVG is the flame graph of report-gen --wide (see
// tests/report/report-synth.h), SYNTH.SVG any other one (opened for script errors
// only). Checks, as a person would see them: the graph opens as tall as
// the frames drawn (no blank space above them); hovering a frame shows
// its name and samples in the status line; clicking a frame zooms into
// it, drawing the frames that were too narrow before and growing the
// picture to their depth, its callers dimmed below it; Reset and Esc go
// back; a search highlights the matching frames and gives their share.
// Screenshots go to OUTDIR (svg-open.png, svg-zoomed.png, svg-search.png).
// Exits 0 when all checks pass, 1 otherwise, printing what failed.
'use strict';
const path = require('path');
const {withPage, checker} = require('./chromium.js');

const [wideSvg, synthSvg, outdir] = process.argv.slice(2);
const {check, finish} = checker('svg-browser');

// What is drawn: each frame's name, box and fill, and the picture's height.
async function state(page) {
	return page.evaluate(() => {
		const svg = document.documentElement;
		const frames = Array.from(document.querySelectorAll('#frames g.f')).map((g) => {
			const r = g.querySelector('rect');
			return {
				name: g.querySelector('title').textContent.replace(/ \(\d+ samples?, [\d.]+%\)$/, ''),
				x: +r.getAttribute('x'), y: +r.getAttribute('y'),
				w: +r.getAttribute('width'), fill: r.getAttribute('fill'),
				dim: g.style.opacity === '0.6',
			};
		});
		return {
			height: +svg.getAttribute('height'),
			frames,
			status: document.getElementById('status').textContent,
			matched: document.getElementById('matched').textContent,
			reset: document.getElementById('reset').style.display !== 'none',
		};
	});
}

function find(s, name) {
	return s.frames.find((f) => f.name === name);
}

// Clicks the middle of the frame called name.
async function click(page, s, name) {
	const f = find(s, name);
	if (!check(f, 'no frame ' + name + ' to click'))
		return;
	await page.mouse.click(f.x + f.w / 2, f.y + 8);
}

async function main() {
	await withPage(async (page, errors) => {
		await page.goto('file://' + path.resolve(synthSvg));
		await page.waitForSelector('#frames g.f');
		const synth = await state(page);
		check(synth.frames.length > 10, 'the synthetic graph draws ' + synth.frames.length + ' frames');

		await page.goto('file://' + path.resolve(wideSvg));
		await page.waitForSelector('#frames g.f');
		let s = await state(page);
		const names = s.frames.map((f) => f.name).sort().join(' ');
		check(names === 'all dispatch hot main warm wide', 'frames drawn at first: ' + names);
		check(s.height === 84 + 4 * 16 + 34, 'height at first ' + s.height + ', want 182');
		check(Math.min(...s.frames.map((f) => f.y)) === 84, 'blank space above the frames');
		check(!s.reset, 'Reset zoom shown before any zoom');
		await page.screenshot({path: path.join(outdir, 'svg-open.png')});

		// Hover.
		const hot = find(s, 'hot');
		await page.mouse.move(hot.x + hot.w / 2, hot.y + 8);
		s = await state(page);
		check(s.status === 'hot (8000 samples, 66.67%)', 'status on hover: ' + s.status);

		// Zoom into warm: the deep chain appears, the picture grows to it.
		await click(page, s, 'warm');
		s = await state(page);
		const warm = find(s, 'warm');
		check(warm && Math.abs(warm.x - 10) < 0.01 && Math.abs(warm.w - 1180) < 0.01,
			'warm does not fill the width: ' + JSON.stringify(warm));
		check(find(s, 'deep_59') && find(s, 'deep_00'), 'the deep chain is not drawn in warm');
		check(!find(s, 'hot'), 'hot is drawn when zoomed into warm');
		check(['all', 'wide', 'main'].every((n) => find(s, n) && find(s, n).dim),
			'the callers of warm are not drawn dimmed');
		check(s.height === 84 + 64 * 16 + 34, 'height zoomed into warm ' + s.height);
		check(s.reset, 'no Reset zoom after a zoom');
		await page.screenshot({path: path.join(outdir, 'svg-zoomed.png')});

		// Reset.
		await page.click('#reset');
		s = await state(page);
		check(s.frames.length === 6 && s.height === 182 && !s.reset,
			'Reset zoom does not restore the first view: ' + s.frames.length + ' frames');

		// Zoom into dispatch: its 200 leaves.
		await click(page, s, 'dispatch');
		s = await state(page);
		check(s.frames.filter((f) => /^leaf_\d{4}$/.test(f.name)).length === 200,
			'dispatch shows ' + s.frames.filter((f) => /^leaf_/.test(f.name)).length + ' leaves');
		await page.keyboard.press('Escape');
		s = await state(page);
		check(s.frames.length === 6, 'Esc does not reset the zoom');

		// Search, through the prompt that '/' opens.
		page.once('dialog', (d) => d.accept('leaf_01'));
		await page.keyboard.press('/');
		await page.waitForFunction(() => document.getElementById('matched').textContent !== '');
		s = await state(page);
		check(s.matched === 'Matched: 8.33% (1000 samples)', 'search: ' + s.matched);
		await click(page, s, 'dispatch');
		s = await state(page);
		const hits = s.frames.filter((f) => f.fill === 'rgb(230,0,230)').map((f) => f.name);
		check(hits.length === 100 && hits.every((n) => n.startsWith('leaf_01')),
			'highlighted after zoom: ' + hits.length + ' frames');
		await page.screenshot({path: path.join(outdir, 'svg-search.png')});
		check(errors.length === 0, 'script errors: ' + errors.join('; '));
	});
}

finish(main());
