//! What the value and key codecs report: an attribute value that does not
//! decode ([`DecodeError`], with its path and [`DecodeErrorKind`]) or
//! cannot be encoded ([`EncodeError`]). The bottom floor of the runtime:
//! it imports nothing of singletable, so that `value` can use it and
//! `error` (whose [`Error`](crate::Error) carries these) can sit above the
//! requests. Re-exported from [`crate::error`].

use std::fmt;

/// Why an attribute value does not decode, with the path of the attribute
/// (`address.city`, `lines[3].price`).
///
/// One pointer wide, so that the `Result`s of the decode path stay small.
///
/// ```
/// use singletable::{DecodeError, DecodeErrorKind};
///
/// // Built inside out, as a nested value fails to decode:
/// let err = DecodeError::missing().at("price").at_index(3).at("lines");
/// assert_eq!(err.path(), "lines[3].price");
/// assert_eq!(err.kind(), &DecodeErrorKind::Missing);
/// assert_eq!(err.to_string(), "attribute `lines[3].price`: missing attribute");
/// let err = DecodeError::new(DecodeErrorKind::Invalid("not a colour".into()));
/// assert_eq!(err.path(), "");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError(Box<DecodeErrorInner>);

#[derive(Debug, Clone, PartialEq)]
struct DecodeErrorInner {
    path: String,
    kind: DecodeErrorKind,
}

/// The reason part of a [`DecodeError`].
///
/// ```
/// use singletable::{Attr, AttributeValue, DecodeErrorKind};
///
/// let err = u8::from_attr(AttributeValue::N("256".into())).unwrap_err();
/// assert!(matches!(err.kind(), DecodeErrorKind::OutOfRange { ty: "u8", .. }));
/// let err = u8::from_attr(AttributeValue::S("1".into())).unwrap_err();
/// assert!(matches!(err.kind(), DecodeErrorKind::WrongType { found: "S", .. }));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A required attribute is absent.
    #[error("missing attribute")]
    Missing,
    /// The attribute has another DynamoDB type than the field expects.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// Expected DynamoDB type and Rust type, e.g. `N (u8)`.
        expected: &'static str,
        /// DynamoDB type found.
        found: &'static str,
    },
    /// A number that does not fit the field's integer type.
    #[error("number {value} is out of range for {ty}")]
    OutOfRange {
        /// The number as stored.
        value: String,
        /// The Rust type.
        ty: &'static str,
    },
    /// A number DynamoDB returned that the field's type cannot parse.
    #[error("{value:?} is not a valid {ty}")]
    InvalidNumber {
        /// The number as stored.
        value: String,
        /// The Rust type.
        ty: &'static str,
    },
    /// The item's entity-type attribute names another entity.
    #[error("item is a {found:?}, not a {expected:?}")]
    EntityType {
        /// Entity type this decoder reads.
        expected: &'static str,
        /// Entity type stored in the item.
        found: String,
    },
    /// The item's key attribute (named by the error's path) is not the key
    /// its decoded key fields build: the stored fields contradict the key
    /// the item lives under. singletable trusts neither and refuses the
    /// item, since writing it back would move it to another key.
    #[error("the item is stored under {stored:?} but its key fields build {expected:?}")]
    KeyMismatch {
        /// The key attribute as stored.
        stored: String,
        /// The key the item's fields build.
        expected: String,
    },
    /// The item was written under a newer schema version than this code
    /// reads (`#[entity(version = N)]`): decoding it as the older type
    /// could drop what the newer one stores.
    #[error("stored under schema version {stored}, newer than this code's {current}")]
    SchemaVersion {
        /// The version stored with the item.
        stored: u64,
        /// The version this code declares.
        current: u32,
    },
    /// Any other invalid value (an unknown enum string, a bad timestamp).
    #[error("{0}")]
    Invalid(String),
}

impl DecodeError {
    /// A decode error with an empty path; callers add path segments with
    /// [`DecodeError::at`] as it travels outwards.
    #[cold]
    pub fn new(kind: DecodeErrorKind) -> Self {
        Self(Box::new(DecodeErrorInner {
            path: String::new(),
            kind,
        }))
    }

    /// A missing attribute.
    pub fn missing() -> Self {
        Self::new(DecodeErrorKind::Missing)
    }

    /// Prefixes the path with an attribute name.
    #[must_use]
    pub fn at(mut self, attribute: &str) -> Self {
        if self.0.path.is_empty() {
            self.0.path = attribute.to_owned();
        } else if self.0.path.starts_with('[') {
            self.0.path.insert_str(0, attribute);
        } else {
            self.0.path.insert(0, '.');
            self.0.path.insert_str(0, attribute);
        }
        self
    }

    /// Prefixes the path with a list index.
    #[must_use]
    pub fn at_index(mut self, index: usize) -> Self {
        let seg = format!("[{index}]");
        if !self.0.path.is_empty() && !self.0.path.starts_with('[') {
            self.0.path.insert(0, '.');
        }
        self.0.path.insert_str(0, &seg);
        self
    }

    /// Path of the attribute that failed, e.g. `address.city`.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What was wrong with it.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.path.is_empty() {
            write!(f, "{}", self.0.kind)
        } else {
            write!(f, "attribute `{}`: {}", self.0.path, self.0.kind)
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a field value cannot be stored.
///
/// ```
/// use singletable::{Attr, EncodeError};
///
/// let err = EncodeError::new("NaN is not a DynamoDB number").at("price").at("[2]").at("lines");
/// assert_eq!(err.path(), "lines[2].price");
/// assert_eq!(err.to_string(), "attribute `lines[2].price`: NaN is not a DynamoDB number");
/// assert!(f64::NAN.to_attr().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeError {
    path: String,
    reason: String,
}

impl EncodeError {
    /// An encode error with an empty path.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            path: String::new(),
            reason: reason.into(),
        }
    }

    /// Prefixes the path with an attribute name, or with a list index
    /// written `[i]`; paths read like decode paths, `lines[3].price`.
    #[must_use]
    pub fn at(mut self, attribute: &str) -> Self {
        if self.path.is_empty() {
            self.path = attribute.to_owned();
        } else if self.path.starts_with('[') {
            self.path.insert_str(0, attribute);
        } else {
            self.path.insert(0, '.');
            self.path.insert_str(0, attribute);
        }
        self
    }

    /// Path of the attribute that failed.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "attribute `{}`: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for EncodeError {}
