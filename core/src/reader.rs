//! Reading items attribute by attribute, without building an [`Item`] map.
//!
//! Every executor answers with [`Item`]s. An executor that keeps items in
//! another form (the embedded backend keeps them encoded) can also hand
//! them out through an [`ItemReader`]: the generated decoders then read
//! each attribute where it lies, allocate only for the values the entity
//! keeps, and skip the rest (key attributes, other entities' attributes)
//! at no cost. Executors that do not, get a reader over their items for
//! free (see [`OwnedItems`]).
//!
//! ```
//! use singletable_core::reader::{collect_item, ItemReader, OwnedItems};
//! use singletable::{AttributeValue, Entity, Item, OtherTypes, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity, Debug, PartialEq)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! let item = User { id: "ana".into() }.to_item()?;
//! let mut items = OwnedItems::new(vec![item.clone()]);
//! assert_eq!(items.remaining(), 1);
//! let reader = items.next_item().unwrap();
//! // What executors' answers go through: the generated decoder, in place.
//! assert_eq!(User::read_item(reader, OtherTypes::Error)?, Some(User { id: "ana".into() }));
//! assert!(items.next_item().is_none());
//!
//! let mut again = OwnedItems::new(vec![item.clone()]);
//! assert_eq!(collect_item(again.next_item().unwrap())?, item);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::hash_map;

pub mod encoded;

pub use encoded::EncodedItems;

use crate::error::DecodeError;
use crate::request::Page;
// Values read in place are values first: `AttrRef` lives with them.
pub use crate::value::AttrRef;
use crate::value::{AttributeValue, Item};

/// The attributes of one item, read one at a time, in no particular order.
///
/// ```
/// use singletable_core::reader::{AttrReader, ItemAttrs};
/// use singletable::{AttributeValue, Item};
///
/// let item: Item = [("n".to_string(), AttributeValue::N("1".into()))].into();
/// let mut r = ItemAttrs::new(item);
/// let (name, value) = r.next_attr().unwrap()?;
/// assert_eq!((name, value.as_n()), ("n", Some("1")));
/// assert!(r.next_attr().is_none());
/// assert!(!r.rewind()); // a map reader cannot go back
/// # Ok::<(), singletable::DecodeError>(())
/// ```
pub trait AttrReader {
    /// The next attribute's name and value; both borrow the reader until the
    /// next call. `None` after the last one; an error when the item cannot
    /// be read (an executor's storage or response is malformed).
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>>;

