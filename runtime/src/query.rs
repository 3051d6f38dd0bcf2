//! Typed queries: built by the generated access-pattern functions, run by a
//! [`Db`], decoded into entities (or collections of entities).
//!
//! Each `#[access(..)]` pattern's function returns a [`Query`] typed by a
//! marker the derive generates for the pattern (`OrderOrdersQuery`: entity,
//! then pattern), whose sort-key conditions come from [`crate::sort`];
//! `#[derive(Collection)]` gives `Collection::query(partition)`. The type
//! parameter `I` is where the query reads ([`OnTable`], [`OnLocalIndex`],
//! [`OnGlobalIndex`]), which decides at compile time whether
//! `consistent()` exists; `P` is the pattern, whose cursors it takes.
//!
//! ```
//! use singletable::{Db, Embedded, Entity, OnGlobalIndex, OnLocalIndex, OnTable, Query, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1, lsi1)]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App)]
//! #[pk("USER#<user>")]
//! #[sk("ORDER#<n>")]
//! #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
//! #[lsi1(sk = "TOTAL#<total>")]
//! #[access(orders)]
//! #[access(by_status, index = gsi1)]
//! #[access(by_total, index = lsi1)]
//! pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
//!
//! // Typed by the place it reads and by its access pattern (the query
//! // type the derive names, whose cursors it takes).
//! let _: Query<Order, OnTable, OrderOrdersQuery> = Order::orders("ana").consistent();
//! let _: Query<Order, OnLocalIndex, OrderByTotalQuery> = Order::by_total("ana").sk_ge(10).consistent();
//! let _: Query<Order, OnGlobalIndex, OrderByStatusQuery> = Order::by_status("NEW"); // no consistent()
//! ```
//!
//! A strongly consistent read of a global index does not compile:
//!
//! ```compile_fail
//! # use singletable::{Entity, Table};
//! # #[derive(Table)]
//! # #[table(name = "App", gsi1)]
//! # pub struct App;
//! # #[derive(Entity)]
//! # #[entity(table = App)]
//! # #[pk("USER#<user>")]
//! # #[sk("ORDER#<n>")]
//! # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
//! # #[access(by_status, index = gsi1)]
//! # pub struct Order { pub user: String, pub n: u32, pub status: String }
//! let q = Order::by_status("NEW").consistent(); // error: global secondary indexes do not support strongly consistent reads
//! ```

use std::marker::PhantomData;

use futures_util::Stream;

use crate::db::Db;
use crate::entity::{AttributeKey, Entity};
use crate::error::{DecodeError, DecodeErrorKind, Error, Refusal};
use crate::exec::Executor;
use crate::expr::{
    AttrKeyCondition, AttrRange, Condition, KeyCondition, Path, Rendered, SortCondition,
};
use crate::page::{self, CursorScope};
use crate::reader::{AttrReader, ItemReader, Items, ReadEach};
// Decoding policy of the readers, named here where queries use it.
pub use crate::decode::Decode;
pub use crate::key::KeyOf;
pub use crate::reader::{OtherTypes, entity_type_of};
use crate::request::QueryRequest;
use crate::value::{AttributeValue, Item};

/// Where a query reads: the table itself. See the [module example](self).
///
/// ```
/// use singletable::{OnTable, Query};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// let q: Query<Order, OnTable, _> = Order::orders("ana");
/// # let _ = q;
/// ```
#[derive(Debug)]
pub enum OnTable {}
/// Where a query reads: a local secondary index.
///
/// ```
/// use singletable::{OnLocalIndex, Query};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// let q: Query<Order, OnLocalIndex, _> = Order::by_total("ana").consistent();
/// # let _ = q;
/// ```
#[derive(Debug)]
pub enum OnLocalIndex {}
/// Where a query reads: a global secondary index. Global indexes are
/// eventually consistent only, so queries on them have no `consistent()`.
///
/// ```
/// use singletable::{OnGlobalIndex, Query};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// let q: Query<Order, OnGlobalIndex, _> = Order::by_status("NEW");
/// # let _ = q;
/// ```
#[derive(Debug)]
pub enum OnGlobalIndex {}

/// Implemented by the places that allow strongly consistent reads.
///
/// ```
/// use singletable::query::ConsistentRead;
/// use singletable::{OnLocalIndex, OnTable};
///
/// fn allows_consistent_reads<I: ConsistentRead>() {}
/// allows_consistent_reads::<OnTable>();
/// allows_consistent_reads::<OnLocalIndex>();
/// ```
#[diagnostic::on_unimplemented(
    message = "global secondary indexes do not support strongly consistent reads",
    label = "this query reads a global index",
    note = "DynamoDB allows `ConsistentRead` on tables and local indexes only"
)]
pub trait ConsistentRead {}
impl ConsistentRead for OnTable {}
impl ConsistentRead for OnLocalIndex {}

/// An item of entity `E` as an index with an `INCLUDE` projection holds
/// it: its primary key and the projected attributes, decoded as the
/// `#[derive(Document)]` type `D` (`#[access(name, index = gsiN, select =
/// D)]`). The derive checks at compile time that the index projects every
/// attribute `D` reads ([`Document::ATTRIBUTES`](crate::nested::Document::ATTRIBUTES)).
///
/// ```
/// use singletable::{Db, Document, Embedded, Entity, Projected, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", gsi1(include(title, price)))]
/// pub struct Shop;
///
/// #[derive(Entity)]
/// #[entity(table = Shop)]
/// #[pk("PRODUCT#<id>")]
/// #[sk("PRODUCT")]
/// #[gsi1(pk = "CATEGORY#<category>", sk = "PRODUCT#<id>")]
/// #[access(listing, index = gsi1, select = Listing)]
/// pub struct Product { pub id: String, pub category: String, pub title: String, pub price: u32, pub description: String }
///
/// /// What the category index shows of a product.
/// #[derive(Document, Debug, PartialEq)]
/// pub struct Listing { pub title: String, pub price: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Product { id: "p1".into(), category: "tea".into(), title: "Sencha".into(), price: 12, description: "…".into() }).await?;
/// let listed: Vec<Projected<Product, Listing>> = Product::listing("tea").all(&db).await?;
/// assert_eq!(listed[0].item, Listing { title: "Sencha".into(), price: 12 });
/// assert_eq!(listed[0].key, Product::key("p1")?);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Projected<E, D> {
    /// The item's primary key, checked against `E`'s key templates.
    pub key: crate::key::PrimaryKey,
    /// The projected attributes.
    pub item: D,
    entity: PhantomData<fn() -> E>,
}

