//! The key codec: how field values become parts of composite key strings
//! such as `USER#ana%23admin#ORDER#00000000000000000042`, and back.
//!
//! # Encoding rules
//!
//! * Templates are literal text plus `<field>` placeholders; the derive checks
//!   at compile time that every placeholder is followed by the delimiter `#`
//!   or ends the template.
//! * A key part never contains a raw `#`: in strings the delimiter is escaped
//!   as `%23` and the escape character itself as `%25`. Nothing else is
//!   touched, so `USEREMAIL#ana@example.com` is stored verbatim and any other
//!   client can build the same key. Together with the rule above this makes
//!   keys **injective**: different field values never produce the same key,
//!   and a value can never forge another item's key or widen a prefix query.
//! * Empty values are an error (DynamoDB rejects empty key strings).
//! * Integers are zero-padded to the width of their type so that DynamoDB's
//!   byte-wise string order is numeric order. Negative numbers are written as
//!   `-` followed by the padded distance from the type's minimum, so they sort
//!   before every non-negative number and among themselves numerically.
//! * Timestamps (features `chrono`, `time`) are UTC ISO-8601 with nine
//!   fractional digits, `2024-05-01T12:00:00.000000000Z`, so text order is
//!   time order and no precision is lost; years outside 0000–9999 and leap
//!   seconds are refused, and keys are read in exactly this form.
//! * Partition keys are limited to 2048 bytes and sort keys to 1024 bytes.
//!
//! The derives generate one builder and one parser per template; this
//! module holds what they call, and what a hand-written [`KeyPart`] uses:
//!
//! ```
//! use singletable::key::{self, KeyPart, KeyPartDecode};
//!
//! // What `#[pk("USER#<name>#ORDER#<n>")]` builds for ("ana#admin", 42u64):
//! let mut pk = String::from("USER#");
//! "ana#admin".write_key_part(&mut pk)?;
//! pk.push_str("#ORDER#");
//! 42u64.write_key_part(&mut pk)?;
//! assert_eq!(pk, "USER#ana%23admin#ORDER#00000000000000000042");
//!
//! // Byte order is numeric order, negatives included.
//! let enc = |n: i32| { let mut s = String::new(); n.write_key_part(&mut s).map(|()| s) };
//! assert!(enc(-5)? < enc(-1)? && enc(-1)? < enc(0)? && enc(0)? < enc(7)?);
//! assert_eq!(i32::read_key_part(&enc(-5)?)?, -5);
//! assert!(key::MAX_SORT_KEY_BYTES < key::MAX_PARTITION_KEY_BYTES);
//! # Ok::<(), singletable::KeyError>(())
//! ```

use crate::error::{Error, KeyError};

/// The delimiter between key segments.
///
/// ```
/// use singletable::key::{DELIMITER, ESCAPE};
///
/// assert_eq!(DELIMITER, '#');
/// assert_eq!(ESCAPE, '%');
/// // Neither appears raw in an escaped value.
/// let mut out = String::new();
/// singletable::key::escape_into("50%#off", &mut out)?;
/// assert_eq!(out, "50%25%23off");
/// assert!(!out.contains(DELIMITER));
/// # Ok::<(), singletable::KeyError>(())
/// ```
pub const DELIMITER: char = '#';
/// The escape character for the delimiter inside values: `%23` is `#`,
/// `%25` is `%`.
///
/// ```
/// assert_eq!(singletable::key::unescape("50%25%23off")?, "50%#off");
/// # Ok::<(), singletable::KeyError>(())
/// ```
pub const ESCAPE: char = '%';
/// DynamoDB's limit for a partition key value, in bytes. The generated
/// builders refuse longer keys with [`Error::KeyTooLong`] before any
/// request is sent (DynamoDB would answer with a ValidationException).
///
/// ```
/// use singletable::{Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("DOC")]
/// pub struct Doc { pub id: String }
///
/// let long = "x".repeat(singletable::key::MAX_PARTITION_KEY_BYTES);
/// assert!(matches!(Doc::pk(&long), Err(Error::KeyTooLong { max: 2048, .. })));
/// ```
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// DynamoDB's limit for a sort key value, in bytes.
///
/// ```
/// use singletable::{Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC")]
/// #[sk("V#<id>")]
/// pub struct Doc { pub id: String }
///
/// let long = "x".repeat(singletable::key::MAX_SORT_KEY_BYTES);
/// assert!(matches!(Doc::sk(&long), Err(Error::KeyTooLong { max: 1024, .. })));
/// ```
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// A value that can be written as one segment of a composite key.
///
/// Implemented for strings, `char`, `bool`, every integer width, enums with
/// `#[derive(StrEnum)]`, and (behind features) uuids and timestamps.
/// Implement it (and [`KeyPartDecode`]) to put a type of your own into key
/// templates; escape strings with [`escape_into`] so the key stays
/// injective:
///
/// ```
/// use singletable::key::{escape_into, unescape, KeyPart, KeyPartDecode};
/// use singletable::{Entity, KeyError, Table};
///
/// /// An email address, keyed in lower case (the type decides; the
/// /// library never changes a value's case).
/// #[derive(Debug, Clone, PartialEq)]
/// pub struct Email(String);
///
/// impl KeyPart for Email {
///     fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
///         escape_into(&self.0.to_lowercase(), out)
///     }
/// }
/// impl KeyPartDecode for Email {
///     fn read_key_part(segment: &str) -> Result<Self, KeyError> {
///         unescape(segment).map(Email)
///     }
/// }
/// impl singletable::Attr for Email {
///     fn to_attr(&self) -> Result<singletable::AttributeValue, singletable::EncodeError> {
///         self.0.to_attr()
///     }
///     fn from_attr(v: singletable::AttributeValue) -> Result<Self, singletable::DecodeError> {
///         String::from_attr(v).map(Email)
///     }
/// }
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USEREMAIL#<email>")]
/// #[sk("USER")]
/// pub struct Login { pub email: Email }
///
/// assert_eq!(Login::pk(&Email("Ana@Example.com".into()))?, "USEREMAIL#ana@example.com");
/// assert_eq!(Login::parse_pk("USEREMAIL#ana@example.com")?, Email("ana@example.com".into()));
/// # Ok::<(), singletable::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be part of a DynamoDB key",
    label = "this type is used in a key template",
    note = "key parts are `String`, `char`, `bool`, integers, `#[derive(StrEnum)]` enums, and with features `uuid::Uuid` and UTC timestamps"
)]
pub trait KeyPart {
    /// Appends the encoded value to `out`. The encoding never contains a raw
    /// [`DELIMITER`].
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError>;

