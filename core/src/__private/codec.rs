//! The item codec's per-field steps, called by generated `to_item`,
//! `from_item` and `read_item`.

use super::*;

/// Length for `min_len`/`max_len` validations: characters for strings,
/// elements for collections.
#[allow(clippy::len_without_is_empty)]
pub trait Len {
    /// The length.
    fn len(&self) -> usize;
}
impl Len for String {
    fn len(&self) -> usize {
        self.chars().count()
    }
}
impl<T> Len for Vec<T> {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
}
impl<T, S> Len for ::std::collections::HashSet<T, S> {
    fn len(&self) -> usize {
        ::std::collections::HashSet::len(self)
    }
}
impl<T> Len for ::std::collections::BTreeSet<T> {
    fn len(&self) -> usize {
        ::std::collections::BTreeSet::len(self)
    }
}
impl<K, V, S> Len for HashMap<K, V, S> {
    fn len(&self) -> usize {
        HashMap::len(self)
    }
}
impl<K, V> Len for ::std::collections::BTreeMap<K, V> {
    fn len(&self) -> usize {
        ::std::collections::BTreeMap::len(self)
    }
}
impl<T: Len> Len for Option<T> {
    fn len(&self) -> usize {
        self.as_ref().map_or(0, Len::len)
    }
}

/// Adds the entity to the error of encoding one of its attributes.
#[inline]
pub fn encoded<T>(entity: &'static str, result: Result<T, crate::EncodeError>) -> crate::Result<T> {
    result.map_err(|source| crate::Error::Encode { entity, source })
}

/// Adds the entity to the error of decoding one of its attributes.
/// Always inlined, as [`FieldCodec::take_read`] is: a decoder then keeps
/// the field's value in registers instead of passing a whole `Result`
/// (as large as `Error`) through memory per field.
#[inline(always)]
pub fn decoded<T>(entity: &'static str, result: Result<T, crate::DecodeError>) -> crate::Result<T> {
    result.map_err(|source| crate::Error::Decode { entity, source })
}

/// The per-field steps of the derived codecs (see `field_codec`), for
/// every [`Attr`](crate::Attr) type. The derive calls them as
/// `<T as FieldCodec>::put(..)`: a field type that is no `Attr` then
/// gets one error, however many steps name it. The entity's steps take
/// the entity's name first and return an `Error`; the document's
/// (`doc_`) return an `EncodeError` or `DecodeError`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a DynamoDB attribute",
    label = "this field's type has no DynamoDB representation",
    note = "derive `Document` for nested structs or `StrEnum` for unit enums, or add `#[attr(serde)]` to store it through serde"
)]
pub trait FieldCodec: Sized {
    /// `field_codec::put` for a field of `entity`.
    fn put(
        entity: &'static str,
        item: &mut crate::Item,
        name: &'static str,
        value: &Self,
    ) -> crate::Result<()>;

    /// [`FieldCodec::put`], keeping the first error in `failed` and
    /// skipping the field once there is one: an entity's encoder then
    /// returns `failed` at its end instead of a `?` per field.
    #[inline]
    fn put_or(
        entity: &'static str,
        item: &mut crate::Item,
        name: &'static str,
        value: &Self,
        failed: &mut Option<crate::Error>,
    ) {
        if failed.is_none()
            && let Err(e) = Self::put(entity, item, name, value)
        {
            *failed = Some(e);
        }
    }

