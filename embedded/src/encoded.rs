//! Items handed out encoded: a read copies each item's stored bytes (its
//! position and value) into one buffer, and the generated decoders read
//! them in place through [`ItemReader`], so no item map is built and only
//! the values an entity keeps are copied out.

use std::sync::Arc;

use super::codec::StoredCursor;
use super::hash::PREFIX;
use super::project::Projection;
use super::schema::KeyType;
use super::table::TableData;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::reader::{AttrReader, AttrRef, ItemReader, collect_item};
use crate::value::Item;

/// Items an embedded backend read, copied out of a table in order and
/// still encoded; the decoders read them in place (see [`crate::reader`]).
///
/// ```
/// use singletable::exec::Executor;
/// use singletable::reader::{ItemReader, Items};
/// use singletable::request::GetItem;
/// use singletable::{db::key_item, Db, Embedded, Entity, OtherTypes, Table};
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
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into() }).await?;
/// let get = GetItem { table: "App".into(), key: key_item::<App>(User::key("ana")?.key()), consistent: false };
/// let mut items: Items = db.executor().get_item_reader(get).await?;
/// assert_eq!(items.remaining(), 1);
/// let user = User::read_item(items.next_item().unwrap(), OtherTypes::Error)?;
/// assert_eq!(user, Some(User { id: "ana".into() }));
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct EncodedItems {
    buf: Vec<u8>,
    /// Per item: where its position starts, where its value starts, where
    /// it ends.
    spans: Vec<[usize; 3]>,
    next: usize,
    names: Arc<Vec<Box<str>>>,
    keys: Arc<[(Box<str>, KeyType)]>,
    /// The item being read and how far; `None` in the cursor once its bytes
    /// proved malformed.
    current: Option<([usize; 3], Option<StoredCursor>)>,
    /// A projection: only what it names is read out.
    keep: Option<Projection>,
}

#[cold]
fn corrupt() -> DecodeError {
    DecodeError::new(DecodeErrorKind::Invalid(
        "the embedded backend's stored item is malformed".into(),
    ))
}

impl EncodedItems {
    /// An empty page of `table`'s items, with room for about `bytes` bytes
    /// of them.
    pub(crate) fn new(table: &TableData, bytes: usize) -> Self {
        Self {
            buf: Vec::with_capacity(bytes),
            spans: Vec::with_capacity(bytes / 64),
            next: 0,
            names: Arc::clone(table.names()),
            keys: Arc::clone(table.keys()),
            current: None,
            keep: None,
        }
    }

    /// Reads out only the attributes in `keep` (a projection), all when
    /// `None`.
    pub(crate) fn keeping(mut self, keep: Option<Projection>) -> Self {
        self.keep = keep;
        self
    }

    /// Adds the item stored at table position `pos` with value `value`.
    pub(crate) fn push(&mut self, pos: &[u8], value: &[u8]) {
        let start = self.buf.len();
        self.buf.extend_from_slice(pos);
        let split = self.buf.len();
        self.buf.extend_from_slice(value);
        self.spans.push([start, split, self.buf.len()]);
    }

    /// Every item left, as maps.
    pub(crate) fn into_items(mut self) -> Result<Vec<Item>, DecodeError> {
        let mut out = Vec::with_capacity(self.remaining());
        while let Some(item) = self.next_item() {
            out.push(collect_item(item)?);
        }
        Ok(out)
    }
}

impl EncodedItems {
    /// Moves to the next item, which `self` then reads as an
    /// [`AttrReader`]; `false` after the last one.
    #[inline]
    pub(crate) fn advance(&mut self) -> bool {
        let Some(&span) = self.spans.get(self.next) else {
            self.current = None;
            return false;
        };
        self.next += 1;
        let cursor = self
            .buf
            .get(span[1]..span[2])
            .and_then(|value| StoredCursor::start(value, PREFIX));
        self.current = Some((span, cursor));
        true
    }
}

impl std::fmt::Debug for EncodedItems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EncodedItems({} left)", self.remaining())
    }
}

impl ItemReader for EncodedItems {
    fn next_item(&mut self) -> Option<&mut dyn AttrReader> {
        if self.advance() { Some(self) } else { None }
    }