    /// Like [`AttrReader::next_attr`], but may leave out the table's own
    /// key attributes, for decoders that never read them (documents and
    /// raw readers; entity decoders read them, to check that the fields
    /// agree with the key). The default is `next_attr`.
    fn next_data_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        self.next_attr()
    }

    /// Goes back to the item's first attribute, so that it can be read
    /// again (a collection finds an item's entity type before its member
    /// decodes it); `false` when the reader cannot, and then nothing
    /// moved. The default cannot.
    fn rewind(&mut self) -> bool {
        false
    }

    /// The current item's table key attributes, borrowed, for a reader that
    /// holds them apart from its other attributes (the embedded backend's
    /// pages); `pk` and `sk` are the table's key attribute names (static,
    /// so that a reader may remember where they are by their address).
    /// `None` (the default) when the reader gives them through
    /// [`AttrReader::next_field_attr`] like any attribute; an error when
    /// they cannot be read.
    ///
    /// Entity decoders read the key here, once the fields are decoded, to
    /// check that the fields agree with it: a reader that lends the key
    /// saves copying it.
    ///
    /// ```
    /// use singletable_core::reader::{AttrReader, AttrRef, EncodedItems, ItemReader, TableKey};
    /// use std::sync::Arc;
    ///
    /// let keys: Arc<[(Box<str>, bool)]> = vec![("PK".into(), false), ("SK".into(), false)].into();
    /// let mut page = EncodedItems::new(Arc::new(vec!["n".into()]), keys, 0);
    /// page.push_key(0, &AttrRef::S("A#1"));
    /// page.push_key(1, &AttrRef::S("B"));
    /// page.push_attrs(&[(0, AttrRef::N("7"))]);
    /// let item = page.next_item().unwrap();
    /// let key: TableKey<'_> = item.table_key("PK", Some("SK")).unwrap()?;
    /// assert_eq!((key.pk_str(), key.sk_str()), (Some("A#1"), Some("B")));
    /// // ... and the attributes without the key ones.
    /// assert_eq!(item.next_field_attr().unwrap()?.0, "n");
    /// assert!(item.next_field_attr().is_none());
    /// # Ok::<(), singletable::DecodeError>(())
    /// ```
    fn table_key(
        &self,
        pk: &'static str,
        sk: Option<&'static str>,
    ) -> Option<Result<TableKey<'_>, DecodeError>> {
        let _ = (pk, sk);
        None
    }

    /// The next attribute, leaving out the table's key attributes when
    /// [`AttrReader::table_key`] gives them (and only then). The default
    /// is `next_attr`.
    ///
    /// ```
    /// use singletable_core::reader::{AttrReader, ItemAttrs};
    /// use singletable::{AttributeValue, Item};
    ///
    /// // A map lends no key: its key attributes come like any other.
    /// let item: Item = [("PK".to_string(), AttributeValue::S("A#1".into()))].into();
    /// let mut r = ItemAttrs::new(item);
    /// assert!(r.table_key("PK", None).is_none());
    /// assert_eq!(r.next_field_attr().unwrap()?.0, "PK");
    /// # Ok::<(), singletable::DecodeError>(())
    /// ```
    fn next_field_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        self.next_attr()
    }

    /// Like [`AttrReader::next_field_attr`], with the attribute's number
    /// in `numbering` beside its name: what the generated decoders match
    /// on. The default numbers each name as it comes; a reader that names
    /// its attributes by number (the embedded backend's pages) numbers
    /// each of its names once and then compares no string.
    ///
    /// ```
    /// use singletable_core::reader::{AttrReader, ItemAttrs, Numbering};
    /// use singletable::{AttributeValue, Item};
    ///
    /// static NUMBERING: Numbering = Numbering::new(&["n"]);
    /// let item: Item = [("n".to_string(), AttributeValue::N("1".into()))].into();
    /// let mut r = ItemAttrs::new(item);
    /// let (number, name, value) = r.next_numbered(&NUMBERING).unwrap()?;
    /// assert_eq!((number, name, value.as_n()), (0, "n", Some("1")));
    /// assert!(r.next_numbered(&NUMBERING).is_none());
    /// # Ok::<(), singletable::DecodeError>(())
    /// ```
    #[inline]
    fn next_numbered(&mut self, numbering: &'static Numbering) -> Option<NumberedAttr<'_>> {
        Some(
            self.next_field_attr()?
                .map(|(name, value)| (numbering.number(name), name, value)),
        )
    }
}

/// What [`AttrReader::next_numbered`] gives: the attribute's number, its
/// name and its value, or the error reading it.
///
/// ```
/// use singletable_core::reader::{AttrRef, NumberedAttr};
///
/// let attr: NumberedAttr<'_> = Ok((0, "n", AttrRef::N("1")));
/// let (number, name, value) = attr?;
/// assert_eq!((number, name, value.as_n()), (0, "n", Some("1")));
/// # Ok::<(), singletable::DecodeError>(())
/// ```
pub type NumberedAttr<'a> = Result<(usize, &'a str, AttrRef<'a>), DecodeError>;

