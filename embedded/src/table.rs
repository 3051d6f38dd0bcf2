//! One table's storage: items in a B-tree ordered the way DynamoDB Local
//! orders them, and one B-tree per secondary index pointing back at them.
//!
//! A table position is `hash(pk)[..8] ++ enc(pk) ++ enc(sk)`: partitions in
//! DynamoDB Local's scan order, each partition's items by sort key. An index
//! position is `enc(ipk) ++ enc(isk) ++ tie ++ enc(pk) ++ enc(sk)` (a local
//! index starts with `hash(pk)[..8]` too, like the table), where `tie` is
//! the hash DynamoDB Local breaks equal index keys with; the table key at
//! the end makes every entry unique.
//!
//! Each entry is one allocation holding its position and its value (the
//! item without the key attributes its position holds, attribute names as
//! numbers into the table's name list; for an index, the table position).

use std::borrow::Borrow;
use std::cmp::Ordering as Order;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::codec::{self, hash_bytes, order_bytes};
use super::error::{Fail, Res};
use super::hash::{self, PREFIX};
use super::schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema};
use crate::exec::CapacityMeter;
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

/// A position and its value in one allocation, ordered (and found) by the
/// position.
pub(crate) struct Entry {
    bytes: Box<[u8]>,
    split: u32,
}

impl Entry {
    fn new(key: &[u8], value: &[u8]) -> Self {
        let mut bytes = Vec::with_capacity(key.len() + value.len());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(value);
        Self {
            bytes: bytes.into_boxed_slice(),
            split: u32::try_from(key.len()).unwrap_or(u32::MAX),
        }
    }

    pub(crate) fn key(&self) -> &[u8] {
        &self.bytes[..self.split as usize]
    }

    pub(crate) fn value(&self) -> &[u8] {
        &self.bytes[self.split as usize..]
    }
}

impl Borrow<[u8]> for Entry {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Order> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Order {
        self.key().cmp(other.key())
    }
}

pub(crate) struct IndexData {
    /// Index position → table position.
    pub(crate) entries: BTreeSet<Entry>,
    tie: Tie,
}

/// Consumed capacity, counted as DynamoDB bills it, per table and on the
/// backend's meter.
#[derive(Debug, Default)]
pub(crate) struct Capacity {
    /// Read units, in halves (an eventually consistent 4 KB read is one).
    pub(crate) read_halves: AtomicU64,
    /// Write units.
    pub(crate) writes: AtomicU64,
    meter: Arc<CapacityMeter>,
}

impl Capacity {
    pub(crate) fn read(&self, halves: u64) {
        self.read_halves.fetch_add(halves, Ordering::Relaxed);
        self.meter.add(halves as f64 / 2.0);
    }

    pub(crate) fn write(&self, units: u64) {
        self.writes.fetch_add(units, Ordering::Relaxed);
        self.meter.add(units as f64);
    }
}

pub(crate) struct TableData {
    pub(crate) schema: TableSchema,
    /// Table position → encoded item.
    pub(crate) items: BTreeSet<Entry>,
    /// Parallel to `schema.indexes`.
    pub(crate) indexes: Vec<IndexData>,
    pub(crate) capacity: Capacity,
    /// Attribute names of stored items, by number; shared with pages of
    /// encoded items read from the table (a new name copies the list if a
    /// page still holds it).
    names: Arc<Vec<Box<str>>>,
    ids: HashMap<Box<str>, usize>,
    /// The table's key attributes, in the order positions hold them.
    keys: Arc<[(Box<str>, KeyType)]>,
    /// The stream's records, when the table has a stream.
    pub(crate) feed: Option<super::feed::Feed>,
}

fn hash_prefix(v: &AttributeValue, out: &mut Vec<u8>) {
    out.extend_from_slice(&hash::of_value(&hash_bytes(v))[..PREFIX]);
}

impl TableData {
    pub(crate) fn new(schema: TableSchema, meter: Arc<CapacityMeter>) -> Self {
        let indexes = schema
            .indexes
            .iter()
            .map(|ix| IndexData {
                entries: BTreeSet::new(),
                tie: tie_of(&schema, ix),
            })
            .collect();
        let schema_keys: Vec<(Box<str>, KeyType)> = schema
            .table_keys()
            .map(|k| (k.name.as_str().into(), k.kind))
            .collect();
        let feed = schema.stream.map(super::feed::Feed::new);
        Self {
            schema,
            items: BTreeSet::new(),
            indexes,
            capacity: Capacity {
                meter,
                ..Capacity::default()
            },
            names: Arc::default(),
            ids: HashMap::new(),
            keys: schema_keys.into(),
            feed,
        }
    }

    /// The attribute names of stored items, by number.
    pub(crate) fn names(&self) -> &Arc<Vec<Box<str>>> {
        &self.names
    }

    /// The table's key attributes, in the order positions hold them.
    pub(crate) fn keys(&self) -> &Arc<[(Box<str>, KeyType)]> {
        &self.keys
    }

    /// The stored item at a table position.
    pub(crate) fn item(&self, pos: &[u8]) -> Res<Option<Item>> {
        self.items
            .get(pos)
            .map(|e| self.decode(e.key(), e.value()))
            .transpose()
    }

    /// The size (as DynamoDB counts it) of the item at a table position, 0
    /// when there is none.
    pub(crate) fn stored_size(&self, pos: &[u8]) -> usize {
        self.items
            .get(pos)
            .map_or(0, |e| codec::stored_size(e.value()))
    }

