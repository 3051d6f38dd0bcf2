//! An index's entry: a pointer into its item's record, and the order of
//! entries and of positions' bytes (a query's bounds) among them.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ptr::NonNull;

use super::layout::{BYTES, POS, RAW, TIE, head, read_len, read_len_at};
use crate::hash::PREFIX;

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
    pub(super) ptr: NonNull<u8>,
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
