//! Sort-key conditions of access patterns, on the one generic query type.
//!
//! Every access pattern's function returns a [`Query`] (or a
//! [`ShardedQuery`]) typed by a marker the derive generates for the
//! pattern. The marker implements the derive's sort-key trait when the
//! pattern has a sort key: its value type is the sort template's placeholders (one type, or a
//! tuple for several), and the query's `sk_eq`, `sk_lt`, `sk_le`, `sk_gt`,
//! `sk_ge`, `sk_between` and `sk_begins_with` build the key condition from
//! it. A multi-attribute index's pattern goes one sort attribute at a time:
//! each `sk_eq` moves to the next attribute's marker, and a range condition
//! ends the key condition.
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop")]
//! pub struct Shop;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(table = Shop)]
//! #[pk("USER#<user>")]
//! #[sk("ORDER#<year>#<n>")]
//! #[access(orders)]
//! pub struct Order { pub user: String, pub year: u16, pub n: u32 }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
//!     db.put(&Order { user: "ana".into(), year, n }).await?;
//! }
//! // Several placeholders: a tuple.
//! assert_eq!(Order::orders("ana").sk_eq((2025, 2)).all(&db).await?.len(), 1);
//! assert_eq!(Order::orders("ana").sk_ge((2025, 2)).all(&db).await?.len(), 2);
//! assert_eq!(Order::orders("ana").sk_between((2024, 1), (2025, 1)).all(&db).await?.len(), 2);
//! // A prefix of whole segments: the values of the leading placeholders.
//! assert_eq!(Order::orders("ana").sk_begins_with(2025u16).all(&db).await?.len(), 2);
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use crate::error::{Error, Refusal};
use crate::expr::{AttrRange, Cmp, SortCondition};
use crate::query::Query;
use crate::shard::ShardedQuery;
use crate::value::AttributeValue;

pub(crate) mod value;
use value::SortValue;

// What the derive implements for each pattern's marker, and the bound the
// sort-key methods name it by: public only through `__private::sort`.
pub(crate) mod marker {
    use super::*;

    /// Implemented by the marker of an access pattern that has a sort-key
    /// condition to give: what `sk_eq` and the range conditions take.
    ///
    /// The derive implements it; a pattern without a sort key has none, and
    /// neither has a multi-attribute query after its range condition or after
    /// its last sort attribute.
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// use singletable::__private::sort::SortKey;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<user>")]
    /// #[sk("NOTE#<id>")]
    /// #[access(notes)]
    /// pub struct Note { pub user: String, pub id: String }
    ///
    /// fn sorted<P: SortKey>() {}
    /// sorted::<NoteNotesQuery>();
    /// ```
    #[diagnostic::on_unimplemented(
        message = "one range condition per query; use `sk_between` for a range with two bounds (`{Self}` takes no further sort-key condition)",
        label = "a sort-key condition after the key condition ended",
        note = "a query's key condition is equality on sort attributes, then at most one range condition (`sk_lt`, `sk_le`, `sk_gt`, `sk_ge`, `sk_between`, `sk_begins_with`); nothing follows it, nor the equality on the last sort attribute",
        note = "a pattern without a sort key takes no sort-key condition at all"
    )]
    pub trait SortKey: Sized {
        /// The values of the sort key's placeholders: one type for one, a
        /// tuple for several (a multi-attribute key: the next attribute's).
        type Value<'a>;
        /// The marker after an equality: the same pattern for a template, the
        /// next sort attribute's for a multi-attribute key.
        type AfterEq;
        /// The marker after a range condition: the same pattern for a
        /// template (a later condition replaces it), one that takes no other
        /// condition for a multi-attribute key.
        type AfterRange;
        /// The bound built from `value`, which the query's sort-key methods
        /// set; its type is the query builder's own (generated code implements
        /// this, nothing else calls it).
        fn sort_value(value: Self::Value<'_>) -> Result<SortValue, Error>;
    }

    /// A value `sk_begins_with` takes for pattern `P`: the leading
    /// placeholders of its sort template (one value, or a tuple), or a string
    /// prefix of a multi-attribute key's string sort attribute.
    ///
    /// ```
    /// use singletable::{Entity, Table};
    /// use singletable::__private::sort::SortPrefix;
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<user>")]
    /// #[sk("DAY#<day>#NOTE#<id>")]
    /// #[access(notes)]
    /// pub struct Note { pub user: String, pub day: String, pub id: String }
    ///
    /// fn prefix<X: SortPrefix<NoteNotesQuery>>(_: X) {}
    /// prefix("2026-12-05");
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a prefix `{P}` can begin with",
        label = "not a prefix of this pattern's sort key",
        note = "a template's prefix is the values of its leading placeholders, up to a `#` (a tuple for several); a multi-attribute key takes a `&str` prefix on a string sort attribute only"
    )]
    pub trait SortPrefix<P> {
        /// The prefix the sort key begins with, which `sk_begins_with` sets;
        /// its type is the query builder's own (generated code implements
        /// this, nothing else calls it).
        fn sort_prefix(self) -> Result<SortValue, Error>;
    }

    /// `P: Same<K>` holds when `K` is `P`: the sort-key methods of a query
    /// typed by marker `P` name it `K` and bound it, so that a marker taking
    /// no further condition is reported by [`SortKey`]'s own message.
    pub trait Same<K> {}

    impl<K> Same<K> for K {}
}
use marker::{Same, SortKey, SortPrefix};

