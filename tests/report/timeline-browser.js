// SPDX-License-Identifier: GPL-2.0-or-later
// timeline-browser.js - a speedscope file in the real speedscope viewer:
// the web app of speedscope's npm package, served by a local HTTP server
// started here, in headless Chromium driven by puppeteer-core.
//
//   node timeline-browser.js SPEEDSCOPE_DIR PROFILE.JSON EXPECT.JSON OUT
//
// SPEEDSCOPE_DIR is the package's dist/release, EXPECT.JSON what
// timeline-check.py read from the same file (each profile's name, weight
// in ns and hottest function). The app loads the file from its
// #profileURL= hash. Checks, as a person would see them: it imports
// without an error page or script error; the toolbar names the profile
// the file makes active, "(K/N)" with N the number of threads; its
// profile selector lists every thread by name with the file's total
// weight; the Sandwich view of the active profile lists its functions by
// self weight, the hottest first; and when EXPECT.JSON has a "timeorder"
// (the widest boxes of the active profile's Time Order flame chart, from
// the samples of --script in their order), hovering each box's middle in
// the Time Order view shows that function for that long. Screenshots go
// to OUT-*.png. Exits 0 when all checks pass, 1 otherwise, printing what
// failed.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const {withPage, checker} = require('./chromium.js');

const [dist, profilePath, expectPath, out] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectPath, 'utf8'));
const {check, finish} = checker('timeline-browser');

