// SPDX-License-Identifier: GPL-2.0-or-later
// chromium.js - what the browser tests share: Debian's chromium, headless,
// driven by puppeteer-core, with a throwaway profile directory.
//
//   const {withPage} = require('./chromium.js');
//   await withPage(async (page, errors) => { ... });
//
// The page collects the script errors and console errors it sees into
// errors; the browser is closed and its profile removed however fn ends.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

async function withPage(fn) {
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
		await page.setViewport({width: 1200, height: 1200});
		return await fn(page, errors);
	} finally {
		await browser.close();
		fs.rmSync(profile, {recursive: true, force: true});
	}
}

module.exports = {withPage};
