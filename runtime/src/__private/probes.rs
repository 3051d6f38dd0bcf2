//! The derive's probes: what a key part's cardinality and width are, and
//! how a unique value's key part is read, with a fallback for types that
//! are not key parts or unique values (their error is reported once,
//! elsewhere).

use std::marker::PhantomData;

use crate::error::Error;
use crate::key::UniqueValue;
use crate::value::{Attr, AttributeValue};
use crate::vector::VectorField;

/// Product of known cardinalities; `None` when any is unknown. Used by
/// generated code.
pub fn cardinality(parts: &[Option<u64>]) -> Option<u64> {
    parts
        .iter()
        .try_fold(1u64, |acc, p| p.map(|n| acc.saturating_mul(n)))
}

/// The cardinality of a key template without placeholders (one value):
/// `KeyShape::cardinality` of such keys in generated code.
pub fn one_value() -> Option<u64> {
    Some(1)
}

/// Probe for a key part's cardinality without a second error for types that
/// are not key parts.
pub struct Card<T: ?Sized>(pub core::marker::PhantomData<T>);

impl<T: crate::key::KeyPart + ?Sized> Card<T> {
    /// The cardinality the key part declares.
    pub fn get(&self) -> Option<u64> {
        T::CARDINALITY
    }
}

/// Fallback of [`Card`] for types that are not key parts.
pub trait CardFallback {
    /// Unknown.
    fn get(&self) -> Option<u64> {
        None
    }
}

impl<T: ?Sized> CardFallback for Card<T> {}

/// The derive's probe for [`KeyPart::WIDTH`](crate::KeyPart::WIDTH) in a
/// constant: a type that is no key part (reported once, elsewhere) reads
/// as having no fixed width, through [`WidthFallback`].
pub struct Width<T: ?Sized>(pub core::marker::PhantomData<T>);

impl<T: crate::key::KeyPart + ?Sized> Width<T> {
    /// The width the key part declares.
    pub const VALUE: Option<usize> = T::WIDTH;
}

/// Chosen only for a type that is not a key part.
pub trait WidthFallback {
    /// Unknown.
    const VALUE: Option<usize> = None;
}

impl<T: ?Sized> WidthFallback for Width<T> {}

/// The derive's probe for [`Attr::DYNAMODB_TYPE`](crate::Attr::DYNAMODB_TYPE)
/// in the entity's shape: a field type that is no `Attr` (reported once,
/// by the item codec) reads as of unknown type, through
/// [`StoredTypeFallback`].
pub struct StoredType<T: ?Sized>(pub core::marker::PhantomData<T>);

impl<T: crate::Attr> StoredType<T> {
    /// The type the field's type declares.
    pub const VALUE: Option<&'static str> = T::DYNAMODB_TYPE;
}

/// Chosen only for a type that is not an `Attr`.
pub trait StoredTypeFallback {
    /// Unknown.
    const VALUE: Option<&'static str> = None;
}

impl<T: ?Sized> StoredTypeFallback for StoredType<T> {}

/// The probe generated code reads a unique value through (like
/// `WritePart`): for a type that is not a [`UniqueValue`],
/// the derive's assertion reports the error once and method resolution
/// falls back to [`UniquePartFallback`].
pub struct UniquePart<T>(PhantomData<T>);

impl<T> UniquePart<T> {
    /// The probe for `T`.
    pub const NEW: Self = Self(PhantomData);
}

impl<T: UniqueValue + Attr> UniquePart<T> {
    /// The key part of a stored value of `T`.
    pub fn part(
        &self,
        value: &AttributeValue,
        entity: &'static str,
        field: &'static str,
        attribute: &str,
    ) -> Result<Option<String>, Error> {
        if matches!(value, AttributeValue::Null(_)) {
            return Ok(None);
        }
        let v = T::from_attr(value.clone()).map_err(|e| Error::Decode {
            entity,
            source: e.at(attribute),
        })?;
        v.unique_part()
            .transpose()
            .map_err(|reason| Error::KeyValue {
                entity,
                field,
                reason,
            })
    }
}

/// Chosen only for a type that is not a unique value, whose derive already
/// failed.
pub trait UniquePartFallback {
    /// Never runs: the crate that would call it does not compile.
    fn part(
        &self,
        _: &AttributeValue,
        _: &'static str,
        _: &'static str,
        _: &str,
    ) -> Result<Option<String>, Error> {
        unreachable!("the derive rejected this unique value type")
    }
}

impl<T> UniquePartFallback for UniquePart<T> {}

/// Asserts at compile time that a field type can be a unique value.
pub const fn assert_unique<T: UniqueValue>() {}

/// The vector a field holds, for the checks `validate` makes before a
/// write: [`VectorField::vector`] when the field's type is one, else
/// nothing (a type that is not is one compile error, at the type, from the
/// derive's own check). Generated code calls `(&VectorProbe(&f)).vector()`
/// with `ProbeVector` and `ProbeVectorFallback` in scope.
pub struct VectorProbe<'a, T>(pub &'a T);

pub trait ProbeVector<'a> {
    fn vector(&self) -> Option<&'a [f32]>;
}

impl<'a, T: VectorField> ProbeVector<'a> for VectorProbe<'a, T> {
    fn vector(&self) -> Option<&'a [f32]> {
        self.0.vector()
    }
}

pub trait ProbeVectorFallback<'a> {
    fn vector(&self) -> Option<&'a [f32]> {
        None
    }
}

impl<'a, T> ProbeVectorFallback<'a> for &VectorProbe<'a, T> {}
