use super::*;
use crate::hash::PREFIX;
use crate::value::{AttributeValue, Blob};
use singletable_core::reader::encoded::{encode_value, escape_key};

fn order(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        escape_key(p, &mut out);
    }
    out
}

/// A record whose index 0 position is `escape(a) ++ escape(b) ++ tie
/// ++ escape(pk)`, with `a` a string and `b` a binary in the value.
fn sample(a: &str, b: &[u8], tie: [u8; PREFIX], pk: &[u8]) -> (Record, Vec<u8>) {
    let mut pos = vec![7; PREFIX];
    escape_key(pk, &mut pos);
    let mut value = vec![9, 2];
    let off_a = value.len();
    encode_value(&AttributeValue::S(a.into()), &mut value);
    let off_b = value.len();
    encode_value(&AttributeValue::B(Blob::new(b.to_vec())), &mut value);
    let mut desc = Vec::new();
    let mut d = Desc { out: &mut desc };
    d.raw(off_a);
    d.raw(off_b);
    d.tie(&tie);
    let mut expected = order(&[a.as_bytes(), b]);
    expected.extend_from_slice(&tie);
    escape_key(pk, &mut expected);
    (
        Record::new(&pos, &value, [(0, &desc[..])].into_iter()),
        expected,
    )
}

#[test]
fn records_hold_their_parts() {
    let (r, expected) = sample("UNIT#c", b"\0x", [1; PREFIX], b"pk");
    assert_eq!(r.key()[PREFIX..], order(&[b"pk"])[..]);
    assert_eq!(r.value()[..2], [9, 2]);
    assert!(r.entry(1).is_none());
    let e = r.entry(0).unwrap();
    assert_eq!(e.position(), expected);
    assert_eq!(e.key_value(), r.key_value());
    assert_eq!(Desc::tie_of(r.desc(0).unwrap()), Some([1; PREFIX]));
    // A record of a few hundred bytes has longer lengths and backs.
    let long = "x".repeat(300);
    let (r, expected) = sample(&long, &[0; 200], [2; PREFIX], &[0; 150]);
    assert_eq!(r.entry(0).unwrap().position(), expected);
    let descs = r.descs();
    let copy = Record::new(r.key(), r.value(), descs.iter().map(|(i, d)| (*i, &d[..])));
    assert_eq!(copy.entry(0).unwrap().position(), expected);
}

/// Entries compare with each other (segment by segment) and with
/// position bytes (as streams) exactly as their order bytes do.
#[test]
fn entries_order_as_their_bytes() {
    let strings = ["", "a", "a\0", "a\0b", "ab", "b", "\0"];
    let mut records = Vec::new();
    for a in strings {
        for b in [&b""[..], b"\0", b"\0\0", b"\x01", b"z"] {
            for tie in [[0; PREFIX], [0xFF; PREFIX]] {
                for pk in [&b"k"[..], b"k\0"] {
                    records.push(sample(a, b, tie, pk));
                }
            }
        }
    }
    for (r, x) in &records {
        let e = r.entry(0).unwrap();
        for (s, y) in &records {
            let f = s.entry(0).unwrap();
            assert_eq!(e.cmp(&f), x.cmp(y));
            let y = &y[..];
            let (ek, fk): (&dyn IndexKey, &dyn IndexKey) = (&e, &y);
            assert_eq!(ek.cmp(fk), x[..].cmp(y));
            assert_eq!(fk.cmp(ek), y.cmp(&x[..]));
            // Prefixes of positions (a query's bounds).
            for cut in [0, 1, y.len() / 2, y.len().saturating_sub(1)] {
                let cut = &y[..cut];
                let p: &dyn IndexKey = &cut;
                assert_eq!(ek.cmp(p), x[..].cmp(cut));
            }
        }
    }
}