    /// About how many bytes [`write_key_part`](KeyPart::write_key_part)
    /// appends, so that key builders allocate the key once. Only a sizing
    /// hint: a wrong value costs a reallocation, nothing else.
    #[inline]
    fn size_hint(&self) -> usize {
        16
    }

    /// How many distinct values the type has, when small and known (`bool`:
    /// 2, a `StrEnum`: its variants). The design document warns about index
    /// partition keys built only from such values.
    const CARDINALITY: Option<u64> = None;

    /// The length in bytes of every value's encoding, when all values
    /// encode to the same length (`u32`: ten digits; `None` when lengths
    /// vary). The cross-entity checks read it: `v<n: u32>` is never the
    /// constant `v0`.
    ///
    /// ```
    /// use singletable::KeyPart;
    ///
    /// assert_eq!(<u32 as KeyPart>::WIDTH, Some(10));
    /// assert_eq!(<String as KeyPart>::WIDTH, None);
    /// ```
    const WIDTH: Option<usize> = None;

    /// When `stored` begins with what [`write_key_part`](KeyPart::write_key_part)
    /// appends (and writing succeeds), the rest of `stored`; else `None`.
    /// What checking a stored key against an entity's fields takes, piece
    /// by piece and without building the key: the default writes the part
    /// into a buffer reused on this thread; strings and integers compare
    /// in place.
    ///
    /// ```
    /// use singletable::KeyPart;
    ///
    /// assert_eq!(42u32.strip_key_part("0000000042#x"), Some("#x"));
    /// assert_eq!("a#b".strip_key_part("a%23b"), Some(""));
    /// assert_eq!("".strip_key_part("x"), None); // an empty part is refused
    /// ```
    fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
        let strip = |s: &mut String| {
            s.clear();
            self.write_key_part(s).ok()?;
            stored.strip_prefix(s.as_str())
        };
        // A part whose own writing strips another part (re-entering) gets
        // a buffer of its own.
        SCRATCH
            .try_with(|s| match s.try_borrow_mut() {
                Ok(mut s) => strip(&mut s),
                Err(_) => strip(&mut String::new()),
            })
            .unwrap_or_else(|_| strip(&mut String::new()))
    }
}

thread_local! {
    /// Where [`KeyPart::strip_key_part`]'s default writes the part.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// [`KeyPart::strip_key_part`] of a string, compared as [`escape_into`]
/// writes it.
#[inline]
fn strip_escaped<'s>(value: &str, stored: &'s str) -> Option<&'s str> {
    if value.is_empty() {
        return None;
    }
    if !value.bytes().any(|b| b == b'#' || b == b'%') {
        return stored.strip_prefix(value);
    }
    let mut rest = stored;
    for c in value.chars() {
        rest = match c {
            '#' => rest.strip_prefix("%23")?,
            '%' => rest.strip_prefix("%25")?,
            c => rest.strip_prefix(c)?,
        };
    }
    Some(rest)
}

