//! Exact nearest-neighbour search over `f32` vectors: the kernel the
//! embedded backend's vector indexes are built on (one set per part of an
//! index). Brute force over one contiguous
//! buffer, with the three distance functions DynamoDB's `SearchVectors`
//! documents and its scores:
//!
//! - `COSINE`: the cosine distance, `1 - cos(q, v)`, from 0 (same
//!   direction) to 2 (opposite); the smallest scores are the most similar.
//!   A zero vector has no direction: its cosine is taken as 0 (score 1).
//! - `EUCLIDEAN`: the Euclidean distance; the smallest are the most similar.
//! - `DOT_PRODUCT`: the dot product; the largest are the most similar.
//!
//! Results come most similar first; equal scores in key order (DynamoDB
//! documents no order for ties, so this one is ours, and stable).
//!
//! ```
//! use singletable_embedded::vector::{Distance, VectorSet};
//!
//! let mut set = VectorSet::new(2, Distance::Cosine);
//! set.insert("east", &[1.0, 0.0])?;
//! set.insert("north", &[0.0, 1.0])?;
//! set.insert("west", &[-1.0, 0.0])?;
//! let found = set.search(&[0.9, 0.1], 2, |_| true)?;
//! assert_eq!(found[0].0, "east");
//! assert_eq!(found[1].0, "north");
//! assert!(found[0].1 < found[1].1); // smaller cosine distance first
//! # Ok::<(), singletable_embedded::vector::VectorError>(())
//! ```

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::hash::Hash;

/// A distance function of a vector index: the runtime's, whose
/// [`score`](Distance::score) is the one implementation of DynamoDB's
/// scores.
///
/// ```
/// use singletable_embedded::vector::Distance;
/// assert_eq!(Distance::Euclidean.score(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
/// ```
pub use singletable_runtime::vector::Distance;
use singletable_runtime::vector::{check_vector, cosine, dot, squared_distance};

fn norm(a: &[f32]) -> f32 {
    dot(a, a).sqrt()
}

/// Why a vector or a search was refused.
///
/// ```
/// use singletable_embedded::vector::{Distance, VectorError, VectorSet};
/// let mut set = VectorSet::<u32>::new(3, Distance::Euclidean);
/// assert_eq!(set.insert(1, &[1.0]), Err(VectorError::Dimensions { expected: 3, found: 1 }));
/// assert_eq!(set.insert(1, &[1.0, f32::NAN, 0.0]), Err(VectorError::NotFinite { at: 1 }));
/// assert_eq!(set.search(&[0.0; 3], 0, |_| true), Err(VectorError::TopK(0)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum VectorError {
    /// The vector has another number of dimensions than the index.
    Dimensions {
        /// The index's.
        expected: usize,
        /// The vector's.
        found: usize,
    },
    /// An element is NaN or infinite.
    NotFinite {
        /// Its position.
        at: usize,
    },
    /// `TopK` is not a positive number.
    TopK(usize),
}

impl std::fmt::Display for VectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VectorError::Dimensions { expected, found } => write!(
                f,
                "the vector has {found} dimensions; the index has {expected}"
            ),
            VectorError::NotFinite { at } => {
                write!(f, "element {at} of the vector is not a finite number")
            }
            VectorError::TopK(k) => write!(f, "TopK must be at least 1, got {k}"),
        }
    }
}

impl std::error::Error for VectorError {}

/// Vectors of one index, each under a key, in one contiguous buffer (row
/// `i` at `data[i * dims..]`), with their norms for `COSINE`.
///
/// ```
/// use singletable_embedded::vector::{Distance, VectorSet};
/// let mut set = VectorSet::new(2, Distance::DotProduct);
/// set.insert(1u32, &[1.0, 0.0])?;
/// set.insert(2, &[2.0, 0.0])?;
/// set.insert(1, &[3.0, 0.0])?; // replaces
/// assert_eq!(set.len(), 2);
/// set.remove(&2);
/// assert_eq!(set.search(&[1.0, 0.0], 5, |_| true)?, [(1, 3.0)]);
/// # Ok::<(), singletable_embedded::vector::VectorError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VectorSet<K> {
    dims: usize,
    distance: Distance,
    data: Vec<f32>,
    norms: Vec<f32>,
    keys: Vec<K>,
    rows: HashMap<K, usize>,
}

