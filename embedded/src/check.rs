//! Validation of keys and items against a table's schema, with DynamoDB
//! Local's messages: what PutItem, GetItem and friends refuse before they
//! touch the table.

use std::borrow::Cow;

use super::error::{Fail, Res};
use super::schema::{IndexSchema, KeyAttr, TableSchema};
use super::value::{item_size, normalize, normalize_map_in_place, type_name};
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit on an item, attribute names and values.
pub(crate) const MAX_ITEM: usize = 400 * 1024;
const MAX_PARTITION_KEY: usize = 2048;
const MAX_SORT_KEY: usize = 1024;

fn is_empty_key(v: &AttributeValue) -> bool {
    match v {
        AttributeValue::S(s) => s.is_empty(),
        AttributeValue::B(b) => b.as_ref().is_empty(),
        _ => false,
    }
}

fn key_len(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        other => super::value::value_size(other),
    }
}

fn empty_key(name: &str) -> Fail {
    Fail::validation(format!(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: {name}"
    ))
}

/// Checks a table key's values: not empty, not over the size limits.
fn key_value(schema: &TableSchema, attr: &KeyAttr, v: &AttributeValue) -> Res<()> {
    if is_empty_key(v) {
        return Err(empty_key(&attr.name));
    }
    let (max, what) = if attr.name == schema.pk.name {
        (
            MAX_PARTITION_KEY,
            "Size of hashkey has exceeded the maximum size limit of2048 bytes",
        )
    } else {
        (
            MAX_SORT_KEY,
            "Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
        )
    };
    if key_len(v) > max {
        return Err(Fail::validation(format!(
            "One or more parameter values were invalid: {what}"
        )));
    }
    Ok(())
}

/// A primary key as GetItem, DeleteItem, UpdateItem and the batch and
/// transaction operations take it: exactly the table's key attributes, of
/// the declared types, normalised.
/// Borrowed when it is already normalised (strings and binaries always
/// are, numbers in their canonical text): a GetItem copies nothing.
pub(crate) fn key<'k>(schema: &TableSchema, key: &'k Item) -> Res<Cow<'k, Item>> {
    shape(schema, key).map_err(Fail::validation)?;
    let mut copy: Option<Item> = None;
    for a in schema.table_keys() {
        let Some(v) = key.get(&a.name) else {
            return Err(Fail::internal("key attribute vanished"));
        };
        let normal = match v {
            AttributeValue::S(_) | AttributeValue::B(_) => None,
            other => Some(normalize(other)?).filter(|n| n != other),
        };
        key_value(schema, a, normal.as_ref().unwrap_or(v))?;
        if let Some(n) = normal {
            copy.get_or_insert_with(|| key.clone())
                .insert(a.name.clone(), n);
        }
    }
    Ok(copy.map_or(Cow::Borrowed(key), Cow::Owned))
}

