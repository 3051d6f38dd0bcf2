//! Byte encodings: items stored compactly (a few bytes of framing per
//! attribute, attribute names as numbers, key attributes left to the
//! position), and key values encoded so that byte order is DynamoDB's key
//! order (`S` by UTF-8 bytes, `N` numerically, `B` byte-wise) and
//! encodings can be concatenated and read back.

use std::borrow::Cow;

use super::number::Num;
use super::schema::KeyType;
use super::value::Val;
use crate::value::{AttributeValue, Blob, Item};
use singletable_core::reader::AttrRef;
use singletable_core::reader::encoded::{
    ValueReader as Reader, encode_value, escape_key, put_len, unescape_key,
};

/// An item as stored: its size as DynamoDB counts it (so that reads need
/// not recount it), then its attributes but the table key ones (which its
/// position holds), top-level names as numbers (`id` interns them), in
/// name-number order: values are normalised, so two versions of an item
/// encode alike exactly where they agree, and [`changed`] compares them
/// attribute by attribute without decoding either.
pub(crate) fn encode_item(
    item: &Item,
    size: usize,
    skip: &dyn Fn(&str) -> bool,
    id: &mut dyn FnMut(&str) -> usize,
) -> Vec<u8> {
    let mut kept: Vec<(usize, &AttributeValue)> = item
        .iter()
        .filter(|(k, _)| !skip(k))
        .map(|(k, v)| (id(k), v))
        .collect();
    kept.sort_unstable_by_key(|&(id, _)| id);
    // Names become numbers: the size and a few bytes of framing per
    // attribute hold the encoding (one allocation, no growth).
    let mut out = Vec::with_capacity(size + 4 * kept.len() + 8);
    put_len(&mut out, size);
    put_len(&mut out, kept.len());
    for (id, v) in kept {
        put_len(&mut out, id);
        encode_value(v, &mut out);
    }
    out
}

/// Pushes onto `out` the name numbers of the attributes two stored values
/// ([`encode_item`]) do not share: held by one only, or with other values
/// (equal bytes are equal values; other bytes are compared as values, as
/// a map's entries are encoded in its own order). `None` when either is
/// malformed.
pub(crate) fn changed(old: &[u8], new: &[u8], out: &mut Vec<usize>) -> Option<()> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (mut a, mut b) = (Attrs::start(old)?, Attrs::start(new)?);
    let (mut x, mut y) = (a.next()?, b.next()?);
    loop {
        let order = match (x, y) {
            (None, None) => return Some(()),
            (Some(_), None) => Less,
            (None, Some(_)) => Greater,
            (Some((i, _)), Some((j, _))) => i.cmp(&j),
        };
        match (order, x, y) {
            (Equal, Some((i, u)), Some((_, v))) => {
                if u != v && !same_value(u, v)? {
                    out.push(i);
                }
                (x, y) = (a.next()?, b.next()?);
            }
            (Less, Some((i, _)), _) => {
                out.push(i);
                x = a.next()?;
            }
            (_, _, Some((j, _))) => {
                out.push(j);
                y = b.next()?;
            }
            _ => return None,
        }
    }
}

/// Whether two encoded values are equal values.
fn same_value(a: &[u8], b: &[u8]) -> Option<bool> {
    let a = Reader::new(a).value_ref()?;
    let b = Reader::new(b).value_ref()?;
    Some(Val::stored(&a) == Val::stored(&b))
}

/// A stored value's attributes as name numbers and encoded bytes.
struct Attrs<'a> {
    r: Reader<'a>,
    b: &'a [u8],
    left: usize,
}

impl<'a> Attrs<'a> {
    fn start(b: &'a [u8]) -> Option<Self> {
        let mut r = Reader::new(b);
        r.read_len()?;
        let left = r.read_len()?;
        Some(Self { r, b, left })
    }

