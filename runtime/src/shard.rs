//! Write sharding for hot partitions.
//!
//! An index key declared with `shards = N` gets a suffix `#<0..N>` derived
//! deterministically from the item's primary key (FNV-1a), so every write of
//! an item, and every update or delete of it later, finds the same shard,
//! and N partitions share the load of what would be one hot partition.
//! Queries fan out: one Query per shard, sent concurrently, merged in
//! sort-key order; `limit` and pagination are exact, and the cursor carries
//! each shard's position.
//!
//! ```
//! use singletable::{Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", gsi1)]
//! pub struct Shop;
//!
//! #[derive(Entity)]
//! #[entity(table = Shop)]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! #[gsi1(pk = "ORDERBYDATE", sk = "DATE#<date>", shards = 4)]
//! pub struct Order { pub id: String, pub date: String }
//!
//! // The shard follows the item's primary key, so updates find it again.
//! let order = Order { id: "o1".into(), date: "2024-05-01".into() };
//! let gsi1pk = order.to_item()?["GSI1PK"].as_s().unwrap().clone();
//! let shard: u16 = gsi1pk.strip_prefix("ORDERBYDATE#").unwrap().parse().unwrap();
//! assert!(shard < 4);
//! assert_eq!(order.to_item()?["GSI1PK"].as_s().unwrap(), &gsi1pk);
//! # Ok::<(), singletable::Error>(())
//! ```
//!
//! A sharded index's access pattern returns a [`ShardedQuery`]; see its
//! example.

use std::collections::VecDeque;

use crate::db::Db;
use crate::error::{Error, Refusal};
use crate::exec::Executor;
use crate::expr::{Condition, SortCondition};
use crate::page::{self, ShardPosition};
use crate::query::{Cursor, Decode, OnGlobalIndex, Page, Query};
use crate::value::{AttributeValue, Item};

// How an item's shard is chosen and written: public only through
// `__private`, for the item codec the derive generates.
pub(crate) mod hash {
    /// The shard of the item with primary key `pk`/`sk`, among `shards`
    /// (FNV-1a of the key, stable across platforms and releases).
    ///
    /// ```
    /// use singletable::__private::shard_of;
    ///
    /// let shards: std::collections::BTreeSet<u16> =
    ///     (0..100).map(|i| shard_of(&format!("ORDER#{i}"), None, 4)).collect();
    /// assert_eq!(shards.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
    /// ```
    pub fn shard_of(pk: &str, sk: Option<&str>, shards: u16) -> u16 {
        // FNV-1a, 64 bits: stable across Rust versions and platforms, unlike
        // the standard library's hashers.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(pk.as_bytes());
        eat(&[0]);
        if let Some(sk) = sk {
            eat(sk.as_bytes());
        }
        (h % u64::from(shards.max(1))) as u16
    }

    /// Appends the shard suffix `#<shard>` to an index partition key.
    ///
    /// ```
    /// assert_eq!(singletable::__private::with_shard("ORDERBYDATE", 3), "ORDERBYDATE#3");
    /// ```
    pub fn with_shard(base: &str, shard: u16) -> String {
        format!("{base}#{shard}")
    }
}
pub(crate) use hash::{shard_of, with_shard};