/// How a decoder numbers the attribute names it reads (see
/// [`AttrReader::next_numbered`]): each name by its place in a list,
/// [`Numbering::OTHER`] for names not in it (an empty name in the list
/// stands for none). Readers that remember numbers per numbering tell
/// numberings apart by address, so each is a `static`.
///
/// ```
/// use singletable_core::reader::Numbering;
///
/// static NUMBERING: Numbering = Numbering::new(&["a", "b", ""]);
/// assert_eq!(NUMBERING.number("b"), 1);
/// assert_eq!(NUMBERING.number("c"), Numbering::OTHER);
/// assert_eq!(NUMBERING.number(""), Numbering::OTHER);
/// ```
pub struct Numbering {
    pub(crate) names: &'static [&'static str],
    /// The table's entity-type, partition and sort key attributes,
    /// numbered after `names` (an empty name stands for none).
    pub(crate) table: [&'static str; 3],
}

impl Numbering {
    /// The number of names that are none of the decoder's.
    pub const OTHER: usize = usize::MAX;

    /// The numbering of `names`: each by its place, the first place for
    /// a name listed twice.
    pub const fn new(names: &'static [&'static str]) -> Self {
        Self {
            names,
            table: ["", "", ""],
        }
    }

    /// The number of `name`.
    #[inline]
    pub fn number(&self, name: &str) -> usize {
        self.names
            .iter()
            .chain(&self.table)
            .position(|n| !n.is_empty() && *n == name)
            .unwrap_or(Self::OTHER)
    }
}

impl std::fmt::Debug for Numbering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Numbering").finish_non_exhaustive()
    }
}

/// An item's table key attributes as the item holds them: `None` where an
/// attribute is absent (a projection left it out, or the table has no
/// sort key). See [`AttrReader::table_key`].
///
/// ```
/// use singletable_core::reader::{KeyRef, TableKey};
///
/// let key = TableKey { pk: Some(KeyRef::S("USER#ana")), sk: None };
/// assert_eq!((key.pk_str(), key.sk_str()), (Some("USER#ana"), None));
/// assert_eq!(TableKey::default().pk_str(), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableKey<'a> {
    /// The partition key attribute.
    pub pk: Option<KeyRef<'a>>,
    /// The sort key attribute.
    pub sk: Option<KeyRef<'a>>,
}

impl TableKey<'_> {
    /// The partition key, when it is present and a string.
    #[inline]
    pub fn pk_str(&self) -> Option<&str> {
        self.pk.as_ref().and_then(KeyRef::as_s)
    }

    /// The sort key, when it is present and a string.
    #[inline]
    pub fn sk_str(&self) -> Option<&str> {
        self.sk.as_ref().and_then(KeyRef::as_s)
    }
}

/// A key attribute's value as an item holds it: a string (every key the
/// derive writes) lent, any other value owned and boxed, so that a key
/// stays small as it is handed from the reader to the decoder's check.
///
/// ```
/// use singletable_core::reader::{AttrRef, KeyRef};
/// use singletable::AttributeValue;
///
/// assert_eq!(KeyRef::from(AttrRef::S("A#1")).as_s(), Some("A#1"));
/// let n = KeyRef::from(AttrRef::N("7"));
/// assert_eq!(n.as_s(), None);
/// assert_eq!(n.as_attr_ref().as_n(), Some("7"));
/// assert_eq!(n.into_owned(), AttributeValue::N("7".into()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum KeyRef<'a> {
    /// A string (`S`), borrowed.
    S(&'a str),
    /// Any other value, owned.
    Other(Box<AttributeValue>),
}

impl KeyRef<'_> {
    /// The string, if the value is one.
    #[inline]
    pub fn as_s(&self) -> Option<&str> {
        match self {
            KeyRef::S(s) => Some(s),
            KeyRef::Other(v) => match &**v {
                AttributeValue::S(s) => Some(s),
                _ => None,
            },
        }
    }

    /// The value as an [`AttrRef`], strings and numbers borrowed.
    pub fn as_attr_ref(&self) -> AttrRef<'_> {
        match self {
            KeyRef::S(s) => AttrRef::S(s),
            KeyRef::Other(v) => match &**v {
                AttributeValue::S(s) => AttrRef::S(s),
                AttributeValue::N(n) => AttrRef::N(n),
                other => AttrRef::owned(other.clone()),
            },
        }
    }

    /// The value as an owned [`AttributeValue`].
    pub fn into_owned(self) -> AttributeValue {
        match self {
            KeyRef::S(s) => AttributeValue::S(s.to_owned()),
            KeyRef::Other(v) => *v,
        }
    }
}

