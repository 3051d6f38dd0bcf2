//! The search: a scan of the `f32` rows for small sets, two passes
//! (bounds from the `i8` copies, then the exact scores of the few rows
//! left) for large ones.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::hash::Hash;
use std::sync::Mutex;

use singletable_core::vector::{cosine, dot, squared_distance};

use super::kernel::{BLOCK_ROWS, PARALLEL_BYTES, kernel, threads};
use super::{Distance, VectorError, VectorSet, norm};

/// Below this many rows the search reads the `f32` rows only.
const MIN_QUANTIZED_ROWS: usize = 64;

/// A candidate in the bounded heap: the worst of the best `k` on top.
struct Candidate<'a, K> {
    /// The score, oriented so that smaller is closer (`f64`: a squared
    /// distance past `f32`'s range still orders).
    rank: f64,
    key: &'a K,
    score: f32,
}

impl<K: Ord> PartialEq for Candidate<'_, K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<K: Ord> Eq for Candidate<'_, K> {}
impl<K: Ord> PartialOrd for Candidate<'_, K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: Ord> Ord for Candidate<'_, K> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank
            .total_cmp(&other.rank)
            .then_with(|| self.key.cmp(other.key))
    }
}

/// An `f32` ordered by `total_cmp`, for the heap of pessimistic bounds.
#[derive(Clone, Copy, PartialEq)]
struct Bound(f32);
impl Eq for Bound {}
impl PartialOrd for Bound {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Bound {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl<K: Ord + Hash + Clone> VectorSet<K> {
    /// The `top_k` vectors most similar to `query` among those whose key
    /// `keep` accepts, most similar first, each with its score.
    ///
    /// Exact: the scores, the results and their order are those of a
    /// brute-force computation over the `f32` rows. A large set is read in
    /// two passes: the first reads the `i8` copy (a quarter of the bytes,
    /// split across the cores past 128 MB) and bounds every row's
    /// score from it, proven bounds that cover the copy's error and the
    /// rounding of the `f32` computation; the second computes in `f32`,
    /// with the same functions as a brute force, the scores of the rows
    /// whose bounds could still reach the `top_k` best. `keep` is asked
    /// in row order, and only about rows that could still be among them.
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// let mut set = VectorSet::new(1, Distance::Euclidean);
    /// for i in 0..10u32 {
    ///     set.insert(i, &[i as f32])?;
    /// }
    /// let even = set.search(&[4.2], 2, |k| k % 2 == 0)?;
    /// assert_eq!(even.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [4, 6]);
    /// # Ok::<(), singletable_embedded::vector::VectorError>(())
    /// ```
    pub fn search(
        &self,
        query: &[f32],
        top_k: usize,
        keep: impl FnMut(&K) -> bool,
    ) -> Result<Vec<(K, f32)>, VectorError> {
        if self.len() < MIN_QUANTIZED_ROWS {
            self.search_scan(query, top_k, keep)
        } else {
            self.search_two_pass(query, top_k, keep)
        }
    }

    /// The rank (oriented so that smaller is closer: the squared distance
    /// for `EUCLIDEAN`, the score otherwise) and the score of row `row`, as
    /// a brute force computes them: in `f32`, and in `f64` where that
    /// overflows (the same rule as `Distance::score`), so finite vectors
    /// never score `NaN`.
    #[inline]
    pub(super) fn exact(&self, query: &[f32], nq: f32, row: usize) -> (f64, f32) {
        let v = &self.data[row * self.dims..(row + 1) * self.dims];
        let narrow = match self.distance {
            Distance::Cosine => {
                let (d, nv) = (dot(query, v), self.norms[row]);
                (d.is_finite() && (nq * nv).is_finite()).then(|| cosine(d, nq, nv))
            }
            Distance::Euclidean => Some(squared_distance(query, v)).filter(|s| s.is_finite()),
            Distance::DotProduct => Some(dot(query, v)).filter(|s| s.is_finite()),
        };
        match (self.distance, narrow) {
            (Distance::Euclidean, Some(squared)) => (f64::from(squared), squared.sqrt()),
            (Distance::Euclidean, None) => {
                let d = self.distance.wide_score(query, v);
                (f64::from(d) * f64::from(d), d)
            }
            (Distance::Cosine, s) => {
                let s = s.unwrap_or_else(|| self.distance.wide_score(query, v));
                (f64::from(s), s)
            }
            (Distance::DotProduct, s) => {
                let s = s.unwrap_or_else(|| self.distance.wide_score(query, v));
                (-f64::from(s), s)
            }
        }
    }

