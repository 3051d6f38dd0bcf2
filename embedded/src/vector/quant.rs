//! A row's `i8` copy, and the roundings of its bounds to `f32`.

/// A row's `i8` copy: `v ≈ scale * codes`, with `||v - scale * codes|| <=
/// error`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Quant {
    pub(super) scale: f32,
    pub(super) error: f32,
}

/// The `i8` copy of `v` into `out` (as long as `v` or longer, the rest
/// zeroed): each element `round(v[i] / scale)` with `scale = max |v[i]| /
/// 127`; returns the scale and the norm of the error, both computed in
/// `f64` from the `f32` scale actually used (so the error is a true bound
/// up to `f64` rounding, which the search's margins cover).
pub(super) fn quantize(v: &[f32], out: &mut [i8]) -> (f32, f64) {
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
pub(super) fn down(x: f64) -> f32 {
    (x - x.abs() * WIDEN - 1e-40) as f32
}

/// `x` (finite, or an overflow of `f64::MAX`) as an `f32` no smaller than
/// `x`.
#[inline(always)]
pub(super) fn up(x: f64) -> f32 {
    (x + x.abs() * WIDEN + 1e-40) as f32
}

/// `2^-22`: four times the relative rounding of a cast to `f32`.
const WIDEN: f64 = 1.0 / (1u64 << 22) as f64;