impl<'a> From<AttrRef<'a>> for KeyRef<'a> {
    #[inline]
    fn from(v: AttrRef<'a>) -> Self {
        match v {
            AttrRef::S(s) => KeyRef::S(s),
            other => KeyRef::Other(Box::new(other.into_owned())),
        }
    }
}

/// Reads the attributes left in `reader` into an [`Item`].
///
/// ```
/// use singletable_core::reader::{collect_item, ItemAttrs};
/// use singletable::{AttributeValue, Item};
///
/// let item: Item = [("a".to_string(), AttributeValue::Bool(true))].into();
/// assert_eq!(collect_item(&mut ItemAttrs::new(item.clone()))?, item);
/// # Ok::<(), singletable::DecodeError>(())
/// ```
pub fn collect_item(reader: &mut (impl AttrReader + ?Sized)) -> Result<Item, DecodeError> {
    let mut item = Item::new();
    while let Some(attr) = reader.next_attr() {
        let (name, value) = attr?;
        let name = name.to_owned();
        item.insert(name, value.into_owned());
    }
    Ok(item)
}

/// An [`AttrReader`] over an owned [`Item`]: names and values are moved
/// out of the map.
///
/// ```
/// use singletable_core::reader::{AttrReader, ItemAttrs};
/// use singletable::{AttributeValue, Item};
///
/// let item: Item = [("s".to_string(), AttributeValue::S("x".into()))].into();
/// let mut r = ItemAttrs::new(item);
/// assert_eq!(r.next_attr().unwrap()?.1.as_s(), Some("x"));
/// # Ok::<(), singletable::DecodeError>(())
/// ```
#[derive(Debug)]
pub struct ItemAttrs {
    attrs: hash_map::IntoIter<String, AttributeValue>,
    name: String,
}

impl ItemAttrs {
    /// Reads `item`.
    pub fn new(item: Item) -> Self {
        Self {
            attrs: item.into_iter(),
            name: String::new(),
        }
    }
}

impl AttrReader for ItemAttrs {
    #[inline]
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let (name, value) = self.attrs.next()?;
        self.name = name;
        Some(Ok((&self.name, AttrRef::owned(value))))
    }
}

/// An [`AttrReader`] over a borrowed [`Item`]: strings and numbers are
/// lent, other values copied; the item stays the caller's.
///
/// ```
/// use singletable_core::reader::{collect_item, ItemRef};
/// use singletable::{AttributeValue, Item};
///
/// let item: Item = [("PK".to_string(), AttributeValue::S("USER#ana".into()))].into();
/// let copy = collect_item(&mut ItemRef::new(&item))?;
/// assert_eq!(copy, item);
/// # Ok::<(), singletable::DecodeError>(())
/// ```
#[derive(Debug)]
pub struct ItemRef<'a> {
    attrs: hash_map::Iter<'a, String, AttributeValue>,
}

impl<'a> ItemRef<'a> {
    /// Reads `item`.
    pub fn new(item: &'a Item) -> Self {
        Self { attrs: item.iter() }
    }
}

impl AttrReader for ItemRef<'_> {
    #[inline]
    fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
        let (name, value) = self.attrs.next()?;
        let value = match value {
            AttributeValue::S(s) => AttrRef::S(s),
            AttributeValue::N(n) => AttrRef::N(n),
            other => AttrRef::owned(other.clone()),
        };
        Some(Ok((name, value)))
    }
}

