//! One table's storage: items in a B-tree ordered the way DynamoDB Local
//! orders them, and one B-tree per secondary index pointing into them.
//!
//! A table position is `hash(pk)[..8] ++ enc(pk) ++ enc(sk)`: partitions in
//! DynamoDB Local's scan order, each partition's items by sort key. An index
//! position is `enc(ipk) ++ enc(isk) ++ tie ++ enc(pk) ++ enc(sk)` (a local
//! index starts with `hash(pk)[..8]` too, like the table), where `tie` is
//! the hash DynamoDB Local breaks equal index keys with; the table key at
//! the end makes every entry unique.
//!
//! Each item is one allocation ([`Record`]) holding its position, its value
//! (the item without the key attributes its position holds, attribute
//! names as numbers into the table's name list) and, per index it is in, a
//! part that says where its index position's pieces are; an index entry
//! points into it ([`parts`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::codec::{self, order_bytes};
use super::error::{Fail, Res};
use super::hash::{self, PREFIX};
use super::meter::Capacity;
use super::record::Record;
use super::redo::Change;
use super::schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema};
use super::value::Val;

mod parts;
mod stats;
mod vectors;

use crate::value::{AttributeValue, Item};
pub(crate) use parts::IndexData;
use singletable_core::exec::CapacityMeter;
use singletable_core::reader::AttrRef;
pub use stats::{IndexStats, TableStats};
pub(crate) use vectors::{VectorData, check_item};

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

