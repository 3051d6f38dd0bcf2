//! Conversions between Rust values and DynamoDB [`AttributeValue`]s.
//!
//! The generated item codec calls [`Attr`] once per field, with no
//! intermediate representation: strings and vectors are moved out of the
//! item map in `from_item`.
//!
//! | Rust | DynamoDB |
//! |---|---|
//! | `String`, `char` | `S` |
//! | `bool` | `BOOL` |
//! | integers, `NonZero` integers, `f32`, `f64` | `N` (at most 38 significant digits; floats must be finite; integers are range-checked on read, `0` is refused for `NonZero`) |
//! | `Option<T>` | absent when `None`; `NULL` reads as `None` |
//! | `Vec<T>`, `[T; N]` | `L` (an array's list has exactly `N` elements) |
//! | [`Blob`] | `B` |
//! | `HashSet`/`BTreeSet` of `String` | `SS` (empty sets are not stored) |
//! | `HashSet`/`BTreeSet` of integers | `NS` (empty sets are not stored) |
//! | `HashMap`/`BTreeMap<String, T>` | `M` |
//! | `#[derive(Document)]` structs | `M` |
//! | `#[derive(StrEnum)]` enums | `S` |
//!
//! ```
//! use std::collections::BTreeSet;
//! use singletable::{Attr, AttributeValue, Blob};
//!
//! assert_eq!("ana".to_string().to_attr()?, AttributeValue::S("ana".into()));
//! assert_eq!(42u32.to_attr()?, AttributeValue::N("42".into()));
//! assert_eq!(Blob::new(vec![1, 2]).to_attr()?, AttributeValue::B(Blob::new(vec![1, 2])));
//! let tags: BTreeSet<String> = ["a".to_string()].into();
//! assert_eq!(tags.to_attr()?, AttributeValue::Ss(vec!["a".into()]));
//! assert!(BTreeSet::<String>::new().is_absent()); // DynamoDB stores no empty set
//! assert!(f64::NAN.to_attr().is_err());           // nor a NaN
//! assert_eq!(Option::<u8>::from_attr(AttributeValue::Null(true))?, None);
//! assert!(u8::from_attr(AttributeValue::N("300".into())).is_err()); // range-checked
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;

pub use aws_sdk_dynamodb::primitives::Blob;
pub use aws_sdk_dynamodb::types::AttributeValue;

use crate::codec_error::{DecodeError, DecodeErrorKind, EncodeError};

mod number;

/// A DynamoDB item: attribute names to values, as the SDK's requests and
/// responses carry it.
///
/// ```
/// use singletable::{AttributeValue, Item};
///
/// let mut item = Item::new();
/// item.insert("PK".into(), AttributeValue::S("USER#ana".into()));
/// assert_eq!(item["PK"].as_s().unwrap(), "USER#ana");
/// ```
pub type Item = HashMap<String, AttributeValue>;

/// A Rust type stored as one DynamoDB attribute value: what every stored
/// field's type implements (the table in the [module docs](self) lists
/// the implementations). `#[derive(Document)]` and `#[derive(StrEnum)]`
/// implement it; so can you, for a type stored as one value:
///
/// ```
/// use singletable::{Attr, AttributeValue, DecodeError, EncodeError};
///
/// /// Cents, stored as a plain number.
/// #[derive(Debug, PartialEq)]
/// pub struct Cents(u64);
///
/// impl Attr for Cents {
///     fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
///         self.0.to_attr()
///     }
///     fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
///         u64::from_attr(value).map(Cents)
///     }
/// }
///
/// assert_eq!(Cents(250).to_attr()?, AttributeValue::N("250".into()));
/// assert_eq!(Cents::from_attr(AttributeValue::N("250".into()))?, Cents(250));
/// // A wrong type is an error naming both types, never a panic.
/// let err = Cents::from_attr(AttributeValue::S("x".into())).unwrap_err();
/// assert!(err.to_string().contains("expected N"));
/// assert!(Cents::from_absent().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a DynamoDB attribute",
    label = "this field's type has no DynamoDB representation",
    note = "derive `Document` for nested structs or `StrEnum` for unit enums, or add `#[attr(serde)]` to store it through serde"
)]
pub trait Attr: Sized {
    /// Encodes a borrowed value.
    fn to_attr(&self) -> Result<AttributeValue, EncodeError>;