impl<E, D: Clone> Clone for Projected<E, D> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            item: self.item.clone(),
            entity: PhantomData,
        }
    }
}

impl<E, D: PartialEq> PartialEq for Projected<E, D> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.item == other.item
    }
}

impl<E: Entity, D: std::fmt::Debug> std::fmt::Debug for Projected<E, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Projected")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("item", &self.item)
            .finish()
    }
}

impl<E: Entity, D: crate::nested::Document> Decode for Projected<E, D> {
    type Table = E::Table;

    fn decode(item: Item, other: OtherTypes) -> Result<Option<Self>, Error> {
        let Some(key) = singletable_core::__private::own_key::<E>(&item, other)? else {
            return Ok(None);
        };
        let item = D::from_attr(AttributeValue::M(item)).map_err(|source| Error::Decode {
            entity: E::ENTITY_TYPE,
            source,
        })?;
        Ok(Some(Self {
            key,
            item,
            entity: PhantomData,
        }))
    }

    // What `E`'s keys say: the same as a read of the keys alone.
    fn key_matches(pk: &str, sk: Option<&str>) -> bool {
        KeyOf::<E>::key_matches(pk, sk)
    }

    fn ttl_attribute() -> Option<&'static str> {
        KeyOf::<E>::ttl_attribute()
    }

    fn cursor_scope() -> &'static str {
        KeyOf::<E>::cursor_scope()
    }

    fn index_projection(index: &str) -> crate::entity::Projection {
        KeyOf::<E>::index_projection(index)
    }

    fn adopts() -> bool {
        KeyOf::<E>::adopts()
    }
}

/// Decodes items into a vector (see [`Query::read_items`]).
struct Collect<'o, T> {
    other: OtherTypes,
    expiry: crate::ttl::Expiry,
    out: &'o mut Vec<T>,
}

impl<T: Decode> ReadEach for Collect<'_, T> {
    fn read_map(&mut self, item: Item) -> Result<(), Error> {
        if self.expiry.hides(&item) {
            return Ok(());
        }
        if let Some(v) = T::decode(item, self.other)? {
            self.out.push(v);
        }
        Ok(())
    }

    #[inline]
    fn read<R: AttrReader + ?Sized>(&mut self, item: &mut R) -> Result<(), Error> {
        let other = self.other;
        // The watch costs a comparison per attribute: only when needed.
        let read = if self.expiry.hides_nothing() {
            T::read(item, other)
        } else {
            match self.expiry.read(item, |r| T::read(r, other)) {
                Some(read) => read,
                None => return Ok(()),
            }
        };
        if let Some(v) = read? {
            self.out.push(v);
        }
        Ok(())
    }
}

/// The error for an item no variant of a collection reads.
#[doc(hidden)]
pub fn unknown_type(collection: &'static str, item: &Item, attribute: &str) -> Error {
    let found = entity_type_of(item, attribute).unwrap_or("").to_owned();
    Error::Decode {
        entity: collection,
        source: DecodeError::new(DecodeErrorKind::EntityType {
            expected: collection,
            found,
        })
        .at(attribute),
    }
}

/// One page of typed results and the cursor to the next page.
///
/// ```
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..3 {
///     db.put(&Order { user: "ana".into(), n, status: "NEW".into(), total: n }).await?;
/// }
/// let mut cursor = None;
/// let mut seen = 0;
/// loop {
///     // One Query per page; the cursor is opaque and sealed.
///     let page = Order::orders("ana").limit(2).page(&db, cursor.as_ref()).await?;
///     seen += page.items.len();
///     match page.cursor {
///         Some(c) => cursor = Some(c),
///         None => break,
///     }
/// }
/// assert_eq!(seen, 3);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Page<T, P = ()> {
    /// Items of this page.
    pub items: Vec<T>,
    /// Opaque, URL-safe cursor to pass to the next `page()` call of the
    /// same access pattern (its type says which); `None` on the last page.
    pub cursor: Option<Cursor<P>>,
    /// DynamoDB's `Count`: the items the response held, after the filter.
    /// More than `items.len()` when some were of other entity types
    /// (skipped) or expired (hidden).
    pub count: usize,
    /// DynamoDB's `ScannedCount`: the items the key condition read before
    /// the filter, what the page's read capacity paid for; `None` when the
    /// executor does not report it (and on a sharded query's merged page,
    /// which several Queries make).
    pub scanned_count: Option<usize>,
}

// By hand: derived impls would ask the pattern `P` for them too.
impl<T: std::fmt::Debug, P> std::fmt::Debug for Page<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("items", &self.items)
            .field("cursor", &self.cursor)
            .field("count", &self.count)
            .field("scanned_count", &self.scanned_count)
            .finish()
    }
}

impl<T: Clone, P> Clone for Page<T, P> {
    fn clone(&self) -> Self {
        Self {
            items: self.items.clone(),
            cursor: self.cursor.clone(),
            count: self.count,
            scanned_count: self.scanned_count,
        }
    }
}

