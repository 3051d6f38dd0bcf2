//! The stored value format: one tag byte per value, then its length and
//! bytes; key attributes escaped so a page can be searched by key.

use super::*;

pub(super) const S: u8 = 1;
pub(super) const N: u8 = 2;
pub(super) const B: u8 = 3;
pub(super) const FALSE: u8 = 4;
pub(super) const TRUE: u8 = 5;
pub(super) const NULL: u8 = 6;
pub(super) const L: u8 = 7;
pub(super) const M: u8 = 8;
pub(super) const SS: u8 = 9;
pub(super) const NS: u8 = 10;
pub(super) const BS: u8 = 11;

/// Appends `n` as LEB128 (7 bits a byte, low bits first): names, counts and
/// short lengths take one byte.
///
/// ```
/// use singletable_core::reader::encoded::{ValueReader, put_len};
///
/// let mut out = Vec::new();
/// put_len(&mut out, 5);
/// put_len(&mut out, 300);
/// assert_eq!(out, [5, 0xAC, 0x02]);
/// let mut r = ValueReader::new(&out);
/// assert_eq!((r.read_len(), r.read_len()), (Some(5), Some(300)));
/// ```
pub fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub(super) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

/// Appends the encoding of `v` (see the `encoded` module). Values of no
/// DynamoDB type (the SDK's `Unknown`) are written as null: they are
/// refused before anything is stored.
///
/// ```
/// use singletable_core::reader::encoded::{ValueReader, encode_value};
/// use singletable::AttributeValue;
///
/// let v = AttributeValue::Ns(vec!["1".into(), "2.5".into()]);
/// let mut out = Vec::new();
/// encode_value(&v, &mut out);
/// assert_eq!(ValueReader::new(&out).value(), Some(v));
/// ```
pub fn encode_value(v: &AttributeValue, out: &mut Vec<u8>) {
    match v {
        AttributeValue::S(s) => {
            out.push(S);
            put_bytes(out, s.as_bytes());
        }
        AttributeValue::N(n) => {
            out.push(N);
            put_bytes(out, n.as_bytes());
        }
        AttributeValue::B(b) => {
            out.push(B);
            put_bytes(out, b.as_ref());
        }
        AttributeValue::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        AttributeValue::L(l) => {
            out.push(L);
            put_len(out, l.len());
            for v in l {
                encode_value(v, out);
            }
        }
        AttributeValue::M(m) => {
            out.push(M);
            put_len(out, m.len());
            for (k, v) in m {
                put_bytes(out, k.as_bytes());
                encode_value(v, out);
            }
        }
        AttributeValue::Ss(s) => {
            out.push(SS);
            put_len(out, s.len());
            for e in s {
                put_bytes(out, e.as_bytes());
            }
        }
        AttributeValue::Ns(s) => {
            out.push(NS);
            put_len(out, s.len());
            for e in s {
                put_bytes(out, e.as_bytes());
            }
        }
        AttributeValue::Bs(s) => {
            out.push(BS);
            put_len(out, s.len());
            for e in s {
                put_bytes(out, e.as_ref());
            }
        }
        _ => out.push(NULL),
    }
}

/// [`encode_value`] of a value read in place: borrowed strings and numbers
/// are written without an owned copy.
///
/// ```
/// use singletable_core::reader::encoded::{ValueReader, encode_ref};
/// use singletable_core::reader::AttrRef;
/// use singletable::AttributeValue;
///
/// let mut out = Vec::new();
/// encode_ref(&AttrRef::N("42"), &mut out);
/// assert_eq!(ValueReader::new(&out).value(), Some(AttributeValue::N("42".into())));
/// ```
pub fn encode_ref(v: &AttrRef<'_>, out: &mut Vec<u8>) {
    match v {
        AttrRef::S(s) => {
            out.push(S);
            put_bytes(out, s.as_bytes());
        }
        AttrRef::N(n) => {
            out.push(N);
            put_bytes(out, n.as_bytes());
        }
        AttrRef::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        AttrRef::Null => out.push(NULL),
        AttrRef::Owned(v) => encode_value(v, out),
    }
}

