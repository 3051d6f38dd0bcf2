//! One table's storage: items in a B-tree ordered the way DynamoDB Local
//! orders them, and one B-tree per secondary index pointing back at them.
//!
//! A table position is `hash(pk)[..8] ++ enc(pk) ++ enc(sk)`: partitions in
//! DynamoDB Local's scan order, each partition's items by sort key. An index
//! position is `hash(ipk)[..8] ++ enc(ipk) ++ enc(isk) ++ tie ++ enc(pk) ++
//! enc(sk)`, where `tie` is the hash DynamoDB Local breaks equal index keys
//! with; the table key at the end makes every entry unique.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::codec::{self, hash_bytes, order_bytes};
use super::hash::{self, PREFIX};
use super::schema::{IndexSchema, KeyAttr, TableSchema};
use crate::value::{AttributeValue, Item};

/// Which hash orders index entries whose index keys are equal; DynamoDB
/// Local's `getTrailingHashColumnName`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tie {
    /// The index keys include the whole table key.
    None,
    /// The index has the table's partition key: hash of the sort key.
    Range,
    /// The index has neither table key: hash of both.
    HashRange,
    /// The index lacks the partition key only: hash of the partition key.
    Hash,
}

pub(crate) struct IndexData {
    /// Index position → table position.
    pub(crate) entries: BTreeMap<Box<[u8]>, Box<[u8]>>,
    tie: Tie,
}

/// Consumed capacity, counted as DynamoDB bills it.
#[derive(Debug, Default)]
pub(crate) struct Capacity {
    /// Read units, in halves (an eventually consistent 4 KB read is one).
    pub(crate) read_halves: AtomicU64,
    /// Write units.
    pub(crate) writes: AtomicU64,
}

impl Capacity {
    pub(crate) fn read(&self, halves: u64) {
        self.read_halves.fetch_add(halves, Ordering::Relaxed);
    }

    pub(crate) fn write(&self, units: u64) {
        self.writes.fetch_add(units, Ordering::Relaxed);
    }
}

pub(crate) struct TableData {
    pub(crate) schema: TableSchema,
    /// Table position → encoded item.
    pub(crate) items: BTreeMap<Box<[u8]>, Box<[u8]>>,
    /// Parallel to `schema.indexes`.
    pub(crate) indexes: Vec<IndexData>,
    pub(crate) capacity: Capacity,
}

fn hash_prefix(v: &AttributeValue, out: &mut Vec<u8>) {
    out.extend_from_slice(&hash::of_value(&hash_bytes(v))[..PREFIX]);
}

impl TableData {
    pub(crate) fn new(schema: TableSchema) -> Self {
        let indexes = schema
            .indexes
            .iter()
            .map(|ix| IndexData {
                entries: BTreeMap::new(),
                tie: tie_of(&schema, ix),
            })
            .collect();
        Self {
            schema,
            items: BTreeMap::new(),
            indexes,
            capacity: Capacity::default(),
        }
    }

    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.schema.indexes.iter().position(|ix| ix.name == name)
    }

    /// The start of a table partition's positions.
    pub(crate) fn partition(pk: &AttributeValue) -> Vec<u8> {
        let mut out = Vec::with_capacity(PREFIX + 24);
        hash_prefix(pk, &mut out);
        order_bytes(pk, &mut out);
        out
    }

    /// The position of the item with these key attributes (validated: every
    /// key attribute is present).
    pub(crate) fn position(&self, key: &Item) -> Vec<u8> {
        let null = AttributeValue::Null(true);
        let pk = key.get(&self.schema.pk.name).unwrap_or(&null);
        let mut out = Self::partition(pk);
        if let Some(sk) = &self.schema.sk {
            order_bytes(key.get(&sk.name).unwrap_or(&null), &mut out);
        }
        out
    }

    /// Where `item` sits in index `i`, `None` when it lacks one of the
    /// index's key attributes (sparse index) or has it with another type.
    pub(crate) fn index_position(&self, i: usize, item: &Item) -> Option<Vec<u8>> {
        let ix = &self.schema.indexes[i];
        let get = |k: &KeyAttr| item.get(&k.name).filter(|v| has_type(v, k));
        let ipk = get(&ix.pk)?;
        let isk = match &ix.sk {
            Some(k) => Some(get(k)?),
            None => None,
        };
        let mut out = Self::partition(ipk);
        if let Some(isk) = isk {
            order_bytes(isk, &mut out);
        }
        self.tail(i, item, &mut out);
        Some(out)
    }

    /// The part of an index position after the index keys: the tie-break
    /// hash, then the table key.
    fn tail(&self, i: usize, item: &Item, out: &mut Vec<u8>) {
        let null = AttributeValue::Null(true);
        let pk = item.get(&self.schema.pk.name).unwrap_or(&null);
        let sk = self
            .schema
            .sk
            .as_ref()
            .map(|k| item.get(&k.name).unwrap_or(&null));
        let digest = match self.indexes[i].tie {
            Tie::None => None,
            Tie::Hash => Some(hash::of_value(&hash_bytes(pk))),
            Tie::Range => sk.map(|sk| hash::of_value(&hash_bytes(sk))),
            Tie::HashRange => sk.map(|sk| hash::of_key(&hash_bytes(pk), &hash_bytes(sk))),
        };
        if let Some(d) = digest {
            out.extend_from_slice(&d[..PREFIX]);
        }
        order_bytes(pk, out);
        if let Some(sk) = sk {
            order_bytes(sk, out);
        }
    }

    /// Stores `new` at `pos` (or deletes when `None`), keeping every index
    /// in step; `old` is the item stored there before.
    pub(crate) fn write(&mut self, pos: Vec<u8>, new: Option<&Item>, old: Option<&Item>) {
        for i in 0..self.indexes.len() {
            let before = old.and_then(|o| self.index_position(i, o));
            let after = new.and_then(|n| self.index_position(i, n));
            if before == after && before.is_some() {
                continue;
            }
            if let Some(b) = before {
                self.indexes[i].entries.remove(b.as_slice());
            }
            if let Some(a) = after {
                self.indexes[i]
                    .entries
                    .insert(a.into_boxed_slice(), pos.clone().into_boxed_slice());
            }
        }
        match new {
            Some(item) => {
                self.items
                    .insert(pos.into_boxed_slice(), codec::encode_item(item));
            }
            None => {
                self.items.remove(pos.as_slice());
            }
        }
    }
}

fn has_type(v: &AttributeValue, k: &KeyAttr) -> bool {
    super::value::type_name(v) == k.kind.name()
}

fn tie_of(schema: &TableSchema, ix: &IndexSchema) -> Tie {
    let names: Vec<&str> = std::iter::once(&ix.pk)
        .chain(ix.sk.as_ref())
        .map(|k| k.name.as_str())
        .collect();
    let has_pk = names.contains(&schema.pk.name.as_str());
    let has_sk = schema
        .sk
        .as_ref()
        .is_some_and(|sk| names.contains(&sk.name.as_str()));
    match (has_pk, schema.sk.is_some(), has_sk) {
        (true, true, false) => Tie::Range,
        (true, _, _) => Tie::None,
        (false, true, false) => Tie::HashRange,
        (false, _, _) => Tie::Hash,
    }
}
