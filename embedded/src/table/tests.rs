//! The index entries follow their items through every kind of write: each
//! index holds exactly the items that have its key attributes, in the
//! order of their index positions, and each entry reads back its item.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::super::schema::{IndexProjection, IndexSchema, KeyAttr, KeyType, TableSchema};
use super::TableData;
use crate::value::{AttributeValue as V, Blob, Item};
use singletable_core::exec::CapacityMeter;

fn key(name: &str, kind: KeyType) -> KeyAttr {
    KeyAttr {
        name: name.into(),
        kind,
    }
}

fn index(name: &str, global: bool, pk: KeyAttr, sk: Option<KeyAttr>) -> IndexSchema {
    IndexSchema {
        name: name.into(),
        global,
        pk,
        sk,
        pk_rest: vec![],
        sk_rest: vec![],
        projection: IndexProjection::All,
    }
}

/// Indexes of every kind of key: strings, numbers, binaries, table keys
/// (inverted), a local index, several tie-break hashes.
fn schema() -> TableSchema {
    TableSchema {
        pk: KeyAttr::s("PK"),
        sk: Some(KeyAttr::s("SK")),
        indexes: vec![
            index("ByS", true, KeyAttr::s("g"), Some(KeyAttr::s("h"))),
            index("ByN", true, key("n", KeyType::N), None),
            index("ByB", true, key("b", KeyType::B), Some(KeyAttr::s("PK"))),
            index("Inverted", true, KeyAttr::s("SK"), Some(KeyAttr::s("PK"))),
            index("Local", false, KeyAttr::s("PK"), Some(key("n", KeyType::N))),
        ],
        stream: None,
        vectors: vec![],
    }
}

/// The item of step `k`: key attributes present or missing, of the
/// index's type or not, with zero bytes and values of varied lengths.
fn item(k: u32) -> Item {
    let mut it = Item::new();
    it.insert("PK".into(), V::S(format!("p{}", k % 5)));
    it.insert("SK".into(), V::S(format!("s\0{}", k % 7)));
    if !k.is_multiple_of(3) {
        it.insert("g".into(), V::S(format!("G{}", k % 2)));
    }
    if k % 4 != 1 {
        it.insert("h".into(), V::S("x".repeat((k % 6) as usize)));
    }
    match k % 5 {
        0 => {}
        1 => {
            it.insert("n".into(), V::S("not a number".into()));
        }
        _ => {
            it.insert("n".into(), V::N(format!("{}.5", i64::from(k % 9) - 4)));
        }
    }
    if k.is_multiple_of(2) {
        it.insert("b".into(), V::B(Blob::new(vec![0, (k % 3) as u8])));
    }
    it.insert("v".into(), V::S("y".repeat((k % 11) as usize * 20)));
    it
}

/// Every index of `t` against the items `stored` (by table position).
fn check(t: &TableData, stored: &BTreeMap<Vec<u8>, Item>) {
    assert_eq!(t.items().len(), stored.len());
    for (i, ix) in t.indexes.iter().enumerate() {
        let mut expected: Vec<(Vec<u8>, &Item)> = stored
            .values()
            .filter_map(|it| Some((t.index_position(i, it)?, it)))
            .collect();
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        let got: Vec<Item> = ix
            .entries()
            .iter()
            .map(|e| {
                let (pos, value) = e.key_value();
                t.decode(pos, value).expect("decodes")
            })
            .collect();
        let expected: Vec<Item> = expected.into_iter().map(|(_, it)| it.clone()).collect();
        assert_eq!(got, expected, "index {}", t.schema.indexes[i].name);
    }
}

#[test]
fn index_entries_follow_their_items() {
    let mut t = TableData::new(schema(), Arc::new(CapacityMeter::default()));
    let mut stored = BTreeMap::new();
    for k in 0..400u32 {
        let it = item(k * 7919 % 1009);
        let pos = t.position(&it);
        if k.is_multiple_of(13) {
            // Deletes.
            let old = stored.remove(&pos);
            t.write(pos, None, old.as_ref());
        } else if k.is_multiple_of(2) {
            // Puts over the stored item read in place.
            let size = super::super::value::item_size(&it);
            t.write_over(pos.clone(), &it, size).expect("write");
            stored.insert(pos, it);
        } else {
            let old = stored.get(&pos).cloned();
            t.write(pos.clone(), Some(&it), old.as_ref());
            stored.insert(pos, it);
        }
        if k.is_multiple_of(50) {
            check(&t, &stored);
        }
    }
    check(&t, &stored);
    // The same items again: values of the same length, overwritten in
    // place.
    for it in stored.values() {
        let size = super::super::value::item_size(it);
        t.write_over(t.position(it), it, size).expect("write");
    }
    check(&t, &stored);
    // An index added over stored items, one removed before others.
    t.add_index(
        index("Added", true, KeyAttr::s("h"), Some(KeyAttr::s("g"))),
        |_, _| true,
    )
    .expect("add");
    check(&t, &stored);
    assert!(t.remove_index("ByN"));
    check(&t, &stored);
    for it in stored.values().take(20).cloned().collect::<Vec<_>>() {
        let mut it = it;
        it.insert("h".into(), V::S("moved".into()));
        let size = super::super::value::item_size(&it);
        let pos = t.position(&it);
        t.write_over(pos.clone(), &it, size).expect("write");
        stored.insert(pos, it);
    }
    check(&t, &stored);
}