/// [`KeyPart::strip_key_part`] of an unsigned number written by
/// [`write_padded`]: the stored digits read as a number (checked, so a
/// key of more digits than the type holds never equals it), or for `u128`
/// (wider than `u64`) the number formatted as `write_padded` formats it.
#[inline]
fn strip_padded<N: itoa::Integer + TryInto<u64>>(n: N, width: usize, stored: &str) -> Option<&str> {
    if width <= 20
        && let Ok(n) = n.try_into()
    {
        let read = leading_digits(stored.as_bytes().get(..width)?)?;
        // `width` ASCII digits end on a character boundary.
        return (read == n).then(|| stored.get(width..)).flatten();
    }
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(n);
    let pad = width.checked_sub(digits.len())?;
    let zeros = stored.get(..pad)?;
    if !zeros.bytes().all(|b| b == b'0') {
        return None;
    }
    stored.get(pad..)?.strip_prefix(digits)
}

/// `digits`, every one an ASCII digit, as a number, eight at a time;
/// `None` when one is not a digit or the number does not fit a `u64`
/// (checked: a key of more digits than a type holds never equals a value).
#[inline]
fn leading_digits(mut digits: &[u8]) -> Option<u64> {
    let mut read = 0u64;
    while let Some((eight, rest)) = digits.split_first_chunk::<8>() {
        read = read
            .checked_mul(100_000_000)?
            .checked_add(eight_digits(*eight)?)?;
        digits = rest;
    }
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        read = read.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(read)
}

/// Eight ASCII digits as their number, read as one word (the
/// digit-pair, -quad and -octet sums of SWAR integer parsing); `None` when
/// one of the bytes is not a digit.
#[inline]
fn eight_digits(bytes: [u8; 8]) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let w = u64::from_le_bytes(bytes);
    // Every byte 0x30..=0x3F, and still below 0x40 with 6 added: 0x30..=0x39.
    if w & HIGH_NIBBLES != ZEROS || w.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES != ZEROS {
        return None;
    }
    let mut v = w - ZEROS;
    v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    v = ((v & pairs).wrapping_mul(100 + (1_000_000 << 32))
        + ((v >> 16) & pairs).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(v)
}

/// A key part that can be read back from its encoded segment: what the
/// generated `parse_*` functions call for each placeholder.
///
/// ```
/// use singletable::KeyPartDecode;
///
/// assert_eq!(u16::read_key_part("00042")?, 42);
/// assert_eq!(bool::read_key_part("true")?, true);
/// assert_eq!(String::read_key_part("a%23b")?, "a#b");
/// assert!(u16::read_key_part("42").is_err()); // not the padded width: not a key this type wrote
/// # Ok::<(), singletable::KeyError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be part of a DynamoDB key",
    label = "this type is used in a key template",
    note = "key parts are `String`, `char`, `bool`, integers, `#[derive(StrEnum)]` enums, and with features `uuid::Uuid` and UTC timestamps"
)]
pub trait KeyPartDecode: KeyPart + Sized {
    /// Decodes one segment (the text between two delimiters).
    fn read_key_part(segment: &str) -> Result<Self, KeyError>;

    /// Whether the part reads the rest of the key instead of one segment:
    /// a [`Verbatim`] value that ends its template may hold `#`.
    const REST: bool = false;
}

impl<T: KeyPart + ?Sized> KeyPart for &T {
    const CARDINALITY: Option<u64> = T::CARDINALITY;
    const WIDTH: Option<usize> = T::WIDTH;
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        (**self).write_key_part(out)
    }
    #[inline]
    fn size_hint(&self) -> usize {
        (**self).size_hint()
    }
    #[inline]
    fn strip_key_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
        (**self).strip_key_part(stored)
    }
}