    fn remaining(&self) -> usize {
        self.spans.len() - self.next
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

impl AttrReader for EncodedItems {
    fn rewind(&mut self) -> bool {
        let Some((span, cursor)) = &mut self.current else {
            return false;
        };
        *cursor = self
            .buf
            .get(span[1]..span[2])
            .and_then(|value| StoredCursor::start(value, PREFIX));
        true
    }

    #[inline]
    fn next_data_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        if let Some((_, Some(c))) = &mut self.current {
            c.skip_keys(self.keys.len());
        }
        self.next_attr()
    }

    #[inline]
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let (span, cursor) = self.current.as_mut()?;
        let Some(c) = cursor else {
            self.current = None;
            return Some(Err(corrupt()));
        };
        let (Some(pos), Some(value)) = (
            self.buf.get(span[0]..span[1]),
            self.buf.get(span[1]..span[2]),
        ) else {
            return Some(Err(corrupt()));
        };
        loop {
            let (name, v) = match c.next(pos, value, &self.keys, &self.names)? {
                Some(attr) => attr,
                None => return Some(Err(corrupt())),
            };
            let Some(keep) = &self.keep else {
                return Some(Ok((name, v)));
            };
            match keep.attribute(name) {
                None => {}
                Some(node) if node.is_whole() => return Some(Ok((name, v))),
                // Part of the attribute: only its projected part is copied.
                Some(node) => {
                    if let Some(part) = node.apply(v.into_owned()) {
                        return Some(Ok((name, AttrRef::Owned(part))));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::{IndexProjection, IndexSchema, KeyAttr, TableSchema};
    use super::super::{Embedded, read, write};
    use crate::expr::KeyCondition;
    use crate::reader::ItemReader;
    use crate::request::{GetItem, PutItem, QueryRequest};
    use crate::value::{AttributeValue as V, Blob, Item};

    fn item(pairs: Vec<(&str, V)>) -> Item {
        pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }

    fn all(mut r: impl ItemReader) -> Vec<Item> {
        let mut out = Vec::new();
        while let Some(i) = r.next_item() {
            out.push(super::collect_item(i).expect("readable"));
        }
        out
    }

    fn query(index: Option<&str>, pk_attr: &str, pk: &str) -> QueryRequest {
        QueryRequest {
            table: "Things".into(),
            index: index.map(str::to_owned),
            key: KeyCondition {
                pk_attr: pk_attr.into(),
                pk: pk.into(),
                sk: None,
                attrs: None,
            },
            filter: None,
            limit: None,
            forward: true,
            consistent: false,
            projection: None,
            start: None,
        }
    }

    /// Items read in place are the items Query and GetItem return: escaped
    /// and number keys, every value type, index reads, and the projected
    /// index that falls back to maps.
    #[test]
    fn encoded_items_read_back_as_stored() {
        let db = Embedded::new();
        let schema = TableSchema {
            pk: KeyAttr::s("PK"),
            sk: Some(KeyAttr {
                name: "n".into(),
                kind: super::KeyType::N,
            }),
            indexes: vec![
                IndexSchema {
                    name: "AllIdx".into(),
                    global: true,
                    pk: KeyAttr::s("g"),
                    sk: None,
                    pk_rest: vec![],
                    sk_rest: vec![],
                    projection: IndexProjection::All,
                },
                IndexSchema {
                    name: "KeysIdx".into(),
                    global: true,
                    pk: KeyAttr::s("g"),
                    sk: None,
                    pk_rest: vec![],
                    sk_rest: vec![],
                    projection: IndexProjection::KeysOnly,
                },
            ],
            stream: None,
        };
        db.create_table_with("Things", schema).expect("table");
        let pks = ["plain", "nul\0inside", "é\u{0}\u{0}x"];
        let mut written = Vec::new();
        for (i, pk) in pks.iter().enumerate() {
            for n in ["-1.5", "0", "12345678901234567890.25"] {
                let it = item(vec![
                    ("PK", V::S((*pk).into())),
                    ("n", V::N(n.into())),
                    ("g", V::S("G".into())),
                    ("s", V::S(format!("v\0{i}"))),
                    ("num", V::N("3.25".into())),
                    ("b", V::B(Blob::new(vec![0, 1, 2]))),
                    ("t", V::Bool(true)),
                    ("z", V::Null(true)),
                    ("l", V::L(vec![V::S("a".into()), V::N("1".into())])),
                    ("m", V::M(item(vec![("k", V::Ss(vec!["x".into()]))]))),
                    ("ns", V::Ns(vec!["1".into(), "2".into()])),
                    ("bs", V::Bs(vec![Blob::new(vec![9])])),
                ]);
                let put = PutItem {
                    table: "Things".into(),
                    item: it.clone(),
                    condition: None,
                    return_old: false,
                    return_on_condition_failure: false,
                };
                write::put_item(&mut db.write(), put).expect("put");
                written.push(it);
            }
        }
        let store = db.read();
        for pk in pks {
            let req = query(None, "PK", pk);
            let maps = read::query(&store, &req).expect("query").items;
            assert_eq!(maps.len(), 3);
            let page = read::query_reader(&store, &req).expect("query");
            assert_eq!(page.items.remaining(), 3);
            assert_eq!(all(page.items), maps);
            for m in &maps {
                assert!(written.contains(m), "{m:?}");
                let get = GetItem {
                    table: "Things".into(),
                    key: item(vec![("PK", m["PK"].clone()), ("n", m["n"].clone())]),
                    consistent: false,
                };
                let one = read::get_item_encoded(&store, &get).expect("get");
                assert_eq!(all(one), vec![m.clone()]);
            }
        }
        for index in ["AllIdx", "KeysIdx"] {
            let req = query(Some(index), "g", "G");
            let maps = read::query(&store, &req).expect("query").items;
            assert_eq!(maps.len(), 9);
            let page = read::query_reader(&store, &req).expect("query");
            assert_eq!(all(page.items), maps, "{index}");
        }
        let missing = GetItem {
            table: "Things".into(),
            key: item(vec![("PK", V::S("none".into())), ("n", V::N("1".into()))]),
            consistent: false,
        };
        let none = read::get_item_encoded(&store, &missing).expect("get");
        assert!(all(none).is_empty());
    }
}
