//! A stored item as one thin allocation that the table and every index
//! holding it share: the table's B-tree owns it ([`Record`], one word per
//! slot), and each index's B-tree points into it ([`IndexEntry`], one word
//! too) at the part that says where its index key is.
//!
//! A record is `len(pos) pos len(value) len(parts) value parts` (LEB128
//! lengths): the table position first, so that a table lookup reads one
//! length; then the stored value ([`super::codec::encode_item`]) and one
//! part per index the item is in: `index back len(desc) desc`, where
//! `back` is the part's offset in the record (an index entry points at
//! it, and finds the record's start from it) and `desc` lists the segments
//! of the index position without copying what the record already holds: a
//! string or binary index key attribute is an offset into the value (its
//! order bytes are its escaped bytes: see [`Seg::Raw`]), an attribute of
//! the table key a range of the position; numbers and the tie-break hash
//! are kept as order bytes. The table key (`pos[PREFIX..]`) ends every
//! index position.
//!
//! Two index entries compare segment by segment (the index's schema fixes
//! each segment's kind); an entry and a position's bytes (a query's bounds)
//! compare as the streams of order bytes the segments stand for.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ptr::NonNull;

use super::hash::PREFIX;

/// Segment tags of a part's `desc`.
const BYTES: u8 = 0;
const RAW: u8 = 1;
const POS: u8 = 2;
/// The tie-break hash: `PREFIX` bytes, no length.
const TIE: u8 = 3;

/// A LEB128 length at `b[*at..]`.
#[inline(always)]
fn read_len(b: &[u8], at: &mut usize) -> Option<usize> {
    let mut r = singletable_core::reader::encoded::ValueReader::at(b, *at);
    let n = r.read_len()?;
    *at = r.position();
    Some(n)
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    singletable_core::reader::encoded::put_len(out, n);
}

fn len_len(mut n: usize) -> usize {
    let mut k = 1;
    while n >= 0x80 {
        n >>= 7;
        k += 1;
    }
    k
}

/// Reads a LEB128 length through a pointer into a record: the length and
/// its width.
///
/// # Safety
/// `p` points at a complete LEB128 length inside a live record.
#[inline(always)]
unsafe fn read_len_at(p: *const u8) -> (usize, usize) {
    // SAFETY: the caller's length lies within the allocation.
    let first = unsafe { *p };
    if first < 0x80 {
        return (usize::from(first), 1);
    }
    // SAFETY: as above.
    unsafe { read_len_at_long(p) }
}

/// # Safety
/// As [`read_len_at`].
#[cold]
unsafe fn read_len_at_long(p: *const u8) -> (usize, usize) {
    let (mut n, mut shift, mut k) = (0usize, 0, 0);
    loop {
        // SAFETY: the caller's length lies within the allocation, and it
        // ends at the first byte under 0x80.
        let byte = unsafe { *p.add(k) };
        k += 1;
        n |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return (n, k);
        }
        shift += 7;
    }
}

/// Where the parts of the record at `p` start (its offset), and its
/// position and value.
///
/// # Safety
/// `p` is the start of a live record, which outlives `'a`.
#[inline(always)]
unsafe fn head<'a>(p: *const u8) -> (usize, &'a [u8], &'a [u8]) {
    // SAFETY: a record is `len(pos) pos len(value) len(parts) value
    // parts` (`Record::new`): each length is read inside it, and says how
    // far the next one is.
    unsafe {
        let (pos, a) = read_len_at(p);
        let (value, b) = read_len_at(p.add(a + pos));
        let (_, c) = read_len_at(p.add(a + pos + b));
        let v = a + pos + b + c;
        (
            v + value,
            std::slice::from_raw_parts(p.add(a), pos),
            std::slice::from_raw_parts(p.add(v), value),
        )
    }
}

/// One stored item: its table position, its stored value and its index
/// parts, in one allocation of exactly their size (plus three lengths):
/// `len(pos) pos len(value) len(parts) value parts`.
pub(crate) struct Record {
    /// The start of a `Box<[u8]>` of the record's length.
    ptr: NonNull<u8>,
}

// SAFETY: a record owns its bytes and never changes them but through
// `&mut` to the table that owns it: sharing or moving it across threads is
// sharing or moving a `Box<[u8]>`.
unsafe impl Send for Record {}
// SAFETY: as above.
unsafe impl Sync for Record {}