    /// An item from its position and stored value.
    pub(crate) fn decode(&self, pos: &[u8], value: &[u8]) -> Res<Item> {
        codec::decode_item(pos, PREFIX, value, &self.keys, &self.names)
            .ok_or_else(|| Fail::internal("stored item is corrupt"))
    }

    /// What reading the attributes `names` of stored items takes: their
    /// name numbers and key slots, found once per request.
    pub(crate) fn wanted(&self, names: &[&str]) -> codec::Wanted {
        let slot = |name: &str| names.iter().position(|n| *n == name);
        codec::Wanted {
            keys: self.keys.iter().map(|(k, _)| slot(k)).collect(),
            ids: names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| self.ids.get(*n).map(|&id| (id, i)))
                .collect(),
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

    /// The start of an index partition's positions, from the values of its
    /// partition attributes (one, or those of a multi-attribute key in
    /// key-schema order): a global index orders its partitions by key value
    /// (as DynamoDB Local scans them), a local index like the table. Each
    /// value's order bytes delimit themselves, so a multi-attribute key
    /// orders as the tuple of its typed values.
    pub(crate) fn index_partition(&self, i: usize, hash: &[&AttributeValue]) -> Vec<u8> {
        match hash {
            [pk] if !self.schema.indexes[i].global => Self::partition(pk),
            _ => {
                let mut out = Vec::with_capacity(24 * hash.len());
                for v in hash {
                    order_bytes(v, &mut out);
                }
                out
            }
        }
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
        let hash = ix.hash_keys().map(get).collect::<Option<Vec<_>>>()?;
        let range = ix.range_keys().map(get).collect::<Option<Vec<_>>>()?;
        let mut out = self.index_partition(i, &hash);
        for v in range {
            order_bytes(v, &mut out);
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
    /// in step and the change feed told; `old` is the item stored there
    /// before (decoded whenever the table has a stream). Returns the write
    /// units the index writes cost: an entry added or removed costs its
    /// size in 1 KB units, a moved entry both, an entry whose projected
    /// attributes changed its new size.
    pub(crate) fn write(&mut self, pos: Vec<u8>, new: Option<&Item>, old: Option<&Item>) -> u64 {
        // Every committed write passes here, in commit order.
        if let Some(feed) = &mut self.feed {
            feed.record(&self.schema, old, new);
        }
        let mut units = 0;
        for i in 0..self.indexes.len() {
            let before = old.and_then(|o| self.index_position(i, o));
            let after = new.and_then(|n| self.index_position(i, n));
            let entry = |item: &Item| self.entry_units(i, item);
            units += match (&before, &after, old, new) {
                (Some(b), Some(a), Some(o), Some(n)) if a == b => {
                    if self.projected_eq(i, o, n) {
                        0
                    } else {
                        entry(n)
                    }
                }
                _ => {
                    before.as_ref().zip(old).map_or(0, |(_, o)| entry(o))
                        + after.as_ref().zip(new).map_or(0, |(_, n)| entry(n))
                }
            };
            if before == after {
                continue;
            }
            if let Some(b) = before {
                self.indexes[i].entries.remove(b.as_slice());
            }
            if let Some(a) = after {
                self.indexes[i].entries.replace(Entry::new(&a, &pos));
            }
        }
        match new {
            Some(item) => {
                let keys = &self.keys;
                let is_key = |name: &str| keys.iter().any(|(k, _)| &**k == name);
                let (names, ids) = (&mut self.names, &mut self.ids);
                let value = codec::encode_item(item, &is_key, &mut |name| match ids.get(name) {
                    Some(&id) => id,
                    None => {
                        let names = Arc::make_mut(names);
                        names.push(name.into());
                        ids.insert(name.into(), names.len() - 1);
                        names.len() - 1
                    }
                });
                self.items.replace(Entry::new(&pos, &value));
            }
            None => {
                self.items.remove(pos.as_slice());
            }
        }
        units
    }

    /// Whether index `i` holds this attribute.
    fn projects(&self, i: usize, name: &str) -> bool {
        let ix = &self.schema.indexes[i];
        let key = |k: &KeyAttr| k.name == name;
        match &ix.projection {
            IndexProjection::All => true,
            p => {
                self.schema.table_keys().any(key)
                    || ix.keys().any(key)
                    || matches!(p, IndexProjection::Include(attrs) if attrs.iter().any(|a| a == name))
            }
        }
    }

    fn projected_eq(&self, i: usize, a: &Item, b: &Item) -> bool {
        a.iter()
            .filter(|(k, _)| self.projects(i, k))
            .all(|(k, v)| b.get(k) == Some(v))
            && b.keys()
                .filter(|k| self.projects(i, k))
                .all(|k| a.contains_key(k))
    }

    /// Write units of the index entry for `item`.
    fn entry_units(&self, i: usize, item: &Item) -> u64 {
        let size: usize = item
            .iter()
            .filter(|(k, _)| self.projects(i, k))
            .map(|(k, v)| k.len() + super::value::value_size(v))
            .sum();
        crate::capacity::write_blocks(size)
    }
}

fn has_type(v: &AttributeValue, k: &KeyAttr) -> bool {
    super::value::type_name(v) == k.kind.as_str()
}

fn tie_of(schema: &TableSchema, ix: &IndexSchema) -> Tie {
    let names: Vec<&str> = ix.keys().map(|k| k.name.as_str()).collect();
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
