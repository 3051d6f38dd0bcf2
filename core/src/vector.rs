//! Vectors as every executor reads them: the distance functions of
//! DynamoDB's vector indexes and their scores, the check of a vector
//! against an index, and a vector's attribute value. The one
//! implementation the typed search, the embedded backend and the endpoint
//! share; the facade's `vector` module re-exports it beside the typed API.
//!
//! ```
//! use singletable_core::vector::{Distance, dot};
//! assert_eq!(dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
//! assert_eq!(Distance::DotProduct.score(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
//! ```

pub use crate::error::VectorProblem;
pub use crate::request::{MAX_TOP_K, ScoredItem, SearchVectors};
use crate::value::AttributeValue;

/// A distance function of a vector index (`DistanceFunction`).
///
/// ```
/// use singletable::vector::Distance;
/// assert_eq!(Distance::Euclidean.score(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
/// assert_eq!(Distance::DotProduct.score(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// assert_eq!(Distance::Cosine.score(&[1.0, 0.0], &[-2.0, 0.0]), 2.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Distance {
    /// `COSINE`: `1 - cos`, smaller is closer.
    Cosine,
    /// `EUCLIDEAN`: the distance, smaller is closer.
    Euclidean,
    /// `DOT_PRODUCT`: larger is closer.
    DotProduct,
}

impl Distance {
    /// DynamoDB's name of the function.
    ///
    /// ```
    /// assert_eq!(singletable::vector::Distance::DotProduct.name(), "DOT_PRODUCT");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Distance::Cosine => "COSINE",
            Distance::Euclidean => "EUCLIDEAN",
            Distance::DotProduct => "DOT_PRODUCT",
        }
    }

    /// The function DynamoDB names `name`.
    ///
    /// ```
    /// use singletable::vector::Distance;
    /// assert_eq!(Distance::from_name("EUCLIDEAN"), Some(Distance::Euclidean));
    /// assert_eq!(Distance::from_name("cosine"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        [Distance::Cosine, Distance::Euclidean, Distance::DotProduct]
            .into_iter()
            .find(|d| d.name() == name)
    }

    /// Whether a smaller score is more similar (all but `DOT_PRODUCT`).
    ///
    /// ```
    /// assert!(singletable::vector::Distance::Cosine.smaller_is_closer());
    /// ```
    pub const fn smaller_is_closer(self) -> bool {
        !matches!(self, Distance::DotProduct)
    }

    /// The score of `v` against the query `q` (of the same length), as
    /// DynamoDB reports it.
    ///
    /// ```
    /// use singletable::vector::Distance;
    /// assert_eq!(Distance::Cosine.score(&[1.0, 1.0], &[2.0, 2.0]), 0.0);
    /// assert_eq!(Distance::Cosine.score(&[1.0, 1.0], &[0.0, 0.0]), 1.0); // no direction
    /// ```
    ///
    /// Computed in `f32`, and again in `f64` when that overflows (elements
    /// near `f32::MAX`): never `NaN` for finite vectors. A dot product or a
    /// distance beyond `f32`'s range is infinite, a cosine distance always
    /// in `[0, 2]`.
    ///
    /// ```
    /// use singletable::vector::Distance;
    /// let big = [3.0e38f32, 3.0e38];
    /// assert_eq!(Distance::Cosine.score(&big, &big), 0.0);
    /// assert_eq!(Distance::DotProduct.score(&big, &big), f32::INFINITY);
    /// assert_eq!(Distance::Euclidean.score(&[3.0e38], &[-3.0e38]), f32::INFINITY);
    /// assert_eq!(Distance::Euclidean.score(&[3.0e20], &[-3.0e20]), 6.0e20);
    /// ```
    pub fn score(self, q: &[f32], v: &[f32]) -> f32 {
        let narrow = match self {
            Distance::Cosine => {
                let (d, nq, nv) = (dot(q, v), dot(q, q).sqrt(), dot(v, v).sqrt());
                (d.is_finite() && (nq * nv).is_finite()).then(|| cosine(d, nq, nv))
            }
            Distance::Euclidean => Some(squared_distance(q, v).sqrt()).filter(|s| s.is_finite()),
            Distance::DotProduct => Some(dot(q, v)).filter(|s| s.is_finite()),
        };
        narrow.unwrap_or_else(|| self.wide_score(q, v))
    }

    /// [`score`](Self::score) computed in `f64` throughout: what it is
    /// when the `f32` computation overflows. Finite vectors never give
    /// `NaN`; a result beyond `f32`'s range is infinite.
    ///
    /// ```
    /// use singletable::vector::Distance;
    /// assert_eq!(Distance::Euclidean.wide_score(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
    /// ```
    pub fn wide_score(self, q: &[f32], v: &[f32]) -> f32 {
        let wide = |a: &[f32], b: &[f32]| -> f64 {
            a.iter()
                .zip(b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum()
        };
        match self {
            Distance::Cosine => {
                let (nq, nv) = (wide(q, q).sqrt(), wide(v, v).sqrt());
                if nq == 0.0 || nv == 0.0 {
                    return 1.0;
                }
                (1.0 - wide(q, v) / nq / nv).clamp(0.0, 2.0) as f32
            }
            Distance::Euclidean => {
                let squared: f64 = q
                    .iter()
                    .zip(v)
                    .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
                    .sum();
                squared.sqrt() as f32
            }
            Distance::DotProduct => wide(q, v) as f32,
        }
    }
}