/// Appends `value` to `out`, escaping `#` as `%23` and `%` as `%25`;
/// an empty value is [`KeyError::Empty`] (DynamoDB refuses empty key
/// strings).
///
/// ```
/// use singletable::key::escape_into;
///
/// let mut key = String::from("TAG#");
/// escape_into("c#", &mut key)?;
/// assert_eq!(key, "TAG#c%23");
/// assert!(escape_into("", &mut key).is_err());
/// # Ok::<(), singletable::KeyError>(())
/// ```
pub fn escape_into(value: &str, out: &mut String) -> Result<(), KeyError> {
    if value.is_empty() {
        return Err(KeyError::Empty);
    }
    if !value.bytes().any(|b| b == b'#' || b == b'%') {
        out.push_str(value);
        return Ok(());
    }
    for c in value.chars() {
        match c {
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    Ok(())
}

/// Reverses [`escape_into`]; any escape other than `%23`/`%25` is an error.
///
/// ```
/// use singletable::{key::unescape, KeyError};
///
/// assert_eq!(unescape("c%23")?, "c#");
/// assert_eq!(unescape("100%41"), Err(KeyError::Escape { at: 3 }));
/// # Ok::<(), KeyError>(())
/// ```
pub fn unescape(segment: &str) -> Result<String, KeyError> {
    if segment.is_empty() {
        return Err(KeyError::Empty);
    }
    if !segment.contains('%') {
        return Ok(segment.to_owned());
    }
    let mut out = String::with_capacity(segment.len());
    let mut rest = segment;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let at = segment.len() - rest.len() + i;
        match rest.get(i..i + 3) {
            Some("%23") => out.push('#'),
            Some("%25") => out.push('%'),
            _ => return Err(KeyError::Escape { at }),
        }
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    Ok(out)
}

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
fn write_padded<N: itoa::Integer>(n: N, width: usize, out: &mut String) {
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

fn segment_error(segment: &str, expected: &'static str) -> KeyError {
    KeyError::Segment {
        segment: segment.to_owned(),
        expected,
    }
}

/// Parses exactly `width` ASCII digits: as [`strip_padded`] reads them
/// when they fit a `u64`, else (a `u128`'s 39) with `str::parse`.
fn read_digits(digits: &str, width: usize, expected: &'static str) -> Result<u128, KeyError> {
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
/// use singletable::key::{KeyReader, Verbatim};
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
/// use singletable::key::VerbatimStr;
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
/// use singletable::key::UnpaddedInt;
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
/// use singletable::key::UnpaddedDecode;
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

/// Checks a built key against DynamoDB's size limit, as every generated
/// builder does before returning.
///
/// ```
/// use singletable::key::{check_len, MAX_SORT_KEY_BYTES};
///
/// assert!(check_len("Order", "sk", "ORDER#1", MAX_SORT_KEY_BYTES).is_ok());
/// let long = "x".repeat(MAX_SORT_KEY_BYTES + 1);
/// assert!(check_len("Order", "sk", &long, MAX_SORT_KEY_BYTES).is_err());
/// ```
#[inline]
pub fn check_len(
    entity: &'static str,
    attribute: &'static str,
    key: &str,
    max: usize,
) -> Result<(), Error> {
    if key.len() > max {
        Err(Error::KeyTooLong {
            entity,
            attribute,
            len: key.len(),
            max,
        })
    } else {
        Ok(())
    }
}

/// A built key, once [`check_len`] holds: a generated key builder's
/// result.
#[doc(hidden)]
#[inline]
pub fn checked_key(
    entity: &'static str,
    attribute: &'static str,
    key: String,
    max: usize,
) -> Result<String, Error> {
    check_len(entity, attribute, &key, max)?;
    Ok(key)
}

/// A key builder's result for a template without placeholders: `text`,
/// in a [`key_buffer`], once [`check_len`] holds.
#[doc(hidden)]
#[inline]
pub fn literal_key(
    entity: &'static str,
    attribute: &'static str,
    text: &str,
    max: usize,
) -> Result<String, Error> {
    let mut key = key_buffer(text.len());
    key.push_str(text);
    checked_key(entity, attribute, key, max)
}

/// Key strings this thread gave back ([`recycle_key`]), for the next
/// [`key_buffer`]: every decoded item's key check builds the key its fields
/// make and copies the key it is stored under, and recycling those strings
/// keeps the check from allocating once a few keys have been read.
const RECYCLED_KEYS: usize = 8;
/// Longer buffers are freed rather than kept (DynamoDB's keys are at most
/// 2048 bytes; most are far shorter).
const RECYCLED_KEY_BYTES: usize = 2048;

thread_local! {
    static KEY_BUFFERS: std::cell::RefCell<Vec<String>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// An empty string with room for `capacity` bytes, reusing one given back
/// by [`recycle_key`] on this thread when there is one: what the generated
/// key builders write keys into.
///
/// ```
/// use singletable::key::{key_buffer, recycle_key};
///
/// let mut k = key_buffer(16);
/// k.push_str("USER#ana");
/// let at = k.as_ptr();
/// recycle_key(k);
/// let again = key_buffer(8);
/// assert!(again.is_empty() && again.capacity() >= 16);
/// assert_eq!(again.as_ptr(), at); // the same allocation, reused
/// ```
#[inline]
pub fn key_buffer(capacity: usize) -> String {
    let reused = KEY_BUFFERS
        .try_with(|b| b.try_borrow_mut().ok().and_then(|mut b| b.pop()))
        .ok()
        .flatten();
    match reused {
        Some(mut s) => {
            s.reserve(capacity);
            s
        }
        None => String::with_capacity(capacity),
    }
}

/// What a key builder (`pk`, `sk`, `gsi1_pk`, …) returns.
type Built = Result<String, Error>;

/// The primary key from the results of its builders (`pk`, `sk`), the
/// partition key's error first: the body of a derived `primary_key` and
/// `key`, here once rather than a `?` per key in every entity (each costs
/// the compiler a little in the user's crate).
///
/// ```
/// # use singletable::__private::primary_key;
/// let key = primary_key(Ok("USER#ana".into()), Some(Ok("PROFILE".into())))?;
/// assert_eq!(key.sk.as_deref(), Some("PROFILE"));
/// # Ok::<(), singletable::Error>(())
/// ```
#[doc(hidden)]
#[inline]
pub fn primary_key(pk: Built, sk: Option<Built>) -> Result<PrimaryKey, Error> {
    let pk = pk?;
    Ok(PrimaryKey {
        pk,
        sk: sk.transpose()?,
    })
}

/// [`primary_key`] as a key of `E`: a derived `key`.
#[doc(hidden)]
#[inline]
pub fn key_of<E>(pk: Built, sk: Option<Built>) -> Result<KeyOf<E>, Error> {
    primary_key(pk, sk).map(KeyOf::new)
}

/// [`primary_key`] for an index: a derived `gsi1_key`.
#[doc(hidden)]
#[inline]
pub fn index_key(pk: Built, sk: Option<Built>) -> Result<IndexKey, Error> {
    primary_key(pk, sk).map(|PrimaryKey { pk, sk }| IndexKey { pk, sk })
}

/// Gives a key string back for [`key_buffer`] to reuse on this thread (at
/// most a few are kept, and none over 2 KB; the others are freed).
///
/// ```
/// singletable::key::recycle_key(String::from("ORDER#1"));
/// assert!(singletable::key::key_buffer(4).is_empty());
/// ```
#[inline]
pub fn recycle_key(s: String) {
    recycle_keys([Some(s)]);
}

/// [`recycle_key`] of several strings at once (one look at this thread's
/// list).
///
/// ```
/// singletable::key::recycle_keys([Some(String::from("A#1")), None]);
/// assert!(singletable::key::key_buffer(4).is_empty());
/// ```
#[inline]
pub fn recycle_keys<const N: usize>(keys: [Option<String>; N]) {
    let _ = KEY_BUFFERS.try_with(|b| {
        let Ok(mut b) = b.try_borrow_mut() else {
            return;
        };
        for mut s in keys.into_iter().flatten() {
            if b.len() < RECYCLED_KEYS && s.capacity() > 0 && s.capacity() <= RECYCLED_KEY_BYTES {
                s.clear();
                b.push(s);
            }
        }
    });
}

/// Appends one key part, mapping a refusal to an error naming the field.
///
/// ```
/// use singletable::{key::write_part, Error};
///
/// let mut key = String::from("USER#");
/// write_part("User", "user_id", "ana", &mut key)?;
/// assert_eq!(key, "USER#ana");
/// let err = write_part("User", "user_id", "", &mut key).unwrap_err();
/// assert!(matches!(err, Error::KeyValue { field: "user_id", .. }));
/// # Ok::<(), Error>(())
/// ```
#[inline]
pub fn write_part<T: KeyPart + ?Sized>(
    entity: &'static str,
    field: &'static str,
    value: &T,
    out: &mut String,
) -> Result<(), Error> {
    value.write_key_part(out).map_err(|reason| Error::KeyValue {
        entity,
        field,
        reason,
    })
}

/// A key builder's argument, written through its [`KeyPart`] impl.
///
/// A field type without one is reported once, at the field, by the derive's
/// `assert_key_part`; for such a type the inherent method below does not
/// apply and method resolution falls back to [`WritePartFallback`], so the
/// generated builders do not repeat that error.
#[doc(hidden)]
pub struct WritePart<'a, T: ?Sized>(pub &'a T);

impl<T: KeyPart + ?Sized> WritePart<'_, T> {
    /// Appends the value, like [`write_part`].
    #[inline]
    pub fn write_part(
        &self,
        entity: &'static str,
        field: &'static str,
        out: &mut String,
    ) -> Result<(), Error> {
        write_part(entity, field, self.0, out)
    }

    /// The value's expected length in a key, like `KeyPart::size_hint`.
    #[inline]
    pub fn size_hint(&self) -> usize {
        self.0.size_hint()
    }

    /// The value as a key part of its own, like [`write_part`] into a new
    /// string.
    #[inline]
    pub fn part_string(&self, entity: &'static str, field: &'static str) -> Result<String, Error> {
        let mut out = String::new();
        self.write_part(entity, field, &mut out)?;
        Ok(out)
    }

    /// The rest of `stored` after the value, like `KeyPart::strip_key_part`.
    #[inline]
    pub fn strip_part<'s>(&self, stored: &'s str) -> Option<&'s str> {
        self.0.strip_key_part(stored)
    }
}

/// Chosen only for a type that is not a key part, whose derive already failed.
#[doc(hidden)]
pub trait WritePartFallback {
    /// Never runs: the crate that would call it does not compile.
    fn write_part(&self, _: &'static str, _: &'static str, _: &mut String) -> Result<(), Error> {
        unreachable!("the derive rejected this key part type")
    }

    /// Never runs, as `write_part`.
    fn size_hint(&self) -> usize {
        0
    }

    /// Never runs, as `write_part`.
    fn part_string(&self, _: &'static str, _: &'static str) -> Result<String, Error> {
        unreachable!("the derive rejected this key part type")
    }

    /// Never runs, as `write_part`.
    fn strip_part<'s>(&self, _: &'s str) -> Option<&'s str> {
        None
    }
}

