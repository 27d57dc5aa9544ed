// SPDX-License-Identifier: GPL-2.0-or-later
// rust-lines.rs - a hot Rust function whose time is in inlined callees,
// for the source-line tests (run-lines-rust.sh): work_outer calls mix_mid,
// which calls mix_leaf, both always inlined, so every sample in the loop
// is one frame of work_outer standing for the chain work_outer -> mix_mid
// -> mix_leaf (and the standard library's integer methods inlined into
// mix_leaf). The MARK comments name the lines the test expects. Runs for
// the given seconds of its own CPU time (default 1).
use std::process::exit;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn cpu_seconds() -> f64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    if unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        eprintln!("clock_gettime failed");
        exit(2);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

#[inline(always)]
fn mix_leaf(mut x: u64, n: u64) -> u64 {
    for _ in 0..n { // MARK rs-loop
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); // MARK rs-body
        // Keeps the loop a loop: the compiler cannot see through it.
        unsafe { std::arch::asm!("/* {0} */", inout(reg) x) };
    }
    x
}

#[inline(always)]
fn mix_mid(x: u64, n: u64) -> u64 {
    mix_leaf(x ^ 0x9e3779b97f4a7c15, n).wrapping_add(1) // MARK rs-mid-call
}

#[inline(never)]
fn work_outer(x: u64) -> u64 {
    mix_mid(x, 1_000_000).wrapping_mul(3) // MARK rs-outer-call
}

fn main() {
    let secs = match std::env::args().nth(1) {
        None => 1.0,
        Some(s) => match s.parse::<f64>() {
            Ok(v) if (0.0..=3600.0).contains(&v) => v,
            _ => {
                eprintln!("rust-lines: bad number of seconds '{}'", s);
                exit(2);
            }
        },
    };
    let start = cpu_seconds();
    let mut x = 1u64;
    while cpu_seconds() - start < secs {
        x = work_outer(x);
    }
    println!("{}", x & 1);
}
