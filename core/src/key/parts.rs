//! The key parts of the standard types: strings (escaped), characters,
//! booleans, integers (zero-padded so text order is numeric order), and
//! the `Verbatim` and `Unpadded` forms of published layouts.

use super::*;

impl KeyPart for str {
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        escape_into(self, out)
    }
    #[inline]
    fn size_hint(&self) -> usize {
        self.len()
    }
    #[inline]
    fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
        strip_escaped(self, stored)
    }
}

impl KeyPart for String {
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        escape_into(self, out)
    }
    #[inline]
    fn size_hint(&self) -> usize {
        self.len()
    }
    #[inline]
    fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
        strip_escaped(self, stored)
    }
}

impl KeyPartDecode for String {
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        unescape(segment)
    }
}

impl KeyPart for char {
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        escape_into(self.encode_utf8(&mut [0; 4]), out)
    }
}

impl KeyPartDecode for char {
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        let s = unescape(segment)?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(KeyError::Segment {
                segment: segment.to_owned(),
                expected: "char",
            }),
        }
    }
}

impl KeyPart for bool {
    const CARDINALITY: Option<u64> = Some(2);
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }
    #[inline]
    fn size_hint(&self) -> usize {
        5
    }
}

impl KeyPartDecode for bool {
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        match segment {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(KeyError::Segment {
                segment: segment.to_owned(),
                expected: "bool",
            }),
        }
    }
}

/// Writes `n` in decimal, left-padded with zeros to `width` digits.
pub(super) fn write_padded<N: itoa::Integer>(n: N, width: usize, out: &mut String) {
    // itoa in the value's own width (u128 division is slow) and the zeros
    // as one slice: several times faster than `write!` with a width, and
    // key building is on every write path and every key check.
    const ZEROS: &str = "000000000000000000000000000000000000000";
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n);
    let pad = width.saturating_sub(digits.len());
    out.reserve(pad + digits.len());
    out.push_str(&ZEROS[..pad.min(ZEROS.len())]);
    out.push_str(digits);
}

pub(super) fn segment_error(segment: &str, expected: &'static str) -> KeyError {
    KeyError::Segment {
        segment: segment.to_owned(),
        expected,
    }
}

/// Parses exactly `width` ASCII digits: as [`strip_padded`] reads them
/// when they fit a `u64`, else (a `u128`'s 39) with `str::parse`.
pub(super) fn read_digits(
    digits: &str,
    width: usize,
    expected: &'static str,
) -> Result<u128, KeyError> {
    let read = if digits.len() != width {
        None
    } else if let Some(n) = leading_digits(digits.as_bytes()) {
        Some(u128::from(n))
    } else if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse::<u128>().ok()
    } else {
        None
    };
    read.ok_or_else(|| segment_error(digits, expected))
}

macro_rules! unsigned_key_part {
    ($($t:ty => $width:expr),* $(,)?) => {$(
        impl KeyPart for $t {
            const WIDTH: Option<usize> = Some($width);
            fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
                write_padded(*self, $width, out);
                Ok(())
            }
            #[inline]
            fn size_hint(&self) -> usize {
                $width
            }
            #[inline]
            fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
                strip_padded(*self, $width, stored)
            }
        }
        impl KeyPartDecode for $t {
            fn read_key_part(segment: &str) -> Result<Self, KeyError> {
                let n = read_digits(segment, $width, stringify!($t))?;
                <$t>::try_from(n).map_err(|_| segment_error(segment, stringify!($t)))
            }
        }
    )*};
}

// Widths are the number of digits of the type's maximum.
unsigned_key_part!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, u128 => 39, usize => 20);

