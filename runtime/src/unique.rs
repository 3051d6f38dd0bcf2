//! Unique values: the marker items that `#[attr(unique)]` fields keep.
//!
//! For every value of a unique field, the table holds one marker item
//! beside the entity item that has the value:
//!
//! | attribute | value |
//! |---|---|
//! | partition key (`PK`) | `UNIQUE#<entity>#<attribute>#<value>` |
//! | sort key (`SK`), if the table has one | `UNIQUE` |
//! | entity type (`entityType`) | `singletable.unique` |
//! | `ownerPk` / `ownerSk` | the primary key of the item that holds the value |
//!
//! These names are [`MarkerKey`]'s constants, and [`MarkerKey::of`] gives
//! the key of a value's marker.
//!
//! `<entity>` is the entity type, `<attribute>` the field's stored name,
//! each escaped like a key part (`#` → `%23`, `%` → `%25`); `<value>` is
//! the value written by the key codec (strings escaped, integers
//! zero-padded). The partition key is therefore injective: two different
//! values, fields or entities never share a marker. Markers carry no index
//! key attribute, so they appear in no index; their entity type is no
//! entity's, and `#[table(entities(...))]` refuses an entity whose primary
//! key could be a marker's, so no entity query or collection reads them.
//!
//! Creating an item writes its markers in the same TransactWriteItems,
//! each conditioned on not existing yet (or belonging to the same item); a
//! marker that another item owns cancels the transaction, reported as
//! [`Error::UniqueViolation`] naming the field. Changing a value deletes
//! the old marker (conditioned on belonging to the item) and puts the new
//! one in the same transaction; deleting the item deletes its markers. See
//! [`Db::create`](crate::Db::create), [`Db::put`](crate::Db::put),
//! [`Update::knowing`](crate::Update::knowing) and
//! [`Db::delete`](crate::Db::delete) for what each write needs.
//!
//! # Declared marker keys
//!
//! `#[attr(unique = "CUSTOMEREMAIL#<email>")]` keys the markers on a
//! template instead, for tables whose markers another client writes too
//! (The DynamoDB Book's e-commerce table): literal text, the field's own
//! placeholder, optional literal text. Such a marker is exactly what the
//! book's code writes, and nothing more:
//!
//! | attribute | value |
//! |---|---|
//! | partition key (`PK`) | the template with the value (`CUSTOMEREMAIL#alex@example.com`) |
//! | sort key (`SK`), if the table has one | the same text |
//!
//! The value is written by the key codec, as in every key. A declared
//! marker records no owner, so its claim is conditioned on no item having
//! its key (`attribute_not_exists(PK)`), whoever wrote it: a marker another
//! client put blocks the library's write just as the library's own do.
//! Ownership follows from the item instead: a put, update or delete that
//! moves a value is conditioned on the stored item holding the old value,
//! so the old marker it deletes (unconditionally) is the item's own, and a
//! put that keeps a value leaves its marker alone (it cannot repair a
//! missing one, as the library's layout does). The derive refuses a
//! template that does not name the field, names another field or does not
//! start with literal text, and two fields of an entity declaring the same
//! marker key; `#[table(entities(...))]` refuses an entity whose primary
//! key can be a declared marker's.
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Error, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop")]
//! pub struct Shop;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = Shop, rename_all = "camelCase")]
//! #[pk("CUSTOMER#<username>")]
//! #[sk("CUSTOMER#<username>")]
//! pub struct Customer {
//!     pub username: String,
//!     #[attr(unique = "CUSTOMEREMAIL#<email>")]
//!     pub email: String,
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! let alex = Customer { username: "alexdebrie".into(), email: "alex@example.com".into() };
//! db.create(&alex).await?;
//! let key = singletable::unique::MarkerKey::of::<Customer>(&Customer::UNIQUE[0], "alex@example.com")?;
//! assert_eq!(key.pk, "CUSTOMEREMAIL#alex@example.com");
//! assert_eq!(key.sk.as_deref(), Some("CUSTOMEREMAIL#alex@example.com"));
//! let taken = db.create(&Customer { username: "other".into(), email: alex.email.clone() }).await;
//! match taken {
//!     Err(Error::UniqueViolation { entity, field, marker }) => {
//!         assert_eq!((entity, field), ("Customer", "email"));
//!         assert_eq!(marker, "CUSTOMEREMAIL#alex@example.com");
//!     }
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), Error>(())
//! # }).unwrap();
//! ```
//!
//! # The library's layout
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Error, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App)]
//! #[pk("ACCOUNT#<id>")]
//! #[sk("ACCOUNT")]
//! pub struct Account {
//!     pub id: String,
//!     #[attr(unique)]
//!     pub email: String,
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! // One TransactWriteItems: the account and its marker UNIQUE#Account#email#ana@example.com.
//! db.create(&Account { id: "a1".into(), email: "ana@example.com".into() }).await?;
//! let taken = db.create(&Account { id: "a2".into(), email: "ana@example.com".into() }).await;
//! assert!(matches!(taken, Err(Error::UniqueViolation { field: "email", .. })));
//! assert_eq!(db.executor().item_count("App"), Some(2)); // the account and its marker
//! # Ok::<(), Error>(())
//! # }).unwrap();
//! ```

pub use crate::entity::MarkerKey;
use crate::entity::{Entity, Table, UniqueField};
use crate::error::Error;
use crate::expr::Condition;
use crate::key::PrimaryKey;
use crate::request::{DeleteItem, PutItem, TransactWriteOp};
use crate::value::{AttributeValue, Item};