    /// The next attribute, `Some(None)` after the last; `None` when
    /// malformed.
    fn next(&mut self) -> Option<Option<(usize, &'a [u8])>> {
        if self.left == 0 {
            return Some(None);
        }
        self.left -= 1;
        let id = self.r.read_len()?;
        let start = self.r.position();
        self.r.skip_value()?;
        Some(Some((id, self.b.get(start..self.r.position())?)))
    }
}

/// The offset in a stored value ([`encode_item`]) of the encoding of
/// attribute `id`, when the value has it.
pub(crate) fn find(value: &[u8], id: usize) -> Option<usize> {
    let mut a = Attrs::start(value)?;
    while a.left > 0 {
        a.left -= 1;
        let i = a.r.read_len()?;
        // Attributes are in name-number order.
        if i > id {
            return None;
        }
        if i == id {
            return Some(a.r.position());
        }
        a.r.skip_value()?;
    }
    None
}

/// The size of a stored item, as DynamoDB counts it.
pub(crate) fn stored_size(b: &[u8]) -> usize {
    Reader::new(b).read_len().unwrap_or(0)
}

/// A stored item as a map: its key attributes read back from the
/// position `pos` (their values start at `prefix`), then the attributes of
/// the stored `value`, named from `names`; `None` when the bytes are
/// malformed.
pub(crate) fn decode_item(
    pos: &[u8],
    prefix: usize,
    value: &[u8],
    keys: &[(Box<str>, KeyType)],
    names: &[Box<str>],
) -> Option<Item> {
    let mut cursor = StoredCursor::start(value, prefix)?;
    let mut item = Item::with_capacity(keys.len() + cursor.left);
    while let Some(attr) = cursor.next(pos, value, keys, names) {
        let (name, v) = attr?;
        item.insert(name.to_owned(), v.into_owned());
    }
    Some(item)
}

/// Where reading a stored item attribute by attribute has got to: first
/// its table key attributes, read back from the position, then the
/// attributes of the stored value, strings and numbers borrowed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StoredCursor {
    /// Offset of the next key value in the position.
    at: usize,
    /// Key attributes read.
    keys: usize,
    /// Offset of the next attribute in the value.
    value_at: usize,
    /// Attributes of the value left.
    left: usize,
}

impl StoredCursor {
    /// The start of an item whose position's key values begin at `prefix`;
    /// `None` when the value's header is malformed.
    pub(crate) fn start(value: &[u8], prefix: usize) -> Option<Self> {
        let mut r = Reader::new(value);
        r.read_len()?;
        let left = r.read_len()?;
        Some(Self {
            at: prefix,
            keys: 0,
            value_at: r.position(),
            left,
        })
    }

    /// The next attribute; `Some(None)` when the bytes are malformed (and
    /// then nothing more is read).
    #[inline]
    pub(crate) fn next<'a>(
        &mut self,
        pos: &'a [u8],
        value: &'a [u8],
        keys: &'a [(Box<str>, KeyType)],
        names: &'a [Box<str>],
    ) -> Option<Option<(&'a str, AttrRef<'a>)>> {
        let read = if let Some((name, kind)) = keys.get(self.keys) {
            self.keys += 1;
            read_key_ref(pos, &mut self.at, *kind).map(|v| (&**name, v))
        } else {
            if self.left == 0 {
                return None;
            }
            self.left -= 1;
            let mut r = Reader::at(value, self.value_at);
            let read = match r.read_len().and_then(|id| names.get(id)) {
                Some(name) => r.value_ref().map(|v| (&**name, v)),
                None => None,
            };
            self.value_at = r.position();
            read
        };
        if read.is_none() {
            self.keys = keys.len();
            self.left = 0;
        }
        Some(read)
    }
}

/// Which attributes of a stored item [`pick`] reads, and where it puts
/// them: `keys[i]` is the slot of the table's `i`-th key attribute (read
/// from the position), `ids` pairs a name number with its slot.
#[derive(Debug, Default)]
pub(crate) struct Wanted {
    pub(crate) keys: Vec<Option<usize>>,
    pub(crate) ids: Vec<(usize, usize)>,
}