impl<T: PartialEq, P> PartialEq for Page<T, P> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
            && self.cursor == other.cursor
            && self.count == other.count
            && self.scanned_count == other.scanned_count
    }
}

/// Where a query of access pattern `P` continues: the sealed, URL-safe
/// text a page hands out (see [`crate::page`]), typed by the pattern that
/// wrote it, so that a cursor of one pattern passed to another does not
/// compile. A cursor that comes back from a client is a string: wrap it
/// with [`Cursor::from_client`] (or `parse`) for the pattern it is given
/// to; the page then checks, when it opens it, that it was sealed for that
/// query, and refuses any other with [`Error::Cursor`].
///
/// ```
/// use singletable::query::Cursor;
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[access(orders)]
/// # pub struct Order { pub user: String, pub n: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..3 {
///     db.put(&Order { user: "ana".into(), n }).await?;
/// }
/// let first = Order::orders("ana").limit(2).page(&db, None).await?;
/// // To a client and back, as text.
/// let text: String = first.cursor.unwrap().into_string();
/// let cursor = Cursor::from_client(text);
/// let next = Order::orders("ana").limit(2).page(&db, Some(&cursor)).await?;
/// assert_eq!(next.items.len(), 1);
/// assert!(next.cursor.is_none());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
pub struct Cursor<P = ()> {
    text: String,
    _pattern: PhantomData<fn() -> P>,
}

impl<P> Cursor<P> {
    /// A cursor a page of this pattern wrote.
    pub(crate) fn sealed(text: String) -> Self {
        Self {
            text,
            _pattern: PhantomData,
        }
    }

    /// A cursor as a client sent it back, for the pattern it is given to;
    /// checked when a page opens it.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.as_str(), "abc");
    /// ```
    pub fn from_client(text: impl Into<String>) -> Self {
        Self::sealed(text.into())
    }

    /// The cursor's text, to hand to a client.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.as_str(), "abc");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The cursor's text, owned.
    ///
    /// ```
    /// let c = singletable::query::Cursor::<()>::from_client("abc");
    /// assert_eq!(c.into_string(), "abc");
    /// ```
    pub fn into_string(self) -> String {
        self.text
    }
}

impl<P> Clone for Cursor<P> {
    fn clone(&self) -> Self {
        Self::sealed(self.text.clone())
    }
}

impl<P> PartialEq for Cursor<P> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<P> Eq for Cursor<P> {}

impl<P> std::hash::Hash for Cursor<P> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl<P> std::fmt::Debug for Cursor<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Cursor").field(&self.text).finish()
    }
}

/// The cursor's text, as it goes to a client.
impl<P> std::fmt::Display for Cursor<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl<P> std::ops::Deref for Cursor<P> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl<P> AsRef<str> for Cursor<P> {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl<P> From<Cursor<P>> for String {
    fn from(c: Cursor<P>) -> Self {
        c.text
    }
}

/// A cursor a client sent back ([`Cursor::from_client`]).
impl<P> std::str::FromStr for Cursor<P> {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::from_client(s))
    }
}

/// What a `Query` is about: what it returns, where it reads, its pattern.
type Marker<T, I, P> = fn() -> (T, I, P);

/// A Query on one partition of the table or an index. Built by generated
/// access-pattern functions; nothing is sent until `page`, `all`, `first` or
/// `stream`.
///
/// ```
/// use futures_util::StreamExt;
/// use singletable::{AttributeValue, Cmp, Condition, Operand};
/// # use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1, lsi1)]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<user>")]
/// # #[sk("ORDER#<n>")]
/// # #[gsi1(pk = "STATUS#<status>", sk = "ORDER#<n>")]
/// # #[lsi1(sk = "TOTAL#<total>")]
/// # #[access(orders)]
/// # #[access(by_status, index = gsi1)]
/// # #[access(by_total, index = lsi1)]
/// # pub struct Order { pub user: String, pub n: u32, pub status: String, pub total: u32 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for n in 0..5 {
///     let status = if n % 2 == 0 { "NEW" } else { "SHIPPED" };
///     db.put(&Order { user: "ana".into(), n, status: status.into(), total: 10 * n }).await?;
/// }
/// let q = || Order::orders("ana");
/// assert_eq!(q().all(&db).await?.len(), 5);                       // every page
/// assert_eq!(q().newest_first().first(&db).await?.unwrap().n, 4); // ScanIndexForward=false
/// assert_eq!(q().limit(2).all(&db).await?.len(), 2);
/// assert_eq!(q().consistent().count(&db).await?, 5);              // Select=COUNT
///
/// // FilterExpression: applied after reading (same read capacity).
/// let big = Condition::Compare(Operand::Path("total".into()), Cmp::Ge, Operand::Value(AttributeValue::N("30".into())));
/// let totals: Vec<u32> = q().filter_raw(big).all(&db).await?.iter().map(|o| o.total).collect();
/// assert_eq!(totals, [30, 40]);
/// let typed = q().filter(singletable::FieldPath::ge(Order::fields().total, &30)).count(&db).await?;
/// assert_eq!(typed, 2);
///
/// let page = q().limit(3).page(&db, None).await?;
/// assert_eq!(page.items.len(), 3);
/// let mut stream = Box::pin(q().stream(&db));                     // pages fetched lazily
/// assert_eq!(stream.next().await.unwrap()?.n, 0);
///
/// // ProjectionExpression: the decoder still needs the entity type and
/// // every required field.
/// let projected = q().project(&["entityType", "user", "n", "status", "total"]).all(&db).await?;
/// assert_eq!(projected.len(), 5);
/// assert_eq!(q().skip_other_types().include_expired().all(&db).await?.len(), 5);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a query does nothing until it is run with page, all, first or stream"]
pub struct Query<T, I = OnTable, P = ()> {
    pattern: &'static str,
    index: Option<&'static str>,
    pk_attr: &'static str,
    sk_attr: Option<&'static str>,
    key_attrs: Vec<&'static str>,
    pk: String,
    sk: Option<SortCondition>,
    /// The key condition of a query on a multi-attribute index, and the
    /// index's key.
    attrs: Option<(AttrKeyCondition, AttributeKey)>,
    error: Option<Error>,
    forward: bool,
    limit: Option<u32>,
    consistent_read: bool,
    filter: Option<Condition>,
    projection: Option<Vec<Path>>,
    other: Option<OtherTypes>,
    include_expired: bool,
    _marker: PhantomData<Marker<T, I, P>>,
}

