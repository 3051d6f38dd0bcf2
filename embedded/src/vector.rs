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

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::hash::Hash;
use std::sync::Mutex;

/// A distance function of a vector index: the runtime's, whose
/// [`score`](Distance::score) is the one implementation of DynamoDB's
/// scores.
///
/// ```
/// use singletable_embedded::vector::Distance;
/// assert_eq!(Distance::Euclidean.score(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
/// ```
pub use singletable_core::vector::Distance;
use singletable_core::vector::{check_vector, cosine, dot, squared_distance};

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

/// A row's `i8` copy: `v ≈ scale * codes`, with `||v - scale * codes|| <=
/// error`.
#[derive(Debug, Clone, Copy)]
struct Quant {
    scale: f32,
    error: f32,
}

/// The `i8` copy of `v` into `out` (as long as `v` or longer, the rest
/// zeroed): each element `round(v[i] / scale)` with `scale = max |v[i]| /
/// 127`; returns the scale and the norm of the error, both computed in
/// `f64` from the `f32` scale actually used (so the error is a true bound
/// up to `f64` rounding, which the search's margins cover).
fn quantize(v: &[f32], out: &mut [i8]) -> (f32, f64) {
    out.fill(0);
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = max / 127.0;
    if !scale.is_normal() {
        // Zero or too small to scale: the copy is zero, the error the norm.
        let e: f64 = v.iter().map(|x| f64::from(*x).powi(2)).sum();
        return (0.0, e.sqrt());
    }
    let s = f64::from(scale);
    let mut e = 0f64;
    for (x, c) in v.iter().zip(out.iter_mut()) {
        let x = f64::from(*x);
        let q = (x / s).round().clamp(-127.0, 127.0);
        *c = q as i8;
        e += (x - s * q).powi(2);
    }
    (scale, e.sqrt())
}

/// `x` (finite, or an overflow of `f64::MIN`) as an `f32` no greater than
/// `x`: widened by more than the cast's rounding (half an ulp, or an
/// absolute `2^-150` below `f32`'s normal numbers), without branches.
#[inline(always)]
fn down(x: f64) -> f32 {
    (x - x.abs() * WIDEN - 1e-40) as f32
}

/// `x` (finite, or an overflow of `f64::MAX`) as an `f32` no smaller than
/// `x`.
#[inline(always)]
fn up(x: f64) -> f32 {
    (x + x.abs() * WIDEN + 1e-40) as f32
}

/// `2^-22`: four times the relative rounding of a cast to `f32`.
const WIDEN: f64 = 1.0 / (1u64 << 22) as f64;

/// The dot product of two `i8` copies (of a length a multiple of 32): in
/// `i32`, exact (every product is at most 127², and a row is at most
/// [`MAX_QUANTIZED_DIMS`] long).
#[inline(always)]
fn idot_portable(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for i in 0..16 {
            acc[i] += i32::from(i16::from(x[i]) * i16::from(y[i]));
        }
    }
    acc.iter().sum()
}

/// Past this many dimensions the search reads the `f32` rows only (the
/// `i32` sums of the copy could overflow past 133,000).
const MAX_QUANTIZED_DIMS: usize = 65_536;

/// Below this many rows the search reads the `f32` rows only.
const MIN_QUANTIZED_ROWS: usize = 64;

/// The copy's bytes from which a search splits its first pass across
/// threads (the tests split small sets). The first pass is bound by memory
/// bandwidth: on the 2-core machine of the benchmarks, shared with other
/// work, two threads over 100,000 rows of 768 dimensions (77 MB) measured
/// no faster than one (5.3 to 6.0 ms against 6.0 to 6.8 ms, load average
/// 3.4), so a search splits only past 128 MB (about 170,000 such rows, 6
/// ms of one core), where a second core's bandwidth may pay.
#[cfg(not(test))]
const PARALLEL_BYTES: usize = 128 << 20;
#[cfg(test)]
const PARALLEL_BYTES: usize = 16 << 10;

/// The rows of a block of the first pass that a thread takes at a time
/// (about 40 µs of one core's work at 768 dimensions; fewer in the tests).
#[cfg(not(test))]
const BLOCK_ROWS: usize = 1024;
#[cfg(test)]
const BLOCK_ROWS: usize = 64;