pub(crate) struct TableData {
    pub(crate) schema: TableSchema,
    /// Table position → encoded item, with its index parts.
    items: BTreeSet<Record>,
    /// Parallel to `schema.indexes`.
    pub(crate) indexes: Vec<IndexData>,
    /// Parallel to `schema.vectors`.
    pub(crate) vectors: Vec<VectorData>,
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
    /// The changes made since the store last handed them to its log, when
    /// the store is durable (`None`: nothing is kept).
    pub(crate) redo: Option<Vec<Change>>,
    /// The time a write takes: `None` for now; a replayed write takes the
    /// time it was made at, so its stream record is the one it made.
    pub(crate) replay_at: Option<u64>,
    /// Whether the write in progress is TTL's deletion of an expired item
    /// (its stream record and log record say so).
    pub(crate) by_ttl: bool,
    /// What the endpoint keeps of the table beyond its schema
    /// ([`Embedded::annotate`](crate::Embedded::annotate)).
    pub(crate) annotation: Option<String>,
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
        let vectors = schema.vectors.iter().map(|_| VectorData::new()).collect();
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
            redo: None,
            replay_at: None,
            by_ttl: false,
            annotation: None,
        }
    }

    /// Keeps `change` for the log, when the store is durable.
    pub(crate) fn journal(&mut self, change: impl FnOnce() -> Change) {
        if let Some(redo) = &mut self.redo {
            redo.push(change());
        }
    }

    /// The seconds since the epoch a write made now takes.
    fn write_time(&self) -> u64 {
        self.replay_at.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
    }

    /// The key attributes of the item stored at `pos`.
    fn key_at(&self, pos: &[u8]) -> Option<Item> {
        let item = self.item(pos).ok()??;
        Some(
            self.schema
                .table_keys()
                .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
                .collect(),
        )
    }

    /// UpdateTable `StreamSpecification`: a stream of `view` whose feed
    /// starts empty.
    pub(crate) fn enable_stream(&mut self, view: singletable_core::entity::StreamView) {
        self.schema.stream = Some(view);
        self.feed = Some(super::feed::Feed::new(view));
        self.journal(|| Change::Stream(view));
    }

    /// UpdateTimeToLive: the TTL attribute, `None` to disable TTL.
    pub(crate) fn set_time_to_live(&mut self, attribute: Option<String>) {
        self.journal(|| Change::TimeToLive(attribute.clone()));
        self.time_to_live = attribute;
    }

    /// The positions of the items TTL deletes at `now` (seconds since the
    /// epoch), read in place; none when TTL is disabled. See `expire`.
    pub(crate) fn expired_positions(&self, now: u64) -> Vec<Vec<u8>> {
        let Some(attr) = self.time_to_live.as_deref() else {
            return Vec::new();
        };
        self.items
            .iter()
            .filter(|r| {
                Stored::read(r, &self.keys, &self.names)
                    .is_some_and(|s| crate::expire::expired(s.attr(attr).as_ref(), now))
            })
            .map(|r| r.key().to_vec())
            .collect()
    }

    /// Replaces the table's annotation.
    pub(crate) fn annotate(&mut self, text: String) {
        self.journal(|| Change::Annotate(text.clone()));
        self.annotation = Some(text);
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

    /// Numbers attribute names as `names` does, for stored values read
    /// back from a binary snapshot (which refer to names by number). Only
    /// on a table that holds no item yet.
    pub(crate) fn restore_names(&mut self, names: Vec<Box<str>>) -> Res<()> {
        if !self.items.is_empty() {
            return Err(Fail::internal(
                "attribute names restored into a table with items",
            ));
        }
        let mut ids = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            if ids.insert(n.clone(), i).is_some() {
                return Err(Fail::validation(format!(
                    "snapshot is malformed: attribute name {n:?} numbered twice"
                )));
            }
        }
        self.names = Arc::new(names);
        self.ids = ids;
        Ok(())
    }

    /// Stores a record read back from a binary snapshot as it was stored
    /// (its position and its stored value, the bytes [`Self::items`] hands
    /// out), with its index entries: no decoding into a map and no
    /// re-encoding. Records come in position order, each read in place
    /// first: bytes that do not read as a stored item, or a position not
    /// after the previous one, are refused, never stored.
    pub(crate) fn restore(&mut self, pos: &[u8], value: &[u8]) -> Res<()> {
        let bad = |what: &str| Fail::validation(format!("snapshot is malformed: {what}"));
        if self.items.last().is_some_and(|r| r.key() >= pos) {
            return Err(bad("items out of order, or two items with one key"));
        }
        if !self.vectors.is_empty() {
            // A vector index keeps its own structure, built from the item.
            let item = self
                .decode(pos, value)
                .map_err(|_| bad("a stored item does not decode"))?;
            self.write(pos.to_vec(), Some(&item), None);
            return Ok(());
        }
        let (keys, names) = (self.keys.clone(), self.names.clone());
        if self.indexes.is_empty() {
            // Nothing to compute from the attributes: read them in place
            // without collecting them.
            let mut cursor = codec::StoredCursor::start(value, PREFIX)
                .ok_or_else(|| bad("a stored item does not decode"))?;
            while let Some(attr) = cursor.next(pos, value, &keys, &names) {
                attr.ok_or_else(|| bad("a stored item does not decode"))?;
            }
            self.store::<Item>(pos, value, &Item::new(), &[]);
            return Ok(());
        }
        let view = Stored::read_raw(pos, value, &keys, &names)
            .ok_or_else(|| bad("a stored item does not decode"))?;
        self.store(pos, value, &view, &[]);
        Ok(())
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
        let at = (self.feed.is_some() || self.redo.is_some()).then(|| self.write_time());
        if let Some(feed) = &mut self.feed {
            let now = SystemTime::UNIX_EPOCH + Duration::from_secs(at.unwrap_or(0));
            feed.record(&self.schema, old, new, now, self.by_ttl);
        }
        if self.redo.is_some() {
            let change = match new {
                Some(item) => Some(Change::Put(item.clone(), at.unwrap_or(0))),
                None => self
                    .key_at(&pos)
                    .map(|key| Change::Delete(key, at.unwrap_or(0), self.by_ttl)),
            };
            if let Some(change) = change {
                self.journal(|| change);
            }
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
        if self.redo.is_some() {
            let at = self.write_time();
            self.journal(|| Change::Put(new.clone(), at));
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
        singletable_core::capacity::write_blocks(self.entry_size(i, item))
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
    pub(crate) fn stats(&self) -> Res<TableStats> {
        let mut out = TableStats {
            item_count: self.items.len() as u64,
            size_bytes: 0,
            indexes: self
                .schema
                .indexes
                .iter()
                .map(|ix| IndexStats {
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
                .map(|(ix, data)| IndexStats {
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
        Self::read_raw(e.key(), e.value(), keys, names)
    }

    /// The attributes of a position and stored value not (yet) in a
    /// record; `None` when the bytes are malformed.
    fn read_raw(
        pos: &'a [u8],
        value: &'a [u8],
        keys: &'a [(Box<str>, KeyType)],
        names: &'a [Box<str>],
    ) -> Option<Self> {
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
        Val::N(n) => singletable_core::size::number_size(n),
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

#[cfg(test)]
mod tests;