impl<T, I, P> std::fmt::Debug for Query<T, I, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("pattern", &self.pattern)
            .field("index", &self.index)
            .field("pk", &self.pk)
            .field("sk", &self.sk)
            .field("forward", &self.forward)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// Where a query on a multi-attribute index reads, as generated code
/// describes it.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct AttrTarget {
    pub pattern: &'static str,
    pub index: &'static str,
    pub key: AttributeKey,
    pub table_pk: &'static str,
    pub table_sk: Option<&'static str>,
}

/// Where a query reads, as generated code describes it.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub pattern: &'static str,
    pub index: Option<&'static str>,
    pub pk_attr: &'static str,
    pub sk_attr: Option<&'static str>,
    pub table_pk: &'static str,
    pub table_sk: Option<&'static str>,
}

impl<T, I, P> Query<T, I, P> {
    /// A query of the partition `pk` (or the error that building it gave).
    #[doc(hidden)]
    pub fn new(target: Target, pk: Result<String, Error>) -> Self {
        let mut key_attrs = vec![target.table_pk, target.pk_attr];
        key_attrs.extend(target.table_sk);
        key_attrs.extend(target.sk_attr);
        key_attrs.sort_unstable();
        key_attrs.dedup();
        let (pk, error) = match pk {
            Ok(pk) => (pk, None),
            Err(e) => (String::new(), Some(e)),
        };
        Self {
            pattern: target.pattern,
            index: target.index,
            pk_attr: target.pk_attr,
            sk_attr: target.sk_attr,
            key_attrs,
            pk,
            sk: None,
            attrs: None,
            error,
            forward: true,
            limit: None,
            consistent_read: false,
            filter: None,
            projection: None,
            other: None,
            include_expired: false,
            _marker: PhantomData,
        }
    }

