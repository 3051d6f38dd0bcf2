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
/// use singletable_core::key::{DELIMITER, ESCAPE};
///
/// assert_eq!(DELIMITER, '#');
/// assert_eq!(ESCAPE, '%');
/// // Neither appears raw in an escaped value.
/// let mut out = String::new();
/// singletable_core::key::escape_into("50%#off", &mut out)?;
/// assert_eq!(out, "50%25%23off");
/// assert!(!out.contains(DELIMITER));
/// # Ok::<(), singletable::KeyError>(())
/// ```
pub const DELIMITER: char = '#';
/// The escape character for the delimiter inside values: `%23` is `#`,
/// `%25` is `%`.
///
/// ```
/// assert_eq!(singletable_core::key::unescape("50%25%23off")?, "50%#off");
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
/// use singletable_core::key::{escape_into, unescape, KeyPart, KeyPartDecode};
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
/// use singletable_core::key::escape_into;
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
/// use singletable::{KeyError};
/// use singletable_core::{key::unescape};
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

pub(crate) mod build;
mod parts;
#[cfg(feature = "uuid")]
use parts::segment_error;
#[cfg(test)]
mod tests;

pub use build::{KeyReader, check_len, key_buffer, recycle_key, recycle_keys, write_part};
pub use parts::{Unpadded, UnpaddedDecode, UnpaddedInt, Verbatim, VerbatimStr};

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