/// The items of one response, each read through an [`AttrReader`]. An
/// executor that stores items in its own form implements it to let the
/// decoders read them in place.
///
/// ```
/// use singletable_core::reader::{AttrReader, AttrRef, ItemReader};
/// use singletable::DecodeError;
///
/// /// Items kept as `(name, string)` pairs.
/// struct Pairs { items: Vec<Vec<(String, String)>>, current: Option<Item> }
/// struct Item { attrs: Vec<(String, String)>, at: usize }
///
/// impl AttrReader for Item {
///     fn next_attr(&mut self) -> Option<Result<(&str, AttrRef<'_>), DecodeError>> {
///         let (name, value) = self.attrs.get(self.at)?;
///         self.at += 1;
///         Some(Ok((name.as_str(), AttrRef::S(value.as_str()))))
///     }
/// }
/// impl ItemReader for Pairs {
///     fn next_item(&mut self) -> Option<&mut dyn AttrReader> {
///         let attrs = (!self.items.is_empty()).then(|| self.items.remove(0))?;
///         self.current = Some(Item { attrs, at: 0 });
///         self.current.as_mut().map(|i| i as &mut dyn AttrReader)
///     }
///     fn remaining(&self) -> usize {
///         self.items.len()
///     }
/// }
///
/// let mut r = Pairs { items: vec![vec![("PK".into(), "USER#ana".into())]], current: None };
/// assert_eq!(r.remaining(), 1);
/// let item = singletable_core::reader::collect_item(r.next_item().unwrap())?;
/// assert_eq!(item["PK"].as_s().unwrap(), "USER#ana");
/// # Ok::<(), DecodeError>(())
/// ```
pub trait ItemReader: Send {
    /// The next item; `None` after the last one.
    fn next_item(&mut self) -> Option<&mut dyn AttrReader>;

    /// How many items are left.
    fn remaining(&self) -> usize;
}

/// An [`ItemReader`] over owned [`Item`]s.
///
/// ```
/// use singletable_core::reader::{ItemReader, OwnedItems};
/// use singletable::Item;
///
/// let mut items = OwnedItems::new(vec![Item::new(), Item::new()]);
/// assert_eq!(items.remaining(), 2);
/// assert!(items.next_item().is_some());
/// assert_eq!(items.remaining(), 1);
/// ```
#[derive(Debug)]
pub struct OwnedItems {
    items: std::vec::IntoIter<Item>,
    current: ItemAttrs,
}

impl OwnedItems {
    /// Reads `items`, in order.
    pub fn new(items: Vec<Item>) -> Self {
        Self {
            items: items.into_iter(),
            current: ItemAttrs::new(Item::new()),
        }
    }
}

impl ItemReader for OwnedItems {
    fn next_item(&mut self) -> Option<&mut dyn AttrReader> {
        self.current = ItemAttrs::new(self.items.next()?);
        Some(&mut self.current)
    }

    fn remaining(&self) -> usize {
        self.items.len()
    }
}

/// The items of one response, for the decoders. The variants singletable's
/// own executors answer with (maps, and [`EncodedItems`] in place) are
/// read with static dispatch whatever the executor's type, a
/// `dyn Executor` included; any other executor can hand out its own
/// [`ItemReader`], read through `dyn AttrReader`.
///
/// ```
/// use singletable_core::reader::{ItemReader, Items, OwnedItems};
/// use singletable::Item;
///
/// let maps: Items = vec![Item::new()].into();
/// assert_eq!(maps.remaining(), 1);
/// let boxed = Items::Reader(Box::new(OwnedItems::new(vec![Item::new(); 3])));
/// assert_eq!(boxed.remaining(), 3);
/// ```
pub enum Items {
    /// Items as maps.
    Maps(OwnedItems),
    /// Items encoded, read in place (the embedded backend's pages).
    Encoded(EncodedItems),
    /// Items behind any other reader.
    Reader(Box<dyn ItemReader>),
}

impl From<Vec<Item>> for Items {
    fn from(items: Vec<Item>) -> Self {
        Items::Maps(OwnedItems::new(items))
    }
}

impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Items({} left)", self.remaining())
    }
}

impl ItemReader for Items {
    fn next_item(&mut self) -> Option<&mut dyn AttrReader> {
        match self {
            Items::Maps(r) => r.next_item(),
            Items::Encoded(r) => r.next_item(),
            Items::Reader(r) => r.next_item(),
        }
    }

