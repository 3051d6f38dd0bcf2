//! The per-field steps of the item codecs that `#[derive(Entity)]` and
//! `#[derive(Document)]` generate: each field is one call of a generic
//! function here, instantiated once per field type rather than written out
//! once per field, which keeps the derived code (and its compile time)
//! small. Errors carry the attribute's name; the caller adds the entity.

use crate::codec_error::{DecodeError, EncodeError};
use crate::value::{Attr, AttributeValue, Item};

/// Inserts `value` into `item` as attribute `name`, unless the value is
/// stored by leaving the attribute out (`None`, an empty set).
#[inline]
pub fn put<T: Attr>(item: &mut Item, name: &'static str, value: &T) -> Result<(), EncodeError> {
    if !value.is_absent() {
        let v = value.to_attr().map_err(|e| e.at(name))?;
        item.insert(String::from(name), v);
    }
    Ok(())
}

/// Like [`put`], moving the value.
#[inline]
pub fn put_owned<T: Attr>(
    item: &mut Item,
    name: &'static str,
    value: T,
) -> Result<(), EncodeError> {
    if !value.is_absent() {
        let v = value.into_attr().map_err(|e| e.at(name))?;
        item.insert(String::from(name), v);
    }
    Ok(())
}

/// Decodes the value of attribute `name` taken from an item (`None` when
/// the item has no such attribute).
#[inline]
pub fn take<T: Attr>(slot: Option<AttributeValue>, name: &str) -> Result<T, DecodeError> {
    match slot {
        Some(v) => T::from_attr(v),
        None => T::from_absent(),
    }
    .map_err(|e| e.at(name))
}

/// The value of attribute `name` decoded as it was read (`None` when the
/// item had no such attribute).
#[inline(always)]
pub fn take_read<T: Attr>(
    slot: Option<Result<T, DecodeError>>,
    name: &str,
) -> Result<T, DecodeError> {
    match slot {
        Some(v) => v,
        None => T::from_absent(),
    }
    .map_err(|e| e.at(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_values_are_left_out_and_read_back() {
        let mut item = Item::new();
        put(&mut item, "note", &None::<String>).unwrap();
        put_owned(&mut item, "name", String::from("ada")).unwrap();
        assert_eq!(item.len(), 1);
        let name: String = take(item.remove("name"), "name").unwrap();
        assert_eq!(name, "ada");
        let note: Option<String> = take(None, "note").unwrap();
        assert_eq!(note, None);
    }

    #[test]
    fn errors_name_the_attribute() {
        let e = take::<u32>(Some(AttributeValue::S("x".into())), "count").unwrap_err();
        assert!(e.to_string().contains("count"), "{e}");
        let e = take_read::<String>(None, "name").unwrap_err();
        assert!(e.to_string().contains("name"), "{e}");
    }
}
