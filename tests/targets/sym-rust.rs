// SPDX-License-Identifier: GPL-2.0-or-later
//! sym-rust.rs - Rust names: the time is spent in a method of a generic
//! type in a module, `sym_rust::module::Type<T>::hot` (instantiated for
//! u32), and in a closure inlined into a generic function it is passed
//! to, `sym_rust::apply::<sym_rust::main::{closure#0}>`. Built twice by
//! make check: with rustc's default (legacy) mangling and with
//! `-C symbol-mangling-version=v0`.
//!
//! Usage: sym-rust [SECONDS]   (CPU seconds, default 1)

use std::arch::asm;

/// About a millisecond of work per call.
const ROUNDS: u64 = 1_000_000;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// CPU time of the calling thread, in seconds.
fn thread_cpu() -> f64 {
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec for the call to fill in.
    if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        eprintln!("sym-rust: clock_gettime failed");
        std::process::exit(2);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// One step of the busy loop, opaque to the optimizer.
#[inline(always)]
fn step(mut x: u64) -> u64 {
    x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    // SAFETY: an empty asm statement that only claims to change x.
    unsafe { asm!("/* {0} */", inout(reg) x) };
    x
}

pub mod module {
    pub struct Type<T> {
        pub v: T,
    }

    impl<T: Copy + Into<u64>> Type<T> {
        #[inline(never)]
        pub fn hot(&self, rounds: u64) -> u64 {
            let mut x: u64 = self.v.into();
            for _ in 0..rounds {
                x = super::step(x);
            }
            x
        }
    }
}

#[inline(never)]
fn apply<F: Fn(u64) -> u64>(f: F, x: u64) -> u64 {
    f(x)
}

fn main() {
    let secs: f64 = match std::env::args().nth(1) {
        Some(s) => match s.parse() {
            Ok(v) => v,
            Err(_) => {
                eprintln!("sym-rust: bad number of seconds '{}'", s);
                std::process::exit(2);
            }
        },
        None => 1.0,
    };
    let t = module::Type { v: 3u32 };
    let mut x = 1u64;
    while thread_cpu() < secs {
        x = t.hot(ROUNDS);
        x = apply(
            |y| {
                let mut z = y;
                for _ in 0..ROUNDS {
                    z = step(z);
                }
                z
            },
            x,
        );
    }
    println!("{}", x);
}
