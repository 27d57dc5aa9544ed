// SPDX-License-Identifier: GPL-2.0-or-later
// svg-diff.js - a --diff flame graph (tests/report/run-diff.sh) in chromium:
//
//   node svg-diff.js DIFF.SVG
//
// The graph opens without script errors; hovering mix_a shows its base
// share, change and mark (beyond the noise) in the status line; zooming
// into mix_round redraws the frames with the script's colours and
// outlines, which must be the file's (mix_a blue, mix_b red, the same rgb
// as drawn at opening, both outlined: class "m"). Exits 0 when all checks
// pass, 1 otherwise, printing what failed.
'use strict';
const path = require('path');
const {withPage, checker} = require('./chromium.js');

const [diffSvg] = process.argv.slice(2);
const {check, finish} = checker('svg-diff');

// Each drawn frame's name (the title up to " ("), box, fill and title.
async function frames(page) {
	return page.evaluate(() => Array.from(document.querySelectorAll('#frames g.f')).map((g) => {
		const r = g.querySelector('rect'), t = g.querySelector('title').textContent;
		return {name: t.replace(/ \(.*$/, ''), title: t, x: +r.getAttribute('x'),
			y: +r.getAttribute('y'), w: +r.getAttribute('width'), fill: r.getAttribute('fill'),
			marked: r.getAttribute('class') === 'm'};
	}));
}

function rgb(fill) {
	const m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(fill || '');
	return m ? m.slice(1).map(Number) : null;
}

async function main() {
	await withPage(async (page, errors) => {
		await page.goto('file://' + path.resolve(diffSvg));
		await page.waitForSelector('#frames g.f');
		const first = await frames(page);
		// The widest frame of that name: a stray sample may put it elsewhere too.
		const at = (list, name) => list.filter((f) => f.name === name)
			.reduce((m, f) => (!m || f.w > m.w ? f : m), undefined);
		const a = at(first, 'mix_a'), b = at(first, 'mix_b'), round = at(first, 'mix_round');
		if (!check(a && b && round, 'mix_a, mix_b or mix_round not drawn'))
			return;
		const ca = rgb(a.fill), cb = rgb(b.fill);
		check(ca && ca[2] > ca[0] + 100, 'mix_a is not blue: ' + a.fill);
		check(cb && cb[0] > cb[2] + 100, 'mix_b is not red: ' + b.fill);
		check(a.marked && b.marked, 'mix_a and mix_b are not outlined as beyond the noise');

		await page.mouse.move(a.x + a.w / 2, a.y + 8);
		const status = await page.evaluate(() => document.getElementById('status').textContent);
		check(/^mix_a \(.*; base [\d.]+%, -[\d.]+ points; its function changed beyond the noise\)$/
			.test(status), 'status on hover: ' + status);

		await page.mouse.click(round.x + round.w / 2, round.y + 8);
		const zoomed = await frames(page);
		const za = at(zoomed, 'mix_a'), zb = at(zoomed, 'mix_b');
		check(za && za.fill === a.fill, 'mix_a after the zoom: ' + (za && za.fill) + ', was ' + a.fill);
		check(zb && zb.fill === b.fill, 'mix_b after the zoom: ' + (zb && zb.fill) + ', was ' + b.fill);
		check(za && za.marked && zb && zb.marked, 'mix_a or mix_b not outlined after the zoom');
		check(za && /; base [\d.]+%, -[\d.]+ points; its function changed beyond the noise\)$/
			.test(za.title), 'title after the zoom: ' + (za && za.title));
		check(errors.length === 0, 'script errors: ' + errors.join('; '));
	});
}

finish(main());