impl Record {
    /// A record of `pos`, `value` and `parts` (index number, `desc`, in
    /// increasing index order).
    pub(crate) fn new<'p>(
        pos: &[u8],
        value: &[u8],
        parts: impl Iterator<Item = (usize, &'p [u8])> + Clone,
    ) -> Self {
        let fixed = len_len(pos.len()) + pos.len() + len_len(value.len());
        // A part's `back` is its offset, whose width depends on itself
        // only; the offsets on the width of the parts' length: found by
        // trying widths (one pass in practice).
        let mut parts_len = 0;
        loop {
            let mut at = fixed + len_len(parts_len) + value.len();
            let mut len = 0;
            for (i, desc) in parts.clone() {
                let back = at + len_len(i);
                let part = len_len(i) + len_len(back) + len_len(desc.len()) + desc.len();
                at += part;
                len += part;
            }
            if len == parts_len {
                break;
            }
            parts_len = len;
        }
        let mut bytes = Vec::with_capacity(fixed + len_len(parts_len) + value.len() + parts_len);
        put_len(&mut bytes, pos.len());
        bytes.extend_from_slice(pos);
        put_len(&mut bytes, value.len());
        put_len(&mut bytes, parts_len);
        bytes.extend_from_slice(value);
        for (i, desc) in parts {
            put_len(&mut bytes, i);
            let back = bytes.len();
            put_len(&mut bytes, back);
            put_len(&mut bytes, desc.len());
            bytes.extend_from_slice(desc);
        }
        debug_assert_eq!(bytes.len(), bytes.capacity());
        let raw = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: a box's pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(raw.cast::<u8>()) };
        let record = Self { ptr };
        debug_assert_eq!(record.bytes().len(), raw.len());
        record
    }

    /// The whole record.
    #[inline]
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is the start of the record this value owns; its
        // parts' length follows its value's.
        unsafe {
            let p = self.ptr.as_ptr();
            let (parts, pos, _) = head(p);
            let (len, _) = read_len_at(pos.as_ptr().add(pos.len()));
            let (parts_len, _) = read_len_at(pos.as_ptr().add(pos.len() + len_len(len)));
            std::slice::from_raw_parts(p, parts + parts_len)
        }
    }

    /// The table position.
    #[inline(always)]
    pub(crate) fn key(&self) -> &[u8] {
        // SAFETY: `ptr` is the start of the record this value owns, which
        // starts with its position's length and its position.
        unsafe {
            let p = self.ptr.as_ptr();
            let (n, w) = read_len_at(p);
            std::slice::from_raw_parts(p.add(w), n)
        }
    }

    /// The stored value.
    #[inline]
    pub(crate) fn value(&self) -> &[u8] {
        self.key_value().1
    }

    /// The position and the value.
    #[inline]
    pub(crate) fn key_value(&self) -> (&[u8], &[u8]) {
        // SAFETY: `ptr` is the start of the record this value owns.
        let (_, pos, value) = unsafe { head(self.ptr.as_ptr()) };
        (pos, value)
    }

    /// Each part: its index number, its offset in the record and its
    /// `desc`.
    fn parts(&self) -> impl Iterator<Item = (usize, usize, &[u8])> {
        let b = self.bytes();
        // SAFETY: `ptr` is the start of the record this value owns.
        let (mut at, _, _) = unsafe { head(self.ptr.as_ptr()) };
        std::iter::from_fn(move || {
            if at >= b.len() {
                return None;
            }
            let i = read_len(b, &mut at)?;
            let back = at;
            read_len(b, &mut at)?;
            let n = read_len(b, &mut at)?;
            let desc = b.get(at..at + n)?;
            at += n;
            Some((i, back, desc))
        })
    }

    /// The `desc` of index `i`'s part, when the item is in that index.
    pub(crate) fn desc(&self, i: usize) -> Option<&[u8]> {
        self.parts().find(|p| p.0 == i).map(|p| p.2)
    }

    /// Whether the record's parts are `parts`.
    pub(crate) fn parts_are<'p>(&self, mut parts: impl Iterator<Item = (usize, &'p [u8])>) -> bool {
        let mut mine = self.parts();
        parts.all(|(i, d)| mine.next().is_some_and(|(j, _, e)| j == i && e == d))
            && mine.next().is_none()
    }

    /// Every part, as [`Self::new`] takes them.
    pub(crate) fn descs(&self) -> Vec<(usize, Vec<u8>)> {
        self.parts().map(|(i, _, d)| (i, d.to_vec())).collect()
    }

    /// The entry of index `i` pointing into this record, when the item is
    /// in that index. The entry may be kept only while the record lives
    /// (see [`IndexEntry`]).
    pub(crate) fn entry(&self, i: usize) -> Option<IndexEntry> {
        let (_, back, _) = self.parts().find(|p| p.0 == i)?;
        // SAFETY: `back` is an offset inside the record.
        let ptr = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(back)) };
        Some(IndexEntry { ptr })
    }

    /// Overwrites the stored value with `value`, of the same length.
    ///
    /// # Safety
    /// Nothing borrows the record's bytes (the caller holds the table
    /// that owns it by `&mut`), and `value` is as long as the stored one
    /// and leaves every part's `desc` true (the same offsets hold the
    /// same key values).
    pub(crate) unsafe fn overwrite_value(&self, value: &[u8]) {
        // SAFETY: `ptr` is the start of the record this value owns.
        let (at, old) = unsafe {
            let (parts, _, old) = head(self.ptr.as_ptr());
            (parts - old.len(), old.len())
        };
        assert_eq!(old, value.len());
        // SAFETY: the value's bytes lie inside the allocation, which
        // `ptr` was made from (`Box::into_raw`, with write access), and no
        // reference to them is alive (the caller's promise).
        unsafe {
            std::ptr::copy_nonoverlapping(value.as_ptr(), self.ptr.as_ptr().add(at), value.len());
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        let len = self.bytes().len();
        let raw = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), len);
        // SAFETY: `ptr` and `len` are the box `Record::new` let go of
        // (the record's lengths say how long it is), dropped once.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl Borrow<[u8]> for Record {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