/// A candidate in the bounded heap: the worst of the best `k` on top.
struct Candidate<'a, K> {
    /// The score, oriented so that smaller is closer.
    rank: f32,
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

impl<K: Ord + Hash + Clone> VectorSet<K> {
    /// An empty set of `dims`-dimensional vectors.
    ///
    /// ```
    /// let set = singletable_embedded::vector::VectorSet::<u8>::new(768, singletable_embedded::vector::Distance::Cosine);
    /// assert!(set.is_empty());
    /// ```
    pub fn new(dims: usize, distance: Distance) -> Self {
        Self {
            dims,
            distance,
            data: Vec::new(),
            norms: Vec::new(),
            keys: Vec::new(),
            rows: HashMap::new(),
        }
    }

    /// How many vectors it holds.
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// let mut set = VectorSet::new(1, Distance::Euclidean);
    /// set.insert('a', &[1.0])?;
    /// assert_eq!(set.len(), 1);
    /// # Ok::<(), singletable_embedded::vector::VectorError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds none.
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// assert!(VectorSet::<u8>::new(1, Distance::Euclidean).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Checks a vector against the set: its dimensions, finite elements.
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// let set = VectorSet::<u8>::new(2, Distance::Euclidean);
    /// assert!(set.check(&[1.0, f32::INFINITY]).is_err());
    /// assert!(set.check(&[1.0, 2.0]).is_ok());
    /// ```
    pub fn check(&self, vector: &[f32]) -> Result<(), VectorError> {
        use singletable_runtime::vector::VectorProblem;
        check_vector(vector, self.dims).map_err(|p| match p {
            VectorProblem::Dimensions { expected, found } => {
                VectorError::Dimensions { expected, found }
            }
            VectorProblem::NotFinite { at } => VectorError::NotFinite { at },
            VectorProblem::TopK(k) => VectorError::TopK(k as usize),
        })
    }

    /// Stores `vector` under `key`, replacing the key's vector if any.
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// let mut set = VectorSet::new(1, Distance::Euclidean);
    /// set.insert("k", &[1.0])?;
    /// set.insert("k", &[2.0])?;
    /// assert_eq!(set.search(&[2.0], 1, |_| true)?, [("k", 0.0)]);
    /// # Ok::<(), singletable_embedded::vector::VectorError>(())
    /// ```
    pub fn insert(&mut self, key: K, vector: &[f32]) -> Result<(), VectorError> {
        self.check(vector)?;
        let n = norm(vector);
        match self.rows.get(&key) {
            Some(&row) => {
                self.data[row * self.dims..(row + 1) * self.dims].copy_from_slice(vector);
                self.norms[row] = n;
            }
            None => {
                self.rows.insert(key.clone(), self.keys.len());
                self.keys.push(key);
                self.data.extend_from_slice(vector);
                self.norms.push(n);
            }
        }
        Ok(())
    }

    /// Removes the key's vector (the last row moves into its place).
    ///
    /// ```
    /// # use singletable_embedded::vector::{Distance, VectorSet};
    /// let mut set = VectorSet::new(1, Distance::Euclidean);
    /// set.insert(7, &[1.0])?;
    /// assert!(set.remove(&7));
    /// assert!(!set.remove(&7));
    /// # Ok::<(), singletable_embedded::vector::VectorError>(())
    /// ```
    pub fn remove(&mut self, key: &K) -> bool {
        let Some(row) = self.rows.remove(key) else {
            return false;
        };
        let last = self.keys.len() - 1;
        if row != last {
            let d = self.dims;
            self.data.copy_within(last * d..(last + 1) * d, row * d);
            self.norms[row] = self.norms[last];
            self.keys.swap(row, last);
            self.rows.insert(self.keys[row].clone(), row);
        }
        self.data.truncate(last * self.dims);
        self.norms.truncate(last);
        self.keys.truncate(last);
        true
    }

