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

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::codec::{self, order_bytes};
use super::error::{Fail, Res};
use super::hash::{self, PREFIX};
use super::meter::Capacity;
use super::record::{Desc, IndexEntry, Record};
use super::schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema};
use super::value::Val;
use crate::exec::CapacityMeter;
use crate::reader::AttrRef;
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
    /// Index position → the record of its item (each entry points into a
    /// record of `TableData::items`: see [`IndexEntry`]).
    entries: BTreeSet<IndexEntry>,
    tie: Tie,
    /// Where each key attribute is found, in key-schema order (hash keys,
    /// then range keys).
    sources: Vec<Source>,
}

impl IndexData {
    fn new(schema: &TableSchema, ix: &IndexSchema) -> Self {
        let table_key = |name: &str| {
            if schema.pk.name == name {
                Some(false)
            } else if schema.sk.as_ref().is_some_and(|k| k.name == name) {
                Some(true)
            } else {
                None
            }
        };
        let single_local = !ix.global && ix.hash_keys().count() == 1;
        let sources = ix
            .keys()
            .enumerate()
            .map(|(n, k)| match table_key(&k.name) {
                Some(sk) => Source::Key {
                    sk,
                    hashed: n == 0 && single_local,
                },
                None => Source::Attr {
                    name: k.name.as_str().into(),
                    kind: k.kind,
                    id: None,
                },
            })
            .collect();
        Self {
            entries: BTreeSet::new(),
            tie: tie_of(schema, ix),
            sources,
        }
    }

    /// The index's entries, in index order.
    pub(crate) fn entries(&self) -> &BTreeSet<IndexEntry> {
        &self.entries
    }
}

/// Where an index key attribute's value is in a record.
enum Source {
    /// A table key attribute (the sort key when `sk`), read from the
    /// position; `hashed` with its hash prefix (a local index's partition
    /// key, ordered like the table's).
    Key { sk: bool, hashed: bool },
    /// Another attribute, of this type, read from the stored value; `id`
    /// is its name's number once the table has one.
    Attr {
        name: Box<str>,
        kind: KeyType,
        id: Option<usize>,
    },
}

pub(crate) struct TableData {
    pub(crate) schema: TableSchema,
    /// Table position → encoded item, with its index parts.
    items: BTreeSet<Record>,
    /// Parallel to `schema.indexes`.
    pub(crate) indexes: Vec<IndexData>,
    /// Parallel to `schema.vectors`.
    pub(crate) vectors: Vec<super::search::VectorData>,
    pub(crate) capacity: Capacity,
    /// Attribute names of stored items, by number; shared with pages of
    /// encoded items read from the table (a new name copies the list if a
    /// page still holds it).
    names: Arc<Vec<Box<str>>>,
    ids: HashMap<Box<str>, usize>,
    /// The table's key attributes, in the order positions hold them.
    keys: Arc<[(Box<str>, KeyType)]>,
    /// Their names and whether they are binary, for pages of encoded
    /// items.
    key_names: Arc<[(Box<str>, bool)]>,
    /// The stream's records, when the table has a stream.
    pub(crate) feed: Option<super::feed::Feed>,
    /// The TTL attribute (UpdateTimeToLive), when TTL is enabled.
    pub(crate) time_to_live: Option<String>,
    /// Where a write puts the `desc`s of its record's parts.
    descs: Vec<u8>,
}

impl TableData {
    pub(crate) fn new(schema: TableSchema, meter: Arc<CapacityMeter>) -> Self {
        let indexes = schema
            .indexes
            .iter()
            .map(|ix| IndexData::new(&schema, ix))
            .collect();
        let schema_keys: Vec<(Box<str>, KeyType)> = schema
            .table_keys()
            .map(|k| (k.name.as_str().into(), k.kind))
            .collect();
        let feed = schema.stream.map(super::feed::Feed::new);
        let vectors = schema
            .vectors
            .iter()
            .map(|_| super::search::VectorData::new())
            .collect();
        let capacity = Capacity::new(meter, schema.indexes.len());
        Self {
            schema,
            items: BTreeSet::new(),
            indexes,
            vectors,
            capacity,
            names: Arc::default(),
            ids: HashMap::new(),
            key_names: schema_keys
                .iter()
                .map(|(k, kind)| (k.clone(), *kind == KeyType::B))
                .collect(),
            keys: schema_keys.into(),
            feed,
            time_to_live: None,
            descs: Vec::new(),
        }
    }

