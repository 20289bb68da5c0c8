// rust_threads.rs - a multi-threaded Rust program (std::thread, as every
// Rust program with threads has): 4 threads each allocate BLOCKS vectors of
// 48 u64 (384 bytes) in make_blocks, sum them and drop them.  Built with
// Debian's rustc (/usr/bin/rustc), whose std starts every thread with
// pthread_getattr_np (the stack guard).
//
// Expected facts (tests/e2e/real-rust.sh):
//   make_blocks: 4 x 1000 = 4000 allocations of 384 bytes (1536000 bytes),
//   0 blocks live at exit (the caller drops them).
// stdout: "threads 4, blocks 4000, sum 292607904000\n" (thread t adds
// 48000 * t * 1000000 + (0 + 1 + ... + 47999)); exit status 3.
use std::process;
use std::thread;

const THREADS: u64 = 4;
const BLOCKS: usize = 1000;
const WORDS: usize = 48;

// Allocates BLOCKS vectors of WORDS u64 into `out` (which has room for them:
// `out` never grows here).  The #[no_mangle] keeps the symbol's name plain,
// so the report names the function exactly.
#[no_mangle]
#[inline(never)]
pub fn make_blocks(seed: u64, out: &mut Vec<Vec<u64>>) {
    for i in 0..BLOCKS {
        let mut v = Vec::with_capacity(WORDS);
        for w in 0..WORDS {
            v.push(seed + (i * WORDS + w) as u64);
        }
        out.push(v);
    }
}

fn worker(seed: u64) -> u64 {
    let mut blocks = Vec::with_capacity(BLOCKS);
    make_blocks(seed, &mut blocks);
    blocks.iter().map(|v| v.iter().sum::<u64>()).sum()
}

fn main() {
    let handles: Vec<_> = (0..THREADS)
        .map(|t| thread::spawn(move || worker(t * 1_000_000)))
        .collect();
    let sum: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!("threads {}, blocks {}, sum {}", THREADS, THREADS as usize * BLOCKS, sum);
    process::exit(3);
}