    fn remaining(&self) -> usize {
        match self {
            Items::Maps(r) => r.remaining(),
            Items::Encoded(r) => r.remaining(),
            Items::Reader(r) => r.remaining(),
        }
    }
}

/// Reads items one at a time, with static dispatch on the reader: what a
/// page's decoder gives [`Items::read_each`].
pub trait ReadEach {
    /// Reads one item.
    fn read<R: AttrReader + ?Sized>(&mut self, item: &mut R) -> Result<(), crate::error::Error>;

    /// An item already in a map: decoding from the map directly is faster
    /// than reading it attribute by attribute.
    fn read_map(&mut self, item: Item) -> Result<(), crate::error::Error> {
        self.read(&mut ItemAttrs::new(item))
    }
}

/// How many pages of items the decoders read on this thread, by the way
/// they read them: maps decoded as maps, encoded items read in place with
/// static dispatch, and items behind another executor's [`ItemReader`],
/// read through one dynamic call per attribute. Tests use it to tell the
/// paths apart (the shared handle must read the embedded backend's pages
/// in place); a page costs one thread-local increment.
///
/// ```
/// use singletable_core::reader::{pages_read, Items};
/// use singletable::Item;
///
/// let before = pages_read();
/// # struct Skip;
/// # impl singletable_core::reader::ReadEach for Skip {
/// #     fn read<R: singletable_core::reader::AttrReader + ?Sized>(&mut self, _: &mut R) -> Result<(), singletable::Error> { Ok(()) }
/// # }
/// Items::from(vec![Item::new()]).read_each(&mut Skip)?;
/// let after = pages_read();
/// assert_eq!(after.maps, before.maps + 1);
/// assert_eq!((after.in_place, after.dynamic), (before.in_place, before.dynamic));
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PagesRead {
    /// Pages of items as maps ([`Items::Maps`]: the SDK executor's).
    pub maps: u64,
    /// Pages of encoded items read in place ([`Items::Encoded`]).
    pub in_place: u64,
    /// Pages behind another reader ([`Items::Reader`]).
    pub dynamic: u64,
}

thread_local! {
    static PAGES_READ: std::cell::Cell<PagesRead> = const {
        std::cell::Cell::new(PagesRead { maps: 0, in_place: 0, dynamic: 0 })
    };
}

/// The pages read on this thread so far (see [`PagesRead`]).
///
/// ```
/// let now = singletable_core::reader::pages_read();
/// assert!(singletable_core::reader::pages_read().maps >= now.maps);
/// ```
pub fn pages_read() -> PagesRead {
    PAGES_READ.with(std::cell::Cell::get)
}

fn count_page(f: impl FnOnce(&mut PagesRead)) {
    PAGES_READ.with(|c| {
        let mut p = c.get();
        f(&mut p);
        c.set(p);
    });
}

impl Items {
    /// Gives every item left to `each`, in order: maps as maps, encoded
    /// items in place with the decoder inlined into the attribute loop, any
    /// other reader through `dyn AttrReader`.
    pub fn read_each(self, each: &mut impl ReadEach) -> Result<(), crate::error::Error> {
        match self {
            Items::Maps(r) => {
                count_page(|p| p.maps += 1);
                for item in r.items {
                    each.read_map(item)?;
                }
            }
            Items::Encoded(r) => {
                count_page(|p| p.in_place += 1);
                r.read_each(each)?;
            }
            Items::Reader(mut r) => {
                count_page(|p| p.dynamic += 1);
                while let Some(item) = r.next_item() {
                    each.read(item)?;
                }
            }
        }
        Ok(())
    }
}

