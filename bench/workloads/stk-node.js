// SPDX-License-Identifier: GPL-2.0-or-later
//
// stk-node - a JavaScript workload for bench/stack-truth.
//
// usage: node --perf-basic-prof stk-node.js [SECONDS]   (default 3)
//
// SECONDS is CPU time of the whole process (V8's compiler and GC threads
// too), not wall time: on a busy machine every recording then covers the
// same work and gets about as many samples, so two recordings compare.
//
// Hot JS functions, JIT-compiled by V8: with --perf-basic-prof V8 writes
// /tmp/perf-PID.map, the names both tools read for JIT code ("JS:*name
// file:line:col" and friends). V8's JIT code keeps frame pointers, node's
// own C++ code (built with -O2) may not, so a frame-pointer unwinder sees
// the JS frames and a DWARF unwinder sees the C++ runtime below them.
'use strict';

const seconds = process.argv.length > 2 ? Number(process.argv[2]) : 3;

// The process's CPU time, in seconds.
function cpuNow() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1e6;
}

function mix(h, x) {
	h ^= x;
	return Math.imul(h, 16777619) >>> 0;
}

function hashStrings(words) {
	let h = 2166136261;
	for (const w of words)
		for (let i = 0; i < w.length; i++)
			h = mix(h, w.charCodeAt(i));
	return h;
}

function sortRecords(recs, state) {
	// Fresh keys each call: the sort never gets sorted input.
	for (const r of recs) {
		state.x = mix(state.x, 0x9e3779b9);
		r.key = state.x % 1000000;
	}
	recs.sort((a, b) => a.key - b.key);
	return recs[recs.length >> 1].key;
}

// A fresh Map each call, so that every round does the same work.
function mapWork(state, n) {
	const map = new Map();
	let sum = 0;
	for (let i = 0; i < n; i++) {
		state.x = mix(state.x, i);
		const k = 'k' + (state.x % 50000);
		map.set(k, (map.get(k) || 0) + 1);
		sum += map.get('k' + (i % 50000)) || 0;
	}
	return sum;
}

function main() {
	const words = [];
	for (let i = 0; i < 2000; i++)
		words.push('word' + i + '-' + 'x'.repeat(i % 40));
	const recs = [];
	for (let i = 0; i < 20000; i++)
		recs.push({ key: 0, name: 'r' + i });
	const state = { x: 12345 };
	let sink = 0;
	const end = cpuNow() + seconds;
	while (cpuNow() < end) {
		sink += hashStrings(words);
		sink += sortRecords(recs, state);
		sink += mapWork(state, 20000);
	}
	if (sink === 42)
		console.log(sink);
}

main();