    /// The stored items, in table order.
    pub(crate) fn items(&self) -> &BTreeSet<Record> {
        &self.items
    }

    /// The attribute names of stored items, by number.
    pub(crate) fn names(&self) -> &Arc<Vec<Box<str>>> {
        &self.names
    }

    /// The table's key attributes, in the order positions hold them.
    pub(crate) fn keys(&self) -> &Arc<[(Box<str>, KeyType)]> {
        &self.keys
    }

    /// The names of the table's key attributes, in the order positions
    /// hold them, each with whether it is binary.
    pub(crate) fn key_names(&self) -> &Arc<[(Box<str>, bool)]> {
        &self.key_names
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
        Self::partition_of(&Val::of(pk))
    }

    /// [`Self::partition`] of a value seen in place.
    fn partition_of(pk: &Val<'_>) -> Vec<u8> {
        let mut out = Vec::with_capacity(PREFIX + 24);
        out.extend_from_slice(&hash::of_value(&codec::hash_val(pk))[..PREFIX]);
        codec::order_val(pk, &mut out);
        out
    }

    /// The start of an index partition's positions, from the values of its
    /// partition attributes (one, or those of a multi-attribute key in
    /// key-schema order): a global index orders its partitions by key value
    /// (as DynamoDB Local scans them), a local index like the table. Each
    /// value's order bytes delimit themselves, so a multi-attribute key
    /// orders as the tuple of its typed values.
    pub(crate) fn index_partition(&self, i: usize, hash: &[Val<'_>]) -> Vec<u8> {
        match hash {
            [pk] if !self.schema.indexes[i].global => Self::partition_of(pk),
            _ => {
                let mut out = Vec::with_capacity(24 * hash.len());
                for v in hash {
                    codec::order_val(v, &mut out);
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
        self.view_position(i, item)
    }

    /// [`Self::index_position`] of an item seen through a [`View`].
    fn view_position<V: View + ?Sized>(&self, i: usize, item: &V) -> Option<Vec<u8>> {
        let mut out = self.index_key(i, item)?;
        self.tail(i, item, &mut out);
        Some(out)
    }

    /// The start of an item's position in index `i`: its index key
    /// attributes, without the tie-break hash and the table key that
    /// follow them ([`Self::tail`]).
    fn index_key<V: View + ?Sized>(&self, i: usize, item: &V) -> Option<Vec<u8>> {
        let ix = &self.schema.indexes[i];
        let get = |k: &KeyAttr| {
            item.attr(&k.name)
                .filter(|v| v.type_name() == k.kind.as_str())
        };
        let hash = ix.hash_keys().map(get).collect::<Option<Vec<_>>>()?;
        let range = ix.range_keys().map(get).collect::<Option<Vec<_>>>()?;
        let mut out = self.index_partition(i, &hash);
        for v in &range {
            codec::order_val(v, &mut out);
        }
        Some(out)
    }

    /// The part of an index position after the index keys: the tie-break
    /// hash, then the table key.
    fn tail<V: View + ?Sized>(&self, i: usize, item: &V, out: &mut Vec<u8>) {
        if let Some(t) = self.tie(i, item) {
            out.extend_from_slice(&t);
        }
        let null = AttributeValue::Null(true);
        let get = |name: &str| item.attr(name).unwrap_or(Val::Other(&null));
        codec::order_val(&get(&self.schema.pk.name), out);
        if let Some(k) = &self.schema.sk {
            codec::order_val(&get(&k.name), out);
        }
    }

    /// Stores `new` at `pos` (or deletes when `None`), keeping every index
    /// in step and the change feed told; `old` is the item stored there
    /// before (decoded whenever the table has a stream). Returns the write
    /// units each index's writes cost (parallel to the indexes): an entry
    /// added or removed costs its size in 1 KB units, a moved entry both,
    /// an entry whose projected attributes changed its new size.
    pub(crate) fn write(
        &mut self,
        pos: Vec<u8>,
        new: Option<&Item>,
        old: Option<&Item>,
    ) -> Vec<u64> {
        // Every committed write passes here, in commit order.
        if let Some(feed) = &mut self.feed {
            feed.record(&self.schema, old, new);
        }
        let (same, units) = self.index_plans(new, old);
        if !self.vectors.is_empty() {
            self.vector_upkeep(&pos, new);
        }
        match new {
            Some(item) => {
                let value = self.encode(item, super::value::item_size(item));
                self.store(&pos, &value, item, &same);
            }
            None => self.delete(&pos),
        }
        units
    }

    /// [`Self::write`] of `new` over whatever is stored at `pos`, which is
    /// read in place (never decoded into a map) for the index upkeep: what
    /// a put that reads nothing of the replaced item costs. A table with a
    /// stream decodes it, as the change feed records it.
    ///
    /// The new item is encoded first and compared with the stored one
    /// attribute by attribute ([`codec::changed`]): an index whose key
    /// attributes none of the changed ones is keeps its entry (and its
    /// tie-break hash), and pays write units only when a changed attribute
    /// is one it projects; only an index whose key changed reads the
    /// replaced item's attributes. Returns each index's write units.
    pub(crate) fn write_over(&mut self, pos: Vec<u8>, new: &Item, size: usize) -> Res<Vec<u64>> {
        if self.feed.is_some() {
            let old = self.item(&pos)?;
            return Ok(self.write(pos, Some(new), old.as_ref()));
        }
        let value = self.encode(new, size);
        let (same, units) = match self.items.get(pos.as_slice()) {
            None => self.index_plans::<Item>(Some(new), None),
            // Without indexes nothing of the replaced item is read.
            Some(_) if self.indexes.is_empty() => (Vec::new(), Vec::new()),
            Some(r) => self.plans_over(r, &value, new)?,
        };
        if !self.vectors.is_empty() {
            self.vector_upkeep(&pos, Some(new));
        }
        self.store(&pos, &value, new, &same);
        Ok(units)
    }

    /// [`Self::index_plans`] of `new` (encoded as `value`) over the stored
    /// record `r` at the same position.
    fn plans_over(&self, r: &Record, value: &[u8], new: &Item) -> Res<(Vec<bool>, Vec<u64>)> {
        let corrupt = || Fail::internal("stored item is corrupt");
        let mut ids = Vec::new();
        codec::changed(r.value(), value, &mut ids).ok_or_else(corrupt)?;
        let names = &self.names;
        let changed = ids
            .iter()
            .map(|&id| names.get(id).map(|n| &**n))
            .collect::<Option<Vec<&str>>>()
            .ok_or_else(corrupt)?;
        let mut old: Option<Stored<'_>> = None;
        let mut units = Vec::with_capacity(self.indexes.len());
        let mut same = Vec::with_capacity(self.indexes.len());
        for i in 0..self.indexes.len() {
            let ix = &self.schema.indexes[i];
            let key_changed = changed
                .iter()
                .any(|&name| ix.keys().any(|k| name == k.name));
            if !key_changed {
                // Equal key values (or both without them) under one table
                // position: the entry stays, with the new projection.
                let projected =
                    changed.iter().any(|&name| self.projects(i, name)) && self.in_index(i, new);
                units.push(if projected {
                    self.entry_units(i, new)
                } else {
                    0
                });
                same.push(true);
                continue;
            }
            if old.is_none() {
                old = Some(Stored::read(r, &self.keys, names).ok_or_else(corrupt)?);
            }
            let (s, u) = self.index_plan(i, Some(new), old.as_ref());
            units.push(u);
            same.push(s);
        }
        Ok((same, units))
    }

    /// Whether `item` has every key attribute of index `i`, of its type.
    fn in_index<V: View + ?Sized>(&self, i: usize, item: &V) -> bool {
        self.schema.indexes[i].keys().all(|k| {
            item.attr(&k.name)
                .is_some_and(|v| v.type_name() == k.kind.as_str())
        })
    }

    /// UpdateTable's `Create` of a global index: the index is added to the
    /// schema and built from every item already stored, as DynamoDB
    /// backfills a new index (items whose key attributes are missing or of
    /// another type are left out of it, as there). The schema is checked as
    /// CreateTable checks it; nothing changes when it fails.
    pub(crate) fn add_index(&mut self, ix: IndexSchema) -> Res<()> {
        let mut schema = self.schema.clone();
        schema.indexes.push(ix);
        schema.validate()?;
        let data = IndexData::new(&schema, &schema.indexes[schema.indexes.len() - 1]);
        self.schema = schema;
        self.indexes.push(data);
        let i = self.indexes.len() - 1;
        self.refresh_ids();
        let mut records = Vec::with_capacity(self.items.len());
        for r in &self.items {
            let desc = Stored::read(r, &self.keys, &self.names).and_then(|stored| {
                if !self.in_index(i, &stored) {
                    return Some(None);
                }
                let (pos, value) = r.key_value();
                let mut desc = Vec::new();
                self.desc(i, pos, value, || self.tie(i, &stored), &mut desc)
                    .map(|()| Some(desc))
            });
            let Some(desc) = desc else {
                self.schema.indexes.pop();
                self.indexes.pop();
                return Err(Fail::internal("stored item is corrupt"));
            };
            let mut parts = r.descs();
            parts.extend(desc.map(|d| (i, d)));
            let parts = parts.iter().map(|(i, d)| (*i, &d[..]));
            records.push(Record::new(r.key(), r.value(), parts));
        }
        self.rebuild(records);
        self.capacity.add_index();
        Ok(())
    }

    /// UpdateTable's `Delete` of global index `name`: its entries go with
    /// it. Whether it existed.
    pub(crate) fn remove_index(&mut self, name: &str) -> bool {
        let Some(i) = self
            .schema
            .indexes
            .iter()
            .position(|ix| ix.global && ix.name == name)
        else {
            return false;
        };
        // The records lose the index's part, the later indexes' parts
        // take the numbers of their indexes.
        let records = self
            .items
            .iter()
            .map(|r| {
                let parts: Vec<(usize, Vec<u8>)> = r
                    .descs()
                    .into_iter()
                    .filter(|(j, _)| *j != i)
                    .map(|(j, d)| (if j > i { j - 1 } else { j }, d))
                    .collect();
                Record::new(r.key(), r.value(), parts.iter().map(|(i, d)| (*i, &d[..])))
            })
            .collect();
        self.schema.indexes.remove(i);
        self.indexes.remove(i);
        self.rebuild(records);
        self.capacity.remove_index(i);
        true
    }

    /// Replaces every record by `records` (the same items, in table order)
    /// and builds the indexes from their parts. The old entries go before
    /// the records they point into.
    fn rebuild(&mut self, records: Vec<Record>) {
        let mut entries: Vec<Vec<IndexEntry>> = self.indexes.iter().map(|_| Vec::new()).collect();
        for r in &records {
            for (i, list) in entries.iter_mut().enumerate() {
                list.extend(r.entry(i));
            }
        }
        for (ix, list) in self.indexes.iter_mut().zip(entries) {
            ix.entries = list.into_iter().collect();
        }
        // The new entries point into `records`, which the table now owns;
        // the old records go, with nothing pointing into them any more.
        drop(std::mem::replace(
            &mut self.items,
            records.into_iter().collect(),
        ));
    }

    /// Per index, whether its entry stays (equal key values, or out of the
    /// index both times) when `old` becomes `new`, two versions of the item
    /// at one table position, and the write units its writes cost.
    fn index_plans<O: View + ?Sized>(
        &self,
        new: Option<&Item>,
        old: Option<&O>,
    ) -> (Vec<bool>, Vec<u64>) {
        (0..self.indexes.len())
            .map(|i| self.index_plan(i, new, old))
            .unzip()
    }

    /// [`Self::index_plans`] of index `i`.
    fn index_plan<O: View + ?Sized>(
        &self,
        i: usize,
        new: Option<&Item>,
        old: Option<&O>,
    ) -> (bool, u64) {
        if let (Some(o), Some(n)) = (old, new)
            && self.same_index_keys(i, o, n)
        {
            // Same index key values and (one table position) the same
            // table key: the entry stays.
            let units = if self.projected_eq(i, o, n) {
                0
            } else {
                self.entry_units(i, n)
            };
            return (true, units);
        }
        let before = old.filter(|o| self.in_index(i, *o));
        let after = new.filter(|n| self.in_index(i, *n));
        let units = before.map_or(0, |o| self.entry_units(i, o))
            + after.map_or(0, |n| self.entry_units(i, n));
        (before.is_none() && after.is_none(), units)
    }

    /// Stores `item`, encoded as `value`, at `pos`, with a part for each
    /// index it is in, and moves its index entries to the new record; an
    /// index marked in `same` keeps its entry's place (and the tie-break
    /// hash of the replaced record's part: it hashes the same key).
    fn store(&mut self, pos: &[u8], value: &[u8], item: &Item, same: &[bool]) {
        self.refresh_ids();
        // The parts' `desc`s, one after the other, in a buffer kept for
        // the next write.
        let mut descs = std::mem::take(&mut self.descs);
        descs.clear();
        // Up to four parts without allocating.
        let (mut parts, mut n, mut more) = ([(0, 0, 0); 4], 0, Vec::new());
        let old = self.items.get(pos);
        for i in 0..self.indexes.len() {
            let kept = same
                .get(i)
                .is_some_and(|s| *s)
                .then(|| old.and_then(|r| r.desc(i)))
                .flatten();
            let tie = || match kept.and_then(Desc::tie) {
                Some(t) => Some(t),
                None => self.tie(i, item),
            };
            let start = descs.len();
            if self.desc(i, pos, value, tie, &mut descs).is_none() {
                // Not in the index.
                descs.truncate(start);
                continue;
            }
            let part = (i, start, descs.len());
            match parts.get_mut(n) {
                Some(slot) => *slot = part,
                None => more.push(part),
            }
            n += 1;
        }
        let list = parts.iter().take(n).chain(&more);
        let parts = list.map(|&(i, a, b)| (i, &descs[a..b]));
        if let Some(r) = old
            && r.value().len() == value.len()
            && same.iter().all(|s| *s)
            && r.parts_are(parts.clone())
        {
            // Same length, same parts (the index keys are unchanged, at the
            // same offsets): every entry stays where it is, and so does
            // the record.
            // SAFETY: `&mut self` borrows every reference into the record
            // (all go through `self.items` and `self.indexes`), and none
            // is alive here; `value` is as long as the stored value, and
            // its key values, equal, are where the parts say.
            unsafe { r.overwrite_value(value) };
            self.descs = descs;
            return;
        }
        let record = Record::new(pos, value, parts);
        self.descs = descs;
        let entries: Vec<Option<IndexEntry>> =
            (0..self.indexes.len()).map(|i| record.entry(i)).collect();
        let old = self.items.replace(record).map(std::mem::ManuallyDrop::new);
        for (i, after) in entries.into_iter().enumerate() {
            let before = old.as_ref().and_then(|r| r.entry(i));
            let set = &mut self.indexes[i].entries;
            match (before, after) {
                (Some(b), Some(a)) if same.get(i).is_some_and(|s| *s) => {
                    // Equal positions: the entry is swapped in place.
                    if set.replace(a).is_none() {
                        debug_assert!(false, "index entry not found");
                        set.remove(&b);
                    }
                }
                (b, a) => {
                    if let Some(b) = b {
                        set.remove(&b);
                    }
                    if let Some(a) = a {
                        set.insert(a);
                    }
                }
            }
        }
        drop(old.map(std::mem::ManuallyDrop::into_inner));
    }

    /// Removes the item at `pos` and its index entries.
    fn delete(&mut self, pos: &[u8]) {
        let Some(old) = self.items.take(pos).map(std::mem::ManuallyDrop::new) else {
            return;
        };
        for (i, ix) in self.indexes.iter_mut().enumerate() {
            if let Some(b) = old.entry(i) {
                ix.entries.remove(&b);
            }
        }
        drop(std::mem::ManuallyDrop::into_inner(old));
    }

    /// Numbers the index key attributes named since the last call.
    fn refresh_ids(&mut self) {
        for ix in &mut self.indexes {
            for s in &mut ix.sources {
                if let Source::Attr {
                    name,
                    id: id @ None,
                    ..
                } = s
                {
                    *id = self.ids.get(name).copied();
                }
            }
        }
    }

    /// The `desc` of index `i`'s part in the record of `pos` and `value`,
    /// `tie` giving the tie-break hash; `None` when a key attribute is
    /// missing or of another type (the item is not in the index).
    fn desc(
        &self,
        i: usize,
        pos: &[u8],
        value: &[u8],
        tie: impl FnOnce() -> Option<[u8; PREFIX]>,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        let mut d = Desc { out };
        let mut key_end = None;
        for s in &self.indexes[i].sources {
            match s {
                Source::Key { sk, hashed } => {
                    let (pk_end, end) = match key_end {
                        Some(e) => e,
                        None => *key_end.insert(self.key_ends(pos)?),
                    };
                    match (sk, hashed) {
                        (false, true) => d.pos(0, pk_end),
                        (false, false) => d.pos(PREFIX, pk_end),
                        (true, _) => d.pos(pk_end, end),
                    }
                }
                Source::Attr { kind, id, .. } => {
                    let off = codec::find(value, (*id)?)?;
                    match kind {
                        KeyType::N => {
                            let mut r = crate::reader::encoded::ValueReader::at(value, off);
                            let Some(AttrRef::N(n)) = r.value_ref() else {
                                return None;
                            };
                            let mut bytes = Vec::new();
                            codec::order_val(&Val::N(n.into()), &mut bytes);
                            d.bytes(&bytes);
                        }
                        KeyType::S | KeyType::B => {
                            if !super::record::is_raw(value, off, *kind == KeyType::B) {
                                return None;
                            }
                            d.raw(off);
                        }
                    }
                }
            }
        }
        if self.indexes[i].tie != Tie::None {
            d.bytes(&tie()?);
        }
        Some(())
    }

    /// Where the partition key's and the sort key's order bytes end in a
    /// table position.
    fn key_ends(&self, pos: &[u8]) -> Option<(usize, usize)> {
        let mut at = PREFIX;
        codec::read_key_ref(pos, &mut at, self.keys.first()?.1)?;
        Some((at, pos.len()))
    }

    /// The tie-break hash of `item` in index `i`, `None` when the index
    /// has none.
    fn tie<V: View + ?Sized>(&self, i: usize, item: &V) -> Option<[u8; PREFIX]> {
        let null = AttributeValue::Null(true);
        let get = |name: &str| item.attr(name).unwrap_or(Val::Other(&null));
        let pk = get(&self.schema.pk.name);
        let sk = self.schema.sk.as_ref().map(|k| get(&k.name));
        let digest = match self.indexes[i].tie {
            Tie::None => None,
            Tie::Hash => Some(hash::of_value(&codec::hash_val(&pk))),
            Tie::Range => sk.as_ref().map(|sk| hash::of_value(&codec::hash_val(sk))),
            Tie::HashRange => sk
                .as_ref()
                .map(|sk| hash::of_key(&codec::hash_val(&pk), &codec::hash_val(sk))),
        }?;
        digest[..PREFIX].try_into().ok()
    }

    /// An item's stored value ([`codec::encode_item`]; `size` is its size
    /// as DynamoDB counts it), new attribute names numbered.
    fn encode(&mut self, item: &Item, size: usize) -> Vec<u8> {
        let keys = &self.keys;
        let is_key = |name: &str| keys.iter().any(|(k, _)| &**k == name);
        let (names, ids) = (&mut self.names, &mut self.ids);
        codec::encode_item(item, size, &is_key, &mut |name| match ids.get(name) {
            Some(&id) => id,
            None => {
                let names = Arc::make_mut(names);
                names.push(name.into());
                ids.insert(name.into(), names.len() - 1);
                names.len() - 1
            }
        })
    }

    /// Whether `a` and `b` are both in index `i` under equal key values
    /// (numbers are stored and normalised in their canonical text, so equal
    /// text is an equal number).
    fn same_index_keys<A: View + ?Sized>(&self, i: usize, a: &A, b: &Item) -> bool {
        self.schema.indexes[i].keys().all(|k| {
            let kind = k.kind.as_str();
            match (a.attr(&k.name), b.get(&k.name).map(Val::of)) {
                (Some(x), Some(y)) => x.type_name() == kind && x == y,
                _ => false,
            }
        })
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

    fn projected_eq<A: View + ?Sized>(&self, i: usize, a: &A, b: &Item) -> bool {
        let mut eq = true;
        a.each(&mut |k, v| {
            eq = eq && (!self.projects(i, k) || b.get(k).map(Val::of) == Some(v));
        });
        eq && b
            .keys()
            .filter(|k| self.projects(i, k))
            .all(|k| a.attr(k).is_some())
    }

    /// Write units of the index entry for `item`.
    fn entry_units<V: View + ?Sized>(&self, i: usize, item: &V) -> u64 {
        crate::capacity::write_blocks(self.entry_size(i, item))
    }

    /// The size of the index entry for `item`: the attributes the index
    /// projects, counted as DynamoDB counts item sizes.
    fn entry_size<V: View + ?Sized>(&self, i: usize, item: &V) -> usize {
        let mut size = 0;
        item.each(&mut |k, v| {
            if self.projects(i, k) {
                size += k.len() + val_size(&v);
            }
        });
        size
    }

    /// The size of the item collection of partition key `pk`: its items
    /// and their entries in the local indexes (what DynamoDB reports as
    /// `ItemCollectionMetrics` and limits to 10 GB).
    pub(crate) fn collection_size(&self, pk: &AttributeValue) -> Res<u64> {
        use std::ops::Bound;
        let start = Self::partition(pk);
        let end = codec::prefix_end(&start);
        let upper = end.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let local: Vec<usize> = (0..self.indexes.len())
            .filter(|&i| !self.schema.indexes[i].global)
            .collect();
        let mut size = 0u64;
        for e in self
            .items
            .range::<[u8], _>((Bound::Included(start.as_slice()), upper))
        {
            size += codec::stored_size(e.value()) as u64;
            if local.is_empty() {
                continue;
            }
            let item = self.decode(e.key(), e.value())?;
            for &i in &local {
                if self.view_position(i, &item).is_some() {
                    size += self.entry_size(i, &item) as u64;
                }
            }
        }
        Ok(size)
    }

    /// Item counts and sizes of the table and of each index, as
    /// DescribeTable reports them (every item read: what DynamoDB updates
    /// about every six hours is exact here).
    pub(crate) fn stats(&self) -> Res<super::TableStats> {
        let mut out = super::TableStats {
            item_count: self.items.len() as u64,
            size_bytes: 0,
            indexes: self
                .schema
                .indexes
                .iter()
                .map(|ix| super::IndexStats {
                    name: ix.name.clone(),
                    item_count: 0,
                    size_bytes: 0,
                })
                .collect(),
            vectors: self
                .schema
                .vectors
                .iter()
                .zip(&self.vectors)
                .map(|(ix, data)| super::IndexStats {
                    name: ix.name.clone(),
                    item_count: data.len() as u64,
                    // The vectors, as f32s.
                    size_bytes: data.len() as u64 * u64::from(ix.dimensions) * 4,
                })
                .collect(),
        };
        for e in &self.items {
            out.size_bytes += codec::stored_size(e.value()) as u64;
            if self.indexes.is_empty() {
                continue;
            }
            let item = self.decode(e.key(), e.value())?;
            for (i, ix) in out.indexes.iter_mut().enumerate() {
                if self.view_position(i, &item).is_some() {
                    ix.item_count += 1;
                    ix.size_bytes += self.entry_size(i, &item) as u64;
                }
            }
        }
        Ok(out)
    }
}

/// An item as the index upkeep reads it: a map, or a stored item read in
/// place.
pub(crate) trait View {
    /// The attribute `name`, if the item has it.
    fn attr(&self, name: &str) -> Option<Val<'_>>;
    /// Every attribute, in no particular order.
    fn each(&self, f: &mut dyn FnMut(&str, Val<'_>));
}

impl View for Item {
    fn attr(&self, name: &str) -> Option<Val<'_>> {
        self.get(name).map(Val::of)
    }
    fn each(&self, f: &mut dyn FnMut(&str, Val<'_>)) {
        for (k, v) in self {
            f(k, Val::of(v));
        }
    }
}

/// A stored item's attributes, strings and numbers borrowed from its
/// bytes: one small vector, no map and no copied string.
struct Stored<'a> {
    attrs: Vec<(&'a str, AttrRef<'a>)>,
}

impl<'a> Stored<'a> {
    /// The attributes of a stored entry; `None` when its bytes are
    /// malformed.
    fn read(e: &'a Record, keys: &'a [(Box<str>, KeyType)], names: &'a [Box<str>]) -> Option<Self> {
        let (pos, value) = (e.key(), e.value());
        let mut cursor = codec::StoredCursor::start(value, PREFIX)?;
        let mut attrs = Vec::with_capacity(16);
        while let Some(attr) = cursor.next(pos, value, keys, names) {
            attrs.push(attr?);
        }
        Some(Self { attrs })
    }
}

impl View for Stored<'_> {
    fn attr(&self, name: &str) -> Option<Val<'_>> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| Val::stored(v))
    }
    fn each(&self, f: &mut dyn FnMut(&str, Val<'_>)) {
        for (k, v) in &self.attrs {
            f(k, Val::stored(v));
        }
    }
}

/// The size of a view's value, as DynamoDB counts it.
fn val_size(v: &Val<'_>) -> usize {
    match v {
        Val::S(s) => s.len(),
        Val::N(n) => crate::size::number_size(n),
        Val::Other(v) => super::value::value_size(v),
    }
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
