// SPDX-License-Identifier: GPL-2.0-or-later
// chromium.js - what the browser tests share: Debian's chromium, headless,
// driven by puppeteer-core, with a throwaway profile directory.
//
//   const {withPage, checker} = require('./chromium.js');
//   const {check, finish} = checker('name');
//   finish(withPage(async (page, errors) => { ... check(cond, 'what'); ... }));
//
// withPage(fn, {width, height}) sets the viewport (default 1200 by 1200).
// The page collects the script errors and console errors it sees into
// errors; the browser is closed and its profile removed however fn ends.
// finish prints each failed check, then "name: ok" or "name: FAIL", and
// exits 0 only when every check passed and nothing threw.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

async function withPage(fn, viewport = {width: 1200, height: 1200}) {
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
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		await page.setViewport(viewport);
		return await fn(page, errors);
	} finally {
		await browser.close();
		fs.rmSync(profile, {recursive: true, force: true});
	}
}

function checker(name) {
	const failures = [];
	return {
		check(cond, what) {
			if (!cond)
				failures.push(what);
			return cond;
		},
		finish(promise) {
			promise.then(() => {
				for (const f of failures)
					console.error(name + ': ' + f);
				console.error(name + ': ' + (failures.length ? 'FAIL' : 'ok'));
				process.exit(failures.length ? 1 : 0);
			}, (e) => {
				console.error(name + ': ' + (e && e.stack ? e.stack : e));
				process.exit(1);
			});
		},
	};
}

module.exports = {withPage, checker};
