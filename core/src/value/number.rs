//! Numbers as `N`: integers and `NonZero` integers (range-checked on
//! read, at most 38 significant digits on write) and floats (finite, within
//! DynamoDB's magnitudes), with the fast path that reads plain decimals.

use super::*;

/// DynamoDB numbers keep at most 38 significant digits and it rejects a
/// number with more; only 128-bit integers can have them.
const MAX_SIGNIFICANT_DIGITS: usize = 38;

#[cold]
fn check_precision(text: &str) -> Result<(), EncodeError> {
    let digits = text.trim_start_matches('-').trim_end_matches('0');
    if digits.len() > MAX_SIGNIFICANT_DIGITS {
        Err(EncodeError::new(format!(
            "{text} has more than {MAX_SIGNIFICANT_DIGITS} significant digits; DynamoDB numbers keep at most {MAX_SIGNIFICANT_DIGITS}"
        )))
    } else {
        Ok(())
    }
}

/// Parses a DynamoDB number's text into a Rust number type.
trait ParseN: Sized {
    fn parse_n(text: &str) -> Result<Self, DecodeError>;
}

macro_rules! integer_attr {
    ($($t:ty),*) => {$(
        impl ParseN for $t {
            #[inline]
            fn parse_n(text: &str) -> Result<Self, DecodeError> {
                text.parse::<$t>().map_err(|_| integer_error(text, stringify!($t)))
            }
        }

        impl Attr for $t {
            const DYNAMODB_TYPE: Option<&'static str> = Some("N");
            #[inline]
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                let mut buf = itoa::Buffer::new();
                let text = buf.format(*self);
                if text.len() > MAX_SIGNIFICANT_DIGITS {
                    check_precision(text)?;
                }
                Ok(AttributeValue::N(text.to_owned()))
            }
            #[inline]
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                match value {
                    AttributeValue::N(n) => Self::parse_n(&n),
                    other => Err(wrong_type(concat!("N (", stringify!($t), ")"), &other)),
                }
            }
            #[inline]
            fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
                match value.as_n() {
                    Some(n) => Self::parse_n(n),
                    None => Err(value.wrong_type(concat!("N (", stringify!($t), ")"))),
                }
            }
        }
    )*};
}

integer_attr!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

macro_rules! nonzero_attr {
    ($($t:ty => $inner:ty),*) => {$(
        impl Attr for $t {
            const DYNAMODB_TYPE: Option<&'static str> = Some("N");
            #[inline]
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                self.get().to_attr()
            }
            #[inline]
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                let n = <$inner>::from_attr(value)?;
                <$t>::new(n).ok_or_else(|| integer_error("0", stringify!($t)))
            }
            #[inline]
            fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
                let n = <$inner>::from_attr_ref(value)?;
                <$t>::new(n).ok_or_else(|| integer_error("0", stringify!($t)))
            }
        }
    )*};
}

nonzero_attr!(
    core::num::NonZeroU8 => u8,
    core::num::NonZeroU16 => u16,
    core::num::NonZeroU32 => u32,
    core::num::NonZeroU64 => u64,
    core::num::NonZeroU128 => u128,
    core::num::NonZeroUsize => usize
);

/// DynamoDB numbers have a magnitude between 1E-130 and 9.99…E+125.
fn float_in_range(x: f64) -> bool {
    x == 0.0 || (x.abs() < 1e126 && x.abs() >= 1e-130)
}