// The app's files, and the profile as /profile.json; nothing else.
function serve() {
	const root = path.resolve(dist);
	const server = http.createServer((req, res) => {
		const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const file = url === '/profile.json' ? profilePath : path.join(root, path.normalize(url));
		if (url !== '/profile.json' && !file.startsWith(root + path.sep)) {
			res.writeHead(403);
			res.end();
			return;
		}
		fs.readFile(file, (err, data) => {
			res.writeHead(err ? 404 : 200);
			res.end(err ? '' : data);
		});
	});
	return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// "790.79ms" -> nanoseconds.
function parseTime(s) {
	const m = /^([\d.]+)\s*(ns|µs|us|ms|s)$/.exec(s.trim());
	if (!m)
		return NaN;
	return +m[1] * {ns: 1, 'µs': 1e3, us: 1e3, ms: 1e6, s: 1e9}[m[2]];
}

// Whether a shown time (two decimals) stands for ns.
function sameTime(shown, ns) {
	const v = parseTime(shown);
	const unit = /ms$/.test(shown) ? 1e6 : /µs$|us$/.test(shown) ? 1e3 : /ns$/.test(shown) ? 1 : 1e9;
	return Math.abs(v - ns) <= 0.0051 * unit + 0.5;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (page) => page.evaluate(() => document.body.innerText);

// The Time Order view: for each expected box, hover the middle of its
// span on its row of the main flame chart (the lowest canvas; rows found
// from the first, whose top is the first point with a tooltip) and read
// the tooltip, "DURATION (SHARE) NAME".
async function timeOrder(page, order, out) {
	const chart = await page.evaluate(() => {
		const cs = [...document.querySelectorAll('canvas')].map((c) => c.getBoundingClientRect())
			.filter((r) => r.width > 0 && r.height > 0);
		cs.sort((a, b) => b.y - a.y);
		return cs.length ? {x: cs[0].x, y: cs[0].y, w: cs[0].width, h: cs[0].height} : null;
	});
	if (!check(chart, 'no flame chart in the Time Order view'))
		return;
	const tip = async (x, y) => {
		await page.mouse.move(x, y);
		await sleep(60);
		const m = /\n([\d.]+\s*(?:ns|µs|us|ms|s))\s+\([^)]*\)\s+([^\n]+)/.exec(await text(page));
		return m ? {time: m[1], name: m[2].trim()} : null;
	};
	const xOf = (b) => chart.x + chart.w * (b.start + b.ns / 2) / order.total;
	// The rows, measured from boundary to boundary: going down from the
	// chart's top a pixel at a time, where the tooltip first appears and
	// where it shows another box twice after that. Where it first shows need
	// not be a row's edge (speedscope's hit test and drawing round
	// differently), so the height is taken between the two changes.
	const x0 = xOf(order.probes[order.probes.length - 1]);
	const edges = [];
	let prev = null;
	for (let y = chart.y; y < chart.y + 200 && edges.length < 3; y += edges.length ? 1 : 2) {
		const t = await tip(x0, y);
		if (t && !(prev && t.name === prev.name && t.time === prev.time)) {
			edges.push(y);
			prev = t;
		}
	}
	const height = edges.length === 3 ? edges[2] - edges[1] : edges.length === 2 ? edges[1] - edges[0] : -1;
	const top = edges.length === 3 ? edges[1] - height : edges[0];
	if (!check(height > 4, 'no rows of boxes in the Time Order view'))
		return;
	for (const b of order.probes) {
		const t = await tip(xOf(b), top + height * b.depth + height / 2);
		const want = `${b.name} for ${(b.ns / 1e6).toFixed(2)}ms at depth ${b.depth}`;
		if (check(t, `Time Order: nothing under the box of ${want}`))
			check(t.name === b.name && sameTime(t.time, b.ns),
				`Time Order: the box of ${want} shows ${t.name} for ${t.time}`);
	}
	await page.screenshot({path: out + '-timeorder.png'});
	console.error(`timeline-browser: Time Order: ${order.probes.length} boxes hovered: ` +
		order.probes.map((b) => `${b.name} ${(b.ns / 1e6).toFixed(0)}ms`).join(', '));
}

async function main() {
	const server = await serve();
	const port = server.address().port;
	const base = `http://127.0.0.1:${port}`;
	try {
		await withPage(async (page, errors) => {
			await view(page, errors, base);
		}, {width: 1400, height: 2400});
	} finally {
		server.close();
	}
}

async function view(page, errors, base) {
	// speedscope says it could not import in a console message.
	page.on('console', (m) => {
		if (m.type() !== 'error' && /^Failed/.test(m.text()))
			errors.push(m.text());
	});
	await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + '/profile.json')}`);

	const profiles = expect.profiles;
	const active = profiles[expect.active];
	const n = profiles.length;
	let body = '';
	for (let i = 0; i < 60; i++) {
		body = await text(page);
		if (/Something went wrong/.test(body) || body.includes(active.name))
			break;
		await sleep(250);
	}
	await page.screenshot({path: out + '-open.png'});
	check(!/Something went wrong/.test(body), 'speedscope could not import the file');
	check(errors.length === 0, 'script errors: ' + errors.join('; '));
	if (!check(body.includes(active.name), 'the toolbar does not name the active profile ' + active.name))
		return;
	check(/Time Order/.test(body) && /Left Heavy/.test(body) && /Sandwich/.test(body), 'no view tabs');
	if (expect.timeorder)
		await timeOrder(page, expect.timeorder, out);
	if (n > 1) {
		const count = `(${expect.active + 1}/${n})`;
		const handle = await page.evaluateHandle((c) => {
			let best = null;
			for (const e of document.querySelectorAll('*'))
				if (e.textContent.includes(c) && (!best || best.contains(e)))
					best = e;
			return best;
		}, count);
		if (check(await handle.evaluate((e) => e !== null), 'the toolbar shows no ' + count)) {
			await handle.click();
			await sleep(500);
			// The selector's rows: "K<tab>NAME<tab>WEIGHT".
			const rows = (await text(page)).split('\n').map((l) => l.split('\t'))
				.filter((r) => r.length === 3 && /^\d+$/.test(r[0]));
			await page.screenshot({path: out + '-threads.png'});
			check(rows.length === n, `the profile selector lists ${rows.length} profiles, the file ${n}`);
			for (const [i, p] of profiles.entries()) {
				const row = rows.find((r) => +r[0] === i + 1);
				if (!check(row, 'the profile selector has no row ' + (i + 1)))
					continue;
				check(row[1] === p.name, `profile ${i + 1} is ${row[1]}, the file says ${p.name}`);
				check(sameTime(row[2], p.weight),
					`${p.name} weighs ${row[2]} in speedscope, ${p.weight} ns in the file`);
			}
			await page.keyboard.press('Escape');
			await sleep(300);
		}
	}

	// Sandwich: the active profile's functions, by self weight.
	await page.keyboard.press('3');
	await sleep(1000);
	const lines = (await text(page)).split('\n');
	const head = lines.findIndex((l) => /Total\s+Self\s+Symbol Name/.test(l));
	await page.screenshot({path: out + '-sandwich.png'});
	if (!check(head >= 0, 'no Sandwich table'))
		return;
	const table = [];
	for (let i = head + 1; i + 2 < lines.length + 1; i += 3) {
		const total = lines[i], self = (lines[i + 1] || '').trim(), name = (lines[i + 2] || '').trim();
		if (!/\(/.test(total) || !/\(/.test(self))
			break;
		table.push({self: parseTime(self.split(' ')[0]), shown: self.split(' ')[0], name});
	}
	if (!check(table.length > 0, 'the Sandwich table is empty'))
		return;
	check(table.every((r, i) => i === 0 || r.self <= table[i - 1].self), 'the Sandwich table is not by self weight');
	if (active.clear)
		check(table[0].name === active.hottest,
			`the Sandwich view's hottest function is ${table[0].name}, the file's ${active.hottest}`);
	// A thread that only waited has one function with all but a hair of
	// its weight: shown rounded, it may read a little more.
	check(table[0].self <= active.weight * 1.001 || sameTime(table[0].shown, active.weight),
		`the hottest function weighs ${table[0].shown}, more than its thread (${active.weight} ns)`);
	console.error(`timeline-browser: ${n} profiles listed; ${active.name}: ${table.length} functions,` +
		` ${table[0].name} first`);
}

finish(main());