/// One Query or Scan page, its items for the decoders.
///
/// ```
/// use singletable_core::reader::{ItemReader, ReaderPage};
/// use singletable_core::request::Page;
/// use singletable::Item;
///
/// let page = ReaderPage::from(Page { items: vec![Item::new()], last_key: None, ..Default::default() });
/// assert_eq!(page.items.remaining(), 1);
/// assert!(page.last_key.is_none()); // the last page
/// ```
#[derive(Debug)]
pub struct ReaderPage {
    /// The page's items.
    pub items: Items,
    /// Key to continue from; `None` on the last page.
    pub last_key: Option<Item>,
    /// Items evaluated before the filter (`ScannedCount`), when the
    /// executor reports it.
    pub scanned: Option<usize>,
}

impl From<Page> for ReaderPage {
    fn from(page: Page) -> Self {
        Self {
            items: page.items.into(),
            last_key: page.last_key,
            scanned: page.scanned,
        }
    }
}

/// What to do with an item of an entity type the query does not decode.
///
/// ```
/// use singletable::{AttributeValue, Entity, Error, OtherTypes, Table};
/// use singletable_core::reader::ItemAttrs;
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// let mut other = User { id: "ana".into() }.to_item()?;
/// other.insert("entityType".into(), AttributeValue::S("Order".into()));
/// assert!(User::read_item(&mut ItemAttrs::new(other.clone()), OtherTypes::Skip)?.is_none());
/// assert!(matches!(User::read_item(&mut ItemAttrs::new(other), OtherTypes::Error), Err(Error::Decode { .. })));
/// assert_eq!(OtherTypes::default(), OtherTypes::Error);
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OtherTypes {
    /// Fail with a decode error (the default: a surprise is a design bug).
    #[default]
    Error,
    /// Leave the item out of the results: an item of another entity type,
    /// and one no entity type can be read from (no entity-type attribute,
    /// as items other clients wrote have, or one that is not a string).
    Skip,
}

/// The entity type stored in an item, if any.
///
/// ```
/// use singletable::{AttributeValue, Item};
/// use singletable_core::{reader::entity_type_of};
///
/// let item: Item = [("entityType".to_string(), AttributeValue::S("Order".into()))].into();
/// assert_eq!(entity_type_of(&item, "entityType"), Some("Order"));
/// assert_eq!(entity_type_of(&Item::new(), "entityType"), None);
/// ```
pub fn entity_type_of<'a>(item: &'a Item, attribute: &str) -> Option<&'a str> {
    match item.get(attribute) {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// An owned key attribute value as a lent one.
#[inline]
pub(crate) fn lend(v: &AttributeValue) -> KeyRef<'_> {
    match v {
        AttributeValue::S(s) => KeyRef::S(s),
        other => KeyRef::Other(Box::new(other.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn owned_items_read_back_whole() {
        let a = item(&[
            ("PK", AttributeValue::S("A#1".into())),
            ("n", AttributeValue::N("1.5".into())),
            ("l", AttributeValue::L(vec![AttributeValue::Bool(true)])),
        ]);
        let b = item(&[("PK", AttributeValue::S("A#2".into()))]);
        let mut r = OwnedItems::new(vec![a.clone(), b.clone()]);
        assert_eq!(r.remaining(), 2);
        let first = collect_item(r.next_item().expect("first")).expect("read");
        assert_eq!(first, a);
        assert_eq!(
            collect_item(r.next_item().expect("second")).expect("read"),
            b
        );
        assert!(r.next_item().is_none());
    }

    #[test]
    fn attr_refs_borrow_and_own_alike() {
        let borrowed = AttrRef::N("42");
        let owned = AttrRef::owned(AttributeValue::N("42".into()));
        assert_eq!(borrowed.as_n(), owned.as_n());
        assert_eq!(borrowed.as_s(), None);
        assert_eq!(borrowed.type_name(), "N");
        assert_eq!(borrowed.clone().into_owned(), owned.into_owned());
        assert_eq!(AttrRef::S("x").as_s(), Some("x"));
        let e = AttrRef::owned(AttributeValue::Bool(true)).wrong_type("S (String)");
        assert!(e.to_string().contains("BOOL"), "{e}");
    }
}