impl PartialEq for Record {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Record {}

impl PartialOrd for Record {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Record {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(other.key())
    }
}

/// An index's entry: a pointer to its part in the record of its item.
///
/// It does not own the record: the table keeps every record an index
/// entry points into for as long as the entry is in its index (the
/// table's writes replace an item's entries before they let its record
/// go, see `TableData::store`), and reads go through `&TableData`, which
/// borrows both.
#[derive(Clone, Copy)]
pub(crate) struct IndexEntry {
    /// The part's `back` field, inside a live record.
    ptr: NonNull<u8>,
}

// SAFETY: an entry reads a record's bytes, as a shared reference to them
// would; the table that holds both keeps the record alive and unchanged
// while it is borrowed (see the type's doc).
unsafe impl Send for IndexEntry {}
// SAFETY: as above.
unsafe impl Sync for IndexEntry {}

impl IndexEntry {
    /// The record's position and value, and the part's `desc`.
    #[inline(always)]
    fn parts(&self) -> (&[u8], &[u8], &[u8]) {
        // SAFETY: the entry points at a part's `back`, a complete length
        // inside a live record (the type's invariant), equal to the
        // part's offset from the record's start; the part's `desc` length
        // and `desc` follow.
        unsafe {
            let p = self.ptr.as_ptr();
            let (back, w) = read_len_at(p);
            let (n, v) = read_len_at(p.add(w));
            let desc = std::slice::from_raw_parts(p.add(w + v), n);
            let (_, pos, value) = head(p.sub(back));
            (pos, value, desc)
        }
    }

    /// The table position and the stored value of the entry's item.
    #[inline]
    pub(crate) fn key_value(&self) -> (&[u8], &[u8]) {
        let (pos, value, _) = self.parts();
        (pos, value)
    }

    /// The segments of the entry's index position.
    #[inline(always)]
    fn segs(&self) -> Segs<'_> {
        let (pos, value, desc) = self.parts();
        Segs {
            desc,
            at: 0,
            pos,
            value,
            done: false,
        }
    }

    /// The entry's index position, as order bytes (for tests and
    /// checks).
    #[cfg(test)]
    pub(crate) fn position(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut s = Stream::new(self.segs());
        while let Some(c) = s.next_chunk() {
            out.extend_from_slice(c);
        }
        out
    }
}

/// A segment of an index position.
#[derive(Clone, Copy)]
enum Seg<'a> {
    /// Order bytes.
    Bytes(&'a [u8]),
    /// A string's or binary's bytes, whose order bytes are their escaped
    /// form: two such compare as the slices (a proper prefix is less, as
    /// its `00 00` end is less than any byte or the `00 FF` of an escaped
    /// zero; elsewhere escaped bytes compare as the bytes).
    Raw(&'a [u8]),
}

struct Segs<'a> {
    desc: &'a [u8],
    at: usize,
    pos: &'a [u8],
    value: &'a [u8],
    done: bool,
}

