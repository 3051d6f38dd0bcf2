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
//! use singletable_core::reader::encoded::{ValueReader, encode_value};
//! use singletable_core::reader::AttrRef;
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

#[cfg(test)]
mod tests;
mod value;

use value::*;
pub use value::{ValueReader, encode_ref, encode_value, escape_key, put_len, unescape_key};

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
/// use singletable_core::reader::encoded::{EncodedItems, encode_value, put_len};
/// use singletable_core::reader::{collect_item, AttrRef, ItemReader};
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
/// singletable_core::reader::encoded::escape_key(b"A#2", &mut keys);
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
    /// use singletable_core::reader::encoded::{EncodedItems, encode_value, escape_key, put_len};
    /// use singletable_core::reader::{collect_item, ItemReader};
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
    /// use singletable_core::reader::encoded::{EncodedItems, encode_value, put_len};
    /// use singletable_core::reader::{collect_item, AttrRef, ItemReader};
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