/// Reads values [`encode_value`] wrote, from a position in a byte slice;
/// every read is `None` when the bytes are malformed (nothing panics).
///
/// ```
/// use singletable_core::reader::encoded::{ValueReader, encode_value};
/// use singletable::AttributeValue;
///
/// let mut out = Vec::new();
/// encode_value(&AttributeValue::Bool(false), &mut out);
/// encode_value(&AttributeValue::N("7".into()), &mut out);
/// let mut r = ValueReader::new(&out);
/// assert_eq!(r.skip_value(), Some(()));
/// assert_eq!(r.value_ref().and_then(|v| v.as_n().map(str::to_owned)).as_deref(), Some("7"));
/// assert_eq!(r.value(), None); // nothing left
/// assert_eq!(r.position(), out.len());
/// assert_eq!(ValueReader::new(&[0xFF]).value(), None); // no such tag
///
/// // Lengths and length-prefixed bytes, from an offset.
/// let framed = [9, 2, b'h', b'i', 1];
/// let mut r = ValueReader::at(&framed, 1);
/// assert_eq!(r.bytes(), Some(&b"hi"[..]));
/// assert_eq!(r.read_len(), Some(1));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ValueReader<'a> {
    b: &'a [u8],
    pub(super) pos: usize,
    /// `b` (or a string that `b` starts), already checked to be UTF-8:
    /// strings within it are sliced out without checking them again.
    text: Option<&'a str>,
}

impl<'a> ValueReader<'a> {
    /// Reads `b` from its start.
    pub fn new(b: &'a [u8]) -> Self {
        Self {
            b,
            pos: 0,
            text: None,
        }
    }

    /// Reads `b` from offset `pos`.
    pub fn at(b: &'a [u8], pos: usize) -> Self {
        Self { b, pos, text: None }
    }

    /// Reads `b` from offset `pos`, where `b` starts `text` (a page
    /// checked once, see [`EncodedItems`]).
    #[inline]
    pub(super) fn with_text(b: &'a [u8], pos: usize, text: Option<&'a str>) -> Self {
        Self { b, pos, text }
    }

    /// Whether the next value is a string (`binary`: false) or a binary
    /// (`binary`: true), without reading it.
    ///
    /// ```
    /// use singletable_core::reader::encoded::{encode_value, ValueReader};
    /// use singletable::AttributeValue;
    ///
    /// let mut out = Vec::new();
    /// encode_value(&AttributeValue::S("x".into()), &mut out);
    /// assert!(ValueReader::new(&out).next_is_bytes(false));
    /// assert!(!ValueReader::new(&out).next_is_bytes(true));
    /// assert!(!ValueReader::at(&out, 9).next_is_bytes(false)); // nothing there
    /// ```
    #[inline]
    pub fn next_is_bytes(&self, binary: bool) -> bool {
        self.b.get(self.pos) == Some(if binary { &B } else { &S })
    }

    /// The offset of the next read.
    pub fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    pub(super) fn byte(&mut self) -> Option<u8> {
        let b = *self.b.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A length or count [`put_len`] wrote.
    #[inline]
    pub fn read_len(&mut self) -> Option<usize> {
        // Names, counts and short values fit one byte.
        let first = self.byte()?;
        if first & 0x80 == 0 {
            return Some(usize::from(first));
        }
        self.pos -= 1;
        self.len_long()
    }

    #[cold]
    pub(super) fn len_long(&mut self) -> Option<usize> {
        let mut n = 0usize;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
            shift += 7;
        }
    }