impl<'a> Iterator for Segs<'a> {
    type Item = Seg<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Seg<'a>> {
        if self.at >= self.desc.len() {
            if self.done {
                return None;
            }
            self.done = true;
            return Some(Seg::Bytes(self.pos.get(PREFIX..).unwrap_or_default()));
        }
        let d = self.desc;
        let tag = d[self.at];
        self.at += 1;
        let seg = match tag {
            BYTES => {
                let n = read_len(d, &mut self.at)?;
                let b = d.get(self.at..self.at + n)?;
                self.at += n;
                Seg::Bytes(b)
            }
            RAW => {
                let mut off = read_len(d, &mut self.at)? + 1;
                let n = read_len(self.value, &mut off)?;
                Seg::Raw(self.value.get(off..off + n)?)
            }
            POS => {
                let start = read_len(d, &mut self.at)?;
                let end = read_len(d, &mut self.at)?;
                Seg::Bytes(self.pos.get(start..end)?)
            }
            TIE => {
                let b = d.get(self.at..self.at + PREFIX)?;
                self.at += PREFIX;
                Seg::Bytes(b)
            }
            _ => return None,
        };
        Some(seg)
    }
}

/// The order bytes a position's segments stand for, in chunks.
struct Stream<'a> {
    segs: Segs<'a>,
    /// The rest of a [`Seg::Raw`] being escaped.
    raw: Option<&'a [u8]>,
}

impl<'a> Stream<'a> {
    fn new(segs: Segs<'a>) -> Self {
        Self { segs, raw: None }
    }

    /// The next chunk, never empty.
    #[inline]
    fn next_chunk(&mut self) -> Option<&'a [u8]> {
        loop {
            if let Some(raw) = self.raw {
                return Some(match raw.iter().position(|&b| b == 0) {
                    _ if raw.is_empty() => {
                        self.raw = None;
                        &[0, 0]
                    }
                    Some(0) => {
                        self.raw = Some(&raw[1..]);
                        &[0, 0xFF]
                    }
                    Some(n) => {
                        self.raw = Some(&raw[n..]);
                        &raw[..n]
                    }
                    None => {
                        self.raw = Some(&[]);
                        raw
                    }
                });
            }
            match self.segs.next()? {
                Seg::Bytes([]) => {}
                Seg::Bytes(b) => return Some(b),
                Seg::Raw(r) => self.raw = Some(r),
            }
        }
    }
}

/// Compares two streams of chunks as the byte strings they make.
fn cmp_chunks<'a, 'b>(
    mut a: impl FnMut() -> Option<&'a [u8]>,
    mut b: impl FnMut() -> Option<&'b [u8]>,
) -> Ordering {
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        if x.is_empty()
            && let Some(c) = a()
        {
            x = c;
        }
        if y.is_empty()
            && let Some(c) = b()
        {
            y = c;
        }
        match (x.is_empty(), y.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let n = x.len().min(y.len());
        match x[..n].cmp(&y[..n]) {
            Ordering::Equal => (x, y) = (&x[n..], &y[n..]),
            o => return o,
        }
    }
}

/// Two entries of one index, segment by segment.
fn cmp_entries(a: &IndexEntry, b: &IndexEntry) -> Ordering {
    let (mut s, mut t) = (a.segs(), b.segs());
    loop {
        match (s.next(), t.next()) {
            (None, None) => return Ordering::Equal,
            (Some(Seg::Raw(x)), Some(Seg::Raw(y))) => match x.cmp(y) {
                Ordering::Equal => {}
                o => return o,
            },
            (Some(Seg::Bytes(x)), Some(Seg::Bytes(y))) => {
                let n = x.len().min(y.len());
                match x[..n].cmp(&y[..n]) {
                    Ordering::Equal if x.len() == y.len() => {}
                    // Order bytes delimit themselves: unequal ones of one
                    // kind differ before either ends; otherwise the bytes
                    // that follow decide.
                    Ordering::Equal => return cmp_streams(a, b),
                    o => return o,
                }
            }
            // Not two entries of one index: compared as order bytes.
            _ => return cmp_streams(a, b),
        }
    }
}

