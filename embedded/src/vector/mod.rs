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
//! Exact, and fast on large sets: beside the `f32` rows each vector has an
//! `i8` copy (a scale per row) and a bound on the copy's error. A search
//! first reads the copies (a quarter of the bytes, split across the cores
//! when the set is very large) and bounds every row's score, bounds proven to
//! hold the score the `f32` computation gives (the copies' errors by
//! Cauchy–Schwarz, the `f32` rounding by its classical bound, doubled);
//! then it computes, with the same `f32` functions as a brute force, the
//! scores of the few rows whose bounds could reach the best `top_k`. The
//! results, their order and their scores are a brute force's, bit for bit.
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

mod bounds;
mod kernel;
mod quant;
mod search;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::hash::Hash;

/// A distance function of a vector index: the runtime's, whose
/// [`score`](Distance::score) is the one implementation of DynamoDB's
/// scores.
///
/// ```
/// use singletable_embedded::vector::Distance;
/// assert_eq!(Distance::Euclidean.score(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
/// ```
pub use singletable_core::vector::Distance;
use singletable_core::vector::{check_vector, dot};

use quant::{Quant, quantize, up};

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
/// `i` at `data[i * dims..]`), with their norms for `COSINE`, and beside
/// them a compressed copy that a search reads first (see
/// [`search`](VectorSet::search)).
///
/// Memory: `4 * dims` bytes a vector for the `f32` row, plus
/// `dims` rounded up to a multiple of 32 bytes for its `i8` copy, plus 12
/// bytes (its norm, the copy's scale and error bound), plus the key twice
/// (in the row order and in the map from keys to rows). For 768
/// dimensions: 3,072 + 768 + 12 bytes, a quarter more than the `f32` rows
/// alone.
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
    /// The `i8` copy: row `i` at `codes[i * stride..]`, `stride` being
    /// `dims` rounded up to a multiple of 32 (the padding is zeros).
    codes: Vec<i8>,
    /// Per row: the copy's scale and the norm of its error.
    quant: Vec<Quant>,
    keys: Vec<K>,
    rows: HashMap<K, usize>,
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
            codes: Vec::new(),
            quant: Vec::new(),
            keys: Vec::new(),
            rows: HashMap::new(),
        }
    }

    /// The length of a row of the `i8` copy.
    fn stride(&self) -> usize {
        self.dims.next_multiple_of(32)
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
        use singletable_core::vector::VectorProblem;
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
        let stride = self.stride();
        let row = match self.rows.get(&key) {
            Some(&row) => {
                self.data[row * self.dims..(row + 1) * self.dims].copy_from_slice(vector);
                self.norms[row] = n;
                row
            }
            None => {
                let row = self.keys.len();
                self.rows.insert(key.clone(), row);
                self.keys.push(key);
                self.data.extend_from_slice(vector);
                self.norms.push(n);
                self.codes.resize((row + 1) * stride, 0);
                self.quant.push(Quant {
                    scale: 0.0,
                    error: 0.0,
                });
                row
            }
        };
        let (scale, error) = quantize(vector, &mut self.codes[row * stride..(row + 1) * stride]);
        self.quant[row] = Quant {
            scale,
            error: up(error),
        };
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
        let stride = self.stride();
        if row != last {
            let d = self.dims;
            self.data.copy_within(last * d..(last + 1) * d, row * d);
            self.codes
                .copy_within(last * stride..(last + 1) * stride, row * stride);
            self.norms[row] = self.norms[last];
            self.quant[row] = self.quant[last];
            self.keys.swap(row, last);
            self.rows.insert(self.keys[row].clone(), row);
        }
        self.data.truncate(last * self.dims);
        self.codes.truncate(last * stride);
        self.norms.truncate(last);
        self.quant.truncate(last);
        self.keys.truncate(last);
        true
    }
}