fn compare(op: Cmp, v: SortValue) -> Bound {
    match v {
        SortValue::Key(k) => Bound::Key(SortCondition::Compare(op, k)),
        SortValue::Attr(a, v) => Bound::Attr(a, AttrRange::Compare(op, v)),
    }
}

fn between(from: SortValue, to: SortValue) -> Result<Bound, Error> {
    match (from, to) {
        (SortValue::Key(a), SortValue::Key(b)) => Ok(Bound::Key(SortCondition::Between(a, b))),
        (SortValue::Attr(n, a), SortValue::Attr(_, b)) => {
            Ok(Bound::Attr(n, AttrRange::Between(a, b)))
        }
        _ => Err(Error::Refused(Refusal::MixedSortRange)),
    }
}

fn begins_with(prefix: SortValue) -> Result<Bound, Error> {
    match prefix {
        SortValue::Key(k) => Ok(Bound::Key(SortCondition::BeginsWith(k))),
        SortValue::Attr(n, AttributeValue::S(s)) => {
            Ok(Bound::Attr(n, AttrRange::BeginsWith(AttributeValue::S(s))))
        }
        SortValue::Attr(n, _) => Err(Error::Refused(Refusal::BeginsWithNonString {
            attribute: n.to_string(),
        })),
    }
}

/// A sort-key condition ready for a query.
enum Bound {
    Key(SortCondition),
    Attr(&'static str, AttrRange),
}

impl<T, I, P> Query<T, I, P> {
    fn with_bound<Q>(self, bound: Result<Bound, Error>) -> Query<T, I, Q> {
        let q = self.retyped();
        match bound {
            Ok(Bound::Key(c)) => q.with_sort(Ok(c)),
            Ok(Bound::Attr(a, r)) => q.with_attr_range(a, Ok(r)),
            Err(e) => q.with_sort(Err(e)),
        }
    }
}

// Each method names its marker `K` (always `P`, see [`Same`]) and bounds
// it, rather than the impl bounding `P`: a query that takes no further
// condition then reports `SortKey`'s own message (one range condition per
// query), not that the method's bounds are unmet.
impl<T, I, P> Query<T, I, P> {
    /// Sort key equal to the key built from `value` (the placeholders'
    /// values; a tuple for several). On a multi-attribute index: equality
    /// on the next sort attribute, whose conditions follow.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_eq((2025, 2)).all(&db).await?.len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_eq<K>(self, value: K::Value<'_>) -> Query<T, I, K::AfterEq>
    where
        P: Same<K>,
        K: SortKey,
    {
        let q = self.retyped();
        match K::sort_value(value) {
            Ok(SortValue::Key(k)) => q.with_sort(Ok(SortCondition::Compare(Cmp::Eq, k))),
            Ok(SortValue::Attr(a, v)) => q.with_attr_eq(a, Ok(v)),
            Err(e) => q.with_sort(Err(e)),
        }
    }