pub use crate::key::UniqueValue;

/// One marker write of a transaction.
#[derive(Debug, Clone)]
pub(crate) struct MarkerOp {
    /// The marker's key.
    pub key: PrimaryKey,
    /// The operation.
    pub op: TransactWriteOp,
    /// The entity and field whose value it is.
    pub entity: &'static str,
    /// The Rust field name.
    pub field: &'static str,
    /// Whether it claims the value (a put) rather than releasing one.
    pub claims: bool,
}

/// `ownerPk = :pk (AND ownerSk = :sk)`: the marker belongs to `owner`.
fn owned_by(owner: &PrimaryKey) -> Condition {
    let pk = Condition::eq(MarkerKey::OWNER_PK, AttributeValue::S(owner.pk.clone()));
    match &owner.sk {
        Some(sk) => pk.and(Condition::eq(
            MarkerKey::OWNER_SK,
            AttributeValue::S(sk.clone()),
        )),
        None => pk,
    }
}

/// Puts the marker of `part`, only where no item or the owner's marker is.
pub(crate) fn claim<E: Entity>(
    table: &str,
    field: &'static UniqueField,
    part: &str,
    owner: &PrimaryKey,
) -> Result<MarkerOp, Error> {
    let key = MarkerKey::of::<E>(field, part)?;
    let mut item = key.to_item::<E::Table>();
    let absent = Condition::NotExists(<E::Table as Table>::PK.to_owned());
    // A declared marker is its key alone, and records no owner.
    let condition = if field.marker.is_some() {
        absent
    } else {
        item.insert(
            <E::Table as Table>::ENTITY_TYPE.to_owned(),
            AttributeValue::S(MarkerKey::TYPE.to_owned()),
        );
        item.insert(
            MarkerKey::OWNER_PK.to_owned(),
            AttributeValue::S(owner.pk.clone()),
        );
        if let Some(sk) = &owner.sk {
            item.insert(
                MarkerKey::OWNER_SK.to_owned(),
                AttributeValue::S(sk.clone()),
            );
        }
        absent.or(owned_by(owner))
    };
    Ok(MarkerOp {
        key,
        op: TransactWriteOp::Put(PutItem {
            table: table.to_owned(),
            item,
            condition: Some(condition),
            return_old: false,
            return_on_condition_failure: false,
        }),
        entity: E::ENTITY_TYPE,
        field: field.field,
        claims: true,
    })
}

/// Deletes the marker of `part` if it belongs to `owner` (or is gone).
pub(crate) fn release<E: Entity>(
    table: &str,
    field: &'static UniqueField,
    part: &str,
    owner: &PrimaryKey,
) -> Result<MarkerOp, Error> {
    let key = MarkerKey::of::<E>(field, part)?;
    // A declared marker records no owner: the write that releases it is
    // conditioned on the item holding the value, so the marker is its own.
    let condition = field
        .marker
        .is_none()
        .then(|| Condition::NotExists(<E::Table as Table>::PK.to_owned()).or(owned_by(owner)));
    Ok(MarkerOp {
        op: TransactWriteOp::Delete(DeleteItem {
            table: table.to_owned(),
            key: key.to_item::<E::Table>(),
            condition,
            return_old: false,
            return_on_condition_failure: false,
        }),
        key,
        entity: E::ENTITY_TYPE,
        field: field.field,
        claims: false,
    })
}

/// The marker part of `field` in an encoded item (`None`: no marker).
pub(crate) fn part_in(field: &UniqueField, item: Option<&Item>) -> Result<Option<String>, Error> {
    match item.and_then(|i| i.get(field.attribute)) {
        Some(v) => (field.part)(v),
        None => Ok(None),
    }
}

/// The marker writes that take the unique values of `old` (the stored item,
/// `None` when there is none) to those of `new` (`None`: deleted): release
/// the values that go, claim the values that stay or come (claiming a value
/// the owner already holds rewrites its marker, which repairs a missing
/// one). A declared marker of a value that stays is left alone: it records
/// no owner, so a claim would find it taken.
pub(crate) fn moves<E: Entity>(
    table: &str,
    owner: &PrimaryKey,
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<Vec<MarkerOp>, Error> {
    let mut ops = Vec::new();
    for field in E::UNIQUE {
        let before = part_in(field, old)?;
        let after = match new {
            Some(_) => part_in(field, new)?,
            None => None,
        };
        if let Some(b) = &before
            && after.as_ref() != Some(b)
        {
            ops.push(release::<E>(table, field, b, owner)?);
        }
        if let Some(a) = &after
            && (field.marker.is_none() || before.as_ref() != Some(a))
        {
            ops.push(claim::<E>(table, field, a, owner)?);
        }
    }
    Ok(ops)
}

/// The error of a cancelled transaction whose marker writes start at
/// position `first_marker`: a claim that failed its condition is the
/// value's [`Error::UniqueViolation`]. `None` when no claim failed.
pub(crate) fn violation(
    reasons: &[crate::error::CancellationReason],
    markers: &[(usize, &MarkerOp)],
) -> Option<Error> {
    markers.iter().find_map(|(index, m)| {
        let failed = reasons
            .get(*index)
            .is_some_and(|r| r.code == "ConditionalCheckFailed");
        (failed && m.claims).then(|| Error::UniqueViolation {
            entity: m.entity,
            field: m.field,
            marker: m.key.pk.clone(),
        })
    })
}
