//! How an item read from DynamoDB becomes a typed value: [`Decode`],
//! which every entity implements (and `#[derive(Collection)]` enums, and
//! the partial reads of keys and projections), with the entity-type and
//! key checks that decide whether an item is one of the type's.
//!
//! ```
//! use singletable::Decode;
//! use singletable::{Entity, OtherTypes, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity, Debug, PartialEq)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! assert!(<User as Decode>::key_matches("USER#ana", Some("PROFILE")));
//! assert!(!<User as Decode>::key_matches("ORDER#1", Some("PROFILE")));
//! let item = User { id: "ana".into() }.to_item()?;
//! assert_eq!(User::decode(item, OtherTypes::Error)?, Some(User { id: "ana".into() }));
//! # Ok::<(), singletable::Error>(())
//! ```

use crate::entity::Entity;
use crate::error::{DecodeError, DecodeErrorKind, Error};
use crate::expr::Condition;
use crate::key::KeyOf;
use crate::reader::{AttrReader, OtherTypes};
use crate::value::{AttributeValue, Item};

/// Decodes items returned by a query: every entity, and the enums of
/// `#[derive(Collection)]`.
///
/// ```
/// use singletable::{Decode, Entity, OtherTypes, Table};
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
/// let item = User { id: "ana".into() }.to_item()?;
/// assert_eq!(<User as Decode>::decode(item, OtherTypes::Error)?, Some(User { id: "ana".into() }));
/// # Ok::<(), singletable::Error>(())
/// ```
pub trait Decode: Sized {
    /// The table the items live in: its key and entity-type attributes are
    /// how stream records are read (see [`crate::stream`]).
    type Table: crate::entity::Table;

    /// Whether an item stored under this primary key can be one this type
    /// decodes, judged by the key templates alone (`pk`, and `sk` on a
    /// table with a sort key): how a keys-only stream record, which carries
    /// no entity type, is told apart from another entity's. The default
    /// says yes.
    fn key_matches(pk: &str, sk: Option<&str>) -> bool {
        let _ = (pk, sk);
        true
    }

    /// Decodes one item; `Ok(None)` when the item is another entity type and
    /// `other` says to skip it.
    fn decode(item: Item, other: OtherTypes) -> Result<Option<Self>, Error>;

    /// Decodes one item read attribute by attribute (see
    /// [`crate::reader`]). The default builds the item and calls
    /// [`Decode::decode`]; entities read it in place.
    fn read<R: AttrReader + ?Sized>(
        reader: &mut R,
        other: OtherTypes,
    ) -> Result<Option<Self>, Error> {
        let item = crate::reader::collect_item(reader).map_err(|source| Error::Decode {
            entity: std::any::type_name::<Self>(),
            source,
        })?;
        Self::decode(item, other)
    }

    /// The table's TTL attribute: items whose TTL has passed are hidden.
    fn ttl_attribute() -> Option<&'static str> {
        None
    }

    /// The projection of the table's index named `index` (its DynamoDB
    /// name), `All` when unknown.
    fn index_projection(index: &str) -> crate::entity::Projection {
        let _ = index;
        crate::entity::Projection::All
    }

    /// The condition on the table's entity-type attribute `attribute` that
    /// an item this type decodes meets: what `Query::count` adds to its
    /// filter so that it counts what `Query::all` returns. `None` (the
    /// default) counts every item the query reads.
    fn type_condition(attribute: &str) -> Option<Condition> {
        let _ = attribute;
        None
    }

    /// Whether the index named `index` (its DynamoDB name) holds every
    /// attribute this type decodes, so that a read of the index can return
    /// it: a keys-only index holds keys, which whole entities are not. The
    /// default asks for an index that projects every attribute; reads of
    /// keys or of a projection say yes.
    fn readable_on(index: &str) -> bool {
        matches!(
            Self::index_projection(index),
            crate::entity::Projection::All
        )
    }

    /// Whether items without an entity type can be this type's (an entity
    /// with `#[entity(adopt = keys)]`, a collection with such a member):
    /// then no filter tells them apart, and `Query::count` reads the
    /// items to count what `Query::all` returns.
    fn adopts() -> bool {
        false
    }

    /// What the query's cursors are scoped to besides the access pattern:
    /// the entity type, or the collection's name. A cursor made by a query
    /// of another entity is refused, even under the same pattern name.
    fn cursor_scope() -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// The `Decode` items of a partial read of entity `E` (its keys, or a