    /// The results from the candidates sorted, most similar first.
    fn finish(&self, sorted: Vec<Candidate<'_, K>>) -> Vec<(K, f32)> {
        sorted
            .into_iter()
            .map(|c| (c.key.clone(), c.score))
            .collect()
    }

    /// Checks a search's query and `top_k`; the query's norm.
    fn validate(&self, query: &[f32], top_k: usize) -> Result<f32, VectorError> {
        self.check(query)?;
        if top_k == 0 {
            return Err(VectorError::TopK(top_k));
        }
        Ok(norm(query))
    }

    /// [`search`](Self::search) reading every `f32` row once.
    pub(super) fn search_scan(
        &self,
        query: &[f32],
        top_k: usize,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Vec<(K, f32)>, VectorError> {
        let nq = self.validate(query, top_k)?;
        let mut best: BinaryHeap<Candidate<'_, K>> = BinaryHeap::with_capacity(top_k + 1);
        for (row, key) in self.keys.iter().enumerate() {
            if !keep(key) {
                continue;
            }
            let (rank, score) = self.exact(query, nq, row);
            let c = Candidate { rank, key, score };
            if best.len() < top_k {
                best.push(c);
            } else if best.peek().is_some_and(|worst| c < *worst) {
                best.pop();
                best.push(c);
            }
        }
        Ok(self.finish(best.into_sorted_vec()))
    }

    /// [`search`](Self::search) in two passes, the first over the `i8`
    /// copy (whatever the set's size, for the tests).
    pub(super) fn search_two_pass(
        &self,
        query: &[f32],
        top_k: usize,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Vec<(K, f32)>, VectorError> {
        let nq = self.validate(query, top_k)?;
        let Some((qb, qcodes)) = self.query_bounds(query, nq) else {
            return self.search_scan(query, top_k, keep);
        };
        let stride = self.stride();

        // Pass 1: bounds on every row's rank, from the copy.
        let n = self.len();
        let mut bounds = vec![(0f32, 0f32); n];
        let kernel = kernel();
        let (codes, quant, norms) = (&self.codes, &self.quant, &self.norms);
        let pass1 = |first: usize, out: &mut [(f32, f32)]| {
            const BLOCK: usize = 256;
            let mut dots = [0i32; BLOCK];
            for (b, out) in out.chunks_mut(BLOCK).enumerate() {
                let start = first + b * BLOCK;
                let end = start + out.len();
                let dots = &mut dots[..out.len()];
                kernel(&qcodes, &codes[start * stride..end * stride], stride, dots);
                qb.block_bounds(dots, &quant[start..end], &norms[start..end], out);
            }
        };
        let parts = threads().min(n * stride / PARALLEL_BYTES).max(1);
        if parts == 1 {
            pass1(0, &mut bounds);
        } else {
            // Blocks handed out as the threads ask: on a busy machine a
            // thread that waits for a core leaves its share to the others.
            let blocks = Mutex::new(bounds.chunks_mut(BLOCK_ROWS).enumerate());
            let work = || {
                loop {
                    let next = blocks.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some((b, out)) = next else { break };
                    pass1(b * BLOCK_ROWS, out);
                }
            };
            std::thread::scope(|s| {
                for _ in 1..parts {
                    s.spawn(work);
                }
                work();
            });
        }

        // The threshold: the `top_k`-th best pessimistic bound among the
        // rows kept. A row whose optimistic bound is past it is behind
        // `top_k` rows, whatever its exact score.
        let mut worst: BinaryHeap<Bound> = BinaryHeap::with_capacity(top_k + 1);
        let mut threshold = f32::INFINITY;
        let mut candidates: Vec<usize> = Vec::new();
        for (row, &(lo, hi)) in bounds.iter().enumerate() {
            if lo > threshold || !keep(&self.keys[row]) {
                continue;
            }
            candidates.push(row);
            if worst.len() < top_k {
                worst.push(Bound(hi));
            } else if hi < threshold {
                worst.pop();
                worst.push(Bound(hi));
            } else {
                continue;
            }
            if worst.len() == top_k {
                threshold = worst.peek().map_or(f32::INFINITY, |b| b.0);
            }
        }

        // Pass 2: the exact scores of the candidates left.
        let mut best: Vec<Candidate<'_, K>> = candidates
            .into_iter()
            .filter(|&row| bounds[row].0 <= threshold)
            .map(|row| {
                let (rank, score) = self.exact(query, nq, row);
                Candidate {
                    rank,
                    key: &self.keys[row],
                    score,
                }
            })
            .collect();
        best.sort_unstable();
        best.truncate(top_k);
        Ok(self.finish(best))
    }
}