    /// Encodes an owned value; types holding strings or vectors move them.
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        self.to_attr()
    }

    /// Decodes an attribute value.
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError>;

    /// Decodes an attribute value that may be borrowed from the executor's
    /// storage (see [`crate::reader`]). The default takes ownership and
    /// calls [`Attr::from_attr`]; strings and numbers read borrowed values
    /// without copying what they do not keep.
    #[inline]
    fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
        Self::from_attr(value.into_owned())
    }

    /// The value when the attribute is absent from the item. Absent is an
    /// error except for `Option` and sets.
    fn from_absent() -> Result<Self, DecodeError> {
        Err(DecodeError::missing())
    }

    /// Whether this value is stored by leaving the attribute out (`None`,
    /// empty sets, which DynamoDB cannot store).
    fn is_absent(&self) -> bool {
        false
    }

    /// DynamoDB's name of the type every value of this type is stored as
    /// (`S`, `N`, `B`, `BOOL`, `M`, `L`, `SS`, `NS`), which designs and
    /// exports (NoSQL Workbench models) describe the attribute with before
    /// any item exists; `None` (the default) when it is not known
    /// beforehand. `#[derive(Document)]` types are `M`, `#[derive(StrEnum)]`
    /// types `S`, `Option<T>` is `T`'s.
    ///
    /// ```
    /// use singletable::Attr;
    /// use std::collections::{BTreeMap, HashSet};
    ///
    /// assert_eq!(<Option<u32> as Attr>::DYNAMODB_TYPE, Some("N"));
    /// assert_eq!(<Vec<String> as Attr>::DYNAMODB_TYPE, Some("L"));
    /// assert_eq!(<HashSet<String> as Attr>::DYNAMODB_TYPE, Some("SS"));
    /// assert_eq!(<BTreeMap<String, bool> as Attr>::DYNAMODB_TYPE, Some("M"));
    /// ```
    const DYNAMODB_TYPE: Option<&'static str> = None;
}

/// DynamoDB's name for the type of an attribute value.
///
/// ```
/// use singletable::{AttributeValue};
/// use singletable_core::{value::type_name};
///
/// assert_eq!(type_name(&AttributeValue::S("x".into())), "S");
/// assert_eq!(type_name(&AttributeValue::Bool(true)), "BOOL");
/// assert_eq!(type_name(&AttributeValue::Ss(vec![])), "SS");
/// ```
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "unknown",
    }
}

/// The error for an attribute of the wrong DynamoDB type, for
/// hand-written [`Attr`] impls.
///
/// ```
/// use singletable::{AttributeValue};
/// use singletable_core::value::wrong_type;
///
/// let err = wrong_type("S", &AttributeValue::N("1".into()));
/// assert_eq!(err.to_string(), "expected S, found N");
/// ```
#[cold]
pub fn wrong_type(expected: &'static str, found: &AttributeValue) -> DecodeError {
    DecodeError::new(DecodeErrorKind::WrongType {
        expected,
        found: type_name(found),
    })
}

impl Attr for String {
    const DYNAMODB_TYPE: Option<&'static str> = Some("S");
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self.clone()))
    }
    #[inline]
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self))
    }
    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::S(s) => Ok(s),
            other => Err(wrong_type("S (String)", &other)),
        }
    }
    #[inline]
    fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
        match value {
            AttrRef::S(s) => Ok(s.to_owned()),
            AttrRef::Owned(v) => Self::from_attr(*v),
            other => Err(other.wrong_type("S (String)")),
        }
    }
}

impl Attr for char {
    const DYNAMODB_TYPE: Option<&'static str> = Some("S");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::S(self.to_string()))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::S(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(c),
                    _ => Err(DecodeError::new(DecodeErrorKind::Invalid(format!(
                        "{s:?} is not a single char"
                    )))),
                }
            }
            other => Err(wrong_type("S (char)", &other)),
        }
    }
}

impl Attr for bool {
    const DYNAMODB_TYPE: Option<&'static str> = Some("BOOL");
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::Bool(*self))
    }
    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::Bool(b) => Ok(b),
            other => Err(wrong_type("BOOL (bool)", &other)),
        }
    }
}

