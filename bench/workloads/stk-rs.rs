// SPDX-License-Identifier: GPL-2.0-or-later
//
// stk-rs - a Rust workload for bench/stack-truth.
//
// usage: stk-rs [SECONDS]   (default 3)
//
// SECONDS is CPU time, not wall time: on a busy machine every recording
// then covers the same work and gets about as many samples, so two
// recordings compare.
//
// Built with Debian's rustc, -C opt-level=2 -g, and no frame pointers (the
// default), so only a DWARF unwinder gets its stacks right. Two hot
// functions: sort_round sorts a Vec with sort_by and a closure (std's merge
// sort, monomorphized into this program, calling the closure), map_round
// inserts into and looks up a HashMap (SipHash, hashbrown's probing). Rust
// names are the hard case for matching: the legacy mangling's ::h<hash>
// suffix, closures ({{closure}}), generic impls (<T as Trait>::f).

use std::collections::HashMap;
use std::fs;

#[derive(Clone, Copy)]
struct Rec {
    key: u64,
    weight: u32,
}

// The CPU time of this (single-threaded) process, in seconds: the first
// field of /proc/self/schedstat, nanoseconds on a CPU. std has no CPU
// clock, and this program uses no crate.
fn cpu_now() -> f64 {
    let s = fs::read_to_string("/proc/self/schedstat").expect("/proc/self/schedstat");
    let ns: u64 = s
        .split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .expect("schedstat");
    ns as f64 / 1e9
}

fn next_rand(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

#[inline(never)]
fn sort_round(v: &mut Vec<Rec>, rng: &mut u64) -> u64 {
    // Fresh keys each call: the sort never gets sorted input.
    for r in v.iter_mut() {
        r.key = next_rand(rng) % 1_000_000;
        r.weight = (r.key & 0xff) as u32;
    }
    v.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)));
    v[v.len() / 2].key
}

// A fresh map each call, so that every round does the same work (growing
// the table included): a map kept across rounds would be caught at
// different sizes by two recordings.
#[inline(never)]
fn map_round(rng: &mut u64, n: usize) -> u64 {
    let mut m: HashMap<u64, u64> = HashMap::new();
    let mut sum = 0u64;
    for i in 0..n {
        *m.entry(next_rand(rng) % 200_000).or_insert(0) += i as u64;
        if let Some(x) = m.get(&(next_rand(rng) % 200_000)) {
            sum = sum.wrapping_add(*x);
        }
    }
    sum
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("usage: stk-rs [SECONDS]"))
        .unwrap_or(3.0);
    let end = cpu_now() + seconds;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut v = vec![Rec { key: 0, weight: 0 }; 100_000];
    let mut sink = 0u64;
    while cpu_now() < end {
        sink = sink.wrapping_add(sort_round(&mut v, &mut rng));
        sink = sink.wrapping_add(map_round(&mut rng, 50_000));
    }
    if sink == 42 {
        println!("{}", sink);
    }
}
