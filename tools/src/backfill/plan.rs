//! What a backfill writes for one stored item: nothing when its key
//! attributes (and schema version) are what the entity writes today,
//! otherwise one UpdateItem that sets exactly the attributes that differ,
//! conditioned on the item being as it was read.

use singletable_runtime::entity::{Entity, Table};
use singletable_runtime::error::Error;
use singletable_runtime::expr::Condition;
use singletable_runtime::key::PrimaryKey;
use singletable_runtime::request::{ReturnValues, SetValue, UpdateAction, UpdateItem};
use singletable_runtime::value::{AttributeValue, Item};

/// What to do with one item.
pub(crate) enum Plan {
    /// Its keys match: nothing to write.
    Unchanged,
    /// It is no longer an item of the entity (deleted, or replaced by
    /// another entity type).
    Gone,
    /// This update rewrites it.
    Rewrite(Box<UpdateItem>),
}

/// The attributes a key template writes: the table's and every index's
/// key attributes (the table's own key attributes are never rewritten:
/// they are the item's identity). A multi-attribute index's attributes are
/// the items' own fields, which no template writes.
fn index_key_attributes<T: Table>() -> Vec<&'static str> {
    let mut out = Vec::new();
    for g in T::GLOBAL_INDEXES.iter().filter(|g| g.attributes.is_none()) {
        out.push(g.pk);
        out.extend(g.sk);
    }
    for l in T::LOCAL_INDEXES {
        out.push(l.sk);
    }
    out
}

/// The schema version stored with an item (items written before the
/// entity declared versions have none: version 1).
pub(crate) fn stored_version(item: &Item, attribute: &str) -> Option<u64> {
    match item.get(attribute) {
        None => Some(1),
        Some(AttributeValue::N(n)) => n.parse().ok(),
        Some(_) => None,
    }
}

/// A condition that holds when all of `parts` hold, as a balanced tree so
/// that long lists do not nest deeply.
fn all(mut parts: Vec<Condition>) -> Option<Condition> {
    while parts.len() > 1 {
        let mut next = Vec::with_capacity(parts.len().div_ceil(2));
        let mut it = parts.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => a.and(b),
                None => a,
            });
        }
        parts = next;
    }
    parts.pop()
}

/// The plan for `stored`, read from `table`; an error when it cannot be
/// rewritten (it does not decode, or its key fields no longer build the
/// key it is stored under).
pub(crate) fn plan<T: Entity>(table: &str, stored: &Item) -> Result<Plan, Error> {
    // `T`'s item: of its type, or without one and claimed by its keys
    // (an untyped entity's items never have one).
    if !singletable_runtime::__private::attributed_to::<T>(stored) {
        return Ok(Plan::Gone);
    }
    let entity = decode_stored::<T>(stored)?;
    let rebuilt = entity.to_item()?;

    // A full rewrite when the stored schema version is not the current
    // one: the migrated item replaces every attribute of the old shape.
    let schema = T::SCHEMA;
    let reshape =
        schema.is_some_and(|s| stored_version(stored, s.attribute) != Some(u64::from(s.current)));
    let mut compared: Vec<&str> = if reshape {
        let mut names: Vec<&str> = rebuilt.keys().map(String::as_str).collect();
        names.extend(stored.keys().map(String::as_str));
        names
    } else {
        let mut names = index_key_attributes::<T::Table>();
        names.extend(schema.map(|s| s.attribute));
        names
    };
    compared.sort_unstable();
    compared.dedup();
    let mut actions = Vec::new();
    for name in compared.into_iter().filter(|n| !identity::<T::Table>(n)) {
        match (stored.get(name), rebuilt.get(name)) {
            (old, Some(new)) if old != Some(new) => actions.push(UpdateAction::Set(
                name.to_owned(),
                SetValue::Value(new.clone()),
            )),
            (Some(_), None) => actions.push(UpdateAction::Remove(name.to_owned())),
            _ => {}
        }
    }
    if actions.is_empty() {
        return Ok(Plan::Unchanged);
    }

    rewrite::<T>(table, stored, &entity, actions)
}