#[cold]
fn cmp_streams(a: &IndexEntry, b: &IndexEntry) -> Ordering {
    let (mut s, mut t) = (Stream::new(a.segs()), Stream::new(b.segs()));
    cmp_chunks(|| s.next_chunk(), || t.next_chunk())
}

/// An index entry, or a position's bytes to look entries up by.
pub(crate) trait IndexKey {
    fn as_key(&self) -> KeyRef<'_>;
}

pub(crate) enum KeyRef<'a> {
    Bytes(&'a [u8]),
    Entry(&'a IndexEntry),
}

impl IndexKey for &[u8] {
    fn as_key(&self) -> KeyRef<'_> {
        KeyRef::Bytes(self)
    }
}

impl IndexKey for IndexEntry {
    fn as_key(&self) -> KeyRef<'_> {
        KeyRef::Entry(self)
    }
}

impl Ord for dyn IndexKey + '_ {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.as_key(), other.as_key()) {
            (KeyRef::Entry(a), KeyRef::Entry(b)) => cmp_entries(a, b),
            (KeyRef::Bytes(a), KeyRef::Bytes(b)) => a.cmp(b),
            (KeyRef::Entry(a), KeyRef::Bytes(b)) => {
                let mut s = Stream::new(a.segs());
                let mut b = Some(b).filter(|b| !b.is_empty());
                cmp_chunks(|| s.next_chunk(), || b.take())
            }
            (KeyRef::Bytes(a), KeyRef::Entry(b)) => {
                let mut t = Stream::new(b.segs());
                let mut a = Some(a).filter(|a| !a.is_empty());
                cmp_chunks(|| a.take(), || t.next_chunk())
            }
        }
    }
}

impl PartialOrd for dyn IndexKey + '_ {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for dyn IndexKey + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for dyn IndexKey + '_ {}

impl<'a> Borrow<dyn IndexKey + 'a> for IndexEntry {
    fn borrow(&self) -> &(dyn IndexKey + 'a) {
        self
    }
}

impl PartialEq for IndexEntry {
    fn eq(&self, other: &Self) -> bool {
        cmp_entries(self, other) == Ordering::Equal
    }
}

impl Eq for IndexEntry {}

impl PartialOrd for IndexEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for IndexEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_entries(self, other)
    }
}

/// Builds the `desc` of an index part at the end of a buffer.
pub(crate) struct Desc<'a> {
    pub(crate) out: &'a mut Vec<u8>,
}

impl Desc<'_> {
    /// Order bytes kept in the part (a number's).
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.out.push(BYTES);
        put_len(self.out, b.len());
        self.out.extend_from_slice(b);
    }

    /// The string or binary value at offset `off` of the stored value
    /// (its tag), which must be one.
    pub(crate) fn raw(&mut self, off: usize) {
        self.out.push(RAW);
        put_len(self.out, off);
    }

    /// The order bytes `pos[start..end]` of the table position.
    pub(crate) fn pos(&mut self, start: usize, end: usize) {
        self.out.push(POS);
        put_len(self.out, start);
        put_len(self.out, end);
    }

    /// The tie-break hash, which ends the `desc`.
    pub(crate) fn tie(&mut self, hash: &[u8; PREFIX]) {
        self.out.push(TIE);
        self.out.extend_from_slice(hash);
    }

    /// The tie-break hash a `desc` ends with, when it has one.
    pub(crate) fn tie_of(desc: &[u8]) -> Option<[u8; PREFIX]> {
        let mut at = 0;
        let mut last = None;
        while at < desc.len() {
            let tag = desc[at];
            at += 1;
            match tag {
                BYTES => {
                    at += read_len(desc, &mut at)?;
                    last = None;
                }
                TIE => {
                    last = desc.get(at..at + PREFIX);
                    at += PREFIX;
                }
                RAW => {
                    read_len(desc, &mut at)?;
                    last = None;
                }
                POS => {
                    read_len(desc, &mut at)?;
                    read_len(desc, &mut at)?;
                    last = None;
                }
                _ => return None,
            }
        }
        last?.try_into().ok()
    }
}

/// Whether the value encoding at `value[off..]` is a string (a binary
/// when `binary`), what a [`Desc::raw`] segment may point at.
pub(crate) fn is_raw(value: &[u8], off: usize, binary: bool) -> bool {
    singletable_core::reader::encoded::ValueReader::at(value, off).next_is_bytes(binary)
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