    /// A query of a multi-attribute index's partition, given the values
    /// of its partition attributes in key-schema order (or the error that
    /// building them gave).
    #[doc(hidden)]
    pub fn on_attributes(
        target: AttrTarget,
        partition: Result<Vec<(&'static str, AttributeValue)>, Error>,
    ) -> Self {
        let mut q = Self::new(
            Target {
                pattern: target.pattern,
                index: Some(target.index),
                pk_attr: "",
                sk_attr: None,
                table_pk: target.table_pk,
                table_sk: target.table_sk,
            },
            Ok(String::new()),
        );
        let mut key_attrs = vec![target.table_pk];
        key_attrs.extend(target.table_sk);
        key_attrs.extend(target.key.all().map(|a| a.name));
        key_attrs.sort_unstable();
        key_attrs.dedup();
        q.key_attrs = key_attrs;
        let equal: Vec<(String, AttributeValue)> = match partition {
            Ok(values) => values.into_iter().map(|(a, v)| (a.to_owned(), v)).collect(),
            Err(e) => {
                q.error = Some(e);
                Vec::new()
            }
        };
        q.pk = page::partition_text(&equal);
        q.attrs = Some((AttrKeyCondition { equal, range: None }, target.key));
        q
    }

    /// Adds equality on the next sort attribute of a multi-attribute key.
    #[doc(hidden)]
    pub fn with_attr_eq(self, attr: &'static str, value: Result<AttributeValue, Error>) -> Self {
        self.with_attr_condition(attr, value, |k, v| k.equal.push((attr.to_owned(), v)))
    }

    /// Sets the range condition on a sort attribute of a multi-attribute
    /// key (the last condition).
    #[doc(hidden)]
    pub fn with_attr_range(self, attr: &'static str, range: Result<AttrRange, Error>) -> Self {
        self.with_attr_condition(attr, range, |k, r| k.range = Some((attr.to_owned(), r)))
    }

    /// Adds a condition on a sort attribute of a multi-attribute key with
    /// `add`; the first error (of the value, or of a query on no such
    /// index) is kept for the request.
    fn with_attr_condition<V>(
        mut self,
        attr: &'static str,
        value: Result<V, Error>,
        add: impl FnOnce(&mut AttrKeyCondition, V),
    ) -> Self {
        match (value, &mut self.attrs) {
            (Ok(v), Some((k, _))) => add(k, v),
            (Ok(_), None) => {
                self.error
                    .get_or_insert(Error::Refused(Refusal::NotMultiAttribute {
                        attribute: attr.to_string(),
                    }));
            }
            (Err(e), _) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Sets the sort-key condition (from a generated, typed builder).
    #[doc(hidden)]
    pub fn with_sort(mut self, sk: Result<SortCondition, Error>) -> Self {
        match sk {
            Ok(sk) => self.sk = Some(sk),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// The same query, typed by another pattern marker (a multi-attribute
    /// query moving to its next sort attribute).
    pub(crate) fn retyped<Q>(self) -> Query<T, I, Q> {
        Query {
            pattern: self.pattern,
            index: self.index,
            pk_attr: self.pk_attr,
            sk_attr: self.sk_attr,
            key_attrs: self.key_attrs,
            pk: self.pk,
            sk: self.sk,
            attrs: self.attrs,
            error: self.error,
            forward: self.forward,
            limit: self.limit,
            consistent_read: self.consistent_read,
            filter: self.filter,
            projection: self.projection,
            other: self.other,
            include_expired: self.include_expired,
            _marker: PhantomData,
        }
    }

    /// Whether a sort-key condition is set.
    #[doc(hidden)]
    pub fn has_sort(&self) -> bool {
        self.sk.is_some()
    }

    /// Descending sort-key order (`ScanIndexForward=false`): newest first
    /// when the sort key starts with a timestamp or a time-ordered id.
    pub fn newest_first(mut self) -> Self {
        self.forward = false;
        self
    }

    /// At most `n` items: the page size for [`Query::page`], the total for
    /// [`Query::all`] and [`Query::stream`]. DynamoDB's `Limit` counts items
    /// evaluated before a filter, so a filtered page may hold fewer.
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Keeps only items matching the typed `filter` (a `FilterExpression`,
    /// evaluated by DynamoDB after reading: it saves bandwidth, not read
    /// capacity, and `limit` counts the items read before it). Filters
    /// added one after the other must all hold.
    ///
    /// A query of an entity takes that entity's conditions
    /// (`Order::fields().status.eq("SHIPPED")`); a query of a collection
    /// takes its members' conditions through
    /// [`Cond::in_collection`](crate::Cond::in_collection), each holding
    /// for the items of its entity only.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, FieldPath, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(table = App, name = "Task")]
    /// #[pk("LIST#<list>")]
    /// #[sk("TASK#<id>")]
    /// #[access(tasks)]
    /// pub struct Task { pub list: String, pub id: String, pub status: String }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> singletable::Result<()> {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for (id, status) in [("1", "OPEN"), ("2", "DONE"), ("3", "OPEN")] {
    ///     db.put(&Task { list: "l".into(), id: id.into(), status: status.into() }).await?;
    /// }
    /// let open = Task::tasks("l").filter(Task::fields().status.eq("OPEN")).all(&db).await?;
    /// assert_eq!(open.len(), 2);
    /// # Ok(())
    /// # }
    /// ```
    pub fn filter(mut self, filter: crate::fields::Cond<T>) -> Self {
        match filter.into_condition() {
            Ok(c) => self.filter_raw(c),
            Err(e) => {
                self.error.get_or_insert(e);
                self
            }
        }
    }

    /// [`Query::filter`] with an untyped [`Condition`], for attributes the
    /// field handles do not name.
    pub fn filter_raw(mut self, filter: Condition) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(f) => f.and(filter),
            None => filter,
        });
        self
    }

    /// Returns only these attributes (`ProjectionExpression`). The decoder
    /// still needs every required field, so this suits entities whose other
    /// fields are optional or defaulted.
    pub fn project(mut self, attributes: &[&str]) -> Self {
        self.projection = Some(attributes.iter().map(|a| Path::new(*a)).collect());
        self
    }

    /// Also returns the value at `path` (added to the projection): a field,
    /// or a typed path below one, such as a map entry
    /// (`f.reviewers.entry("ana")`), a nested document's field
    /// (`f.address.field(|a| a.city)`) or a list element (`f.lines.at(0)`).
    /// DynamoDB returns the attribute holding only what the paths name (a
    /// list only the elements named, in order); every name is sent as its
    /// own `#n` placeholder, so reserved words, dots and brackets in map
    /// keys are safe. The decoder still needs every required field:
    /// project those with [`Query::project`] first.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use singletable::{Db, Document, Entity, FieldPath, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Document, Debug, Clone, PartialEq, Default)]
    /// pub struct Address { pub city: Option<String>, pub zip: Option<String> }
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(table = App, name = "Order")]
    /// #[pk("USER#<user>")]
    /// #[sk("ORDER#<id>")]
    /// #[access(orders)]
    /// pub struct Order {
    ///     pub user: String,
    ///     pub id: String,
    ///     pub address: Option<Address>,
    ///     pub reviewers: Option<BTreeMap<String, bool>>,
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<singletable::Embedded>::in_memory::<App>("App")?;
    /// let address = Address { city: Some("Lyon".into()), zip: Some("69001".into()) };
    /// let reviewers = BTreeMap::from([("ana.b".to_owned(), true), ("bob".to_owned(), false)]);
    /// db.put(&Order { user: "u".into(), id: "1".into(), address: Some(address), reviewers: Some(reviewers) }).await?;
    ///
    /// let f = Order::fields();
    /// let orders = Order::orders("u")
    ///     .project(&["entityType", "user", "id"])
    ///     .project_path(f.address.field(|a| a.city))   // #n3.#n4
    ///     .project_path(f.reviewers.entry("ana.b"))    // #n5.#n6: one key, dot and all
    ///     .all(&db)
    ///     .await?;
    /// assert_eq!(orders[0].address, Some(Address { city: Some("Lyon".into()), zip: None }));
    /// assert_eq!(orders[0].reviewers, Some(BTreeMap::from([("ana.b".to_owned(), true)])));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn project_path<V: crate::value::Attr>(
        mut self,
        path: impl crate::fields::FieldPath<T, V>,
    ) -> Self
    where
        T: Entity,
    {
        self.projection
            .get_or_insert_with(Vec::new)
            .push(path.path());
        self
    }

    /// [`Query::project_path`] with untyped [`Path`]s, for a collection or
    /// attributes the field handles do not name; added to the projection.
    ///
    /// ```
    /// use singletable::expr::Path;
    /// use singletable::{Db, Entity, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(table = App, name = "Task")]
    /// #[pk("LIST#<list>")]
    /// #[sk("TASK#<id>")]
    /// #[access(tasks)]
    /// pub struct Task { pub list: String, pub id: String, pub tags: Option<Vec<String>> }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<singletable::Embedded>::in_memory::<App>("App")?;
    /// let tags = Some(vec!["a".into(), "b".into(), "c".into()]);
    /// db.put(&Task { list: "l".into(), id: "1".into(), tags }).await?;
    /// let tasks = Task::tasks("l")
    ///     .project(&["entityType", "list", "id"])
    ///     .project_raw([Path::new("tags").index(2), Path::new("tags").index(0)])
    ///     .all(&db)
    ///     .await?;
    /// assert_eq!(tasks[0].tags, Some(vec!["a".to_owned(), "c".to_owned()])); // in list order
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn project_raw(mut self, paths: impl IntoIterator<Item = Path>) -> Self {
        self.projection.get_or_insert_with(Vec::new).extend(paths);
        self
    }

    /// Skips items of other entity types instead of failing on them, and
    /// items it cannot attribute to any (no entity-type attribute, as items
    /// other clients of the table write, or one that is not a string).
    pub fn skip_other_types(mut self) -> Self {
        self.other = Some(OtherTypes::Skip);
        self
    }

    /// Fails on items of other entity types and on items it cannot
    /// attribute, with a decode error: the default, unless the table
    /// declares `#[table(other_items = skip)]` (see
    /// [`Table::OTHER_ITEMS`](crate::Table::OTHER_ITEMS)).
    ///
    /// ```
    /// # use singletable::{AttributeValue, Db, Embedded, Entity, Error, Executor, Item, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shared", other_items = skip)]
    /// # pub struct Shared;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shared)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("ORDER#<n>")]
    /// # #[access(orders)]
    /// # pub struct Order { pub id: String, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Shared>("Shared")?;
    /// let theirs: Item = [("PK", "USER#ana"), ("SK", "ORDER#x")]
    ///     .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
    ///     .into();
    /// db.executor().put_item(singletable::request::PutItem {
    ///     table: "Shared".into(), item: theirs, condition: None,
    ///     return_old: false, return_on_condition_failure: false,
    /// }).await?;
    /// assert!(Order::orders("ana").all(&db).await?.is_empty()); // the table skips it
    /// let strict = Order::orders("ana").fail_on_other_types();
    /// assert!(matches!(strict.all(&db).await, Err(Error::Decode { .. })));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn fail_on_other_types(mut self) -> Self {
        self.other = Some(OtherTypes::Error);
        self
    }