macro_rules! signed_key_part {
    ($($t:ty as $u:ty => $width:expr),* $(,)?) => {$(
        impl KeyPart for $t {
            fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
                if *self >= 0 {
                    write_padded(*self as $u, $width, out);
                } else {
                    // Distance from MIN: MIN -> 0, -1 -> MAX. Larger distance,
                    // larger number, and '-' sorts before every digit.
                    out.push('-');
                    let distance = (*self as $u).wrapping_sub(<$t>::MIN as $u);
                    write_padded(distance, $width, out);
                }
                Ok(())
            }
            #[inline]
            fn size_hint(&self) -> usize {
                $width + 1
            }
            #[inline]
            fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
                if *self >= 0 {
                    strip_padded(*self, $width, stored)
                } else {
                    let distance = (*self as $u).wrapping_sub(<$t>::MIN as $u);
                    strip_padded(distance, $width, stored.strip_prefix('-')?)
                }
            }
        }
        impl KeyPartDecode for $t {
            fn read_key_part(segment: &str) -> Result<Self, KeyError> {
                if let Some(digits) = segment.strip_prefix('-') {
                    let distance = read_digits(digits, $width, stringify!($t))?;
                    let distance = <$u>::try_from(distance)
                        .ok()
                        .filter(|d| *d <= <$t>::MAX as $u)
                        .ok_or_else(|| segment_error(segment, stringify!($t)))?;
                    Ok((<$t>::MIN as $u).wrapping_add(distance) as $t)
                } else {
                    let n = read_digits(segment, $width, stringify!($t))?;
                    <$t>::try_from(n).map_err(|_| segment_error(segment, stringify!($t)))
                }
            }
        }
    )*};
}

// Widths: digits of MAX (and of the largest distance, which equals MAX).
signed_key_part!(
    i8 as u8 => 3,
    i16 as u16 => 5,
    i32 as u32 => 10,
    i64 as u64 => 19,
    i128 as u128 => 39,
    isize as u64 => 19,
);

/// A string written into keys as is, without escaping: what
/// `#[attr(verbatim)]` makes of a field, for layouts whose other clients
/// write raw values (`DeviceID = "d#12345"`). Keys stay injective by
/// refusal instead of escaping: a value is refused with
/// [`KeyError::Delimiter`] when it holds `#` and its template goes on
/// after it (`LAST` is `false`); a value that ends its template may hold
/// anything but be empty. `%` is an ordinary character here.
///
/// ```
/// use singletable_core::key::{KeyReader, Verbatim};
/// use singletable::{KeyError, KeyPart, KeyPartDecode};
///
/// let mut key = String::new();
/// Verbatim::<_, true>("d#12345").write_key_part(&mut key)?;
/// assert_eq!(key, "d#12345");
/// let mut r = KeyReader::new("Device", "<id>", &key);
/// let id: Verbatim<String, true> = r.part().unwrap();
/// assert_eq!(id.0, "d#12345");
/// // Inside a template, `#` would split the segment: refused, never escaped.
/// assert_eq!(Verbatim::<_, false>("a#b").write_key_part(&mut key), Err(KeyError::Delimiter));
/// assert_eq!(Verbatim::<String, false>::read_key_part("50%")?.0, "50%");
/// # Ok::<(), KeyError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verbatim<T, const LAST: bool>(pub T);

/// The string types a [`Verbatim`] key part holds.
///
/// ```
/// use singletable_core::key::VerbatimStr;
///
/// assert_eq!(String::from("a#b").verbatim_str(), "a#b");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a verbatim key part",
    label = "`#[attr(verbatim)]` applies to `String` fields",
    note = "verbatim key parts are strings stored as is; other types have their own key encoding"
)]
pub trait VerbatimStr {
    /// The text written into the key.
    fn verbatim_str(&self) -> &str;
}

impl VerbatimStr for String {
    fn verbatim_str(&self) -> &str {
        self
    }
}

impl VerbatimStr for str {
    fn verbatim_str(&self) -> &str {
        self
    }
}

impl<T: VerbatimStr + ?Sized> VerbatimStr for &T {
    fn verbatim_str(&self) -> &str {
        (**self).verbatim_str()
    }
}

impl<T: VerbatimStr, const LAST: bool> KeyPart for Verbatim<T, LAST> {
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        let value = self.0.verbatim_str();
        if value.is_empty() {
            return Err(KeyError::Empty);
        }
        if !LAST && value.contains(DELIMITER) {
            return Err(KeyError::Delimiter);
        }
        out.push_str(value);
        Ok(())
    }
    #[inline]
    fn size_hint(&self) -> usize {
        self.0.verbatim_str().len()
    }
}

impl<T: VerbatimStr + From<String>, const LAST: bool> KeyPartDecode for Verbatim<T, LAST> {
    const REST: bool = LAST;
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        if segment.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self(T::from(segment.to_owned())))
    }
}