/// Whether `attribute` is one of the table's key attributes: the item's
/// identity, never rewritten.
fn identity<T: Table>(attribute: &str) -> bool {
    attribute == T::PK || Some(attribute) == T::SK
}

/// Decodes a stored item as `T`, in place: the stored item is still
/// needed for the condition.
fn decode_stored<T: Entity>(stored: &Item) -> Result<T, Error> {
    let mut reader = singletable_runtime::reader::ItemRef::new(stored);
    T::read_item(&mut reader, singletable_runtime::query::OtherTypes::Error)?.ok_or_else(|| {
        Error::Decode {
            entity: T::ENTITY_TYPE,
            source: singletable_runtime::error::DecodeError::new(
                singletable_runtime::error::DecodeErrorKind::EntityType {
                    expected: T::ENTITY_TYPE,
                    found: String::new(),
                },
            ),
        }
    })
}

/// The UpdateItem applying `actions` to `stored` (decoded as `entity`),
/// only to the item as it was read: every data attribute equal, every
/// declared attribute that was absent still absent, and the entity type
/// as read (absent for an adopted item). Any concurrent write of a field
/// fails it; the backfill then reads the item again.
fn rewrite<T: Entity>(
    table: &str,
    stored: &Item,
    entity: &T,
    actions: Vec<UpdateAction>,
) -> Result<Plan, Error> {
    let derived = index_key_attributes::<T::Table>();
    let mut parts = vec![Condition::Exists(<T::Table as Table>::PK.to_owned())];
    let mut names: Vec<&String> = stored.keys().collect();
    names.sort_unstable();
    for name in names {
        if identity::<T::Table>(name) || derived.contains(&name.as_str()) {
            continue;
        }
        parts.push(Condition::eq(name.clone(), stored[name].clone()));
    }
    let declared = T::SHAPE
        .attributes
        .iter()
        .copied()
        .chain(T::SCHEMA.map(|s| s.attribute))
        .chain([<T::Table as Table>::ENTITY_TYPE]);
    for name in declared {
        if !stored.contains_key(name) {
            parts.push(Condition::NotExists(name.to_owned()));
        }
    }
    let key = T::primary_key(entity)?;
    Ok(Plan::Rewrite(Box::new(UpdateItem {
        table: table.to_owned(),
        key: key.to_item::<T::Table>(),
        actions,
        condition: all(parts),
        return_values: ReturnValues::None,
        return_on_condition_failure: true,
    })))
}

/// The plan of an adoption for `stored`: an item without an entity type
/// that `T` claims by its key (`#[entity(adopt = keys)]`) gets every
/// attribute `T` writes and it lacks or holds otherwise (the entity type,
/// the copies of the key fields, the index keys); attributes `T` does not
/// write stay. An item stamped since it was read is unchanged; one of
/// another type, or one `T` does not claim, is not `T`'s.
pub(crate) fn adoption<T: Entity>(table: &str, stored: &Item) -> Result<Plan, Error> {
    match stored.get(<T::Table as Table>::ENTITY_TYPE) {
        Some(AttributeValue::S(t)) if t == T::ENTITY_TYPE => return Ok(Plan::Unchanged),
        Some(_) => return Ok(Plan::Gone),
        None if !singletable_runtime::__private::attributed_to::<T>(stored) => {
            return Ok(Plan::Gone);
        }
        None => {}
    }
    let entity = decode_stored::<T>(stored)?;
    let rebuilt = entity.to_item()?;
    let mut names: Vec<&String> = rebuilt.keys().collect();
    names.sort_unstable();
    let actions: Vec<UpdateAction> = names
        .into_iter()
        .filter(|n| !identity::<T::Table>(n) && stored.get(*n) != rebuilt.get(*n))
        .map(|n| UpdateAction::Set(n.clone(), SetValue::Value(rebuilt[n].clone())))
        .collect();
    rewrite::<T>(table, stored, &entity, actions)
}

/// The primary key an item is stored under, for reports.
pub(crate) fn stored_key<T: Table>(item: &Item) -> PrimaryKey {
    let s = |a: &str| match item.get(a) {
        Some(AttributeValue::S(s)) => s.clone(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    };
    PrimaryKey {
        pk: s(T::PK),
        sk: T::SK.map(s),
    }
}