/// Exact powers of ten as `f64` (every one up to 1e22 is).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `text` as an `f64` when it is a plain decimal (`-12.5`: digits, at most
/// one point, no exponent) whose digits make an integer of at most 2^53
/// with at most 22 of them after the point, as most stored numbers are:
/// that integer and the power of ten are then exact, and one division of
/// exact operands is correctly rounded, as `str::parse` is (Clinger's fast
/// path), in a fraction of its time. `None` for any other text.
///
/// ```
/// # use singletable::{Attr, AttributeValue};
/// for text in ["0.5", "-12.25", "3", "0.1", "-0", "007.50", "1.", ".5", "1e3", "123456789012345678901234"] {
///     assert_eq!(f64::from_attr(AttributeValue::N(text.into()))?.to_bits(), text.parse::<f64>()?.to_bits());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
fn plain_f64(text: &str) -> Option<f64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        bytes => (false, bytes),
    };
    let (mut m, mut scale, mut point, mut any) = (0u64, 0usize, false, false);
    for &b in digits {
        if b.is_ascii_digit() {
            m = m.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            any = true;
            scale += usize::from(point);
        } else if b == b'.' && !point {
            point = true;
        } else {
            return None;
        }
    }
    if !any || m > 1 << 53 {
        return None;
    }
    let x = m as f64 / *POW10.get(scale)?;
    Some(if negative { -x } else { x })
}

macro_rules! float_attr {
    ($($t:ty => $fast:expr),*) => {$(
        impl ParseN for $t {
            #[inline]
            fn parse_n(text: &str) -> Result<Self, DecodeError> {
                let fast: fn(&str) -> Option<$t> = $fast;
                if let Some(x) = fast(text) {
                    return Ok(x);
                }
                match text.parse::<$t>() {
                    Ok(x) if x.is_finite() => Ok(x),
                    _ => Err(DecodeError::new(DecodeErrorKind::InvalidNumber {
                        value: text.to_owned(),
                        ty: stringify!($t),
                    })),
                }
            }
        }

        impl Attr for $t {
            const DYNAMODB_TYPE: Option<&'static str> = Some("N");
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                if !self.is_finite() {
                    return Err(EncodeError::new(format!(
                        "{} is not a finite number; DynamoDB stores only finite numbers",
                        self
                    )));
                }
                if !float_in_range(f64::from(*self)) {
                    return Err(EncodeError::new(format!(
                        "{:e} is outside DynamoDB's number range (1e-130 to 9.99e125)",
                        self
                    )));
                }
                // `ryu` prints the shortest text that reads back to the same float.
                Ok(AttributeValue::N(ryu::Buffer::new().format_finite(*self).to_owned()))
            }
            #[inline]
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                match value {
                    AttributeValue::N(n) => Self::parse_n(&n),
                    other => Err(wrong_type(concat!("N (", stringify!($t), ")"), &other)),
                }
            }
            #[inline]
            fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
                match value.as_n() {
                    Some(n) => Self::parse_n(n),
                    None => Err(value.wrong_type(concat!("N (", stringify!($t), ")"))),
                }
            }
        }
    )*};
}

// f32 reads every text with `str::parse`: a fast path through f64 would
// round twice.
float_attr!(f32 => |_| None, f64 => plain_f64);

#[cfg(test)]
mod tests {
    use super::plain_f64;

    /// Every text the fast path reads, it reads as `str::parse` does, bit
    /// for bit: plain decimals of every length around 2^53 and scales
    /// around 22 digits, both signs.
    #[test]
    fn plain_decimals_read_as_str_parse_reads_them() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut fast = 0;
        for i in 0..200_000u32 {
            let digits = next() % 56;
            let m = next() >> digits.min(63);
            let scale = (next() % 25) as usize;
            let mut text = m.to_string();
            if scale > 0 {
                if text.len() <= scale {
                    text = format!("{}{text}", "0".repeat(scale + 1 - text.len()));
                }
                text.insert(text.len() - scale, '.');
            }
            if i % 2 == 1 {
                text.insert(0, '-');
            }
            let parsed: f64 = text.parse().expect("a decimal");
            if let Some(x) = plain_f64(&text) {
                assert_eq!(x.to_bits(), parsed.to_bits(), "{text}");
                fast += 1;
            }
        }
        // Most of them take the fast path (the rest have over 2^53).
        assert!(fast > 100_000, "{fast}");
        for text in ["", "-", ".", "1e5", "+1", "1.2.3", "inf", "NaN", "0x10"] {
            assert_eq!(plain_f64(text), None, "{text}");
        }
    }
}
