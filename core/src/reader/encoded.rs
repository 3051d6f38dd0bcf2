//! Items encoded in bytes, read in place: the encoding of values that a
//! backend can store and hand out ([`encode_value`], [`ValueReader`]), and
//! [`EncodedItems`], a page of items in that encoding.
//!
//! The page type lives here, beside the decoders, rather than in the backend
//! that fills it: [`Items::read_each`](super::Items::read_each) then knows its
//! concrete type whatever executor produced it, so a page is decoded with
//! static dispatch (the decoder inlined into the attribute loop) also through
//! the shared handle `Db<SharedExecutor>`, where the executor is a
//! `dyn Executor`.
//!
//! A value is a tag byte, then for strings, numbers and binaries a length
//! (LEB128) and the bytes, for lists a count and the values, for maps a
//! count and (name, value) pairs, for sets a count and the elements;
//! booleans and null are their tag alone.
//!
//! ```
//! use singletable::reader::encoded::{ValueReader, encode_value};
//! use singletable::reader::AttrRef;
//! use singletable::AttributeValue;
//!
//! let mut bytes = Vec::new();
//! encode_value(&AttributeValue::S("héllo".into()), &mut bytes);
//! encode_value(&AttributeValue::L(vec![AttributeValue::Bool(true)]), &mut bytes);
//! let mut r = ValueReader::new(&bytes);
//! assert_eq!(r.value_ref().and_then(|v| v.as_s().map(str::to_owned)).as_deref(), Some("héllo"));
//! assert_eq!(r.value(), Some(AttributeValue::L(vec![AttributeValue::Bool(true)])));
//! assert_eq!(r.position(), bytes.len());
//! ```

use std::sync::Arc;

use super::{AttrReader, AttrRef, ItemReader, KeyRef, NumberedAttr, Numbering, TableKey};
use crate::codec_error::{DecodeError, DecodeErrorKind};
use crate::value::{AttributeValue, Blob, Item};

const S: u8 = 1;
const N: u8 = 2;
const B: u8 = 3;
const FALSE: u8 = 4;
const TRUE: u8 = 5;
const NULL: u8 = 6;
const L: u8 = 7;
const M: u8 = 8;
const SS: u8 = 9;
const NS: u8 = 10;
const BS: u8 = 11;

/// Appends `n` as LEB128 (7 bits a byte, low bits first): names, counts and
/// short lengths take one byte.
///
/// ```
/// use singletable::reader::encoded::{ValueReader, put_len};
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

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