/// A Query on a sharded global-index partition: one request per shard.
///
/// The access pattern of an index declared with `shards = N` returns it,
/// typed by the pattern's marker (its sort-key conditions come from
/// [`crate::sort`]). `page`, `all` and `count` send one Query per shard,
/// concurrently, and merge the items in sort-key order; `limit` is exact
/// and the cursor carries every shard's position.
///
/// ```
/// use singletable::{Db, Embedded, Entity, ShardedQuery, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop", gsi1)]
/// pub struct Shop;
///
/// #[derive(Entity, Debug)]
/// #[entity(table = Shop)]
/// #[pk("ORDER#<id>")]
/// #[sk("DETAILS")]
/// #[gsi1(pk = "ORDERBYDATE", sk = "DATE#<date>", shards = 4)]
/// #[access(by_date, index = gsi1)]
/// pub struct Order { pub id: String, pub date: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// for day in 1..=9 {
///     db.put(&Order { id: format!("o{day}"), date: format!("2024-05-0{day}") }).await?;
/// }
/// let q: ShardedQuery<Order, _> = Order::by_date();
/// assert_eq!(q.shards(), 4);
///
/// // Four Queries per page, merged: the three latest orders of May.
/// let page = Order::by_date()
///     .sk_between("2024-05-01", "2024-05-31")
///     .newest_first()
///     .limit(3)
///     .page(&db, None)
///     .await?;
/// let dates: Vec<_> = page.items.iter().map(|o| o.date.as_str()).collect();
/// assert_eq!(dates, ["2024-05-09", "2024-05-08", "2024-05-07"]);
/// let rest = Order::by_date()
///     .sk_between("2024-05-01", "2024-05-31")
///     .newest_first()
///     .limit(3)
///     .page(&db, page.cursor.as_ref())
///     .await?;
/// assert_eq!(rest.items[0].date, "2024-05-06");
///
/// let q = Order::by_date();
/// assert_eq!(q.filter(singletable::FieldPath::exists(Order::fields().date)).count(&db).await?, 9);
/// let q = Order::by_date();
/// assert_eq!(q.filter_raw(singletable::Condition::Exists("date".into())).count(&db).await?, 9);
/// let all = Order::by_date().skip_other_types().all(&db).await?;
/// assert_eq!(all.len(), 9);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a query does nothing until it is run with page, all or first"]
pub struct ShardedQuery<T, P = ()> {
    base: Query<T, OnGlobalIndex, P>,
    shards: u16,
}

impl<T, P> std::fmt::Debug for ShardedQuery<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedQuery")
            .field("base", &self.base)
            .field("shards", &self.shards)
            .finish()
    }
}

impl<T, P> ShardedQuery<T, P> {
    pub(crate) fn new(base: Query<T, OnGlobalIndex, P>, shards: u16) -> Self {
        Self { base, shards }
    }

    /// The same sharded query over `f` of its base query (the sort-key
    /// conditions of [`crate::sort`] are the base query's).
    pub(crate) fn map_base(
        self,
        f: impl FnOnce(Query<T, OnGlobalIndex, P>) -> Query<T, OnGlobalIndex, P>,
    ) -> Self {
        Self {
            base: f(self.base),
            ..self
        }
    }

    pub(crate) fn with_sort(self, sk: Result<SortCondition, Error>) -> Self {
        Self {
            base: self.base.with_sort(sk),
            ..self
        }
    }

    /// Descending sort-key order across all shards.
    pub fn newest_first(self) -> Self {
        Self {
            base: self.base.newest_first(),
            ..self
        }
    }

    /// At most `n` items: the page size for `page`, the total for `all`.
    pub fn limit(self, n: u32) -> Self {
        Self {
            base: self.base.limit(n),
            ..self
        }
    }

    /// Keeps only items matching the typed `filter` (does not reduce read
    /// cost); see [`Query::filter`].
    pub fn filter(self, filter: crate::fields::Cond<T>) -> Self {
        Self {
            base: self.base.filter(filter),
            ..self
        }
    }

    /// [`ShardedQuery::filter`] with an untyped [`Condition`].
    pub fn filter_raw(self, filter: Condition) -> Self {
        Self {
            base: self.base.filter_raw(filter),
            ..self
        }
    }

    /// Skips items of other entity types instead of failing on them.
    pub fn skip_other_types(self) -> Self {
        Self {
            base: self.base.skip_other_types(),
            ..self
        }
    }

