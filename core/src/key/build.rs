//! Building and reading whole keys from templates: the length checks,
//! the recycled key buffers, and what generated builders and parsers
//! call (reachable through `__private`).

#![allow(missing_docs)]

use super::*;

/// Checks a built key against DynamoDB's size limit, as every generated
/// builder does before returning.
///
/// ```
/// use singletable_core::key::{check_len, MAX_SORT_KEY_BYTES};
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
/// use singletable_core::key::{key_buffer, recycle_key};
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
#[inline]
pub fn primary_key(pk: Built, sk: Option<Built>) -> Result<PrimaryKey, Error> {
    let pk = pk?;
    Ok(PrimaryKey {
        pk,
        sk: sk.transpose()?,
    })
}

/// [`primary_key`] as a key of `E`: a derived `key`.
#[inline]
pub fn key_of<E>(pk: Built, sk: Option<Built>) -> Result<KeyOf<E>, Error> {
    primary_key(pk, sk).map(KeyOf::new)
}

/// [`primary_key`] for an index: a derived `gsi1_key`.
#[inline]
pub fn index_key(pk: Built, sk: Option<Built>) -> Result<IndexKey, Error> {
    primary_key(pk, sk).map(|PrimaryKey { pk, sk }| IndexKey { pk, sk })
}

/// Gives a key string back for [`key_buffer`] to reuse on this thread (at
/// most a few are kept, and none over 2 KB; the others are freed).
///
/// ```
/// singletable_core::key::recycle_key(String::from("ORDER#1"));
/// assert!(singletable_core::key::key_buffer(4).is_empty());
/// ```
#[inline]
pub fn recycle_key(s: String) {
    recycle_keys([Some(s)]);
}

/// [`recycle_key`] of several strings at once (one look at this thread's
/// list).
///
/// ```
/// singletable_core::key::recycle_keys([Some(String::from("A#1")), None]);
/// assert!(singletable_core::key::key_buffer(4).is_empty());
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
/// use singletable::{Error};
/// use singletable_core::{key::write_part};
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
/// use singletable_core::key::KeyReader;
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
}