/// Parses a DynamoDB number into an integer type, telling an out-of-range
/// integer from a number that is not an integer at all.
#[cold]
fn integer_error(text: &str, ty: &'static str) -> DecodeError {
    let is_integer = {
        let digits = text.strip_prefix('-').unwrap_or(text);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let kind = if is_integer {
        DecodeErrorKind::OutOfRange {
            value: text.to_owned(),
            ty,
        }
    } else {
        DecodeErrorKind::InvalidNumber {
            value: text.to_owned(),
            ty,
        }
    };
    DecodeError::new(kind)
}

impl<T: Attr> Attr for Option<T> {
    const DYNAMODB_TYPE: Option<&'static str> = T::DYNAMODB_TYPE;
    #[inline]
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        match self {
            Some(v) => v.to_attr(),
            None => Ok(AttributeValue::Null(true)),
        }
    }
    #[inline]
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        match self {
            Some(v) => v.into_attr(),
            None => Ok(AttributeValue::Null(true)),
        }
    }
    #[inline]
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::Null(_) => Ok(None),
            other => T::from_attr(other).map(Some),
        }
    }
    #[inline]
    fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
        match value {
            AttrRef::Null => Ok(None),
            other => T::from_attr_ref(other).map(Some),
        }
    }
    fn from_absent() -> Result<Self, DecodeError> {
        Ok(None)
    }
    #[inline]
    fn is_absent(&self) -> bool {
        match self {
            Some(v) => v.is_absent(),
            None => true,
        }
    }
}

impl<T: Attr> Attr for Box<T> {
    const DYNAMODB_TYPE: Option<&'static str> = T::DYNAMODB_TYPE;
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        (**self).to_attr()
    }
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        (*self).into_attr()
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        T::from_attr(value).map(Box::new)
    }
    fn from_attr_ref(value: AttrRef<'_>) -> Result<Self, DecodeError> {
        T::from_attr_ref(value).map(Box::new)
    }
    fn from_absent() -> Result<Self, DecodeError> {
        T::from_absent().map(Box::new)
    }
    fn is_absent(&self) -> bool {
        (**self).is_absent()
    }
}

// Loops over a presized vector rather than `collect::<Result<Vec<_>, _>>()`,
// whose iterator reports no lower bound and so grows the vector step by step.
impl<T: Attr> Attr for Vec<T> {
    const DYNAMODB_TYPE: Option<&'static str> = Some("L");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        let mut list = Vec::with_capacity(self.len());
        for (i, v) in self.iter().enumerate() {
            list.push(v.to_attr().map_err(|e| e.at(&format!("[{i}]")))?);
        }
        Ok(AttributeValue::L(list))
    }
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        let mut list = Vec::with_capacity(self.len());
        for (i, v) in self.into_iter().enumerate() {
            list.push(v.into_attr().map_err(|e| e.at(&format!("[{i}]")))?);
        }
        Ok(AttributeValue::L(list))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::L(list) => {
                let mut out = Vec::with_capacity(list.len());
                for (i, v) in list.into_iter().enumerate() {
                    out.push(T::from_attr(v).map_err(|e| e.at_index(i))?);
                }
                Ok(out)
            }
            other => Err(wrong_type("L (Vec)", &other)),
        }
    }
}

/// A fixed-size array, stored as `L` of its `N` elements (a vector index's
/// `[f32; N]` field); a stored list of another length does not decode.
impl<T: Attr, const N: usize> Attr for [T; N] {
    const DYNAMODB_TYPE: Option<&'static str> = Some("L");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        let mut list = Vec::with_capacity(N);
        for (i, v) in self.iter().enumerate() {
            list.push(v.to_attr().map_err(|e| e.at(&format!("[{i}]")))?);
        }
        Ok(AttributeValue::L(list))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        let list = Vec::<T>::from_attr(value)?;
        let found = list.len();
        list.try_into().map_err(|_| {
            DecodeError::new(DecodeErrorKind::Invalid(format!(
                "a list of {found} elements, not {N}"
            )))
        })
    }
}

impl Attr for Blob {
    const DYNAMODB_TYPE: Option<&'static str> = Some("B");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::B(self.clone()))
    }
    fn into_attr(self) -> Result<AttributeValue, EncodeError> {
        Ok(AttributeValue::B(self))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::B(b) => Ok(b),
            other => Err(wrong_type("B (Blob)", &other)),
        }
    }
}