    /// Also returns items whose TTL has passed but that DynamoDB has not
    /// deleted yet (it deletes them lazily, up to days later). By default
    /// they are hidden.
    pub fn include_expired(mut self) -> Self {
        self.include_expired = true;
        self
    }

    /// The same query on another partition (a shard of this one).
    pub(crate) fn for_partition(&self, pk: String) -> Self {
        Self {
            pattern: self.pattern,
            index: self.index,
            pk_attr: self.pk_attr,
            sk_attr: self.sk_attr,
            key_attrs: self.key_attrs.clone(),
            pk,
            sk: self.sk.clone(),
            attrs: self.attrs.clone(),
            error: None,
            forward: self.forward,
            limit: self.limit,
            consistent_read: self.consistent_read,
            filter: self.filter.clone(),
            projection: self.projection.clone(),
            other: self.other,
            include_expired: self.include_expired,
            _marker: PhantomData,
        }
    }

    pub(crate) fn partition(&self) -> &str {
        &self.pk
    }

    pub(crate) fn sort_attr(&self) -> Option<&'static str> {
        self.sk_attr
    }

    pub(crate) fn is_forward(&self) -> bool {
        self.forward
    }

    pub(crate) fn no_limit(&mut self) {
        self.limit = None;
    }

    pub(crate) fn limit_value(&self) -> Option<u32> {
        self.limit
    }

    /// What this query's cursors are valid for; `shards` is the number of
    /// shards a sharded query reads (0 for a plain one).
    pub(crate) fn scope(&self, shards: usize) -> CursorScope<'_>
    where
        T: Decode,
    {
        CursorScope {
            entity: T::cursor_scope(),
            pattern: self.pattern,
            partition: &self.pk,
            pk_attr: self.pk_attr,
            key_attrs: &self.key_attrs,
            shape: {
                let shape = page::shape_digest(
                    self.index,
                    self.forward,
                    self.sk.as_ref(),
                    self.filter.as_ref(),
                    shards,
                );
                match &self.attrs {
                    Some((k, _)) => page::with_sort_attrs(shape, &k.equal, k.range.as_ref()),
                    None => shape,
                }
            },
        }
    }

    pub(crate) fn request(
        &self,
        table: &str,
        start: Option<Item>,
        limit: Option<u32>,
    ) -> Result<QueryRequest, Error> {
        let sk = match (&self.sk, self.sk_attr) {
            (Some(cond), Some(attr)) => Some((attr.to_owned(), cond.clone())),
            (Some(_), None) => {
                return Err(Error::Refused(Refusal::NoSortKey));
            }
            (None, _) => None,
        };
        if let (Some((_, key)), Some(filter)) = (&self.attrs, &self.filter) {
            // DynamoDB refuses a filter on a key attribute of the index read
            // ("Filter Expression can only contain non-primary key
            // attributes").
            let mut r = Rendered::default();
            r.condition(filter);
            if let Some(a) = key.all().find(|a| r.names.values().any(|n| n == a.name)) {
                return Err(Error::Refused(Refusal::FilterOnKey {
                    attribute: a.name.to_owned(),
                    index: self.index.unwrap_or(""),
                }));
            }
        }
        Ok(QueryRequest {
            table: table.to_owned(),
            index: self.index.map(str::to_owned),
            key: KeyCondition {
                pk_attr: self.pk_attr.to_owned(),
                pk: self.pk.clone(),
                sk,
                attrs: self.attrs.as_ref().map(|(k, _)| k.clone()),
            },
            filter: self.filter.clone(),
            limit: limit.map(|l| i32::try_from(l).unwrap_or(i32::MAX)),
            forward: self.forward,
            consistent: self.consistent_read,
            projection: self.projection.clone(),
            start,
        })
    }
}