/// Reads the attributes `wanted` names out of a stored item (its position
/// `pos`, whose key values start at `prefix`, and its stored `value`) into
/// their slots of `out`, strings and numbers borrowed; the attributes it
/// does not want are passed over undecoded. `None` when the bytes are
/// malformed.
pub(crate) fn pick<'a>(
    pos: &'a [u8],
    prefix: usize,
    value: &'a [u8],
    kinds: &[(Box<str>, KeyType)],
    wanted: &Wanted,
    out: &mut [Option<AttrRef<'a>>],
) -> Option<()> {
    let mut left = wanted.ids.len();
    if let Some(last) = wanted.keys.iter().rposition(Option::is_some) {
        let mut at = prefix;
        for (i, (_, kind)) in kinds.iter().enumerate().take(last + 1) {
            let v = read_key_ref(pos, &mut at, *kind)?;
            if let Some(slot) = wanted.keys.get(i).copied().flatten() {
                *out.get_mut(slot)? = Some(v);
            }
        }
    }
    let mut r = Reader::new(value);
    r.read_len()?;
    let n = r.read_len()?;
    for _ in 0..n {
        if left == 0 {
            break;
        }
        let id = r.read_len()?;
        match wanted.ids.iter().find(|(i, _)| *i == id) {
            Some(&(_, slot)) => {
                *out.get_mut(slot)? = Some(r.value_ref()?);
                left -= 1;
            }
            None => r.skip_value()?,
        }
    }
    Some(())
}

/// Reads back a key value [`order_bytes`] wrote at `b[*at..]`, borrowing a
/// string from `b` when it holds no escaped byte (the usual case).
#[inline]
pub(crate) fn read_key_ref<'a>(b: &'a [u8], at: &mut usize, kind: KeyType) -> Option<AttrRef<'a>> {
    match kind {
        KeyType::S => match unescape_key(b, at)? {
            Cow::Borrowed(v) => std::str::from_utf8(v).ok().map(AttrRef::S),
            Cow::Owned(v) => String::from_utf8(v)
                .ok()
                .map(|s| AttrRef::owned(AttributeValue::S(s))),
        },
        KeyType::B => unescape_key(b, at)
            .map(|v| AttrRef::owned(AttributeValue::B(Blob::new(v.into_owned())))),
        KeyType::N => {
            Num::from_order_bytes(b, at).map(|n| AttrRef::owned(AttributeValue::N(n.canonical())))
        }
    }
}

/// The bytes DynamoDB Local hashes for a key value: UTF-8 of a string,
/// the bytes of a binary, Local's decimal encoding of a number.
pub(crate) fn hash_bytes(v: &AttributeValue) -> Cow<'_, [u8]> {
    hash_val(&Val::of(v))
}

/// [`hash_bytes`] of a value seen in place (a map's or a stored item's).
pub(crate) fn hash_val<'a>(v: &Val<'a>) -> Cow<'a, [u8]> {
    match v {
        Val::S(s) => Cow::Borrowed(s.as_bytes()),
        Val::Other(AttributeValue::B(b)) => Cow::Borrowed(b.as_ref()),
        Val::N(n) => Cow::Owned(Num::parse(n).map(|n| n.local_bytes()).unwrap_or_default()),
        Val::Other(_) => Cow::Borrowed(&[]),
    }
}

/// Escapes `0x00` as `0x00 0xFF` (the runtime's [`escape_key`] without
/// its terminator), for prefixes of escaped values.
pub(crate) fn escaped(bytes: &[u8], out: &mut Vec<u8>) {
    escape_key(bytes, out);
    out.truncate(out.len() - 2);
}

/// Order-preserving, self-delimiting encoding of a key value.
pub(crate) fn order_bytes(v: &AttributeValue, out: &mut Vec<u8>) {
    order_val(&Val::of(v), out);
}