/// A map type with string keys, stored as `M`.
macro_rules! map_attr {
    ($map:ident, $($bound:tt)*) => {
        impl<T: Attr, S: $($bound)*> Attr for $map<String, T, S> {
    const DYNAMODB_TYPE: Option<&'static str> = Some("M");
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                let mut m = HashMap::with_capacity(self.len());
                // Every entry is kept: `None` is stored as NULL, so `{"a": None}`
                // reads back as written.
                for (k, v) in self {
                    m.insert(k.clone(), v.to_attr().map_err(|e| e.at(k))?);
                }
                Ok(AttributeValue::M(m))
            }
            fn into_attr(self) -> Result<AttributeValue, EncodeError> {
                let mut m = HashMap::with_capacity(self.len());
                for (k, v) in self {
                    let v = v.into_attr().map_err(|e| e.at(&k))?;
                    m.insert(k, v);
                }
                Ok(AttributeValue::M(m))
            }
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                match value {
                    AttributeValue::M(m) => m
                        .into_iter()
                        .map(|(k, v)| match T::from_attr(v) {
                            Ok(v) => Ok((k, v)),
                            Err(e) => Err(e.at(&k)),
                        })
                        .collect(),
                    other => Err(wrong_type("M (map)", &other)),
                }
            }
        }
    };
}

map_attr!(HashMap, BuildHasher + Default);

impl<T: Attr> Attr for BTreeMap<String, T> {
    const DYNAMODB_TYPE: Option<&'static str> = Some("M");
    fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
        let mut m = HashMap::with_capacity(self.len());
        for (k, v) in self {
            m.insert(k.clone(), v.to_attr().map_err(|e| e.at(k))?);
        }
        Ok(AttributeValue::M(m))
    }
    fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
        match value {
            AttributeValue::M(m) => m
                .into_iter()
                .map(|(k, v)| match T::from_attr(v) {
                    Ok(v) => Ok((k, v)),
                    Err(e) => Err(e.at(&k)),
                })
                .collect(),
            other => Err(wrong_type("M (map)", &other)),
        }
    }
}

/// DynamoDB rejects empty sets. Attributes and map entries holding one are
/// left out (see [`Attr::is_absent`]); anywhere else (inside a list, as an
/// expression value) encoding one is this error, not a request DynamoDB
/// refuses.
#[cold]
fn empty_set() -> EncodeError {
    EncodeError::new(
        "DynamoDB cannot store an empty set; only an attribute or map entry holding one can be left out",
    )
}

/// Sets of strings (`SS`) and of integers (`NS`). DynamoDB cannot store an
/// empty set, so an empty set is stored as an absent attribute and an absent
/// attribute reads as an empty set.
macro_rules! set_attr {
    ($t:ty, $variant:ident, $kind:literal, $expected:literal, $to:expr, $from:expr) => {
        impl Attr for BTreeSet<$t> {
            const DYNAMODB_TYPE: Option<&'static str> = Some($kind);
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                if self.is_empty() {
                    return Err(empty_set());
                }
                Ok(AttributeValue::$variant(self.iter().map($to).collect()))
            }
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                match value {
                    AttributeValue::$variant(items) => items.into_iter().map($from).collect(),
                    other => Err(wrong_type($expected, &other)),
                }
            }
            fn from_absent() -> Result<Self, DecodeError> {
                Ok(Self::new())
            }
            fn is_absent(&self) -> bool {
                self.is_empty()
            }
        }

        impl<S: BuildHasher + Default> Attr for HashSet<$t, S> {
            const DYNAMODB_TYPE: Option<&'static str> = Some($kind);
            fn to_attr(&self) -> Result<AttributeValue, EncodeError> {
                if self.is_empty() {
                    return Err(empty_set());
                }
                Ok(AttributeValue::$variant(self.iter().map($to).collect()))
            }
            fn from_attr(value: AttributeValue) -> Result<Self, DecodeError> {
                match value {
                    AttributeValue::$variant(items) => items.into_iter().map($from).collect(),
                    other => Err(wrong_type($expected, &other)),
                }
            }
            fn from_absent() -> Result<Self, DecodeError> {
                Ok(Self::default())
            }
            fn is_absent(&self) -> bool {
                self.is_empty()
            }
        }
    };
}

