//! Items handed out encoded: a read copies each item's bytes into one
//! page ([`EncodedItems`], the runtime's type, so that every handle reads
//! it with static dispatch), and the generated decoders read them in place,
//! so no item map is built and only the values an entity keeps are copied
//! out. The table key attributes, which a stored item leaves to its
//! position, are written into the page as plain values; the other
//! attributes are copied as stored (the runtime's value encoding).

use super::codec::read_key_ref;
use super::hash::PREFIX;
use super::project::{Node, Projection};
use super::schema::KeyType;
use super::table::TableData;
use crate::error::DecodeError;
use crate::value::Item;
use singletable_core::reader::encoded::{ValueReader, encode_value, put_len};
use singletable_core::reader::{AttrRef, ItemReader, collect_item};

pub use singletable_core::reader::EncodedItems;

/// An empty page of `table`'s items, with room for about `bytes` bytes of
/// them.
pub(crate) fn page(table: &TableData, bytes: usize) -> EncodedItems {
    EncodedItems::new(
        std::sync::Arc::clone(table.names()),
        std::sync::Arc::clone(table.key_names()),
        bytes,
    )
}

/// What a projection keeps of the attribute `name`: all of it, part of
/// it, or (`None`) nothing.
fn projected<'a>(keep: Option<&Projection>, name: &str, v: AttrRef<'a>) -> Option<AttrRef<'a>> {
    let Some(keep) = keep else {
        return Some(v);
    };
    let node = keep.attribute(name)?;
    if node.is_whole() {
        Some(v)
    } else {
        node.apply(v.into_owned()).map(AttrRef::owned)
    }
}

/// A projection applied to the items of one table: what it keeps of each
/// of the table's attribute names, looked up the first time the name is
/// met, so that the attributes of each item are matched by number.
pub(crate) struct Kept<'p> {
    keep: &'p Projection,
    /// By name number; `None` until looked up.
    nodes: Vec<Option<Option<&'p Node>>>,
}

impl<'p> Kept<'p> {
    pub(crate) fn new(keep: &'p Projection) -> Self {
        Self {
            keep,
            nodes: Vec::new(),
        }
    }

    /// What the projection keeps of the attribute named `name`, number
    /// `id` among the table's names.
    #[inline]
    fn node(&mut self, id: usize, name: &str) -> Option<&'p Node> {
        if self.nodes.len() <= id {
            self.nodes.resize(id + 1, None);
        }
        let keep = self.keep;
        *self
            .nodes
            .get_mut(id)?
            .get_or_insert_with(|| keep.attribute(name))
    }
}

/// Adds the item stored at table position `pos` with stored value `value`
/// to `out`, only what `keep` keeps when it is given; `None` when the
/// stored bytes are malformed.
pub(crate) fn push(
    out: &mut EncodedItems,
    table: &TableData,
    pos: &[u8],
    value: &[u8],
    keep: Option<&mut Kept<'_>>,
) -> Option<()> {
    let keys = table.keys();
    // The stored value: its size, then the attributes as the page holds them.
    let mut r = ValueReader::new(value);
    r.read_len()?;
    let attrs = value.get(r.position()..)?;
    let escaped = keys.iter().all(|(_, kind)| *kind != KeyType::N);
    if keep.is_none() && escaped {
        // Strings and binaries are escaped in the position as the page
        // holds them: the keys and the attributes copied in one piece each.
        out.push_escaped_item(pos.get(PREFIX..)?, attrs);
        return Some(());
    }
    let mut at = PREFIX;
    for (i, (name, kind)) in keys.iter().enumerate() {
        let v = read_key_ref(pos, &mut at, *kind)?;
        if let Some(v) = projected(keep.as_ref().map(|k| k.keep), name, v) {
            out.push_key(i, &v);
        }
    }
    let Some(keep) = keep else {
        out.push_item(attrs);
        return Some(());
    };
    // A projection keeps the attributes it names: those it keeps whole
    // are copied as stored; only those it keeps part of are decoded and
    // encoded again.
    let names = table.names();
    let mut r = ValueReader::new(attrs);
    let n = r.read_len()?;
    out.push_attrs_with(|buf| {
        let mut kept = 0;
        for _ in 0..n {
            let start = r.position();
            let id = r.read_len()?;
            match keep.node(id, names.get(id)?) {
                None => r.skip_value()?,
                Some(node) if node.is_whole() => {
                    r.skip_value()?;
                    buf.extend_from_slice(attrs.get(start..r.position())?);
                    kept += 1;
                }
                Some(node) => {
                    if let Some(v) = node.apply(r.value()?) {
                        put_len(buf, id);
                        encode_value(&v, buf);
                        kept += 1;
                    }
                }
            }
        }
        Some(kept)
    })
}

/// Every item left in `page`, as maps.
pub(crate) fn into_items(mut page: EncodedItems) -> Result<Vec<Item>, DecodeError> {
    let mut out = Vec::with_capacity(page.remaining());
    while let Some(item) = page.next_item() {
        out.push(collect_item(item)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::schema::{IndexProjection, IndexSchema, KeyAttr, TableSchema};
    use super::super::{Embedded, read, write};
    use crate::value::{AttributeValue as V, Blob, Item};
    use singletable_core::expr::{KeyCondition, Path};
    use singletable_core::reader::ItemReader;
    use singletable_core::request::{GetItem, PutItem, QueryRequest};

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
                kind: super::super::schema::KeyType::N,
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
            vectors: vec![],
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
        // Projections: attributes kept whole (copied as stored), parts of
        // a map and of a list (decoded and encoded again), a key attribute,
        // a name no item has; on the table and on an index.
        let paths = vec![
            Path::new("s"),
            Path::new("m").key("k"),
            Path::new("l").index(1),
            Path::new("n"),
            Path::new("absent"),
            Path::new("bs"),
        ];
        for index in [None, Some("AllIdx")] {
            let (attr, value) = if index.is_some() {
                ("g", "G")
            } else {
                ("PK", pks[0])
            };
            let mut req = query(index, attr, value);
            req.projection = Some(paths.clone());
            let maps = read::query(&store, &req).expect("query").items;
            assert!(!maps.is_empty());
            assert!(
                maps.iter()
                    .all(|m| m.contains_key("m") && m.contains_key("l") && !m.contains_key("ns")),
                "{maps:?}"
            );
            let page = read::query_reader(&store, &req).expect("query");
            assert_eq!(all(page.items), maps, "{index:?}");
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