    /// Length-prefixed bytes, borrowed.
    #[inline]
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.read_len()?;
        let out = self.b.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(out)
    }

    #[inline]
    pub(super) fn str(&mut self) -> Option<&'a str> {
        let b = self.bytes()?;
        if let Some(s) = self.text.and_then(|t| t.get(self.pos - b.len()..self.pos)) {
            return Some(s);
        }
        std::str::from_utf8(b).ok()
    }

    /// A value, strings and numbers borrowed.
    #[inline(always)]
    pub fn value_ref(&mut self) -> Option<AttrRef<'a>> {
        match *self.b.get(self.pos)? {
            S => {
                self.pos += 1;
                self.str().map(AttrRef::S)
            }
            N => {
                self.pos += 1;
                self.str().map(AttrRef::N)
            }
            _ => self.owned_ref(),
        }
    }

    /// [`ValueReader::value_ref`] of a value that is not lent, out of line:
    /// strings and numbers stay a few instructions where they are read.
    #[inline(never)]
    pub(super) fn owned_ref(&mut self) -> Option<AttrRef<'a>> {
        self.value().map(AttrRef::owned)
    }

    /// Passes over a value without decoding it.
    #[inline]
    pub fn skip_value(&mut self) -> Option<()> {
        match *self.b.get(self.pos)? {
            S | N | B => {
                self.pos += 1;
                self.bytes().map(drop)
            }
            _ => self.skip_other(),
        }
    }

    /// [`ValueReader::skip_value`] of a value that is not a string, a
    /// number or a binary.
    pub(super) fn skip_other(&mut self) -> Option<()> {
        match self.byte()? {
            FALSE | TRUE | NULL => {}
            L => {
                for _ in 0..self.read_len()? {
                    self.skip_value()?;
                }
            }
            M => {
                for _ in 0..self.read_len()? {
                    self.bytes()?;
                    self.skip_value()?;
                }
            }
            SS | NS | BS => {
                for _ in 0..self.read_len()? {
                    self.bytes()?;
                }
            }
            _ => return None,
        }
        Some(())
    }

    pub(super) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    /// A value, owned.
    pub fn value(&mut self) -> Option<AttributeValue> {
        Some(match self.byte()? {
            S => AttributeValue::S(self.string()?),
            N => AttributeValue::N(self.string()?),
            B => AttributeValue::B(Blob::new(self.bytes()?.to_vec())),
            FALSE => AttributeValue::Bool(false),
            TRUE => AttributeValue::Bool(true),
            NULL => AttributeValue::Null(true),
            L => {
                let n = self.read_len()?;
                let mut l = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    l.push(self.value()?);
                }
                AttributeValue::L(l)
            }
            M => {
                let n = self.read_len()?;
                let mut m = Item::with_capacity(n.min(1024));
                for _ in 0..n {
                    let k = self.string()?;
                    let v = self.value()?;
                    m.insert(k, v);
                }
                AttributeValue::M(m)
            }
            SS => AttributeValue::Ss(self.list(Self::string)?),
            NS => AttributeValue::Ns(self.list(Self::string)?),
            BS => AttributeValue::Bs(self.list(|r| r.bytes().map(|b| Blob::new(b.to_vec())))?),
            _ => return None,
        })
    }

    fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.read_len()?;
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            out.push(f(self)?);
        }
        Some(out)
    }
}

/// Appends `bytes` escaped and terminated: each `0x00` becomes `0x00 0xFF`
/// and `0x00 0x00` ends the value, so that escaped values concatenate, read
/// back one after the other, and sort as their bytes do (the embedded
/// backend's key positions are made of them).
///
/// ```
/// use singletable_core::reader::encoded::{escape_key, unescape_key};
///
/// let mut out = Vec::new();
/// escape_key(b"a\0b", &mut out);
/// escape_key(b"c", &mut out);
/// assert_eq!(out, b"a\0\xFFb\0\0c\0\0");
/// let mut at = 0;
/// assert_eq!(unescape_key(&out, &mut at).as_deref(), Some(&b"a\0b"[..]));
/// assert_eq!(unescape_key(&out, &mut at).as_deref(), Some(&b"c"[..]));
/// assert_eq!(at, out.len());
/// assert_eq!(unescape_key(b"no end", &mut 0), None);
/// ```
pub fn escape_key(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// Reads back a value [`escape_key`] wrote at `b[*at..]` and moves `at`
/// past it: borrowed when it holds no escaped byte (the usual case);
/// `None` when the bytes are malformed.
///
/// ```
/// use std::borrow::Cow;
/// use singletable_core::reader::encoded::unescape_key;
///
/// let mut at = 0;
/// assert!(matches!(unescape_key(b"ab\0\0", &mut at), Some(Cow::Borrowed(b"ab"))));
/// assert_eq!(at, 4);
/// let mut at = 0;
/// assert!(matches!(unescape_key(b"a\0\xFF\0\0", &mut at), Some(Cow::Owned(v)) if v == b"a\0"));
/// assert_eq!(unescape_key(b"a\0\x01", &mut 0), None); // neither end nor escape
/// ```
#[inline]
pub fn unescape_key<'a>(b: &'a [u8], at: &mut usize) -> Option<std::borrow::Cow<'a, [u8]>> {
    let rest = b.get(*at..)?;
    let end = first_zero(rest)?;
    if rest.get(end + 1) == Some(&0) {
        *at += end + 2;
        return rest.get(..end).map(std::borrow::Cow::Borrowed);
    }
    unescape_long(b, at).map(std::borrow::Cow::Owned)
}

