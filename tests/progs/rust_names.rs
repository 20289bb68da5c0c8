// tests/progs/rust_names.rs - allocation sites in Rust functions whose names
// mangle differently (a free function, a method, a generic), for
// tests/e2e/rust-names.sh.  Built twice: legacy mangling (rustc's default
// up to 1.x) and v0 (-C symbol-mangling-version=v0).
// Facts: make_buffer allocates 4096 B from main and 100 B from a thread;
// Pool::add_block 5 blocks of 1000..1004 B; make_filled::<u64> 8 * 300 B.
struct Pool {
    blocks: Vec<Vec<u8>>,
}

impl Pool {
    #[inline(never)]
    fn add_block(&mut self, n: usize) {
        let b = vec![7u8; n];
        self.blocks.push(b);
    }
}

#[inline(never)]
fn make_buffer(n: usize) -> Vec<u8> {
    let v: Vec<u8> = Vec::with_capacity(n); // site: make_buffer
    v
}

#[inline(never)]
fn make_filled<T: Clone + Default>(n: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n); // site: make_filled
    v.resize(n, T::default());
    v
}

fn main() {
    let mut p = Pool { blocks: Vec::with_capacity(8) };
    for i in 0..5 {
        p.add_block(1000 + i);
    }
    let b = make_buffer(4096);
    let f = make_filled::<u64>(300);
    let t = std::thread::spawn(|| make_buffer(100).capacity());
    let c = t.join().unwrap();
    println!("rust names done {} {} {} {}", p.blocks.len(), b.capacity(), f.len(), c);
}