impl<T: ?Sized> WritePartFallback for WritePart<'_, T> {}

/// A key parser's step reading one `T`, the counterpart of [`WritePart`].
#[doc(hidden)]
pub struct ReadPart<T>(core::marker::PhantomData<T>);

impl<T> ReadPart<T> {
    /// The probe for `T`.
    pub const NEW: Self = Self(core::marker::PhantomData);
}

impl<T: KeyPartDecode> ReadPart<T> {
    /// Reads one segment, like [`KeyReader::part`].
    #[inline]
    pub fn read_part(&self, reader: &mut KeyReader<'_>) -> Result<T, Error> {
        reader.part()
    }
}

/// Chosen only for a type that is not a key part, whose derive already failed.
#[doc(hidden)]
pub trait ReadPartFallback<T> {
    /// Never runs: the crate that would call it does not compile.
    fn read_part(&self, _: &mut KeyReader<'_>) -> Result<T, Error> {
        unreachable!("the derive rejected this key part type")
    }
}

impl<T> ReadPartFallback<T> for ReadPart<T> {}

/// Reads a key string segment by segment against a template; used by the
/// generated `parse_*` functions, and usable to read keys of other
/// clients' templates.
///
/// ```
/// use singletable::key::KeyReader;
///
/// // What `Order::parse_sk` does for `ORDER#<day>#<n>`:
/// let mut r = KeyReader::new("Order", "ORDER#<day>#<n>", "ORDER#2024-05-01#00007");
/// r.literal("ORDER#")?;
/// let day: String = r.part()?;
/// r.literal("#")?;
/// let n: u16 = r.part()?;
/// r.finish()?;
/// assert_eq!((day.as_str(), n), ("2024-05-01", 7));
///
/// // A key of another template is an error naming it, never a panic.
/// let mut r = KeyReader::new("Order", "ORDER#<day>#<n>", "USER#ana");
/// assert!(r.literal("ORDER#").is_err());
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug)]
pub struct KeyReader<'a> {
    entity: &'static str,
    template: &'static str,
    key: &'a str,
    pos: usize,
}