    /// `field_codec::take` for a field of `entity`.
    fn take(entity: &'static str, slot: Option<AttributeValue>, name: &str) -> crate::Result<Self>;

    /// `field_codec::take_read` for a field of `entity`.
    fn take_read(entity: &'static str, slot: Slot<Self>, name: &str) -> crate::Result<Self>;

    /// Decodes an attribute's value into its field's [`Slot`].
    fn read_slot(value: crate::reader::AttrRef<'_>) -> Slot<Self>;

    /// A key field's value as a stored attribute, for an upsert.
    fn key_value(entity: &'static str, name: &str, value: &Self) -> crate::Result<AttributeValue>;

    /// Whether the field decodes from an absent attribute.
    fn absent_ok() -> bool;

    /// `field_codec::put`, for a document's field.
    fn doc_put(
        item: &mut crate::Item,
        name: &'static str,
        value: &Self,
    ) -> Result<(), crate::EncodeError>;

    /// `field_codec::put_owned`, for a document's field.
    fn doc_put_owned(
        item: &mut crate::Item,
        name: &'static str,
        value: Self,
    ) -> Result<(), crate::EncodeError>;

    /// `field_codec::take`, for a document's field.
    fn doc_take(slot: Option<AttributeValue>, name: &str) -> Result<Self, crate::DecodeError>;
}

impl<T: crate::Attr> FieldCodec for T {
    #[inline]
    fn put(
        entity: &'static str,
        item: &mut crate::Item,
        name: &'static str,
        value: &Self,
    ) -> crate::Result<()> {
        encoded(entity, crate::field_codec::put(item, name, value))
    }

    #[inline]
    fn take(entity: &'static str, slot: Option<AttributeValue>, name: &str) -> crate::Result<Self> {
        decoded(entity, crate::field_codec::take(slot, name))
    }

    #[inline(always)]
    fn take_read(entity: &'static str, slot: Slot<Self>, name: &str) -> crate::Result<Self> {
        decoded(entity, crate::field_codec::take_read(slot, name))
    }

    #[inline]
    fn read_slot(value: crate::reader::AttrRef<'_>) -> Slot<Self> {
        Some(T::from_attr_ref(value))
    }

    #[inline]
    fn key_value(entity: &'static str, name: &str, value: &Self) -> crate::Result<AttributeValue> {
        encoded(entity, value.to_attr().map_err(|e| e.at(name)))
    }

    fn absent_ok() -> bool {
        T::from_absent().is_ok()
    }

    #[inline]
    fn doc_put(
        item: &mut crate::Item,
        name: &'static str,
        value: &Self,
    ) -> Result<(), crate::EncodeError> {
        crate::field_codec::put(item, name, value)
    }

    #[inline]
    fn doc_put_owned(
        item: &mut crate::Item,
        name: &'static str,
        value: Self,
    ) -> Result<(), crate::EncodeError> {
        crate::field_codec::put_owned(item, name, value)
    }

    #[inline]
    fn doc_take(slot: Option<AttributeValue>, name: &str) -> Result<Self, crate::DecodeError> {
        crate::field_codec::take(slot, name)
    }
}

/// Inserts an item's primary key attributes (`sk` when the table has
/// a sort key) and its entity type.
#[inline]
pub fn insert_primary(
    item: &mut crate::Item,
    table: &TableAttrs,
    pk: &str,
    sk: Option<&str>,
    entity: Option<&str>,
) {
    item.insert(String::from(table.pk), AttributeValue::S(pk.to_owned()));
    if let (Some(attr), Some(sk)) = (table.sk, sk) {
        item.insert(String::from(attr), AttributeValue::S(sk.to_owned()));
    }
    if let Some(entity) = entity {
        item.insert(
            String::from(table.entity_type),
            AttributeValue::S(entity.to_owned()),
        );
    }
}

/// Inserts an item's primary key attributes (`sk` when the table has a
/// sort key), moving the key's strings in, and `E`'s entity type unless
/// it writes none: the encoders of an entity without index keys.
#[inline]
pub fn insert_key<E: crate::Entity>(
    item: &mut crate::Item,
    table: &TableAttrs,
    key: crate::PrimaryKey,
) {
    item.insert(String::from(table.pk), AttributeValue::S(key.pk));
    if let (Some(attr), Some(sk)) = (table.sk, key.sk) {
        item.insert(String::from(attr), AttributeValue::S(sk));
    }
    if E::WRITES_TYPE {
        item.insert(
            String::from(table.entity_type),
            AttributeValue::S(E::ENTITY_TYPE.to_owned()),
        );
    }
}

/// The start of the encoders of an entity without index keys: the entity
/// validated, then an item of `capacity` with its primary key attributes
/// and entity type (see [`insert_key`]). One call in each encoder.
#[inline]
pub fn keyed_item<E: crate::Entity>(
    entity: &E,
    table: &TableAttrs,
    capacity: usize,
) -> crate::Result<crate::Item> {
    entity.validate()?;
    let mut item = HashMap::with_capacity(capacity);
    insert_key::<E>(&mut item, table, entity.primary_key()?);
    Ok(item)
}

/// The end of an entity's encoders: the first error of a field's step
/// (see [`FieldCodec::put_or`]), or the item, once the attributes that
/// key an index are checked (see [`crate::__private::check_attribute_keys`]).
#[inline]
pub fn checked_item<E: crate::Entity>(
    item: crate::Item,
    failed: Option<crate::Error>,
) -> crate::Result<crate::Item> {
    let item = written(item, failed)?;
    check_attribute_keys::<E::Table>(E::ENTITY_TYPE, &item)?;
    Ok(item)
}

/// The first error of a field's step (see [`FieldCodec::put_or`]), or
/// the item.
#[inline]
pub fn written(item: crate::Item, failed: Option<crate::Error>) -> crate::Result<crate::Item> {
    match failed {
        Some(e) => Err(e),
        None => Ok(item),
    }
}

/// The first error of a field's step so far (see [`FieldCodec::put_or`]),
/// before a step that returns its own.
#[inline]
pub fn no_failure(failed: &mut Option<crate::Error>) -> crate::Result<()> {
    match failed.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `Entity::from_item` of an entity that reads items attribute by
/// attribute: the owned item's values are moved, not copied.
pub fn read_owned<T: crate::Entity>(item: crate::Item) -> crate::Result<T> {
    let mut reader = crate::reader::ItemAttrs::new(item);
    match T::read_item(&mut reader, crate::OtherTypes::Error)? {
        Some(entity) => Ok(entity),
        // Never with `OtherTypes::Error`; an error rather than a panic.
        None => Err(crate::Error::Decode {
            entity: T::ENTITY_TYPE,
            source: crate::DecodeError::missing().at(<T::Table as crate::Table>::ENTITY_TYPE),
        }),
    }
}

// Generated decoders number their attributes with the table's: made
// here, where the table's attributes are known, so the reader names no
// declaration.
impl crate::reader::Numbering {
    /// The numbering of `names`, then of the entity-type, partition and
    /// sort key attributes of the table `attrs` describes: what an
    /// entity's decoder reads. One `static` in each decoder, with no list
    /// of its own to evaluate.
    #[doc(hidden)]
    pub const fn with_table(
        names: &'static [&'static str],
        attrs: &crate::entity::TableAttrs,
    ) -> Self {
        Self {
            names,
            table: [
                attrs.entity_type,
                attrs.pk,
                match attrs.sk {
                    Some(sk) => sk,
                    None => "",
                },
            ],
        }
    }
}
