//! A table's records and their index parts: what a write stores (one
//! record per item, a part per index it is in) and how each index's
//! entries follow the records they point into.

use std::collections::BTreeSet;

use super::super::codec;
use super::super::error::{Fail, Res};
use super::super::hash::{self, PREFIX};
use super::super::record::{Desc, IndexEntry, Record};
use super::super::schema::{IndexSchema, KeyType, TableSchema};
use super::super::value::Val;
use super::{Stored, TableData, Tie, View, tie_of};
use crate::value::{AttributeValue, Item};
use singletable_core::reader::AttrRef;

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
    pub(super) fn new(schema: &TableSchema, ix: &IndexSchema) -> Self {
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

impl TableData {
    /// UpdateTable's `Create` of a global index: the index is added to the
    /// schema and built from every item already stored, as DynamoDB
    /// backfills a new index (items whose key attributes are missing or of
    /// another type are left out of it, as there, and so are items whose
    /// new index key `fits` refuses: the caller's write checks, an empty
    /// value or a key over its size limit). The schema is checked as
    /// CreateTable checks it; nothing changes when it fails.
    pub(crate) fn add_index(
        &mut self,
        ix: IndexSchema,
        fits: impl Fn(&IndexSchema, &Item) -> bool,
    ) -> Res<()> {
        if ix.global
            && self.schema.indexes.iter().filter(|i| i.global).count()
                >= crate::schema::MAX_GLOBAL_INDEXES
        {
            // UpdateTable's answer (CreateTable's is a validation error).
            return Err(Fail::code(
                "LimitExceededException",
                "Number of global secondary indexes exceeds per-table limit",
            ));
        }
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
                // Only the items in it are decoded, to check their keys.
                let item = self.decode(r.key(), r.value()).ok()?;
                if !fits(&self.schema.indexes[i], &item) {
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
        let ix = self.schema.indexes[i].clone();
        self.journal(|| crate::redo::Change::AddIndex(ix));
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
        self.journal(|| crate::redo::Change::RemoveIndex(name.to_owned()));
        true
    }
    /// Replaces every record by `records` (the same items, in table order)
    /// and builds the indexes from their parts. The old entries go before
    /// the records they point into.
    pub(super) fn rebuild(&mut self, records: Vec<Record>) {
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
    /// Stores `item`, encoded as `value`, at `pos`, with a part for each
    /// index it is in, and moves its index entries to the new record; an
    /// index marked in `same` keeps its entry's place (and the tie-break
    /// hash of the replaced record's part: it hashes the same key).
    pub(super) fn store<V: View + ?Sized>(
        &mut self,
        pos: &[u8],
        value: &[u8],
        item: &V,
        same: &[bool],
    ) {
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
            let tie = || match kept.and_then(Desc::tie_of) {
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
    pub(super) fn delete(&mut self, pos: &[u8]) {
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
                            let mut r =
                                singletable_core::reader::encoded::ValueReader::at(value, off);
                            let Some(AttrRef::N(n)) = r.value_ref() else {
                                return None;
                            };
                            let mut bytes = Vec::new();
                            codec::order_val(&Val::N(n.into()), &mut bytes);
                            d.bytes(&bytes);
                        }
                        KeyType::S | KeyType::B => {
                            if !super::super::record::is_raw(value, off, *kind == KeyType::B) {
                                return None;
                            }
                            d.raw(off);
                        }
                    }
                }
            }
        }
        if self.indexes[i].tie != Tie::None {
            d.tie(&tie()?);
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
    pub(super) fn tie<V: View + ?Sized>(&self, i: usize, item: &V) -> Option<[u8; PREFIX]> {
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
}
