//! The timestamps generated code stores: reachable only through
//! `__private`.

use super::*;

/// The `created_at` value a write stores (see [`Created`]). Used by
/// generated code.
pub fn created_value<T: Timestamp>(
    current: &T,
    stamp: &Stamp,
    entity: &'static str,
    attribute: &str,
) -> Result<T, Error> {
    match &stamp.created {
        Created::Now => Ok(T::at(stamp.now)),
        Created::Keep | Created::Stored(_) if !current.is_unset() => Ok(current.clone()),
        Created::Stored(item) => match item.get(attribute) {
            Some(AttributeValue::Null(_)) | None => Ok(T::at(stamp.now)),
            Some(v) => T::from_attr(v.clone()).map_err(|e: DecodeError| Error::Decode {
                entity,
                source: e.at(attribute),
            }),
        },
        Created::Keep => Ok(T::at(stamp.now)),
    }
}

/// The `updated_at` value a write stores. Used by generated code.
pub fn updated_value<T: Timestamp>(stamp: &Stamp) -> T {
    T::at(stamp.now)
}

/// The stored value of `T` at `time`. Used by generated code.
pub fn time_attr<T: Timestamp>(
    time: SystemTime,
    entity: &'static str,
    attribute: &str,
) -> Result<AttributeValue, Error> {
    T::at(time).to_attr().map_err(|e| Error::Encode {
        entity,
        source: e.at(attribute),
    })
}