    /// Sort key `<` the key built from `value`. Items of other entity
    /// types in the range are skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_lt((2025, 2)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_lt<K>(self, value: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.range::<K>(Cmp::Lt, value)
    }

    /// Sort key `<=` the key built from `value`; other types skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_le((2025, 2)).all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_le<K>(self, value: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.range::<K>(Cmp::Le, value)
    }

    /// Sort key `>` the key built from `value`; other types skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_gt((2025, 1)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_gt<K>(self, value: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.range::<K>(Cmp::Gt, value)
    }

    /// Sort key `>=` the key built from `value`; other types skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_ge((2025, 1)).all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_ge<K>(self, value: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.range::<K>(Cmp::Ge, value)
    }

    /// Sort key between the keys built from `from` and `to`, both
    /// included (`BETWEEN`); other types skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_between((2024, 1), (2025, 1)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_between<K>(self, from: K::Value<'_>, to: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        let bound = K::sort_value(from).and_then(|a| between(a, K::sort_value(to)?));
        self.with_bound(bound).skip_other_types()
    }

    /// Sort key begins with `prefix`: the values of the template's
    /// leading placeholders, each segment whole (a tuple for several), or
    /// a string prefix of a multi-attribute key's string sort attribute.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::orders("ana").sk_begins_with(2025u16).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_begins_with<K>(self, prefix: impl SortPrefix<K>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.with_bound(prefix.sort_prefix().and_then(begins_with))
    }

    fn range<K>(self, op: Cmp, value: K::Value<'_>) -> Query<T, I, K::AfterRange>
    where
        P: Same<K>,
        K: SortKey,
    {
        self.with_bound(K::sort_value(value).map(|v| compare(op, v)))
            .skip_other_types()
    }
}

impl<T, P: SortKey<AfterEq = P, AfterRange = P>> ShardedQuery<T, P> {
    /// Sort key equal to the key built from `value`, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_eq((2025, 2)).all(&db).await?.len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_eq(self, value: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_eq(value))
    }

    /// Sort key `<` the key built from `value`, in every shard; other
    /// types skipped.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_lt((2025, 2)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_lt(self, value: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_lt(value))
    }

    /// Sort key `<=` the key built from `value`, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_le((2025, 2)).all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_le(self, value: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_le(value))
    }

    /// Sort key `>` the key built from `value`, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_gt((2025, 1)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_gt(self, value: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_gt(value))
    }

    /// Sort key `>=` the key built from `value`, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_ge((2025, 1)).all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_ge(self, value: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_ge(value))
    }

    /// Sort key between `from` and `to`, both included, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_between((2024, 1), (2025, 1)).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_between(self, from: P::Value<'_>, to: P::Value<'_>) -> Self {
        self.map_base(|q| q.sk_between(from, to))
    }

    /// Sort key begins with `prefix`, in every shard.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(table = Shop)]
    /// # #[pk("USER#<user>")]
    /// # #[sk("ORDER#<year>#<n>")]
    /// # #[gsi1(pk = "ORDERS", sk = "ORDER#<year>#<n>", shards = 2)]
    /// # #[access(orders)]
    /// # #[access(all_orders, index = gsi1)]
    /// # pub struct Order { pub user: String, pub year: u16, pub n: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for (year, n) in [(2024, 1), (2025, 1), (2025, 2), (2026, 1)] {
    /// #     db.put(&Order { user: "ana".into(), year, n }).await?;
    /// # }
    /// assert_eq!(Order::all_orders().sk_begins_with(2025u16).all(&db).await?.len(), 2);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn sk_begins_with(self, prefix: impl SortPrefix<P>) -> Self {
        self.map_base(|q| q.sk_begins_with(prefix))
    }
}
