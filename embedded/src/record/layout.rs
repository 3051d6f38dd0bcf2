//! A record's bytes: the tags of a part's `desc`, LEB128 lengths read
//! from slices and through pointers, a record's head, and the builder of
//! a `desc`.

use crate::hash::PREFIX;

/// Segment tags of a part's `desc`.
pub(super) const BYTES: u8 = 0;
pub(super) const RAW: u8 = 1;
pub(super) const POS: u8 = 2;
/// The tie-break hash: `PREFIX` bytes, no length.
pub(super) const TIE: u8 = 3;

/// A LEB128 length at `b[*at..]`.
#[inline(always)]
pub(super) fn read_len(b: &[u8], at: &mut usize) -> Option<usize> {
    let mut r = singletable_core::reader::encoded::ValueReader::at(b, *at);
    let n = r.read_len()?;
    *at = r.position();
    Some(n)
}

pub(super) fn put_len(out: &mut Vec<u8>, n: usize) {
    singletable_core::reader::encoded::put_len(out, n);
}

pub(super) fn len_len(mut n: usize) -> usize {
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
pub(super) unsafe fn read_len_at(p: *const u8) -> (usize, usize) {
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
pub(super) unsafe fn head<'a>(p: *const u8) -> (usize, &'a [u8], &'a [u8]) {
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
