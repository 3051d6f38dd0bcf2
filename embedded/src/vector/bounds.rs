//! What the first pass knows of the query: bounds on every row's rank
//! from the `i8` copies.

use std::hash::Hash;

use super::kernel::MAX_QUANTIZED_DIMS;
use super::quant::{Quant, down, quantize, up};
use super::{Distance, VectorSet};

/// What the first pass knows of the query.
pub(super) struct QueryBounds {
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
    pub(super) fn rank_bounds(&self, idot: i32, quant: Quant, norm32: f32) -> (f32, f32) {
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
    pub(super) fn block_bounds(
        &self,
        dots: &[i32],
        quant: &[Quant],
        norms: &[f32],
        out: &mut [(f32, f32)],
    ) {
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

impl<K: Ord + Hash + Clone> VectorSet<K> {
    /// What the first pass needs of the query: its bounds and its `i8`
    /// copy; none when the query is near `f32`'s limits (or zero, whose
    /// `COSINE` scores all tie), where bounds would gain nothing.
    pub(super) fn query_bounds(&self, query: &[f32], nq: f32) -> Option<(QueryBounds, Vec<i8>)> {
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
}