    /// Fails on items of other entity types (see
    /// [`Query::fail_on_other_types`](crate::Query::fail_on_other_types)).
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, ShardedQuery, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("ORDER")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<id>", shards = 4)]
    /// # #[access(by_date, index = gsi1)]
    /// # pub struct Order { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&Order { id: "o1".into() }).await?;
    /// let q: ShardedQuery<Order, _> = Order::by_date();
    /// assert_eq!(q.fail_on_other_types().all(&db).await?.len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn fail_on_other_types(self) -> Self {
        Self {
            base: self.base.fail_on_other_types(),
            ..self
        }
    }

    /// Number of shards queried.
    pub fn shards(&self) -> u16 {
        self.shards
    }

    /// Not available: DynamoDB reads global indexes eventually consistent
    /// only, and a sharded pattern reads one; calling it does not compile.
    ///
    /// ```compile_fail
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop)]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("ORDER")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<id>", shards = 4)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub id: String }
    /// let q = Order::all_orders().consistent(); // error: global secondary indexes do not support strongly consistent reads
    /// ```
    pub fn consistent(self) -> Self
    where
        for<'a> OnGlobalIndex: crate::query::consistent::ConsistentRead,
    {
        self
    }
}

/// One shard's state while merging.
struct Lane<T, P> {
    query: Query<T, OnGlobalIndex, P>,
    /// Where the next request starts.
    next: Option<Item>,
    /// Where this shard continues if nothing more is taken from its buffer.
    resume: Option<Item>,
    done: bool,
    buffer: VecDeque<Item>,
    /// Pages read, for tracing.
    pages: u32,
}