/// Whether a key has exactly the table's key attributes with their types;
/// DynamoDB's message when not (a key with too few or too many attributes
/// "does not match the schema"; DynamoDB Local says "The number of
/// conditions on the keys is invalid" there).
pub(crate) fn shape(schema: &TableSchema, key: &Item) -> Result<(), &'static str> {
    if key.len() != schema.table_keys().count() {
        return Err("The provided key element does not match the schema");
    }
    for a in schema.table_keys() {
        match key.get(&a.name) {
            None => return Err("The provided key element does not match the schema"),
            Some(v) if type_name(v) != a.kind.as_str() => {
                return Err("One or more parameter values were invalid: Type mismatch for key");
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// A whole item as PutItem takes it: valid values, every table key
/// attribute present with its type, no empty secondary-index key, at most
/// 400 KB. Returns the normalised item.
pub(crate) fn item(schema: &TableSchema, item: Item) -> Res<Item> {
    sized_item(schema, item).map(|(item, _)| item)
}

/// What [`sized_item`] learnt of an item it accepted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checked {
    /// The item's size as DynamoDB counts it.
    pub(crate) size: usize,
    /// Every secondary-index key attribute it has is a non-empty scalar of
    /// the index's key type: [`sized_index_types`] has nothing to refuse
    /// but sizes.
    index_keys_fine: bool,
}

/// [`item`], with what the check learnt ([`Checked`]).
pub(crate) fn sized_item(schema: &TableSchema, mut item: Item) -> Res<(Item, Checked)> {
    normalize_map_in_place(&mut item)?;
    for a in schema.table_keys() {
        let Some(v) = item.get(&a.name) else {
            return Err(Fail::validation(
                "One of the required keys was not given a value",
            ));
        };
        if type_name(v) != a.kind.as_str() {
            return Err(Fail::validation(format!(
                "One or more parameter values were invalid: Type mismatch for key {} expected: {} actual: {}",
                a.name,
                a.kind.as_str(),
                type_name(v)
            )));
        }
        key_value(schema, a, v)?;
    }
    let index_keys_fine = index_keys_fine(schema, &item);
    if !index_keys_fine {
        index_values(schema, &item)?;
    }
    let size = item_size(&item);
    if size > MAX_ITEM {
        return Err(Fail::validation(
            "Item size has exceeded the maximum allowed size",
        ));
    }
    Ok((
        item,
        Checked {
            size,
            index_keys_fine,
        },
    ))
}

/// Whether every secondary-index key attribute `item` has is a non-empty
/// scalar of its index's key type (nothing [`index_values`] or
/// [`index_types`] refuses but sizes); one pass, in no particular order.
fn index_keys_fine(schema: &TableSchema, item: &Item) -> bool {
    let fine = |k: &KeyAttr| {
        item.get(&k.name).is_none_or(|v| {
            !is_empty_key(v)
                && matches!(
                    v,
                    AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
                )
                && type_name(v) == k.kind.as_str()
        })
    };
    schema.indexes.iter().all(|ix| ix.keys().all(fine))
}

/// Secondary-index key attributes may not hold an empty string or binary.
pub(crate) fn index_values(schema: &TableSchema, item: &Item) -> Res<()> {
    schema
        .indexes
        .iter()
        .try_for_each(|ix| index_value(ix, item))
}

/// [`index_values`] of one index.
fn index_value(ix: &IndexSchema, item: &Item) -> Res<()> {
    for k in ix.keys() {
        if item.get(&k.name).is_some_and(is_empty_key) {
            return Err(Fail::validation(format!(
                "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: {}, IndexKey: {}",
                ix.name, k.name
            )));
        }
    }
    Ok(())
}

/// Whether a write of `item` would pass index `ix`'s key rules (values
/// not empty, keys within their size limits): an index that UpdateTable
/// builds over stored items leaves out those that would not, as DynamoDB's
/// backfill does (they were stored before the index made them invalid).
pub(crate) fn fits_index(ix: &IndexSchema, item: &Item) -> bool {
    index_value(ix, item).is_ok() && index_key_size(ix, item).is_ok()
}

/// Secondary-index key attributes: not empty, scalar, of the index's key
/// type. DynamoDB Local checks local indexes first, then global ones, each
/// group in its own map order; inside a transaction a scalar of the wrong
/// type is the operation's `ValidationError` cancellation reason, any
/// other problem fails the whole request.
pub(crate) fn index_types(schema: &TableSchema, item: &Item) -> Res<()> {
    index_types_in(schema, item, false)
}

/// [`index_types`] of an item [`sized_item`] accepted: what it found fine
/// is not looked at again, and an item of at most 1 KB holds no index key
/// over its limits (key bytes are part of the item's size).
pub(crate) fn sized_index_types(schema: &TableSchema, item: &Item, checked: Checked) -> Res<()> {
    crate::table::check_item(&schema.vectors, item)?;
    if !checked.index_keys_fine {
        return index_types_in(schema, item, false);
    }
    if checked.size <= MAX_SORT_KEY {
        return Ok(());
    }
    index_key_sizes(schema, item)
}

/// [`index_types`] of an updated item: DynamoDB Local reports a wrong type
/// in any index before an empty value (inside a transaction, as the
/// operation's cancellation reason), where for a put the first index with
/// an empty value decides.
pub(crate) fn updated_index_types(schema: &TableSchema, item: &Item) -> Res<()> {
    index_types_in(schema, item, true)
}

fn index_types_in(schema: &TableSchema, item: &Item, types_first: bool) -> Res<()> {
    // Vector indexes: the vector's shape and the search schema's types.
    crate::table::check_item(&schema.vectors, item)?;
    // The order only decides which problem is reported: an item without
    // one goes straight to the sizes, with no order built.
    if index_keys_fine(schema, item) {
        return index_key_sizes(schema, item);
    }
    let (local, global): (Vec<&IndexSchema>, Vec<&IndexSchema>) =
        schema.indexes.iter().partition(|ix| !ix.global);
    let mut empty = false;
    for ix in java_map_order(&local)
        .into_iter()
        .chain(java_map_order(&global))
    {
        for k in ix.keys() {
            let Some(v) = item.get(&k.name) else { continue };
            if is_empty_key(v) {
                if !types_first {
                    return index_values(schema, item);
                }
                empty = true;
                continue;
            }
            if !matches!(
                v,
                AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
            ) {
                return Err(Fail::validation("Invalid attribute value type"));
            }
            if type_name(v) != k.kind.as_str() {
                return Err(Fail::OpValidation(
                    "One or more parameter values were invalid: Type mismatch for Index Key".into(),
                ));
            }
        }
    }
    if empty {
        return index_values(schema, item);
    }
    index_key_sizes(schema, item)
}

/// A secondary index's partition attributes together hold at most 2048
/// bytes, its sort attributes at most 1024 (one attribute, or the several
/// of a multi-attribute key, counted whether or not the item is in the
/// index), as DynamoDB Local refuses them; counted by the runtime's
/// `size::key_bytes`, which the pre-flight check uses too.
///
/// An item in a multi-attribute index (it has every key attribute) is
/// refused with the message naming the attributes and their size;
/// otherwise with DynamoDB Local's shorter one.
fn index_key_sizes(schema: &TableSchema, item: &Item) -> Res<()> {
    schema
        .indexes
        .iter()
        .try_for_each(|ix| index_key_size(ix, item))
}

/// [`index_key_sizes`] of one index.
fn index_key_size(ix: &IndexSchema, item: &Item) -> Res<()> {
    use singletable_core::size::key_bytes;
    fn name(a: &KeyAttr) -> &str {
        a.name.as_str()
    }
    let partition = || std::iter::once(&ix.pk).chain(&ix.pk_rest);
    let sort = || ix.sk.iter().chain(&ix.sk_rest);
    let size = key_bytes(item, partition().map(name));
    if size > MAX_PARTITION_KEY {
        let names = partition().map(name).collect();
        return Err(key_too_large(
            ix,
            item,
            "HASH",
            MAX_PARTITION_KEY,
            size,
            names,
        ));
    }
    let size = key_bytes(item, sort().map(name));
    if size > MAX_SORT_KEY {
        let names = sort().map(name).collect();
        return Err(key_too_large(ix, item, "RANGE", MAX_SORT_KEY, size, names));
    }
    Ok(())
}

/// The refusal of an index key of `size` bytes over `max`, with DynamoDB
/// Local's message: the one naming the attributes for an item in a
/// multi-attribute index, the short one otherwise.
fn key_too_large(
    ix: &IndexSchema,
    item: &Item,
    kind: &str,
    max: usize,
    size: usize,
    names: Vec<&str>,
) -> Fail {
    let all = || {
        std::iter::once(&ix.pk)
            .chain(&ix.pk_rest)
            .chain(&ix.sk)
            .chain(&ix.sk_rest)
    };
    let multi = all().count() > 2;
    let in_index = all().all(|a| item.contains_key(&a.name));
    Fail::validation(if multi && in_index {
        format!(
            "Aggregate size for {kind} key attributes {} of index {} has exceeded limit {max} bytes, with actual size {size} bytes",
            names.join(", "),
            ix.name
        )
    } else {
        "One or more parameter values were invalid: Size limit exceeded".to_owned()
    })
}

/// Java's `String.hashCode`.
fn java_hash(s: &str) -> u32 {
    s.encode_utf16()
        .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)))
}

/// The indexes in the order a Java `HashMap` keyed by index name iterates
/// them: DynamoDB Local checks index keys in this order, which decides the
/// error when several index keys are wrong at once.
fn java_map_order<'a>(indexes: &[&'a IndexSchema]) -> Vec<&'a IndexSchema> {
    let mut capacity = 16usize;
    while indexes.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    let bucket = |name: &str| {
        let h = java_hash(name);
        ((h ^ (h >> 16)) as usize) & (capacity - 1)
    };
    let mut out: Vec<(usize, usize, &IndexSchema)> = indexes
        .iter()
        .enumerate()
        .map(|(i, ix)| (bucket(&ix.name), i, *ix))
        .collect();
    out.sort_by_key(|(b, i, _)| (*b, *i));
    out.into_iter().map(|(_, _, ix)| ix).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_matches_java() {
        assert_eq!(java_hash("GSI1"), 2_197_236);
        assert_eq!(java_hash(""), 0);
    }
}