/// The offset of the first zero byte of `b`, eight bytes at a time.
#[inline]
pub(super) fn first_zero(b: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let w = u64::from_le_bytes(word);
        // The lowest byte marked is the first zero byte (a borrow only
        // marks bytes above a zero one).
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        if zeros != 0 {
            return Some(i + (zeros.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?.iter().position(|&x| x == 0).map(|n| i + n)
}

#[cold]
pub(super) fn unescape_long(b: &[u8], at: &mut usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let x = *b.get(*at)?;
        *at += 1;
        if x != 0 {
            out.push(x);
            continue;
        }
        let y = *b.get(*at)?;
        *at += 1;
        match y {
            0 => return Some(out),
            0xFF => out.push(0),
            _ => return None,
        }
    }
}

/// An escaped key value read back as a string (`binary`: false) or binary.
/// `text`, when given, is a string that `b` starts (see
/// [`ValueReader::str`]).
#[inline]
pub(super) fn escaped_key_ref<'a>(
    b: &'a [u8],
    at: &mut usize,
    binary: bool,
    text: Option<&'a str>,
) -> Option<AttrRef<'a>> {
    let from = *at;
    // A checked page holds no escaped byte (0xFF is not UTF-8): the value
    // ends at the first zero byte, which a second one follows.
    if !binary
        && let Some(text) = text
        && let Some(end) = b.get(from..).and_then(first_zero).map(|n| from + n)
        && b.get(end + 1) == Some(&0)
    {
        *at = end + 2;
        return text.get(from..end).map(AttrRef::S);
    }
    match unescape_key(b, at)? {
        std::borrow::Cow::Borrowed(v) if !binary => std::str::from_utf8(v).ok().map(AttrRef::S),
        v if binary => Some(AttrRef::owned(AttributeValue::B(Blob::new(v.into_owned())))),
        v => String::from_utf8(v.into_owned())
            .ok()
            .map(|s| AttrRef::owned(AttributeValue::S(s))),
    }
}

/// The key attribute at `keys[*pos..]` of an item's key section (see
/// [`EncodedItems`]), as its number among the page's key `names` and its
/// value: when the keys are `escaped`, the `*n`-th (and `n` moves on),
/// else a name number and a value; `pos` moves past it. `None` when the
/// bytes are malformed.
#[inline]
pub(super) fn key_attr<'a>(
    names: &[(Box<str>, bool)],
    keys: &'a [u8],
    text: Option<&'a str>,
    escaped: bool,
    pos: &mut usize,
    n: &mut usize,
) -> Option<(usize, AttrRef<'a>)> {
    if escaped {
        let (_, binary) = names.get(*n)?;
        *n += 1;
        return Some((*n - 1, escaped_key_ref(keys, pos, *binary, text)?));
    }
    let mut r = ValueReader::with_text(keys, *pos, text);
    let id = r.read_len()?;
    names.get(id)?;
    let value = r.value_ref()?;
    *pos = r.pos;
    Some((id, value))
}