impl<'a> KeyReader<'a> {
    /// Starts reading `key`, which should follow `template` of `entity`.
    pub fn new(entity: &'static str, template: &'static str, key: &'a str) -> Self {
        Self {
            entity,
            template,
            key,
            pos: 0,
        }
    }

    fn fail(&self, reason: KeyError) -> Error {
        Error::KeyParse {
            entity: self.entity,
            template: self.template,
            key: self.key.to_owned(),
            reason,
        }
    }

    /// Consumes the literal text `lit`.
    pub fn literal(&mut self, lit: &'static str) -> Result<(), Error> {
        if self.key[self.pos..].starts_with(lit) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.fail(KeyError::Literal {
                expected: lit,
                at: self.pos,
            }))
        }
    }

    /// Consumes one segment (up to the next delimiter or the end; the rest
    /// of the key for a part whose [`KeyPartDecode::REST`] is set) and
    /// decodes it.
    pub fn part<T: KeyPartDecode>(&mut self) -> Result<T, Error> {
        let rest = &self.key[self.pos..];
        let end = if T::REST {
            rest.len()
        } else {
            rest.find(DELIMITER).unwrap_or(rest.len())
        };
        let segment = &rest[..end];
        let value = T::read_key_part(segment).map_err(|e| self.fail(e))?;
        self.pos += end;
        Ok(value)
    }

    /// Succeeds when the whole key has been consumed.
    pub fn finish(self) -> Result<(), Error> {
        if self.pos == self.key.len() {
            Ok(())
        } else {
            let at = self.pos;
            Err(self.fail(KeyError::Literal {
                expected: "end of key",
                at,
            }))
        }
    }

    /// [`KeyReader::finish`], then `values`: a generated key parser's
    /// result.
    #[doc(hidden)]
    #[inline]
    pub fn finish_with<T>(self, values: T) -> Result<T, Error> {
        self.finish()?;
        Ok(values)
    }
}

/// A full primary key: the partition key value and, when the table has one,
/// the sort key value. Both are stored as DynamoDB strings (`S`). It is
/// the `Key` of GetItem, DeleteItem and UpdateItem; the generated
/// `Entity::key(..)` builds it from typed values.
///
/// ```
/// use singletable::{Db, Embedded, Entity, PrimaryKey, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug, PartialEq)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// let key = User::key("ana")?;
/// assert_eq!(key, PrimaryKey { pk: "USER#ana".into(), sk: Some("PROFILE".into()) });
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into() }).await?;
/// assert!(db.get::<User>(key).await?.is_some()); // GetItem
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrimaryKey {
    /// Partition key value.
    pub pk: String,
    /// Sort key value, `None` on a table without a sort key.
    pub sk: Option<String>,
}

