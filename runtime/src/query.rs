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
pub use crate::reader::OtherTypes;
use crate::reader::entity_type_of;
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

// The bound of `consistent()`: public only through `__private`, for its
// message on a global index.
pub(crate) mod consistent {
    use super::*;

    /// Implemented by the places that allow strongly consistent reads.
    ///
    /// ```
    /// use singletable::__private::ConsistentRead;
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
}
use consistent::ConsistentRead;

pub(crate) mod build;
mod pages;
pub(crate) mod projected;
mod run;
mod scan;

#[allow(unused_imports)]
use pages::Marker;
pub use pages::{Cursor, Page};
pub use projected::Projected;
use projected::*;
pub use scan::Scan;

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