/// Appends the encoding of `v` (see the [module](self)). Values of no
/// DynamoDB type (the SDK's `Unknown`) are written as null: they are
/// refused before anything is stored.
///
/// ```
/// use singletable::reader::encoded::{ValueReader, encode_value};
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
/// use singletable::reader::encoded::{ValueReader, encode_ref};
/// use singletable::reader::AttrRef;
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
/// use singletable::reader::encoded::{ValueReader, encode_value};
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
    pos: usize,
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
    fn with_text(b: &'a [u8], pos: usize, text: Option<&'a str>) -> Self {
        Self { b, pos, text }
    }

    /// Whether the next value is a string (`binary`: false) or a binary
    /// (`binary`: true), without reading it.
    ///
    /// ```
    /// use singletable::reader::encoded::{encode_value, ValueReader};
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
    fn byte(&mut self) -> Option<u8> {
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
    fn len_long(&mut self) -> Option<usize> {
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
    fn str(&mut self) -> Option<&'a str> {
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
    fn owned_ref(&mut self) -> Option<AttrRef<'a>> {
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
    fn skip_other(&mut self) -> Option<()> {
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

    fn string(&mut self) -> Option<String> {
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
/// use singletable::reader::encoded::{escape_key, unescape_key};
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
/// use singletable::reader::encoded::unescape_key;
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
fn first_zero(b: &[u8]) -> Option<usize> {
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
fn unescape_long(b: &[u8], at: &mut usize) -> Option<Vec<u8>> {
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
fn escaped_key_ref<'a>(
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
fn key_attr<'a>(
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

/// Where the table's key attributes are among a page's key names, for the
/// names a decoder asked for ([`EncodedItems::key_order`]): the names'
/// addresses and lengths, then the two numbers ([`NO_KEY`] when absent).
#[derive(Debug, Clone, Copy)]
struct KeyOrder {
    asked: [(usize, usize); 2],
    pk: usize,
    sk: usize,
}

/// A table key attribute that is none of the page's key names.
const NO_KEY: usize = usize::MAX;

/// A page's bytes, and the same as a string when they were checked
/// (`text` not empty, see [`EncodedItems::text`]).
#[inline]
fn view<'b>(buf: &'b [u8], text: &'b str) -> (&'b [u8], Option<&'b str>) {
    if text.is_empty() {
        (buf, None)
    } else {
        (text.as_bytes(), Some(text))
    }
}

/// How an item's key attributes are laid out in a page (its first byte).
const KEYS_AS_VALUES: u8 = 0;
const KEYS_ESCAPED: u8 = 1;

#[cold]
fn corrupt() -> DecodeError {
    DecodeError::new(DecodeErrorKind::Invalid(
        "an encoded item of the backend's page is malformed".into(),
    ))
}

/// Where reading the current item has got to.
#[derive(Debug, Clone, Copy)]
struct At {
    /// The item: where its key attributes start, where its other
    /// attributes start, where it ends.
    span: [usize; 3],
    /// Offset of the next attribute.
    pos: usize,
    /// Whether the item's keys are escaped (else values).
    escaped: bool,
    /// Key attributes read, when they are escaped.
    key: usize,
    /// Other attributes left (read at the start of that section).
    left: usize,
}

/// One page of items in the [encoding](self), copied out of a backend's
/// storage: the decoders read them in place through [`AttrReader`], so no
/// item map is built and only the values an entity keeps are copied out.
///
/// Each item is its key attributes, then the count of its other attributes
/// and each as its number among the page's `names` and its value. The key
/// attributes are either values, each with its number among the page's
/// `keys` ([`EncodedItems::push_key`]), or, when every key is a string or
/// a binary, all of them escaped one after the other in the page's key
/// order ([`escape_key`], [`EncodedItems::push_escaped_keys`]): a backend
/// that keys its items that way copies both parts as they are.
///
/// ```
/// use singletable::reader::encoded::{EncodedItems, encode_value, put_len};
/// use singletable::reader::{collect_item, AttrRef, ItemReader};
/// use singletable::{AttributeValue, Item};
/// use std::sync::Arc;
///
/// let names = Arc::new(vec!["color".into()]);
/// let keys: Arc<[(Box<str>, bool)]> = vec![("PK".into(), false)].into();
/// let mut page = EncodedItems::new(names, keys, 64);
/// // The other attributes as a backend stores them: a count, then (name, value).
/// let mut data = Vec::new();
/// put_len(&mut data, 1);
/// put_len(&mut data, 0);
/// encode_value(&AttributeValue::S("red".into()), &mut data);
/// page.push_key(0, &AttrRef::S("A#1"));
/// page.push_item(&data);
/// assert_eq!(page.remaining(), 1);
/// let item = collect_item(page.next_item().unwrap())?;
/// assert_eq!(item["PK"].as_s().unwrap(), "A#1");
/// assert_eq!(item["color"].as_s().unwrap(), "red");
/// assert!(page.next_item().is_none());
///
/// // The keys escaped as one piece, the other attributes as values.
/// let mut page = EncodedItems::new(Arc::new(vec!["color".into()]), vec![("PK".into(), false)].into(), 0);
/// let mut keys = Vec::new();
/// singletable::reader::encoded::escape_key(b"A#2", &mut keys);
/// page.push_escaped_keys(&keys);
/// page.push_attrs(&[(0, AttrRef::S("blue"))]);
/// let item = collect_item(page.next_item().unwrap())?;
/// assert_eq!(item["PK"].as_s().unwrap(), "A#2");
/// assert_eq!(item["color"].as_s().unwrap(), "blue");
/// # Ok::<(), singletable::DecodeError>(())
/// ```
pub struct EncodedItems {
    /// The page's buffers, boxed so that the page stays small as it is
    /// moved through futures and results, and taken over whole by the next
    /// page made on the thread (see [`RECYCLED_PAGE`]).
    /// `None` only while the page is dropped.
    s: Option<Box<Scratch>>,
    /// Where the key names last asked for are among `keys`.
    key_order: std::cell::Cell<Option<KeyOrder>>,
    /// Where the item being pushed starts.
    open: usize,
    next: usize,
    names: Arc<Vec<Box<str>>>,
    /// The key attributes, each with whether its values are binary.
    keys: Arc<[(Box<str>, bool)]>,
    /// The item being read; `None` before the first, after the last and
    /// once its bytes proved malformed.
    current: Option<At>,
}

/// A page's buffers, and what its names' numbers and its key order were
/// found for.
struct Scratch {
    buf: Vec<u8>,
    /// `buf` once checked to be UTF-8 as a whole (as it is when every
    /// string, name and length is ASCII), moved here when reading starts:
    /// strings are then sliced out of it without checking each one.
    /// Empty otherwise.
    text: String,
    /// Per item: see [`At::span`].
    spans: Vec<[usize; 3]>,
    /// The numberings this page was read with ([`AttrReader::next_numbered`]),
    /// and for each the number of each of the page's names, found the
    /// first time the name is met: `numbers[slot * names.len() + id]`,
    /// [`UNSEEN`] before. They hold for the names `numbered` points at.
    numberings: [Option<&'static Numbering>; NUMBERINGS],
    numbers: Vec<u32>,
    numbered: Option<std::sync::Weak<Vec<Box<str>>>>,
    /// The key order ([`EncodedItems::key_order`]) of the key names
    /// `ordered` points at.
    key_order: Option<KeyOrder>,
    ordered: Option<std::sync::Weak<KeyNames>>,
}

impl Scratch {
    const EMPTY: Scratch = Scratch {
        buf: Vec::new(),
        text: String::new(),
        spans: Vec::new(),
        numberings: [None; NUMBERINGS],
        numbers: Vec::new(),
        numbered: None,
        key_order: None,
        ordered: None,
    };
}

/// A page's key attributes, each with whether its values are binary.
type KeyNames = [(Box<str>, bool)];

/// What a page reads while it is being dropped (nothing does).
static NO_SCRATCH: Scratch = Scratch::EMPTY;

/// Whether `weak` points at `arc`'s allocation (which the weak reference
/// keeps from being reused for another).
fn same<T: ?Sized>(weak: Option<&std::sync::Weak<T>>, arc: &Arc<T>) -> bool {
    weak.is_some_and(|w| std::ptr::addr_eq(w.as_ptr(), Arc::as_ptr(arc)))
}

/// How many numberings a page remembers at once (a collection reads a page
/// with one per member entity); a further one takes the place of the
/// first.
const NUMBERINGS: usize = 4;

/// A name whose number is not yet known, in [`EncodedItems::numbers`].
const UNSEEN: u32 = u32::MAX - 1;

/// [`Numbering::OTHER`] in [`EncodedItems::numbers`] (as is any number that
/// does not fit).
const OTHER: u32 = u32::MAX;

/// The next of an item's other (not key) attributes, read by [`data_attr`].
enum Next<'a> {
    /// Its name number and value.
    Attr(usize, AttrRef<'a>),
    /// The item has no more.
    End,
    /// Its bytes are malformed.
    Corrupt,
}

/// Reads the attribute at `at` of an item's other attributes (`item` is the
/// page up to the item's end) and moves `at` past it.
#[inline]
fn data_attr<'a>(at: &mut At, item: &'a [u8], text: Option<&'a str>) -> Next<'a> {
    let mut r = ValueReader::with_text(item, at.pos.max(at.span[1]), text);
    if at.left == usize::MAX {
        match r.read_len() {
            Some(n) => at.left = n,
            None => return Next::Corrupt,
        }
    }
    if at.left == 0 {
        at.pos = r.pos;
        return Next::End;
    }
    let Some((id, value)) = r.read_len().and_then(|id| Some((id, r.value_ref()?))) else {
        return Next::Corrupt;
    };
    at.left -= 1;
    at.pos = r.pos;
    Next::Attr(id, value)
}

impl EncodedItems {
    /// An empty page whose items name their attributes by number: key
    /// attributes from `keys` (each with whether its values are binary;
    /// only escaped keys need to know), the others from `names`; room for
    /// about `bytes` bytes of items.
    pub fn new(names: Arc<Vec<Box<str>>>, keys: Arc<[(Box<str>, bool)]>, bytes: usize) -> Self {
        let mut s = RECYCLED_PAGE
            .try_with(|p| p.take())
            .ok()
            .flatten()
            .unwrap_or_else(|| Box::new(Scratch::EMPTY));
        s.buf.reserve(bytes);
        s.spans.reserve(bytes / 64);
        // The last page's numbers hold for the same names (and its key
        // order for the same keys): the same allocation, which the weak
        // reference kept from being reused, and whose contents cannot
        // change while shared.
        if !same(s.numbered.as_ref(), &names) {
            s.numbers.clear();
            s.numberings = [None; NUMBERINGS];
            s.numbered = Some(Arc::downgrade(&names));
        }
        if !same(s.ordered.as_ref(), &keys) {
            s.key_order = None;
            s.ordered = Some(Arc::downgrade(&keys));
        }
        Self {
            key_order: std::cell::Cell::new(s.key_order),
            s: Some(s),
            open: 0,
            next: 0,
            names,
            keys,
            current: None,
        }
    }

    /// The page's buffers.
    #[inline]
    fn s(&self) -> &Scratch {
        self.s.as_deref().unwrap_or(&NO_SCRATCH)
    }

    /// The page's buffers, to change.
    #[inline]
    fn s_mut(&mut self) -> &mut Scratch {
        self.s.get_or_insert_with(|| Box::new(Scratch::EMPTY))
    }

    /// Adds a key attribute (number `key` of the page's `keys`) to the item
    /// being pushed.
    #[inline]
    pub fn push_key(&mut self, key: usize, value: &AttrRef<'_>) {
        let open = self.open;
        let buf = self.writable();
        if buf.len() == open {
            buf.push(KEYS_AS_VALUES);
        }
        put_len(buf, key);
        encode_ref(value, buf);
    }

    /// Adds every key attribute of the item being pushed at once: each
    /// string or binary value [escaped](escape_key), in the order of the
    /// page's `keys` (as the embedded backend's positions hold them, which
    /// it copies in one piece). Pushed instead of [`EncodedItems::push_key`],
    /// never with it.
    #[inline]
    pub fn push_escaped_keys(&mut self, escaped: &[u8]) {
        let buf = self.writable();
        buf.push(KEYS_ESCAPED);
        buf.extend_from_slice(escaped);
    }

    /// Ends the item being pushed with its other attributes, as encoded
    /// bytes: their count, then each attribute's name number and value.
    /// They are read as they are: malformed bytes are a decode error when
    /// the item is read, not a panic.
    #[inline]
    pub fn push_item(&mut self, attrs: &[u8]) {
        let buf = self.writable();
        let split = buf.len();
        buf.extend_from_slice(attrs);
        self.end_item(split);
    }

    /// Adds a whole item at once: [`EncodedItems::push_escaped_keys`] then
    /// [`EncodedItems::push_item`], in one step (what a backend that keeps
    /// both as the page holds them does for each item it reads).
    ///
    /// ```
    /// use singletable::reader::encoded::{EncodedItems, encode_value, escape_key, put_len};
    /// use singletable::reader::{collect_item, ItemReader};
    /// use singletable::AttributeValue;
    /// use std::sync::Arc;
    ///
    /// let mut page = EncodedItems::new(Arc::new(vec!["color".into()]), vec![("PK".into(), false)].into(), 0);
    /// let mut keys = Vec::new();
    /// escape_key(b"A#1", &mut keys);
    /// let mut attrs = Vec::new();
    /// put_len(&mut attrs, 1);
    /// put_len(&mut attrs, 0);
    /// encode_value(&AttributeValue::S("red".into()), &mut attrs);
    /// page.push_escaped_item(&keys, &attrs);
    /// let item = collect_item(page.next_item().unwrap())?;
    /// assert_eq!(item["PK"].as_s().unwrap(), "A#1");
    /// assert_eq!(item["color"].as_s().unwrap(), "red");
    /// # Ok::<(), singletable::DecodeError>(())
    /// ```
    #[inline]
    pub fn push_escaped_item(&mut self, escaped_keys: &[u8], attrs: &[u8]) {
        let buf = self.writable();
        buf.reserve(1 + escaped_keys.len() + attrs.len());
        buf.push(KEYS_ESCAPED);
        buf.extend_from_slice(escaped_keys);
        let split = buf.len();
        buf.extend_from_slice(attrs);
        self.end_item(split);
    }

    /// Ends the item being pushed with the attributes `write` appends to
    /// the page's bytes, each as its name number and its encoded value;
    /// `write` returns how many it wrote. A backend copies the attributes
    /// it keeps as it stores them, without decoding them. `None` when
    /// `write` gives up (malformed stored bytes): the page is then not to
    /// be read.
    ///
    /// ```
    /// use singletable::reader::encoded::{EncodedItems, encode_value, put_len};
    /// use singletable::reader::{collect_item, AttrRef, ItemReader};
    /// use singletable::AttributeValue;
    /// use std::sync::Arc;
    ///
    /// let mut page = EncodedItems::new(Arc::new(vec!["a".into(), "b".into()]), vec![("PK".into(), false)].into(), 0);
    /// page.push_key(0, &AttrRef::S("A#1"));
    /// page.push_attrs_with(|out| {
    ///     put_len(out, 1);
    ///     encode_value(&AttributeValue::N("7".into()), out);
    ///     Some(1)
    /// });
    /// let item = collect_item(page.next_item().unwrap())?;
    /// assert_eq!(item["b"], AttributeValue::N("7".into()));
    /// assert_eq!(item.len(), 2);
    /// # Ok::<(), singletable::DecodeError>(())
    /// ```
    pub fn push_attrs_with(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>) -> Option<usize>,
    ) -> Option<()> {
        let buf = self.writable();
        let split = buf.len();
        // The count, one byte for fewer than 128 attributes (as items
        // have), written once `write` has said how many.
        buf.push(0);
        let count = write(buf)?;
        match u8::try_from(count) {
            Ok(n) if n < 0x80 => *buf.get_mut(split)? = n,
            _ => {
                let mut len = Vec::new();
                put_len(&mut len, count);
                buf.splice(split..split + 1, len);
            }
        }
        self.end_item(split);
        Some(())
    }

    /// Ends the item being pushed with the attributes `attrs` (name number
    /// and value).
    pub fn push_attrs(&mut self, attrs: &[(usize, AttrRef<'_>)]) {
        let buf = self.writable();
        let split = buf.len();
        put_len(buf, attrs.len());
        for (id, v) in attrs {
            put_len(buf, *id);
            encode_ref(v, buf);
        }
        self.end_item(split);
    }

    /// The page's bytes, to push to: taken back from `text` after reading
    /// started.
    #[inline]
    fn writable(&mut self) -> &mut Vec<u8> {
        let s = self.s_mut();
        if !s.text.is_empty() {
            s.buf = std::mem::take(&mut s.text).into_bytes();
        }
        &mut s.buf
    }

    /// Checks the page to be UTF-8 once, as reading starts (see
    /// [`EncodedItems::text`]); a page that is not stays in `buf`, and
    /// its strings are checked one by one.
    fn check_text(&mut self) {
        let s = self.s_mut();
        if s.text.is_empty() && !s.buf.is_empty() {
            match String::from_utf8(std::mem::take(&mut s.buf)) {
                Ok(text) => s.text = text,
                Err(e) => s.buf = e.into_bytes(),
            }
        }
    }

    /// The page's bytes, and the same as a string when they were checked.
    #[inline]
    fn view(&self) -> (&[u8], Option<&str>) {
        let s = self.s();
        view(&s.buf, &s.text)
    }

    fn end_item(&mut self, split: usize) {
        let open = self.open;
        let s = self.s_mut();
        if split == open {
            // No key attribute: an empty section of values.
            s.buf.insert(split, KEYS_AS_VALUES);
            s.spans.push([open, split + 1, s.buf.len()]);
        } else {
            s.spans.push([open, split, s.buf.len()]);
        }
        self.open = s.buf.len();
    }

    /// Moves to the next item, which `self` then reads as an
    /// [`AttrReader`]; `false` after the last one.
    #[inline]
    fn advance(&mut self) -> bool {
        let Some(&span) = self.s().spans.get(self.next) else {
            self.current = None;
            return false;
        };
        if self.next == 0 {
            self.check_text();
        }
        self.next += 1;
        // The key section starts with how it holds the keys; an unknown
        // form reads as values, which fail on it.
        self.current = Some(At {
            span,
            pos: span[0] + 1,
            escaped: self.view().0.get(span[0]) == Some(&KEYS_ESCAPED),
            key: 0,
            left: usize::MAX,
        });
        true
    }

    /// The table key attributes of the item at `at`, read from its key
    /// section; `None` when the bytes are malformed.
    #[inline]
    fn key_section(
        &self,
        at: &At,
        pk: &'static str,
        sk: Option<&'static str>,
    ) -> Option<TableKey<'_>> {
        let (bytes, text) = self.view();
        let keys = bytes.get(..at.span[1])?;
        let order = self.key_order(pk, sk);
        let mut out = TableKey::default();
        let mut wanted = usize::from(order.pk != NO_KEY) + usize::from(order.sk != NO_KEY);
        let (mut pos, mut n) = (at.span[0] + 1, 0);
        // Escaped keys come in the page's order: reading stops once both
        // are found (an index's page also holds the index's keys).
        while pos < at.span[1] && wanted > 0 {
            let (id, value) = key_attr(&self.keys, keys, text, at.escaped, &mut pos, &mut n)?;
            if id == order.pk {
                out.pk = Some(KeyRef::from(value));
                wanted -= 1;
            } else if id == order.sk {
                out.sk = Some(KeyRef::from(value));
                wanted -= 1;
            }
        }
        Some(out)
    }

    /// The numbers of key names `pk` and `sk` among the page's key names,
    /// found once a page (the decoders of a page ask with the same names:
    /// static ones, so that the same address and length is the same name).
    #[inline]
    fn key_order(&self, pk: &'static str, sk: Option<&'static str>) -> KeyOrder {
        let sk = sk.unwrap_or_default();
        let asked = [
            (pk.as_ptr() as usize, pk.len()),
            (sk.as_ptr() as usize, sk.len()),
        ];
        if let Some(order) = self.key_order.get()
            && order.asked == asked
        {
            return order;
        }
        let find = |name: &str| {
            (!name.is_empty())
                .then(|| self.keys.iter().position(|(k, _)| **k == *name))
                .flatten()
                .unwrap_or(NO_KEY)
        };
        let order = KeyOrder {
            asked,
            pk: find(pk),
            sk: find(sk),
        };
        self.key_order.set(Some(order));
        order
    }

    /// Gives every item left to `each`, in order, with static dispatch.
    #[inline]
    pub(super) fn read_each(
        mut self,
        each: &mut impl super::ReadEach,
    ) -> Result<(), crate::error::Error> {
        while self.advance() {
            each.read(&mut self)?;
        }
        Ok(())
    }
}

/// The number `numbering` gives name `id` of a page's `names`, and the
/// name, from the page's `numberings` and `numbers` (see
/// [`EncodedItems::numbers`]); `None` when the page has no such name.
#[inline]
fn number<'a>(
    names: &'a [Box<str>],
    numberings: &mut [Option<&'static Numbering>; NUMBERINGS],
    numbers: &mut Vec<u32>,
    numbering: &'static Numbering,
    id: usize,
) -> Option<(usize, &'a str)> {
    let name = names.get(id)?;
    let width = names.len();
    let slot = match numberings
        .iter()
        .position(|n| n.is_some_and(|n| std::ptr::eq(n, numbering)))
    {
        Some(slot) => slot,
        None => add_numbering(numberings, numbers, numbering, width),
    };
    let cell = numbers.get_mut(slot * width + id)?;
    if *cell == UNSEEN {
        *cell = u32::try_from(numbering.number(name))
            .ok()
            .filter(|n| *n < UNSEEN)
            .unwrap_or(OTHER);
    }
    let number = if *cell == OTHER {
        Numbering::OTHER
    } else {
        *cell as usize
    };
    Some((number, name))
}

/// Makes room for `numbering` in a page's `numberings` (see
/// [`EncodedItems::numbers`]) and gives its slot.
#[cold]
fn add_numbering(
    numberings: &mut [Option<&'static Numbering>; NUMBERINGS],
    numbers: &mut Vec<u32>,
    numbering: &'static Numbering,
    width: usize,
) -> usize {
    let slot = numberings.iter().position(Option::is_none).unwrap_or(0);
    numberings[slot] = Some(numbering);
    let range = slot * width..(slot + 1) * width;
    if numbers.len() < range.end {
        numbers.resize(range.end, UNSEEN);
    }
    numbers[range].fill(UNSEEN);
    slot
}

thread_local! {
    /// The buffers of the last page dropped on this thread, cleared, for
    /// the next page made on it: a read then allocates no page. Kept only
    /// when at most [`RECYCLED_PAGE_BYTES`].
    static RECYCLED_PAGE: std::cell::Cell<Option<Box<Scratch>>> =
        const { std::cell::Cell::new(None) };
}

/// The largest page buffer [`RECYCLED_PAGE`] keeps.
const RECYCLED_PAGE_BYTES: usize = 256 * 1024;

impl Drop for EncodedItems {
    fn drop(&mut self) {
        self.writable();
        let key_order = self.key_order.get();
        let Some(mut s) = self.s.take() else {
            return;
        };
        if s.buf.capacity() > RECYCLED_PAGE_BYTES {
            return;
        }
        s.buf.clear();
        s.spans.clear();
        s.key_order = key_order;
        let _ = RECYCLED_PAGE.try_with(|p| p.set(Some(s)));
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
        self.s().spans.len() - self.next
    }
}

impl AttrReader for EncodedItems {
    fn rewind(&mut self) -> bool {
        let Some(at) = &mut self.current else {
            return false;
        };
        at.pos = at.span[0] + 1;
        at.key = 0;
        at.left = usize::MAX;
        true
    }

    #[inline]
    fn next_data_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        if let Some(at) = &mut self.current
            && at.pos < at.span[1]
        {
            at.pos = at.span[1];
        }
        self.next_attr()
    }

    /// The key section, borrowed (escaped strings without an escaped
    /// byte, and values as they are).
    #[inline]
    fn table_key(
        &self,
        pk: &'static str,
        sk: Option<&'static str>,
    ) -> Option<Result<TableKey<'_>, DecodeError>> {
        let at = self.current.as_ref()?;
        Some(self.key_section(at, pk, sk).ok_or_else(corrupt))
    }

    /// The key attributes are in [`AttrReader::table_key`].
    #[inline]
    fn next_field_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        self.next_data_attr()
    }

    /// The key attributes are in [`AttrReader::table_key`]; each name is
    /// numbered once a page.
    #[inline]
    fn next_numbered(&mut self, numbering: &'static Numbering) -> Option<NumberedAttr<'_>> {
        let at = self.current.as_mut()?;
        let Scratch {
            buf,
            text,
            numberings,
            numbers,
            ..
        } = self.s.as_deref_mut()?;
        let (bytes, text) = view(buf, text);
        let read = match bytes.get(..at.span[2]) {
            Some(item) => data_attr(at, item, text),
            None => Next::Corrupt,
        };
        let (id, value) = match read {
            Next::Attr(id, value) => (id, value),
            Next::End => return None,
            Next::Corrupt => {
                self.current = None;
                return Some(Err(corrupt()));
            }
        };
        let numbered = number(&self.names, numberings, numbers, numbering, id);
        let Some((number, name)) = numbered else {
            self.current = None;
            return Some(Err(corrupt()));
        };
        Some(Ok((number, name, value)))
    }

    #[inline]
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let at = self.current.as_mut()?;
        let s = self.s.as_deref().unwrap_or(&NO_SCRATCH);
        let (bytes, text) = view(&s.buf, &s.text);
        let Some(item) = bytes.get(..at.span[2]) else {
            self.current = None;
            return Some(Err(corrupt()));
        };
        let read = if at.pos < at.span[1] {
            // A key attribute.
            let Some(keys) = item.get(..at.span[1]) else {
                self.current = None;
                return Some(Err(corrupt()));
            };
            key_attr(&self.keys, keys, text, at.escaped, &mut at.pos, &mut at.key)
                .and_then(|(id, value)| Some((&*self.keys.get(id)?.0, value)))
        } else {
            match data_attr(at, item, text) {
                Next::Attr(id, value) => self.names.get(id).map(|name| (&**name, value)),
                Next::End => return None,
                Next::Corrupt => None,
            }
        };
        match read {
            Some(attr) => Some(Ok(attr)),
            None => {
                self.current = None;
                Some(Err(corrupt()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
            let kinds: Arc<[(Box<str>, bool)]> =
                vec![("PK".into(), false), ("SK".into(), true)].into();
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
}