/// The key of an item in a secondary index, built by the generated
/// `Entity::gsiN_key(..)` / `lsiN_key(..)`.
///
/// ```
/// use singletable::{Entity, IndexKey, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// #[gsi1(pk = "EMAIL#<email>", sk = "USER#<id>")]
/// pub struct User { pub id: String, pub email: String }
///
/// let key = User::gsi1_key("ana@example.com", "ana")?;
/// assert_eq!(key, IndexKey { pk: "EMAIL#ana@example.com".into(), sk: Some("USER#ana".into()) });
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IndexKey {
    /// Index partition key value.
    pub pk: String,
    /// Index sort key value, when the index has a sort key.
    pub sk: Option<String>,
}

#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
#[cfg(feature = "uuid")]
impl KeyPart for uuid::Uuid {
    const WIDTH: Option<usize> = Some(36);
    fn write_key_part(&self, out: &mut String) -> Result<(), KeyError> {
        out.push_str(
            self.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        );
        Ok(())
    }
}

#[cfg(feature = "uuid")]
impl KeyPartDecode for uuid::Uuid {
    fn read_key_part(segment: &str) -> Result<Self, KeyError> {
        uuid::Uuid::parse_str(segment).map_err(|_| segment_error(segment, "uuid"))
    }
}

/// The primary key of one item of entity `E`: what `E::key(..)` builds
/// and what an access pattern on a keys-only index returns
/// (`#[access(name, index = gsiN, keys)]`, whose items hold only key
/// attributes and are checked against `E`'s own key templates).
///
/// It is typed by its entity, so a key of one entity cannot be passed
/// where another's is read, written or deleted: `db.get::<Issue>(key)`
/// takes a `KeyOf<Issue>`, which `KeyOf<Comment>` is not (a
/// mismatched-types error naming both). A raw key built another way
/// enters with [`KeyOf::new`]. It reads as
/// a [`PrimaryKey`] (`key.pk`, `key.sk`) and converts into one.
///
/// ```
/// use singletable::{Db, Embedded, Entity, KeyOf, PrimaryKey, Table};
///
/// #[derive(Table)]
/// #[table(name = "Sessions", gsi1(keys_only))]
/// pub struct Sessions;
///
/// #[derive(Entity, Debug, PartialEq)]
/// #[entity(table = Sessions)]
/// #[pk("SESSION#<token>")]
/// #[sk("SESSION")]
/// #[gsi1(pk = "USER#<user>", sk = "SESSION#<token>")]
/// #[access(sessions_of, index = gsi1, keys)]
/// pub struct Session { pub token: String, pub user: String, pub agent: String }
///
/// let key: KeyOf<Session> = Session::key("t1")?;
/// assert_eq!(key.pk, "SESSION#t1");
/// assert_eq!(key, PrimaryKey { pk: "SESSION#t1".into(), sk: Some("SESSION".into()) });
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Sessions>("Sessions")?;
/// db.put(&Session { token: "t1".into(), user: "ana".into(), agent: "curl".into() }).await?;
/// let keys: Vec<KeyOf<Session>> = Session::sessions_of("ana").all(&db).await?;
/// assert_eq!(keys[0], key);
/// let session = db.get(keys[0].clone()).await?.unwrap(); // a `Session`: the key says so
/// assert_eq!(session.agent, "curl");
/// assert_eq!(Session::parse_pk(&keys[0].pk)?, "t1");
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// # Ok::<(), singletable::Error>(())
/// ```
pub struct KeyOf<E> {
    key: PrimaryKey,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E> KeyOf<E> {
    /// A key of `E` from its raw values, for code that built or read them
    /// another way. Nothing is checked: prefer `E::key(..)`.
    ///
    /// ```
    /// # use singletable::{Entity, KeyOf, PrimaryKey, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// let raw = PrimaryKey { pk: "USER#ana".into(), sk: Some("PROFILE".into()) };
    /// assert_eq!(KeyOf::<User>::new(raw), User::key("ana")?);
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn new(key: PrimaryKey) -> Self {
        Self {
            key,
            entity: std::marker::PhantomData,
        }
    }

    /// The primary key.
    ///
    /// ```
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// assert_eq!(User::key("ana")?.key().sk.as_deref(), Some("PROFILE"));
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn key(&self) -> &PrimaryKey {
        &self.key
    }

    /// The primary key, owned.
    ///
    /// ```
    /// # use singletable::{Entity, PrimaryKey, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// let raw: PrimaryKey = User::key("ana")?.into_key();
    /// assert_eq!(raw.pk, "USER#ana");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_key(self) -> PrimaryKey {
        self.key
    }
}