set_attr!(
    String,
    Ss,
    "SS",
    "SS (string set)",
    |s: &String| s.clone(),
    Ok::<String, DecodeError>
);

macro_rules! number_sets {
    ($($t:ty),*) => {$(
        set_attr!(
            $t,
            Ns,
            "NS",
            "NS (number set)",
            |n: &$t| itoa::Buffer::new().format(*n).to_owned(),
            |s: String| s.parse::<$t>().map_err(|_| integer_error(&s, stringify!($t)))
        );
    )*};
}

number_sets!(u8, u16, u32, u64, i8, i16, i32, i64);

/// One attribute value: borrowed from the executor's storage for strings
/// and numbers when it can be, owned otherwise.
///
/// ```
/// use singletable_core::reader::AttrRef;
/// use singletable::AttributeValue;
///
/// let s = AttrRef::S("ana");
/// assert_eq!(s.as_s(), Some("ana"));
/// assert_eq!(s.as_n(), None);
/// assert_eq!(s.type_name(), "S");
/// assert_eq!(s.clone().into_owned(), AttributeValue::S("ana".into()));
/// let n = AttrRef::owned(AttributeValue::N("42".into()));
/// assert_eq!(n.as_n(), Some("42"));
/// assert_eq!(n.wrong_type("S (String)").to_string(), "expected S (String), found N");
/// assert_eq!(AttrRef::owned(AttributeValue::Bool(true)), AttrRef::Bool(true));
/// ```
// Three words: the other values are boxed, so that moving one through the
// reader calls (every attribute of every item read) stays cheap. The
// discriminant is a whole word: with a one-byte tag, `Bool`'s byte would sit
// beside it, and every move of a value copies the word's other seven bytes
// in two overlapping halves, which the load that follows waits for (a
// store-forwarding stall, measured at a fifth of a query's decoding time).
#[derive(Debug, Clone, PartialEq)]
#[repr(u64)]
pub enum AttrRef<'a> {
    /// A string (`S`), borrowed.
    S(&'a str),
    /// A number (`N`), borrowed, as DynamoDB writes it.
    N(&'a str),
    /// A boolean (`BOOL`).
    Bool(bool),
    /// A null (`NULL`).
    Null,
    /// Any other value, owned (see [`AttrRef::owned`]).
    Owned(Box<AttributeValue>),
}

impl AttrRef<'_> {
    /// An owned value as an `AttrRef`: booleans and nulls as their own
    /// variants, any other value boxed.
    pub fn owned(value: AttributeValue) -> AttrRef<'static> {
        match value {
            AttributeValue::Bool(b) => AttrRef::Bool(b),
            AttributeValue::Null(_) => AttrRef::Null,
            other => AttrRef::Owned(Box::new(other)),
        }
    }

    /// The value as an owned [`AttributeValue`].
    pub fn into_owned(self) -> AttributeValue {
        match self {
            AttrRef::S(s) => AttributeValue::S(s.to_owned()),
            AttrRef::N(n) => AttributeValue::N(n.to_owned()),
            AttrRef::Bool(b) => AttributeValue::Bool(b),
            AttrRef::Null => AttributeValue::Null(true),
            AttrRef::Owned(v) => *v,
        }
    }

    /// The string, if the value is one.
    pub fn as_s(&self) -> Option<&str> {
        match self {
            AttrRef::S(s) => Some(s),
            AttrRef::Owned(v) => v.as_s().ok().map(String::as_str),
            _ => None,
        }
    }

    /// The number's text, if the value is one.
    pub fn as_n(&self) -> Option<&str> {
        match self {
            AttrRef::N(n) => Some(n),
            AttrRef::Owned(v) => v.as_n().ok().map(String::as_str),
            _ => None,
        }
    }

    /// DynamoDB's name for the value's type.
    pub fn type_name(&self) -> &'static str {
        match self {
            AttrRef::S(_) => "S",
            AttrRef::N(_) => "N",
            AttrRef::Bool(_) => "BOOL",
            AttrRef::Null => "NULL",
            AttrRef::Owned(v) => type_name(v),
        }
    }

    /// The error for a value of the wrong type.
    #[cold]
    pub fn wrong_type(&self, expected: &'static str) -> DecodeError {
        DecodeError::new(DecodeErrorKind::WrongType {
            expected,
            found: self.type_name(),
        })
    }
}
