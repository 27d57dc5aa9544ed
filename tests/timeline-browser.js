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
// self weight, the hottest first. Screenshots go to OUT-*.png.
// Exits 0 when all checks pass, 1 otherwise, printing what failed.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [dist, profilePath, expectPath, out] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectPath, 'utf8'));
const failures = [];
function check(cond, what) {
	if (!cond)
		failures.push(what);
	return cond;
}

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

async function main() {
	const server = await serve();
	const port = server.address().port;
	const base = `http://127.0.0.1:${port}`;
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'perfmini-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		userDataDir: profile,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	try {
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('console', (m) => {
			if (m.type() === 'error' || /^Failed/.test(m.text()))
				errors.push(m.text());
		});
		await page.setViewport({width: 1400, height: 2400});
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
			table.push({self: parseTime(self.split(' ')[0]), name});
		}
		if (!check(table.length > 0, 'the Sandwich table is empty'))
			return;
		check(table.every((r, i) => i === 0 || r.self <= table[i - 1].self), 'the Sandwich table is not by self weight');
		if (active.clear)
			check(table[0].name === active.hottest,
				`the Sandwich view's hottest function is ${table[0].name}, the file's ${active.hottest}`);
		check(table[0].self <= active.weight * 1.001, 'the hottest function weighs more than its thread');
		console.error(`timeline-browser: ${n} profiles listed; ${active.name}: ${table.length} functions,` +
			` ${table[0].name} first`);
	} finally {
		await browser.close();
		server.close();
		fs.rmSync(profile, {recursive: true, force: true});
	}
}

main().then(() => {
	for (const f of failures)
		console.error('timeline-browser: ' + f);
	process.exit(failures.length ? 1 : 0);
}, (e) => {
	console.error('timeline-browser: ' + (e.stack || e));
	process.exit(1);
});