/// An integer written in plain decimal, without the zero padding that
/// keeps integer key parts in numeric order: what `#[attr(unpadded)]`
/// makes of a field, for layouts such as `v1`, `v2`, … `v10`. Such keys
/// sort as text (`v10` before `v2`), which the design document warns
/// about; reading accepts the canonical spelling only (no leading zeros,
/// no `+`, no `-0`), so each key reads back to one value.
///
/// ```
/// use singletable::key::Unpadded;
/// use singletable::{KeyPart, KeyPartDecode};
///
/// let mut key = String::from("v");
/// Unpadded(12u32).write_key_part(&mut key)?;
/// assert_eq!(key, "v12");
/// assert_eq!(Unpadded::<u32>::read_key_part("12")?.0, 12);
/// assert!(Unpadded::<u32>::read_key_part("012").is_err()); // not how 12 is written
/// assert!(Unpadded::<std::num::NonZeroU32>::read_key_part("0").is_err());
/// # Ok::<(), singletable::KeyError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpadded<T>(pub T);

/// The integer types an [`Unpadded`] key part holds.
///
/// ```
/// use singletable_core::key::UnpaddedInt;
///
/// let mut s = String::new();
/// 7u8.write_unpadded(&mut s);
/// assert_eq!(s, "7");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an unpadded key part",
    label = "`#[attr(unpadded)]` applies to integer fields",
    note = "unpadded key parts are integers (and `NonZero` integers) written in plain decimal"
)]
pub trait UnpaddedInt {
    /// Appends the value in plain decimal.
    fn write_unpadded(&self, out: &mut String);
}

/// The integer types an [`Unpadded`] key part reads back.
///
/// ```
/// use singletable_core::key::UnpaddedDecode;
///
/// assert_eq!(u8::read_unpadded("7"), Some(7));
/// assert_eq!(u8::read_unpadded("07"), None);
/// assert_eq!(i8::read_unpadded("-0"), None);
/// ```
pub trait UnpaddedDecode: UnpaddedInt + Sized {
    /// Reads the canonical decimal spelling of a value, `None` otherwise.
    fn read_unpadded(segment: &str) -> Option<Self>;
}

/// Whether `s` is how Rust's `Display` writes an integer: digits without
/// leading zeros, `-` only before a nonzero value.
fn canonical_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = digits == "0" || (!digits.is_empty() && !digits.starts_with('0'));
    canonical && digits.bytes().all(|b| b.is_ascii_digit()) && s != "-0"
}

macro_rules! unpadded_int {
    ($($t:ty),* $(,)?) => {$(
        impl UnpaddedInt for $t {
            fn write_unpadded(&self, out: &mut String) {
                out.push_str(itoa::Buffer::new().format(*self));
            }
        }
        impl UnpaddedDecode for $t {
            fn read_unpadded(segment: &str) -> Option<Self> {
                if canonical_decimal(segment) { segment.parse().ok() } else { None }
            }
        }
    )*};
}

unpadded_int!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

macro_rules! unpadded_nonzero {
    ($($t:ty => $inner:ty),* $(,)?) => {$(
        impl UnpaddedInt for $t {
            fn write_unpadded(&self, out: &mut String) {
                self.get().write_unpadded(out);
            }
        }
        impl UnpaddedDecode for $t {
            fn read_unpadded(segment: &str) -> Option<Self> {
                <$inner>::read_unpadded(segment).and_then(<$t>::new)
            }
        }
    )*};
}

unpadded_nonzero!(
    core::num::NonZeroU8 => u8,
    core::num::NonZeroU16 => u16,
    core::num::NonZeroU32 => u32,
    core::num::NonZeroU64 => u64,
    core::num::NonZeroU128 => u128,
    core::num::NonZeroUsize => usize,
);

impl<T: UnpaddedInt + ?Sized> UnpaddedInt for &T {
    fn write_unpadded(&self, out: &mut String) {
        (**self).write_unpadded(out);
    }
}

impl<T: UnpaddedInt> KeyPart for Unpadded<T> {
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        self.0.write_unpadded(out);
        Ok(())
    }
    #[inline]
    fn size_hint(&self) -> usize {
        8
    }
}

impl<T: UnpaddedDecode> KeyPartDecode for Unpadded<T> {
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        T::read_unpadded(segment)
            .map(Unpadded)
            .ok_or_else(|| segment_error(segment, "unpadded integer"))
    }
}