impl<E> std::ops::Deref for KeyOf<E> {
    type Target = PrimaryKey;
    fn deref(&self) -> &PrimaryKey {
        &self.key
    }
}

impl<E> Clone for KeyOf<E> {
    fn clone(&self) -> Self {
        Self::new(self.key.clone())
    }
}

impl<E> PartialEq for KeyOf<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<E> Eq for KeyOf<E> {}

impl<E> std::hash::Hash for KeyOf<E> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl<E> PartialEq<PrimaryKey> for KeyOf<E> {
    fn eq(&self, other: &PrimaryKey) -> bool {
        &self.key == other
    }
}

impl<E> PartialEq<KeyOf<E>> for PrimaryKey {
    fn eq(&self, other: &KeyOf<E>) -> bool {
        self == &other.key
    }
}

impl<E> std::fmt::Debug for KeyOf<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyOf")
            .field("entity", &std::any::type_name::<E>())
            .field("key", &self.key)
            .finish()
    }
}

impl<E> From<KeyOf<E>> for PrimaryKey {
    fn from(k: KeyOf<E>) -> Self {
        k.key
    }
}

/// Types a unique field can have: key parts, and `Option`s of them (`None`
/// holds no marker).
///
/// ```
/// use singletable::unique::UniqueValue;
///
/// assert_eq!("a#b".to_owned().unique_part(), Some(Ok("a%23b".to_owned())));
/// assert_eq!(7u8.unique_part(), Some(Ok("007".to_owned())));
/// assert_eq!(None::<String>.unique_part(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a unique value",
    label = "`#[attr(unique)]` keeps a marker item keyed on this value",
    note = "unique values are key parts (`String`, `char`, `bool`, integers, `#[derive(StrEnum)]` enums, `uuid::Uuid`, UTC timestamps) or an `Option` of one"
)]
pub trait UniqueValue {
    /// The value as a key part; `None` when it holds no marker.
    fn unique_part(&self) -> Option<Result<String, KeyError>>;
}

impl<T: KeyPart> UniqueValue for T {
    fn unique_part(&self) -> Option<Result<String, KeyError>> {
        let mut out = String::new();
        Some(self.write_key_part(&mut out).map(|()| out))
    }
}

impl<T: KeyPart> UniqueValue for Option<T> {
    fn unique_part(&self) -> Option<Result<String, KeyError>> {
        self.as_ref().and_then(UniqueValue::unique_part)
    }
}

#[cfg(test)]
mod tests {
    use super::KeyPart;

    /// A part strips exactly what writing it appends, and nothing else.
    fn strips_what_it_writes<T: KeyPart + ?Sized>(v: &T) {
        let mut written = String::new();
        v.write_key_part(&mut written).unwrap();
        let stored = format!("{written}#rest");
        assert_eq!(v.strip_key_part(&stored), Some("#rest"), "{written}");
        let mut shorter = written.clone();
        let last = shorter.pop().unwrap();
        assert_eq!(v.strip_key_part(&shorter), None);
        shorter.push(if last == '1' { '2' } else { '1' });
        assert_eq!(v.strip_key_part(&shorter), None);
    }

    #[test]
    fn strip_key_part_agrees_with_write_key_part() {
        for n in [0u32, 7, 42, 1_000_000, u32::MAX] {
            strips_what_it_writes(&n);
        }
        for n in [i64::MIN, -1, 0, 9, i64::MAX] {
            strips_what_it_writes(&n);
        }
        for n in [i8::MIN, -1, 0, i8::MAX] {
            strips_what_it_writes(&n);
        }
        strips_what_it_writes(&u128::MAX);
        strips_what_it_writes(&usize::MAX);
        for s in ["a", "a#b", "100%", "ünï"] {
            strips_what_it_writes(s);
            strips_what_it_writes(&String::from(s));
        }
        strips_what_it_writes(&true);
        strips_what_it_writes(&'x');
        assert_eq!("".strip_key_part("x"), None);
        assert_eq!(5u8.strip_key_part("00x"), None);
        assert_eq!(5u8.strip_key_part("-005"), None);
        // Stored digits beyond the type's range never equal a value (they
        // would wrap to 5 without checked arithmetic).
        strips_what_it_writes(&u64::MAX);
        assert_eq!(5u64.strip_key_part("18446744073709551621"), None);
        assert_eq!(5u32.strip_key_part("000000000+5"), None);
        for (text, n) in [
            ("00000000", 0),
            ("12345678", 12_345_678),
            ("99999999", 99_999_999),
        ] {
            assert_eq!(
                super::eight_digits(text.as_bytes().try_into().unwrap()),
                Some(n)
            );
        }
        for text in ["1234567/", "1234567:", "a2345678", "1234 678"] {
            assert_eq!(
                super::eight_digits(text.as_bytes().try_into().unwrap()),
                None,
                "{text}"
            );
        }
    }
}
