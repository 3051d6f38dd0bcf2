//! The record: one stored item in one allocation, which the table owns.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ptr::NonNull;

use super::entry::IndexEntry;
use super::layout::{head, len_len, put_len, read_len, read_len_at};

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