/// The `i8` dot products of the query's copy with rows of codes.
type Kernel = fn(&[i8], &[i8], usize, &mut [i32]);

fn idots_portable(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
    for (row, o) in codes.chunks_exact(stride).zip(out) {
        *o = idot_portable(q, row);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::idots_portable`] with AVX2: `|q|` times `v` with `q`'s
    /// sign, in unsigned-by-signed byte products summed by pairs (at most
    /// 2 * 127², no saturation), then in `i32`.
    ///
    /// # Safety
    /// The CPU has AVX2; `q.len() == stride`, a multiple of 32.
    #[target_feature(enable = "avx2")]
    unsafe fn idots(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
        debug_assert!(q.len() == stride && stride.is_multiple_of(32));
        let ones = _mm256_set1_epi16(1);
        for (row, o) in codes.chunks_exact(stride).zip(out) {
            let mut acc0 = _mm256_setzero_si256();
            let mut acc1 = _mm256_setzero_si256();
            let mut j = 0;
            while j + 64 <= stride {
                // SAFETY: j + 64 <= stride == q.len() == row.len().
                let (q0, v0, q1, v1) = unsafe {
                    (
                        _mm256_loadu_si256(q.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(q.as_ptr().add(j + 32).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j + 32).cast()),
                    )
                };
                let p0 = _mm256_maddubs_epi16(_mm256_abs_epi8(q0), _mm256_sign_epi8(v0, q0));
                let p1 = _mm256_maddubs_epi16(_mm256_abs_epi8(q1), _mm256_sign_epi8(v1, q1));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
                acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(p1, ones));
                j += 64;
            }
            if j < stride {
                // SAFETY: j + 32 == stride.
                let (q0, v0) = unsafe {
                    (
                        _mm256_loadu_si256(q.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j).cast()),
                    )
                };
                let p0 = _mm256_maddubs_epi16(_mm256_abs_epi8(q0), _mm256_sign_epi8(v0, q0));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
            }
            let acc = _mm256_add_epi32(acc0, acc1);
            let s = _mm_add_epi32(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256::<1>(acc),
            );
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
            *o = _mm_cvtsi128_si32(s);
        }
    }

    /// [`idots`] behind a check of its contract, for [`super::Kernel`].
    pub(super) fn idots_checked(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
        assert!(q.len() == stride && stride.is_multiple_of(32));
        assert!(is_x86_feature_detected!("avx2"));
        // SAFETY: checked just above.
        unsafe { idots(q, codes, stride, out) }
    }
}

/// The fastest kernel this CPU runs.
fn kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        return avx2::idots_checked;
    }
    idots_portable
}

/// How many threads a large search splits its first pass across.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
            .min(8)
    })
}

/// What the first pass knows of the query.
struct QueryBounds {
    distance: Distance,
    /// The query's copy's scale (`f64`: any scale will do, the error is
    /// computed from it).
    scale: f64,
    /// `||q - scale * codes||`.
    error: f64,
    /// `||q||` and `||q||²` in `f64`.
    norm: f64,
    norm2: f64,
    /// The norm the exact pass uses for `COSINE` (`f32`).
    norm32: f32,
    /// A bound on the relative rounding error of the `f32` sums of the
    /// exact pass (twice the classical `γ` for their depth).
    rel: f64,
    /// A bound on their absolute error from underflow.
    tiny: f64,
}

impl QueryBounds {
    /// Bounds on the rank (the score, oriented smaller is closer) the
    /// exact pass computes for a row, from the `i8` dot product of the two
    /// copies: `q·v` is within `||q||·e_v + e_q·||v'||` of `q'·v'`
    /// (`||v'|| <= ||v|| + e_v`); the `f32` computation of the exact pass
    /// is within `rel` of the true value (relative to `||q||·||v||`, or to
    /// the squared distance), and the scores follow from the dot product.
    /// Rows too close to `f32`'s limits get no bounds (always rescored).
    #[cfg(test)]
    fn rank_bounds(&self, idot: i32, quant: Quant, norm32: f32) -> (f32, f32) {
        match self.distance {
            Distance::Cosine => self.bounds_as::<COSINE>(idot, quant, norm32),
            Distance::Euclidean => self.bounds_as::<EUCLIDEAN>(idot, quant, norm32),
            Distance::DotProduct => self.bounds_as::<DOT_PRODUCT>(idot, quant, norm32),
        }
    }

    /// [`rank_bounds`](Self::rank_bounds) with the distance function a
    /// constant (`D`), without branches.
    #[inline(always)]
    fn bounds_as<const D: u8>(&self, idot: i32, quant: Quant, norm32: f32) -> (f32, f32) {
        let cosine = D == COSINE;
        let nv = f64::from(norm32);
        let nv_hi = nv * (1.0 + self.rel);
        let reach = (self.norm + nv_hi) * (self.norm + nv_hi);
        // Also refuses NaN: `f32` sums near overflow, or near underflow.
        let mut bounded = reach <= 1e36 && nv >= 1e-15;
        let a = self.scale * f64::from(quant.scale) * f64::from(idot);
        let ev = f64::from(quant.error);
        // The true dot product is within `bq` of `a`.
        let bq = (self.norm * ev + self.error * (nv_hi + ev)) * (1.0 + 1e-6) + self.tiny;
        // The `f32` dot product is within `d` of `a`.
        let d = bq + self.rel * self.norm * nv_hi + self.tiny;
        let (lo, hi) = match D {
            DOT_PRODUCT => (-(a + d), -(a - d)),
            COSINE => {
                let p = self.norm32 * norm32; // as `cosine` computes it
                bounded &= p >= 1e-30;
                let inv = 1.0 / f64::from(p);
                let (xlo, xhi) = ((a - d) * inv, (a + d) * inv);
                // The division and the subtraction, rounded in `f32`.
                let w = (1.0 + xlo.abs().max(xhi.abs())) * 2f64.powi(-21);
                (
                    (1.0 - xhi - w).clamp(0.0, 2.0),
                    (1.0 - xlo + w).clamp(0.0, 2.0),
                )
            }
            _ => {
                let nv_lo = nv * (1.0 - self.rel);
                let t_lo = self.norm2 + nv_lo * nv_lo - 2.0 * (a + bq);
                let t_hi = self.norm2 + nv_hi * nv_hi - 2.0 * (a - bq);
                (
                    (t_lo.max(0.0) * (1.0 - self.rel) - self.tiny).max(0.0),
                    t_hi * (1.0 + self.rel) + self.tiny,
                )
            }
        };
        let lo = if bounded { down(lo) } else { f32::NEG_INFINITY };
        let hi = if bounded { up(hi) } else { f32::INFINITY };
        if cosine && norm32 == 0.0 {
            (1.0, 1.0) // `cosine` answers exactly 1
        } else {
            (lo, hi)
        }
    }

    /// [`rank_bounds`](Self::rank_bounds) of a block of rows, in a loop
    /// for each distance function.
    fn block_bounds(&self, dots: &[i32], quant: &[Quant], norms: &[f32], out: &mut [(f32, f32)]) {
        #[inline(always)]
        fn each<const D: u8>(
            qb: &QueryBounds,
            dots: &[i32],
            quant: &[Quant],
            norms: &[f32],
            out: &mut [(f32, f32)],
        ) {
            let rows = dots.iter().zip(quant).zip(norms);
            for (o, ((d, q), nv)) in out.iter_mut().zip(rows) {
                *o = qb.bounds_as::<D>(*d, *q, *nv);
            }
        }
        match self.distance {
            Distance::Cosine => each::<COSINE>(self, dots, quant, norms, out),
            Distance::Euclidean => each::<EUCLIDEAN>(self, dots, quant, norms, out),
            Distance::DotProduct => each::<DOT_PRODUCT>(self, dots, quant, norms, out),
        }
    }
}

/// The distance functions as constants of [`QueryBounds::bounds_as`].
const COSINE: u8 = 0;
const EUCLIDEAN: u8 = 1;
const DOT_PRODUCT: u8 = 2;

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

    /// The rank (the score, oriented so that smaller is closer) and the
    /// score of row `row`, as a brute force computes them.
    #[inline]
    fn exact(&self, query: &[f32], nq: f32, row: usize) -> (f32, f32) {
        let v = &self.data[row * self.dims..(row + 1) * self.dims];
        let score = match self.distance {
            Distance::Cosine => cosine(dot(query, v), nq, self.norms[row]),
            Distance::Euclidean => squared_distance(query, v),
            Distance::DotProduct => dot(query, v),
        };
        let rank = if self.distance.smaller_is_closer() {
            score
        } else {
            -score
        };
        (rank, score)
    }

    /// The results from the candidates sorted, most similar first.
    fn finish(&self, sorted: Vec<Candidate<'_, K>>) -> Vec<(K, f32)> {
        let euclidean = self.distance == Distance::Euclidean;
        sorted
            .into_iter()
            .map(|c| {
                let score = if euclidean { c.score.sqrt() } else { c.score };
                (c.key.clone(), score)
            })
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
    fn search_scan(
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

    /// What the first pass needs of the query: its bounds and its `i8`
    /// copy; none when the query is near `f32`'s limits (or zero, whose
    /// `COSINE` scores all tie), where bounds would gain nothing.
    fn query_bounds(&self, query: &[f32], nq: f32) -> Option<(QueryBounds, Vec<i8>)> {
        let norm: f64 = query
            .iter()
            .map(|x| f64::from(*x).powi(2))
            .sum::<f64>()
            .sqrt();
        if self.dims > MAX_QUANTIZED_DIMS || !(1e-15..=1e17).contains(&norm) || nq == 0.0 {
            return None;
        }
        let mut qcodes = vec![0i8; self.stride()];
        let (scale, error) = quantize(query, &mut qcodes);
        let qb = QueryBounds {
            distance: self.distance,
            scale: f64::from(scale),
            error,
            norm,
            norm2: norm * norm,
            norm32: nq,
            rel: (self.dims as f64 / 8.0 + 16.0) * f64::from(f32::EPSILON),
            tiny: self.dims as f64 * 1e-44,
        };
        Some((qb, qcodes))
    }

    /// [`search`](Self::search) in two passes, the first over the `i8`
    /// copy (whatever the set's size, for the tests).
    fn search_two_pass(
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

    /// A generator of awkward sets: uniform rows, small integers (exact
    /// copies, ties), duplicates, negated and scaled rows, zero rows.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        }
        fn vector(&mut self, dims: usize, earlier: &[Vec<f32>]) -> Vec<f32> {
            match self.below(12) {
                // Exactly or nearly what the `i8` copy holds: the bounds are
                // as tight as the `f32` rounding, equal dot products many.
                10 | 11 => {
                    let s = [1.0, 0.1, 0.37, 3.0][self.below(4)];
                    let mut v: Vec<f32> = (0..dims)
                        .map(|_| (self.below(7) as f32 - 3.0) * s)
                        .collect();
                    v[self.below(dims)] = 127.0 * s;
                    v
                }
                0 | 1 if !earlier.is_empty() => earlier[self.below(earlier.len())].clone(),
                2 if !earlier.is_empty() => {
                    let f = [-1.0, 0.5, 2.0, 1e-3, 1e3][self.below(5)];
                    earlier[self.below(earlier.len())]
                        .iter()
                        .map(|x| x * f)
                        .collect()
                }
                3 => (0..dims).map(|_| (self.below(5) as f32) - 2.0).collect(),
                4 if self.below(4) == 0 => vec![0.0; dims],
                5 => {
                    // Mostly zeros, a few spikes.
                    let mut v = vec![0.0; dims];
                    for _ in 0..3 {
                        v[self.below(dims)] = self.unit() * 10.0;
                    }
                    v
                }
                _ => (0..dims).map(|_| self.unit()).collect(),
            }
        }
    }

    /// The brute force over the same `f32` functions: every row's rank,
    /// sorted, ties by key.
    fn brute_force(
        vs: &[(u32, Vec<f32>)],
        q: &[f32],
        k: usize,
        d: Distance,
        keep: impl Fn(&u32) -> bool,
    ) -> Vec<(u32, f32)> {
        let nq = norm(q);
        let mut all: Vec<(f32, u32, f32)> = vs
            .iter()
            .filter(|(key, _)| keep(key))
            .map(|(key, v)| {
                let (rank, score) = match d {
                    Distance::Cosine => {
                        let s = cosine(dot(q, v), nq, norm(v));
                        (s, s)
                    }
                    Distance::Euclidean => {
                        let s = squared_distance(q, v);
                        (s, s)
                    }
                    Distance::DotProduct => {
                        let s = dot(q, v);
                        (-s, s)
                    }
                };
                (rank, *key, score)
            })
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter()
            .take(k)
            .map(|(_, key, s)| {
                (
                    key,
                    if d == Distance::Euclidean {
                        s.sqrt()
                    } else {
                        s
                    },
                )
            })
            .collect()
    }

    fn bits(r: &[(u32, f32)]) -> Vec<(u32, u32)> {
        r.iter().map(|(k, s)| (*k, s.to_bits())).collect()
    }

    #[test]
    fn two_pass_search_is_exact_on_random_sets() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for case in 0..120 {
            let d = [Distance::Cosine, Distance::Euclidean, Distance::DotProduct][case % 3];
            let dims = [1, 2, 3, 7, 31, 32, 33, 64, 100, 768][g.below(10)];
            let n = [1, 5, 64, 200, 700][g.below(5)];
            let mut set = VectorSet::new(dims, d);
            let mut vs: Vec<Vec<f32>> = Vec::new();
            for _ in 0..n {
                let v = g.vector(dims, &vs);
                vs.push(v);
            }
            // Keys in another order than the rows; some removed, some
            // replaced.
            let mut keyed: Vec<(u32, Vec<f32>)> = vs
                .into_iter()
                .enumerate()
                .map(|(i, v)| ((i as u32).wrapping_mul(2_654_435_761) % 100_000, v))
                .collect();
            keyed.sort_by_key(|(k, _)| *k);
            keyed.dedup_by_key(|(k, _)| *k);
            for (k, v) in &keyed {
                set.insert(*k, v).unwrap();
            }
            for _ in 0..n / 10 {
                let i = g.below(keyed.len());
                if g.below(2) == 0 {
                    assert!(set.remove(&keyed[i].0));
                    keyed.remove(i);
                } else {
                    let earlier: Vec<Vec<f32>> = keyed.iter().map(|(_, v)| v.clone()).collect();
                    let v = g.vector(dims, &earlier);
                    set.insert(keyed[i].0, &v).unwrap();
                    keyed[i].1 = v;
                }
                if keyed.is_empty() {
                    break;
                }
            }
            let earlier: Vec<Vec<f32>> = keyed.iter().map(|(_, v)| v.clone()).collect();
            for _ in 0..4 {
                let q = if g.below(4) == 0 && !earlier.is_empty() {
                    earlier[g.below(earlier.len())].clone()
                } else {
                    g.vector(dims, &earlier)
                };
                let k = [1, 2, 10, 100, 1000][g.below(5)];
                let m = 1 + g.below(4) as u32;
                let keep = |key: &u32| key.is_multiple_of(m);
                let want = brute_force(&keyed, &q, k, d, keep);
                let got = set.search_two_pass(&q, k, keep).unwrap();
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "case {case} {d:?} dims {dims} k {k} m {m}"
                );
                assert_eq!(bits(&set.search(&q, k, keep).unwrap()), bits(&want));
                assert_eq!(bits(&set.search_scan(&q, k, keep).unwrap()), bits(&want));
            }
        }
    }

    #[test]
    fn two_pass_search_reads_few_rows_exactly() {
        for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
            let vs = vectors(11, 3000, 96);
            let mut set = VectorSet::new(96, d);
            for (i, v) in vs.iter().enumerate() {
                set.insert(i as u32, v).unwrap();
            }
            let keyed: Vec<(u32, Vec<f32>)> = vs
                .into_iter()
                .enumerate()
                .map(|(i, v)| (i as u32, v))
                .collect();
            for q in vectors(12, 3, 96) {
                let mut asked = 0;
                let got = set
                    .search(&q, 10, |_| {
                        asked += 1;
                        true
                    })
                    .unwrap();
                assert_eq!(bits(&got), bits(&brute_force(&keyed, &q, 10, d, |_| true)));
                assert!(asked < 300, "{d:?}: asked about {asked} rows of 3000");
            }
        }
    }

    #[test]
    fn extreme_magnitudes_stay_exact() {
        for d in [Distance::Cosine, Distance::Euclidean, Distance::DotProduct] {
            let mut set = VectorSet::new(8, d);
            let mut keyed = Vec::new();
            let mut g = Gen(77);
            for i in 0..300u32 {
                let f = [1e-30, 1e-20, 1e-10, 1.0, 1e10, 1e18][g.below(6)];
                let v: Vec<f32> = (0..8).map(|_| g.unit() * f).collect();
                set.insert(i, &v).unwrap();
                keyed.push((i, v));
            }
            for f in [1e-30f32, 1e-12, 1.0, 1e12, 1e19] {
                let q: Vec<f32> = (0..8).map(|_| g.unit() * f).collect();
                let want = brute_force(&keyed, &q, 20, d, |_| true);
                assert_eq!(
                    bits(&set.search(&q, 20, |_| true).unwrap()),
                    bits(&want),
                    "{d:?} {f}"
                );
            }
        }
    }

    #[test]
    fn bounds_contain_the_exact_ranks() {
        let mut g = Gen(5);
        let mut checked = 0;
        for case in 0..60 {
            let d = [Distance::Cosine, Distance::Euclidean, Distance::DotProduct][case % 3];
            // Large dimensions of integers up to 127 (times a power of
            // two): the copy is exact, the `f32` sums round past 2^24.
            let exact_copy = case % 2 == 0;
            let dims = if exact_copy {
                [1100, 2048, 40][g.below(3)]
            } else {
                [3, 33, 300][g.below(3)]
            };
            let mut rows: Vec<Vec<f32>> = Vec::new();
            // Most vectors near one: large dot products.
            let base: Vec<f32> = (0..dims)
                .map(|_| (100 + g.below(28)) as f32 * if g.below(2) == 0 { 1.0 } else { -1.0 })
                .collect();
            let vector = |g: &mut Gen, rows: &[Vec<f32>]| {
                if exact_copy {
                    let s = [1.0, 0.5, 2.0f32.powi(-20), 2.0f32.powi(20)][g.below(4)];
                    let near = g.below(3) > 0;
                    let mut v: Vec<f32> = base
                        .iter()
                        .map(|b| match g.below(20) {
                            0 if near => -b,
                            1 if near => b + 1.0,
                            _ if near => *b,
                            0..7 => 127.0,
                            7..14 => -127.0,
                            _ => g.below(255) as f32 - 127.0,
                        } * s)
                        .collect();
                    v[0] = 127.0 * s;
                    v
                } else {
                    g.vector(dims, rows)
                }
            };
            let mut set = VectorSet::new(dims, d);
            for i in 0..40u32 {
                let v = vector(&mut g, &rows);
                set.insert(i, &v).unwrap();
                rows.push(v);
            }
            for _ in 0..3 {
                let q = vector(&mut g, &rows);
                let nq = norm(&q);
                let Some((qb, qcodes)) = set.query_bounds(&q, nq) else {
                    continue;
                };
                let stride = set.stride();
                for row in 0..set.len() {
                    let idot = idot_portable(&qcodes, &set.codes[row * stride..(row + 1) * stride]);
                    let (lo, hi) = qb.rank_bounds(idot, set.quant[row], set.norms[row]);
                    let (rank, _) = set.exact(&q, nq, row);
                    assert!(
                        lo <= rank && rank <= hi,
                        "case {case} {d:?} dims {dims}: {lo} <= {rank} <= {hi}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }

    #[test]
    fn the_kernels_agree() {
        let mut g = Gen(99);
        for stride in [32, 64, 96, 768] {
            let q: Vec<i8> = (0..stride)
                .map(|_| (g.below(255) as i32 - 127) as i8)
                .collect();
            let codes: Vec<i8> = (0..stride * 9)
                .map(|_| (g.below(255) as i32 - 127) as i8)
                .collect();
            let mut want = vec![0; 9];
            for (row, w) in codes.chunks_exact(stride).zip(&mut want) {
                *w = q
                    .iter()
                    .zip(row)
                    .map(|(a, b)| i32::from(*a) * i32::from(*b))
                    .sum();
            }
            let mut got = vec![0; 9];
            idots_portable(&q, &codes, stride, &mut got);
            assert_eq!(got, want);
            let mut got = vec![0; 9];
            kernel()(&q, &codes, stride, &mut got);
            assert_eq!(got, want);
        }
    }
}
