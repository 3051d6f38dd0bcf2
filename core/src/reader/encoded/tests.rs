use super::*;
use crate::reader::collect_item;

fn page() -> EncodedItems {
    let names = Arc::new(vec!["a".into(), "b".into()]);
    let keys: Arc<[(Box<str>, bool)]> = vec![("PK".into(), false), ("SK".into(), true)].into();
    EncodedItems::new(names, keys, 0)
}

#[test]
fn a_page_is_small_and_takes_over_the_last_pages_buffers() {
    // Pages are moved through futures and results: their buffers are
    // boxed, and the box goes to the next page made on the thread.
    let size = std::mem::size_of::<EncodedItems>();
    assert!(size <= 160, "EncodedItems is {size} bytes");
    // A value read is three words, whole (see `AttrRef`), and so is
    // one that may be absent.
    assert_eq!(std::mem::size_of::<AttrRef<'_>>(), 24);
    assert_eq!(std::mem::size_of::<Option<AttrRef<'_>>>(), 24);
    let mut p = page();
    p.push_attrs(&[(0, AttrRef::S("x"))]);
    let buf = p.s().buf.as_ptr();
    drop(p);
    let q = page();
    assert_eq!(q.s().buf.as_ptr(), buf);
    assert_eq!(q.remaining(), 0);
}

#[test]
fn items_read_back_with_and_without_keys_and_rewind() {
    let mut p = page();
    p.push_key(0, &AttrRef::S("P"));
    p.push_key(1, &AttrRef::N("1"));
    p.push_attrs(&[(1, AttrRef::Bool(true)), (0, AttrRef::S("x"))]);
    p.push_attrs(&[]);
    assert_eq!(p.remaining(), 2);
    let first = p.next_item().expect("first");
    let (name, _) = first.next_data_attr().expect("attr").expect("ok");
    assert_eq!(name, "b");
    assert!(first.rewind());
    let item = collect_item(first).expect("read");
    assert_eq!(item.len(), 4);
    assert_eq!(item["SK"], AttributeValue::N("1".into()));
    let second = p.next_item().expect("second");
    assert!(collect_item(second).expect("read").is_empty());
    assert!(p.next_item().is_none());
}

#[test]
fn escaped_keys_read_back() {
    let mut p = page();
    let mut keys = Vec::new();
    escape_key(b"P\0x", &mut keys);
    escape_key(&[0, 1], &mut keys);
    p.push_escaped_keys(&keys);
    p.push_attrs(&[(0, AttrRef::S("v"))]);
    let item = collect_item(p.next_item().expect("item")).expect("read");
    assert_eq!(item["PK"], AttributeValue::S("P\0x".into()));
    assert_eq!(item["SK"], AttributeValue::B(Blob::new(vec![0, 1])));
    assert_eq!(item["a"], AttributeValue::S("v".into()));
    // Not UTF-8, or not terminated: errors.
    for bad in [&[0xFF, 0, 0][..], b"P"] {
        let mut p = page();
        p.push_escaped_keys(bad);
        p.push_attrs(&[]);
        assert!(
            collect_item(p.next_item().expect("item")).is_err(),
            "{bad:?}"
        );
    }
}

/// Numbers found for a page's names hold for the next page only when
/// it has the same names (the same allocation), not for names that
/// merely came after them, in another order, perhaps at their address.
#[test]
fn names_are_numbered_per_names_not_per_address() {
    static NUMBERING: Numbering = Numbering::new(&["x", "a", "b"]);
    let keys: Arc<[(Box<str>, bool)]> = vec![("PK".into(), false)].into();
    let numbers = |names: &Arc<Vec<Box<str>>>| {
        let mut page = EncodedItems::new(names.clone(), keys.clone(), 0);
        page.push_key(0, &AttrRef::S("P"));
        page.push_attrs(&[
            (0, AttrRef::S("x")),
            (1, AttrRef::S("y")),
            (2, AttrRef::Null),
        ]);
        let item = page.next_item().expect("item");
        let mut out = Vec::new();
        while let Some(attr) = item.next_numbered(&NUMBERING) {
            let (number, name, _) = attr.expect("attr");
            out.push((number, name.to_owned()));
        }
        out
    };
    let ab = Arc::new(vec!["a".into(), "b".into(), "c".into()]);
    let expected = [(1, "a"), (2, "b"), (Numbering::OTHER, "c")];
    for _ in 0..2 {
        let got = numbers(&ab);
        assert!(
            got.iter().map(|(n, s)| (*n, s.as_str())).eq(expected),
            "{got:?}"
        );
    }
    drop(ab);
    for _ in 0..3 {
        let ba = Arc::new(vec!["b".into(), "a".into(), "c".into()]);
        let got = numbers(&ba);
        let expected = [(2, "b"), (1, "a"), (Numbering::OTHER, "c")];
        assert!(
            got.iter().map(|(n, s)| (*n, s.as_str())).eq(expected),
            "{got:?}"
        );
    }
}

/// The key section lent by `table_key` and left out by
/// `next_field_attr`, on pages checked as a whole (ASCII) and on pages
/// whose strings are checked one by one (a length over 127 bytes, an
/// escaped zero byte, a string that is not UTF-8), with the same
/// answers; a push after reading started still reads back.
#[test]
fn table_keys_are_lent_whether_or_not_the_page_is_text() {
    let long = "é".repeat(100);
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (b"USER#1\0\0\x01\0\0".to_vec(), "USER#1", "x"),
        (b"USER#1\0\0\x01\0\0".to_vec(), "USER#1", &long),
        (b"U\0\xFF#\0\0\x01\0\0".to_vec(), "U\0#", "x"),
    ];
    for (keys, pk, value) in &cases {
        let names = Arc::new(vec!["a".into()]);
        let kinds: Arc<[(Box<str>, bool)]> = vec![("PK".into(), false), ("SK".into(), true)].into();
        let mut p = EncodedItems::new(names, kinds, 0);
        p.push_escaped_keys(keys);
        p.push_attrs(&[(0, AttrRef::S(value))]);
        let item = p.next_item().expect("item");
        let key = item
            .table_key("PK", Some("SK"))
            .expect("lent")
            .expect("read");
        assert_eq!(key.pk_str(), Some(*pk));
        assert_eq!(
            key.sk,
            Some(KeyRef::Other(Box::new(AttributeValue::B(Blob::new(vec![
                1
            ])))))
        );
        let (name, v) = item.next_field_attr().expect("attr").expect("ok");
        assert_eq!((name, v.as_s()), ("a", Some(*value)));
        assert!(item.next_field_attr().is_none());
        // Keys as values, and a second item pushed after reading.
        p.push_key(1, &AttrRef::S("S"));
        p.push_key(0, &AttrRef::S("P"));
        p.push_attrs(&[]);
        let item = p.next_item().expect("second");
        let key = item
            .table_key("PK", Some("SK"))
            .expect("lent")
            .expect("read");
        assert_eq!((key.pk_str(), key.sk_str()), (Some("P"), Some("S")));
        assert!(item.next_field_attr().is_none());
    }
    // A string that is not UTF-8, read from a page of bytes: an error.
    let mut p = page();
    p.push_item(&[1, 0, S, 1, 0xFF]);
    let item = p.next_item().expect("item");
    assert!(item.next_field_attr().expect("attr").is_err());
    // A malformed key section: an error, not a panic.
    let mut p = page();
    p.push_escaped_keys(b"P");
    p.push_attrs(&[]);
    assert!(
        p.next_item()
            .expect("item")
            .table_key("PK", None)
            .expect("lent")
            .is_err()
    );
    // Nothing read yet: no key to lend.
    assert!(page().table_key("PK", None).is_none());
}

#[test]
fn malformed_bytes_are_errors_not_panics() {
    for bad in [
        &[][..],
        &[1],
        &[1, 9, 1, 0],
        &[1, 0, 1, 200],
        &[1, 0, 0xFF],
        &[0xFF, 0xFF, 0xFF],
    ] {
        let mut p = page();
        p.push_item(bad);
        let r = p.next_item().expect("an item");
        assert!(collect_item(r).is_err(), "{bad:?}");
    }
    // A key whose value runs into the other attributes.
    let mut p = page();
    p.push_key(0, &AttrRef::S("P"));
    let mut p2 = page();
    p2.s_mut().buf = vec![KEYS_AS_VALUES, 0, 1, 5, b'a', 0];
    p2.s_mut().spans = vec![[0, 4, 6]];
    assert!(collect_item(p2.next_item().expect("item")).is_err());
    p.push_item(&[0]);
    assert_eq!(
        collect_item(p.next_item().expect("item"))
            .expect("ok")
            .len(),
        1
    );
}