impl<T, I, P> Query<T, I, P> {
    /// Strongly consistent read: sees every write acknowledged before it, at
    /// twice the read cost. Not available on global indexes: calling it on a
    /// global-index query does not compile.
    pub fn consistent(mut self) -> Self
    where
        I: ConsistentRead,
    {
        self.consistent_read = true;
        self
    }
}

impl<T: Decode, I, P> Query<T, I, P> {
    /// The tracing description of page `page` (from 1) of this query.
    pub(crate) fn traced(&self, req: &QueryRequest, page: u32) -> crate::trace::Request<'_> {
        crate::trace::Request {
            entity: Some(T::cursor_scope()),
            pattern: Some(self.pattern),
            index: self.index,
            consistent: Some(self.consistent_read),
            limit: req.limit.and_then(|l| u32::try_from(l).ok()),
            page: Some(page),
            attempt: None,
        }
    }

    /// Sends one Query page, in its span.
    pub(crate) async fn send<E: Executor>(
        &self,
        db: &Db<E>,
        req: QueryRequest,
        page: u32,
    ) -> Result<crate::reader::ReaderPage, Error> {
        let span = crate::trace::span("Query", db.table_name(), &self.traced(&req, page));
        let raw = crate::trace::traced(span.clone(), db.executor().query_reader(req)).await?;
        crate::trace::count(&span, raw.items.remaining());
        Ok(raw)
    }

    /// Sends one `Select=COUNT` Query page, in its span.
    async fn send_count<E: Executor>(
        &self,
        db: &Db<E>,
        req: QueryRequest,
        page: u32,
    ) -> Result<crate::request::CountPage, Error> {
        let span = crate::trace::span("Query", db.table_name(), &self.traced(&req, page));
        let out = crate::trace::traced(span.clone(), db.executor().query_count(req)).await?;
        crate::trace::count(&span, out.count);
        Ok(out)
    }

    pub(crate) fn take_error(&mut self) -> Result<(), Error> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Decodes a page's items into `out`, leaving out items of other types
    /// (when skipped) and items whose TTL has passed (unless included).
    pub(crate) fn read_items(&self, items: Items, out: &mut Vec<T>) -> Result<(), Error> {
        out.reserve(items.remaining());
        let ttl = if self.include_expired {
            None
        } else {
            T::ttl_attribute()
        };
        items.read_each(&mut Collect {
            other: self
                .other
                .unwrap_or(<T::Table as crate::entity::Table>::OTHER_ITEMS),
            expiry: crate::ttl::Expiry::new(ttl),
            out,
        })
    }

    /// One Query request: at most 1 MB read (or `limit` items evaluated),
    /// continuing after `cursor`. The returned cursor leads to the next page.
    pub async fn page<E: Executor>(
        mut self,
        db: &Db<E>,
        cursor: Option<&Cursor<P>>,
    ) -> Result<Page<T, P>, Error> {
        self.take_error()?;
        let start = match cursor {
            Some(c) => Some(page::decode(
                db.cursor_secret(),
                &self.scope(0),
                c.as_str(),
            )?),
            None => None,
        };
        let req = self.request(db.table_name(), start, self.limit)?;
        let raw = self.send(db, req, 1).await?;
        let (count, scanned_count) = (raw.items.remaining(), raw.scanned);
        let mut items = Vec::new();
        self.read_items(raw.items, &mut items)?;
        let cursor = match raw.last_key {
            Some(k) => Some(Cursor::sealed(
                page::encode(db.cursor_secret(), &self.scope(0), &k).ok_or_else(|| {
                    Error::Refused(Refusal::CursorKeyNotString {
                        what: "LastEvaluatedKey",
                    })
                })?,
            )),
            None => None,
        };
        Ok(Page {
            items,
            cursor,
            count,
            scanned_count,
        })
    }

    /// Every matching item, following pages until DynamoDB reports the last
    /// one (or `limit` items are collected). One request per page.
    pub async fn all<E: Executor>(mut self, db: &Db<E>) -> Result<Vec<T>, Error> {
        self.take_error()?;
        let mut out = Vec::new();
        let mut start = None;
        let mut page = 0u32;
        loop {
            let collected = u32::try_from(out.len()).unwrap_or(u32::MAX);
            let remaining = self.limit.map(|l| l.saturating_sub(collected));
            if remaining == Some(0) {
                break;
            }
            let req = self.request(db.table_name(), start.take(), remaining)?;
            page += 1;
            let raw = self.send(db, req, page).await?;
            self.read_items(raw.items, &mut out)?;
            match raw.last_key {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(out)
    }

    /// Counts the matching items instead of reading them: one Query with
    /// `Select=COUNT` per page, following every page (DynamoDB counts at
    /// most 1 MB of items per page), with the same key condition and
    /// filter. It consumes the same read capacity as reading the items but
    /// transfers none. Items whose TTL has passed are not counted (unless
    /// [`Query::include_expired`]), by a filter on the TTL attribute where
    /// the index projects it; `limit` caps the count as it caps
    /// [`Query::all`].
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Docs")]
    /// # pub struct Docs;
    /// #[derive(Entity)]
    /// #[entity(table = Docs, name = "Line")]
    /// #[pk("DOC#<doc>")]
    /// #[sk("LINE#<n>")]
    /// #[access(lines)]
    /// pub struct Line {
    ///     pub doc: String,
    ///     pub n: u32,
    /// }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Docs>("Docs")?;
    /// for n in 0..3 {
    ///     db.put(&Line { doc: "d".into(), n }).await?;
    /// }
    /// assert_eq!(Line::lines("d").count(&db).await?, 3);
    /// assert_eq!(Line::lines("d").sk_ge(1).count(&db).await?, 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn count<E: Executor>(mut self, db: &Db<E>) -> Result<u64, Error> {
        self.take_error()?;
        if T::adopts() {
            // Which untyped items are this type's is a matter of their
            // keys, which no filter expresses: they are read (the same
            // read capacity as `Select=COUNT`) and counted as `all` keeps
            // them.
            return self.all(db).await.map(|items| items.len() as u64);
        }
        self.count_unexpired();
        self.count_own_types();
        let mut total = 0u64;
        let mut start = None;
        let mut page = 0u32;
        loop {
            let remaining = self.limit.map(|l| u64::from(l).saturating_sub(total));
            if remaining == Some(0) {
                break;
            }
            let limit = remaining.map(|r| u32::try_from(r).unwrap_or(u32::MAX));
            let req = self.request(db.table_name(), start.take(), limit)?;
            page += 1;
            let out = self.send_count(db, req, page).await?;
            total += out.count as u64;
            match out.last_key {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(total)
    }

    /// Whether the table or index this query reads holds the non-key
    /// attribute `attr` (an index holds it when it projects every
    /// attribute or includes it), so that a count's filter may name it.
    fn reads_attribute(&self, attr: &str) -> bool {
        use crate::entity::Projection;
        match self.index.map(T::index_projection) {
            None | Some(Projection::All) => true,
            Some(Projection::KeysOnly) => false,
            Some(Projection::Include(attrs)) => attrs.contains(&attr),
        }
    }

    /// Adds the filter that leaves items of other types out of a count
    /// (the ones [`Query::all`] skips or fails on), when the index read
    /// projects the entity-type attribute: DynamoDB's `Select=COUNT`
    /// counts every item the key condition reads.
    /// Not on an index keyed on the entity-type attribute (a multi-attribute
    /// index sorted by type first), whose key attributes DynamoDB refuses
    /// in a filter: an entity's query there selects its type by key
    /// condition already.
    pub(crate) fn count_own_types(&mut self) {
        let attr = <T::Table as crate::entity::Table>::ENTITY_TYPE;
        let projected = self.reads_attribute(attr) && !self.key_attrs.contains(&attr);
        if let Some(own) = T::type_condition(attr).filter(|_| projected) {
            self.filter = Some(own.and_maybe(self.filter.take()));
        }
    }

    /// Adds the filter that leaves expired items out of a count, when the
    /// table has a TTL attribute that the index read projects.
    pub(crate) fn count_unexpired(&mut self) {
        let Some(ttl) = T::ttl_attribute().filter(|_| !self.include_expired) else {
            return;
        };
        if self.reads_attribute(ttl) {
            let now = crate::ttl::now_epoch();
            self.filter = Some(
                Condition::Compare(
                    crate::expr::Operand::Path(ttl.into()),
                    crate::expr::Cmp::Le,
                    crate::expr::Operand::Value(AttributeValue::N(now.to_string())),
                )
                .not()
                .and_maybe(self.filter.take()),
            );
        }
    }

    /// The first matching item, if any. Without a filter it asks DynamoDB
    /// for one item (`Limit=1`, the least a read costs), sort-key ranges
    /// and multi-attribute indexes included; when that item is of another
    /// entity type (skipped), the following pages are read whole until one
    /// holds a match. With a filter it cannot: DynamoDB applies `Limit`
    /// before the filter, so one item read could be one filtered out, and
    /// whole pages are read from the start.
    pub async fn first<E: Executor>(mut self, db: &Db<E>) -> Result<Option<T>, Error> {
        self.take_error()?;
        let mut limit = if self.filter.is_none() {
            Some(1)
        } else {
            self.limit
        };
        let mut start = None;
        let mut pages = 0;
        loop {
            let req = self.request(db.table_name(), start.take(), limit)?;
            pages += 1;
            let raw = self.send(db, req, pages).await?;
            let mut items = Vec::new();
            self.read_items(raw.items, &mut items)?;
            if let Some(first) = items.into_iter().next() {
                return Ok(Some(first));
            }
            match raw.last_key {
                Some(k) => start = Some(k),
                None => return Ok(None),
            }
            limit = self.limit;
        }
    }

    /// Items one by one, fetching pages lazily as the stream is polled.
    pub fn stream<'a, E: Executor>(
        mut self,
        db: &'a Db<E>,
    ) -> impl Stream<Item = Result<T, Error>> + 'a
    where
        T: 'a,
        I: 'a,
        P: 'a,
    {
        struct State<T, I, P> {
            query: Query<T, I, P>,
            buffer: std::collections::VecDeque<T>,
            start: Option<Item>,
            done: bool,
            yielded: u32,
            pages: u32,
        }
        let first_error = self.take_error().err();
        let state = State {
            query: self,
            buffer: Default::default(),
            start: None,
            done: first_error.is_some(),
            yielded: 0,
            pages: 0,
        };
        let error_stream = futures_util::stream::iter(first_error.map(Err));
        let pages = futures_util::stream::try_unfold(state, move |mut st| async move {
            loop {
                if st.query.limit.is_some_and(|limit| st.yielded >= limit) {
                    return Ok(None);
                }
                if let Some(item) = st.buffer.pop_front() {
                    st.yielded += 1;
                    return Ok(Some((item, st)));
                }
                if st.done {
                    return Ok(None);
                }
                let remaining = st.query.limit.map(|l| l - st.yielded);
                let req = st
                    .query
                    .request(db.table_name(), st.start.take(), remaining)?;
                st.pages += 1;
                let raw = st.query.send(db, req, st.pages).await?;
                let mut items = Vec::new();
                st.query.read_items(raw.items, &mut items)?;
                st.buffer.extend(items);
                match raw.last_key {
                    Some(k) => st.start = Some(k),
                    None => st.done = true,
                }
            }
        });
        futures_util::StreamExt::chain(error_stream, pages)
    }
}
