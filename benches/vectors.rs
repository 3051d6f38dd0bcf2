//! The embedded vector kernel (`singletable::embedded::vector`): exact
//! top-10 over 100,000 vectors of 768 dimensions, for each distance
//! function, with and without a filter keeping a tenth of the keys (a first
//! pass over the `i8` copies, one thread at this size, then the `f32`
//! scores of the few rows it leaves). The target is at most 15 ms.
//! Not yet beside dynoxide's vector search: the kernel is not served as
//! `SearchVectors` yet.
//!
//! Run with `cargo bench --bench vectors`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use singletable::embedded::vector::{Distance, VectorSet};

fn vectors(seed: u64, n: usize, dims: usize) -> Vec<Vec<f32>> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    (0..n)
        .map(|_| (0..dims).map(|_| next()).collect())
        .collect()
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (n, dims) = (100_000, 768);
    let data = vectors(7, n, dims);
    let query = vectors(8, 1, dims).remove(0);
    let mut group = c.benchmark_group("vectors/top10_of_100k_768d");
    group.sample_size(20);
    for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
        let mut set = VectorSet::new(dims, d);
        for (i, v) in data.iter().enumerate() {
            set.insert(i as u32, v).expect("finite");
        }
        group.bench_function(BenchmarkId::new(d.name(), "all"), |b| {
            b.iter(|| black_box(set.search(black_box(&query), 10, |_| true).expect("search")))
        });
        group.bench_function(BenchmarkId::new(d.name(), "tenth"), |b| {
            b.iter(|| {
                black_box(
                    set.search(black_box(&query), 10, |k| k % 10 == 0)
                        .expect("search"),
                )
            })
        });
    }
    group.finish();
    c.final_summary();
}