    /// The `top_k` vectors most similar to `query` among those whose key
    /// `keep` accepts, most similar first, each with its score.
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
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Vec<(K, f32)>, VectorError> {
        self.check(query)?;
        if top_k == 0 {
            return Err(VectorError::TopK(top_k));
        }
        let nq = norm(query);
        let mut best: BinaryHeap<Candidate<'_, K>> = BinaryHeap::with_capacity(top_k + 1);
        let rows = self.data.chunks_exact(self.dims.max(1));
        for ((v, &nv), key) in rows.zip(&self.norms).zip(&self.keys) {
            if !keep(key) {
                continue;
            }
            let score = match self.distance {
                Distance::Cosine => cosine(dot(query, v), nq, nv),
                Distance::Euclidean => squared_distance(query, v),
                Distance::DotProduct => dot(query, v),
            };
            let rank = if self.distance.smaller_is_closer() {
                score
            } else {
                -score
            };
            let c = Candidate { rank, key, score };
            if best.len() < top_k {
                best.push(c);
            } else if best.peek().is_some_and(|worst| c < *worst) {
                best.pop();
                best.push(c);
            }
        }
        let euclidean = self.distance == Distance::Euclidean;
        Ok(best
            .into_sorted_vec()
            .into_iter()
            .map(|c| {
                let score = if euclidean { c.score.sqrt() } else { c.score };
                (c.key.clone(), score)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), values in [-1, 1).
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

    /// The reference: every score in f64, sorted, ties by key.
    fn reference(vs: &[Vec<f32>], q: &[f32], k: usize, d: Distance) -> Vec<usize> {
        let f = |v: &[f32]| -> f64 {
            let dot: f64 = q
                .iter()
                .zip(v)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            let n = |x: &[f32]| x.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
            match d {
                Distance::Cosine => 1.0 - dot / (n(q) * n(v)),
                Distance::Euclidean => q
                    .iter()
                    .zip(v)
                    .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
                    .sum::<f64>()
                    .sqrt(),
                Distance::DotProduct => -dot,
            }
        };
        let mut all: Vec<(f64, usize)> = vs.iter().enumerate().map(|(i, v)| (f(v), i)).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(_, i)| i).collect()
    }

    #[test]
    fn search_matches_a_brute_force_reference() {
        for (seed, d) in [
            (1, Distance::Cosine),
            (2, Distance::Euclidean),
            (3, Distance::DotProduct),
        ] {
            let vs = vectors(seed, 500, 37);
            let mut set = VectorSet::new(37, d);
            for (i, v) in vs.iter().enumerate() {
                set.insert(i, v).unwrap();
            }
            for q in vectors(seed + 100, 5, 37) {
                let got: Vec<usize> = set
                    .search(&q, 10, |_| true)
                    .unwrap()
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect();
                assert_eq!(got, reference(&vs, &q, 10, d), "{d:?}");
                let odd: Vec<usize> = set
                    .search(&q, 3, |k| k % 2 == 1)
                    .unwrap()
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect();
                let vs_odd: Vec<(usize, &Vec<f32>)> =
                    vs.iter().enumerate().filter(|(i, _)| i % 2 == 1).collect();
                let want: Vec<usize> = reference(
                    &vs_odd.iter().map(|(_, v)| (*v).clone()).collect::<Vec<_>>(),
                    &q,
                    3,
                    d,
                )
                .into_iter()
                .map(|j| vs_odd[j].0)
                .collect();
                assert_eq!(odd, want, "{d:?} filtered");
            }
        }
    }

    #[test]
    fn ties_come_in_key_order_and_removal_keeps_rows() {
        let mut set = VectorSet::new(2, Distance::Euclidean);
        for k in [5u32, 3, 9, 1] {
            set.insert(k, &[1.0, 1.0]).unwrap();
        }
        let keys = |s: &VectorSet<u32>| {
            s.search(&[0.0, 0.0], 10, |_| true)
                .unwrap()
                .into_iter()
                .map(|(k, _)| k)
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(&set), [1, 3, 5, 9]);
        assert!(set.remove(&3));
        set.insert(3, &[0.0, 0.0]).unwrap();
        assert_eq!(keys(&set), [3, 1, 5, 9]);
    }
}