/// projection): what `E` says, and a count that reads the items, since no
/// filter tells `E`'s keys apart.
macro_rules! partial_decode {
    () => {
        fn key_matches(pk: &str, sk: Option<&str>) -> bool {
            crate::entity::key_matches::<E>(pk, sk)
        }

        fn ttl_attribute() -> Option<&'static str> {
            <E::Table as crate::entity::Table>::TTL
        }

        fn cursor_scope() -> &'static str {
            E::ENTITY_TYPE
        }

        fn index_projection(index: &str) -> crate::entity::Projection {
            crate::entity::index_projection::<E::Table>(index)
        }

        fn adopts() -> bool {
            true
        }

        fn readable_on(_: &str) -> bool {
            true
        }
    };
}

impl<E: Entity> Decode for KeyOf<E> {
    type Table = E::Table;

    fn decode(item: Item, other: OtherTypes) -> Result<Option<Self>, Error> {
        Ok(own_key::<E>(&item, other)?.map(KeyOf::new))
    }

    partial_decode!();
}

/// The primary key of an item read from a partial projection, when it is
/// one of `E`'s: `E`'s key parsers read it, and its entity type, when the
/// index projects one, is `E`'s. Otherwise `None` when `other` skips, else
/// a [`DecodeErrorKind::KeyMismatch`] at the partition key.
pub(crate) fn own_key<E: Entity>(
    item: &Item,
    other: OtherTypes,
) -> Result<Option<crate::key::PrimaryKey>, Error> {
    use crate::entity::Table;
    let (pk_attr, sk_attr) = (<E::Table as Table>::PK, <E::Table as Table>::SK);
    let text = |attr: &str| match item.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    let pk = text(pk_attr);
    let sk = sk_attr.and_then(text);
    let typed = match item.get(<E::Table as Table>::ENTITY_TYPE) {
        None => true,
        Some(AttributeValue::S(t)) => t == E::ENTITY_TYPE,
        Some(_) => false,
    };
    let ours = pk
        .as_deref()
        .is_some_and(|pk| (sk.is_some() == sk_attr.is_some()) && E::parses_key(pk, sk.as_deref()));
    match (pk, ours && typed) {
        (Some(pk), true) => Ok(Some(crate::key::PrimaryKey { pk, sk })),
        _ if other == OtherTypes::Skip => Ok(None),
        (pk, _) => Err(Error::Decode {
            entity: E::ENTITY_TYPE,
            source: DecodeError::new(DecodeErrorKind::KeyMismatch {
                stored: pk.unwrap_or_default(),
                expected: E::PK_TEMPLATE.to_owned(),
            })
            .at(pk_attr),
        }),
    }
}

impl<T: Entity> Decode for T {
    type Table = T::Table;

    fn key_matches(pk: &str, sk: Option<&str>) -> bool {
        crate::entity::key_matches::<T>(pk, sk)
    }

    fn decode(item: Item, other: OtherTypes) -> Result<Option<Self>, Error> {
        if other == OtherTypes::Skip && !crate::entity::attributed_to::<T>(&item) {
            return Ok(None);
        }
        T::from_item(item).map(Some)
    }

    fn read<R: AttrReader + ?Sized>(
        reader: &mut R,
        other: OtherTypes,
    ) -> Result<Option<Self>, Error> {
        T::read_item(reader, other)
    }

    fn ttl_attribute() -> Option<&'static str> {
        <T::Table as crate::entity::Table>::TTL
    }

    fn cursor_scope() -> &'static str {
        T::ENTITY_TYPE
    }

    fn index_projection(index: &str) -> crate::entity::Projection {
        crate::entity::index_projection::<T::Table>(index)
    }

    fn type_condition(attribute: &str) -> Option<Condition> {
        types_condition(attribute, &[T::ENTITY_TYPE])
    }

    // Every attribute the entity stores (not those its primary key holds)
    // is projected, or is a key attribute of the index.
    fn readable_on(index: &str) -> bool {
        use crate::entity::{Projection, Table};
        let projected: &[&str] = match Self::index_projection(index) {
            Projection::All => return true,
            Projection::KeysOnly => &[],
            Projection::Include(attrs) => attrs,
        };
        let table = T::Table::GLOBAL_INDEXES.iter().find(|g| g.name == index);
        let keys: Vec<&str> = match table {
            Some(g) => g.key_attributes().map(|(n, _, _)| n).collect(),
            None => T::Table::LOCAL_INDEXES
                .iter()
                .filter(|l| l.name == index)
                .map(|l| l.sk)
                .collect(),
        };
        T::SHAPE
            .attributes
            .iter()
            .all(|a| projected.contains(a) || keys.contains(a))
    }

    fn adopts() -> bool {
        T::ADOPTS
    }
}

pub(crate) mod generated;
use generated::types_condition;