/// [`order_bytes`] of a value seen in place (a map's or a stored item's).
pub(crate) fn order_val(v: &Val<'_>, out: &mut Vec<u8>) {
    match v {
        Val::S(s) => escape_key(s.as_bytes(), out),
        Val::Other(AttributeValue::B(b)) => escape_key(b.as_ref(), out),
        Val::N(n) => match Num::parse(n) {
            Ok(n) => n.order_bytes(out),
            Err(_) => out.push(0),
        },
        Val::Other(_) => out.push(0),
    }
}

/// The smallest byte string greater than every string starting with
/// `prefix`; `None` when there is none (all `0xFF`).
pub(crate) fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An item with one attribute of each type (a long name inside the
    /// map), its table key `PK`, encoded: the item, its encoding, the
    /// interned names, the key types and the stored key's order bytes.
    #[allow(clippy::type_complexity)]
    fn sample_item() -> (
        Item,
        Vec<u8>,
        Vec<Box<str>>,
        [(Box<str>, KeyType); 1],
        Vec<u8>,
    ) {
        let mut item = Item::new();
        item.insert("s".into(), AttributeValue::S("héllo".into()));
        item.insert("n".into(), AttributeValue::N("-1.5".into()));
        item.insert("b".into(), AttributeValue::B(Blob::new(vec![0, 1, 255])));
        item.insert("t".into(), AttributeValue::Bool(true));
        item.insert("z".into(), AttributeValue::Null(true));
        item.insert(
            "ss".into(),
            AttributeValue::Ss(vec!["a".into(), "b".into()]),
        );
        item.insert("ns".into(), AttributeValue::Ns(vec!["1".into()]));
        item.insert("bs".into(), AttributeValue::Bs(vec![Blob::new(vec![7])]));
        let mut inner = Item::new();
        inner.insert(
            "x".repeat(300),
            AttributeValue::L(vec![
                AttributeValue::S(String::new()),
                AttributeValue::N("2".into()),
            ]),
        );
        item.insert("m".into(), AttributeValue::M(inner));
        item.insert("PK".into(), AttributeValue::S("key".into()));
        let mut names: Vec<Box<str>> = Vec::new();
        let size = super::super::value::item_size(&item);
        let enc = encode_item(&item, size, &|k| k == "PK", &mut |n| {
            names.push(n.into());
            names.len() - 1
        });
        let keys: [(Box<str>, KeyType); 1] = [("PK".into(), KeyType::S)];
        let mut pos = vec![0; 3];
        order_bytes(&AttributeValue::S("key".into()), &mut pos);
        (item, enc, names, keys, pos)
    }

    #[test]
    fn items_round_trip() {
        let (item, enc, names, keys, pos) = sample_item();
        assert_eq!(decode_item(&pos, 3, &enc, &keys, &names).unwrap(), item);
        assert!(decode_item(&pos, 3, &enc[..enc.len() - 1], &keys, &names).is_none());
    }

    /// Two versions of an item differ exactly in the attributes changed,
    /// added or removed; an equal map encoded in another entry order is
    /// no change.
    #[test]
    fn changed_attributes_are_the_ones_that_differ() {
        let mut ids: Vec<Box<str>> = Vec::new();
        let mut encode = |item: &Item| {
            let size = super::super::value::item_size(item);
            encode_item(item, size, &|k| k == "PK", &mut |n| match ids
                .iter()
                .position(|i| **i == *n)
            {
                Some(id) => id,
                None => {
                    ids.push(n.into());
                    ids.len() - 1
                }
            })
        };
        let map = |entries: &[(&str, &str)]| {
            let mut m = Item::new();
            for (k, v) in entries {
                m.insert((*k).into(), AttributeValue::S((*v).into()));
            }
            AttributeValue::M(m)
        };
        let entries: Vec<(String, String)> = (0..32)
            .map(|i| (format!("k{i}"), format!("v{i}")))
            .collect();
        let entries: Vec<(&str, &str)> = entries
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut old = Item::new();
        old.insert("PK".into(), AttributeValue::S("key".into()));
        old.insert("a".into(), AttributeValue::S("x".into()));
        old.insert("b".into(), AttributeValue::N("1".into()));
        old.insert("gone".into(), AttributeValue::Bool(true));
        old.insert("m".into(), map(&entries));
        let mut new = old.clone();
        new.insert("b".into(), AttributeValue::N("2".into()));
        new.remove("gone");
        new.insert("added".into(), AttributeValue::Null(true));
        let mut reversed = entries.clone();
        reversed.reverse();
        new.insert("m".into(), map(&reversed));
        let (old, new) = (encode(&old), encode(&new));
        let mut out = Vec::new();
        changed(&old, &new, &mut out).unwrap();
        let mut names: Vec<&str> = out.iter().map(|&id| &*ids[id]).collect();
        names.sort_unstable();
        assert_eq!(names, ["added", "b", "gone"]);
        out.clear();
        changed(&old, &old, &mut out).unwrap();
        assert!(out.is_empty());
        assert!(changed(&old, &new[..new.len() - 1], &mut out).is_none());
    }

    /// Each attribute picked alone (the others passed over undecoded) is
    /// the attribute decoding the whole item gives.
    #[test]
    fn picks_attributes_in_place() {
        let (item, enc, names, keys, pos) = sample_item();
        for (name, value) in &item {
            let wanted = Wanted {
                keys: vec![(name == "PK").then_some(0)],
                ids: names
                    .iter()
                    .position(|n| **n == **name)
                    .map(|id| (id, 0))
                    .into_iter()
                    .collect(),
            };
            let mut out = [None];
            pick(&pos, 3, &enc, &keys, &wanted, &mut out).unwrap();
            assert_eq!(
                out[0].clone().map(AttrRef::into_owned).as_ref(),
                Some(value),
                "{name}"
            );
        }
        let none = Wanted {
            keys: vec![None],
            ids: vec![(names.len(), 0)],
        };
        let mut out = [None];
        pick(&pos, 3, &enc, &keys, &none, &mut out).unwrap();
        assert!(out[0].is_none());
        assert!(pick(&pos, 3, &enc[..enc.len() - 1], &keys, &none, &mut out).is_none());
    }

    #[test]
    fn keys_read_back() {
        for v in [
            AttributeValue::S("a\0b".into()),
            AttributeValue::S(String::new()),
            AttributeValue::B(Blob::new(vec![0, 0, 255, 1])),
            AttributeValue::N("-12.5".into()),
            AttributeValue::N("0".into()),
            AttributeValue::N("1000".into()),
        ] {
            let kind = match v {
                AttributeValue::S(_) => KeyType::S,
                AttributeValue::B(_) => KeyType::B,
                _ => KeyType::N,
            };
            let mut enc = Vec::new();
            order_bytes(&v, &mut enc);
            enc.push(7);
            let mut at = 0;
            assert_eq!(
                read_key_ref(&enc, &mut at, kind).map(AttrRef::into_owned),
                Some(v)
            );
            assert_eq!(at, enc.len() - 1);
        }
    }

    #[test]
    fn key_bytes_sort_like_keys() {
        let enc = |s: &str| {
            let mut v = Vec::new();
            order_bytes(&AttributeValue::S(s.into()), &mut v);
            v
        };
        let sorted = [
            "",
            "\0",
            "\0\0",
            "\u{1}",
            "a",
            "a\0",
            "a\0b",
            "a\u{1}",
            "ab",
            "é",
            "\u{ffff}",
            "\u{10000}",
        ];
        for w in sorted.windows(2) {
            assert!(enc(w[0]) < enc(w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF]), None);
    }
}