/// The cosine distance from a dot product and the two norms: 1 when either
/// vector is zero.
///
/// ```
/// assert_eq!(singletable_core::vector::cosine(0.0, 1.0, 1.0), 1.0);
/// assert_eq!(singletable_core::vector::cosine(1.0, 0.0, 1.0), 1.0);
/// ```
#[inline]
pub fn cosine(dot: f32, nq: f32, nv: f32) -> f32 {
    if nq == 0.0 || nv == 0.0 {
        return 1.0;
    }
    (1.0 - dot / (nq * nv)).clamp(0.0, 2.0)
}

/// The dot product, in eight lanes of partial sums (the loop the compiler
/// vectorizes).
///
/// ```
/// assert_eq!(singletable_core::vector::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
/// ```
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// The squared Euclidean distance, in eight lanes.
///
/// ```
/// assert_eq!(singletable_core::vector::squared_distance(&[0.0, 0.0], &[3.0, 4.0]), 25.0);
/// ```
#[inline]
pub fn squared_distance(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            let d = x[i] - y[i];
            acc[i] += d * d;
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| (x - y) * (x - y)).sum();
    acc.iter().sum::<f32>() + tail
}

/// Checks a vector against an index of `dims` dimensions: its length, and
/// finite elements. The one check of the write path, the typed search and
/// the embedded backend.
///
/// ```
/// assert!(singletable_core::vector::check_vector(&[0.5, 1.0], 2).is_ok());
/// ```
pub fn check_vector(vector: &[f32], dims: usize) -> Result<(), VectorProblem> {
    if vector.len() != dims {
        return Err(VectorProblem::Dimensions {
            expected: dims,
            found: vector.len(),
        });
    }
    match vector.iter().position(|x| !x.is_finite()) {
        Some(at) => Err(VectorProblem::NotFinite { at }),
        None => Ok(()),
    }
}

/// The attribute value of a vector (a list of numbers), as DynamoDB stores
/// it; `None` when an element is not finite.
///
/// ```
/// use singletable::AttributeValue;
/// let v = singletable_core::vector::to_attribute(&[0.5, 2.0]).unwrap();
/// assert_eq!(v, AttributeValue::L(vec![AttributeValue::N("0.5".into()), AttributeValue::N("2.0".into())]));
/// ```
pub fn to_attribute(vector: &[f32]) -> Option<AttributeValue> {
    let mut out = Vec::with_capacity(vector.len());
    for x in vector {
        if !x.is_finite() {
            return None;
        }
        out.push(AttributeValue::N(
            ryu::Buffer::new().format_finite(*x).to_owned(),
        ));
    }
    Some(AttributeValue::L(out))
}

/// A vector read from an attribute value: a list of numbers, each read as
/// an `f32`; `None` when the value is anything else.
///
/// ```
/// use singletable::AttributeValue;
/// let v = AttributeValue::L(vec![AttributeValue::N("1".into()), AttributeValue::N("-2.5".into())]);
/// assert_eq!(singletable_core::vector::from_attribute(&v), Some(vec![1.0, -2.5]));
/// assert_eq!(singletable_core::vector::from_attribute(&AttributeValue::S("x".into())), None);
/// ```
pub fn from_attribute(value: &AttributeValue) -> Option<Vec<f32>> {
    let AttributeValue::L(list) = value else {
        return None;
    };
    list.iter().map(element).collect()
}

/// One element of a stored or searched vector: a number that is a finite
/// 32-bit float; `None` for anything else. The one reading of vector
/// elements (the embedded backend's writes and searches, the endpoint's
/// `SearchVector`).
///
/// ```
/// use singletable::AttributeValue;
/// use singletable_core::vector::element;
/// assert_eq!(element(&AttributeValue::N("0.25".into())), Some(0.25));
/// assert_eq!(element(&AttributeValue::N("1e39".into())), None); // not a finite f32
/// assert_eq!(element(&AttributeValue::S("1".into())), None);
/// ```
pub fn element(value: &AttributeValue) -> Option<f32> {
    match value {
        AttributeValue::N(n) => n.parse::<f32>().ok().filter(|x| x.is_finite()),
        _ => None,
    }
}