fn sort_value(item: &Item, attr: Option<&str>) -> String {
    match attr.and_then(|a| item.get(a)) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The key attributes of an item, as a start key.
fn key_of(item: &Item, attrs: &[String]) -> Item {
    attrs
        .iter()
        .filter_map(|a| item.get(a).map(|v| (a.clone(), v.clone())))
        .collect()
}

impl<T: Decode, P> ShardedQuery<T, P> {
    /// One page of at most `limit` items (all shards merged), and the cursor
    /// to the next page. Each shard is read with one concurrent Query; a
    /// shard whose buffer runs dry before the page is full is read again.
    pub async fn page<E: Executor>(
        mut self,
        db: &Db<E>,
        cursor: Option<&Cursor<P>>,
    ) -> Result<Page<T, P>, Error> {
        self.base.take_error()?;
        let n = self.shards as usize;
        let base_pk = self.base.partition().to_owned();
        let key_attrs: Vec<String> = self
            .base
            .scope(n)
            .key_attrs
            .iter()
            .map(|a| (*a).to_owned())
            .collect();
        let positions = match cursor {
            Some(c) => page::decode_shards(
                db.cursor_secret(),
                &self.base.scope(n),
                c.as_str(),
                n,
                |i| with_shard(&base_pk, i as u16),
            )?,
            None => vec![ShardPosition::default(); n],
        };
        let mut lanes: Vec<Lane<T, P>> = positions
            .into_iter()
            .enumerate()
            .map(|(i, pos)| Lane {
                query: self.base.for_partition(with_shard(&base_pk, i as u16)),
                next: pos.start.clone(),
                resume: pos.start,
                done: pos.done,
                buffer: VecDeque::new(),
                pages: 0,
            })
            .collect();
        let want = self.base.limit_value().map(|l| l as usize);
        let sk_attr = self.base.sort_attr();
        let forward = self.base.is_forward();
        let mut out: Vec<T> = Vec::new();
        loop {
            if want.is_some_and(|w| out.len() >= w) {
                break;
            }
            // Refill every empty, unfinished lane, concurrently.
            let remaining = want.map(|w| (w - out.len()) as u32);
            let fetches = lanes
                .iter_mut()
                .filter(|l| l.buffer.is_empty() && !l.done)
                .map(|l| {
                    let req = l.query.request(db.table_name(), l.next.take(), remaining);
                    l.pages += 1;
                    async move {
                        let req = req?;
                        let r = l.query.traced(&req, l.pages);
                        let span = crate::trace::span("Query", db.table_name(), &r);
                        let page = crate::trace::traced(
                            span.clone(),
                            r.sender("Query"),
                            db.executor().query(req),
                        )
                        .await?;
                        crate::trace::count(&span, page.items.len());
                        l.buffer.extend(page.items);
                        l.done = page.last_key.is_none();
                        l.next = page.last_key;
                        Ok::<(), Error>(())
                    }
                });
            futures_util::future::try_join_all(fetches).await?;
            // Take the next item in sort-key order across lanes.
            let pick = lanes
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.buffer.front().map(|item| (i, sort_value(item, sk_attr))))
                .reduce(|a, b| {
                    let better = if forward { b.1 < a.1 } else { b.1 > a.1 };
                    if better { b } else { a }
                });
            let Some((i, _)) = pick else {
                if lanes.iter().all(|l| l.done && l.buffer.is_empty()) {
                    break;
                }
                continue;
            };
            let lane = &mut lanes[i];
            let Some(item) = lane.buffer.pop_front() else {
                continue;
            };
            lane.resume = Some(key_of(&item, &key_attrs));
            let mut decoded = Vec::with_capacity(1);
            lane.query.read_items(vec![item].into(), &mut decoded)?;
            out.extend(decoded);
        }
        let finished = lanes.iter().all(|l| l.done && l.buffer.is_empty());
        let cursor = if finished {
            None
        } else {
            let positions: Vec<ShardPosition> = lanes
                .iter()
                .map(|l| {
                    if l.buffer.is_empty() {
                        ShardPosition {
                            done: l.done,
                            start: l.next.clone(),
                        }
                    } else {
                        ShardPosition {
                            done: false,
                            start: l.resume.clone(),
                        }
                    }
                })
                .collect();
            Some(Cursor::sealed(
                page::encode_shards(db.cursor_secret(), &self.base.scope(n), &positions).ok_or(
                    Error::Refused(Refusal::CursorKeyNotString {
                        what: "a shard's position",
                    }),
                )?,
            ))
        };
        // Several Queries make one merged page: its count is what it
        // returns, and no single ScannedCount describes it.
        Ok(Page {
            count: out.len(),
            items: out,
            cursor,
            scanned_count: None,
        })
    }

    /// Counts the matching items of every shard (one `Select=COUNT` Query
    /// per page of each shard, the shards concurrently); see
    /// [`Query::count`]. `limit` caps the total.
    pub async fn count<E: Executor>(mut self, db: &Db<E>) -> Result<u64, Error> {
        self.base.take_error()?;
        let limit = self.base.limit_value();
        let base_pk = self.base.partition().to_owned();
        let counts = futures_util::future::try_join_all((0..self.shards).map(|i| {
            let mut q = self.base.for_partition(with_shard(&base_pk, i));
            q.no_limit();
            q.count(db)
        }))
        .await?;
        let total: u64 = counts.iter().sum();
        Ok(limit.map_or(total, |l| total.min(u64::from(l))))
    }

    /// Every matching item across all shards, in sort-key order (or the
    /// first `limit`).
    pub async fn all<E: Executor>(self, db: &Db<E>) -> Result<Vec<T>, Error> {
        let total = self.base.limit_value();
        let mut out = Vec::new();
        let mut cursor: Option<Cursor<P>> = None;
        let mut q = Some(self);
        while let Some(query) = q.take() {
            let again = query.base.for_partition(query.base.partition().to_owned());
            let shards = query.shards;
            let page = query.page(db, cursor.as_ref()).await?;
            out.extend(page.items);
            if total.is_some_and(|t| out.len() >= t as usize) {
                break;
            }
            match page.cursor {
                Some(c) => {
                    cursor = Some(c);
                    let remaining = total.map(|t| t - out.len() as u32);
                    let base = match remaining {
                        Some(r) => again.limit(r),
                        None => again,
                    };
                    q = Some(ShardedQuery { base, shards });
                }
                None => break,
            }
        }
        Ok(out)
    }
}
