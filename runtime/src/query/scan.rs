//! Typed scans: every item of an entity (or a collection) in the table or
//! an index, filtered, split into parallel segments, paged with cursors.

use super::*;
use crate::entity::Table;
use crate::request::{ScanRequest, ScanSegment};

/// A Scan: reads **the whole table** (or index, or one segment of it) and
/// keeps the items `T` reads: its entity type, and for an
/// `#[entity(untyped)]` or `#[entity(adopt = keys)]` entity the items
/// without one whose primary key its key templates build (the rule every
/// read follows). Items of other entity types, which a single table holds
/// beside `T`'s, are skipped, never an error.
///
/// **Cost**: a Scan pays read capacity for every item it reads, of every
/// type, before any filter: meant for maintenance jobs, exports and small
/// tables, never a request path; a hot access pattern is a Query on a
/// key or an index. Built by `Entity::scan()` (which the derives generate
/// for entities and collections) or `Scan::new()`; nothing is sent until
/// `page`, `all`, `count` or `first`.
///
/// DynamoDB evaluates `limit` items (or 1 MB) per page **before** the
/// filter, so a page of a filtered scan can hold no item and still carry a
/// cursor: follow cursors until there is none, never stop at an empty page
/// (`all`, `count` and `first` do).
///
/// ```
/// use singletable::query::{Cursor, Scan};
/// use singletable::{Db, Embedded, Entity, FieldPath, KeyOf, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = App)]
/// #[pk("TICKET#<id>")]
/// #[sk("TICKET")]
/// #[gsi1(pk = "STATE#<state>", sk = "TICKET#<id>")]
/// pub struct Ticket { pub id: u32, pub state: String, pub severity: u8 }
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// for id in 0..6 {
///     let state = if id % 2 == 0 { "OPEN" } else { "CLOSED" };
///     db.put(&Ticket { id, state: state.into(), severity: (id % 3) as u8 }).await?;
/// }
/// db.put(&User { id: "ana".into() }).await?; // another entity: skipped
///
/// let f = Ticket::fields();
/// let urgent = || Ticket::scan().filter(f.severity.ge(&1)).filter(f.state.eq("OPEN"));
/// let mut ids: Vec<u32> = urgent().all(&db).await?.iter().map(|t| t.id).collect();
/// ids.sort();
/// assert_eq!(ids, [2, 4]);
/// assert_eq!(urgent().count(&db).await?, 2);
/// assert!(urgent().first(&db).await?.is_some());
///
/// // Two workers, each reading one segment: together, every ticket once.
/// let a = Ticket::scan().segment(0, 2).all(&db).await?;
/// let b = Ticket::scan().segment(1, 2).all(&db).await?;
/// assert_eq!(a.len() + b.len(), 6);
///
/// // Pages, continued by cursors (a page may be empty and still have one).
/// let mut cursor: Option<Cursor<Scan<Ticket>>> = None;
/// let mut seen = 0;
/// loop {
///     let page = Ticket::scan().limit(2).page(&db, cursor.as_ref()).await?;
///     seen += page.items.len();
///     match page.cursor { Some(c) => cursor = Some(c), None => break }
/// }
/// assert_eq!(seen, 6);
///
/// // Keys only, or an index.
/// let keys: Vec<KeyOf<Ticket>> = Ticket::scan().keys().all(&db).await?;
/// assert_eq!(keys.len(), 6);
/// let open = Ticket::scan().global_index("GSI1").filter(f.severity.ge(&0)).all(&db).await?;
/// assert_eq!(open.len(), 6);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a scan does nothing until it is run with page, all, count or first"]
pub struct Scan<T, I = OnTable> {
    index: Option<&'static str>,
    key_attrs: Vec<&'static str>,
    segment: Option<ScanSegment>,
    limit: Option<u32>,
    consistent_read: bool,
    filter: Option<Condition>,
    projection: Option<Vec<Path>>,
    include_expired: bool,
    error: Option<Error>,
    _marker: PhantomData<fn() -> (T, I)>,
}

impl<T, I> std::fmt::Debug for Scan<T, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan")
            .field("index", &self.index)
            .field("segment", &self.segment)
            .field("limit", &self.limit)
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}

impl<T: Decode> Default for Scan<T, OnTable> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Decode> Scan<T, OnTable> {
    /// A Scan of the whole table for the items `T` reads: what
    /// `Entity::scan()` returns (see [`Scan`]'s example).
    ///
    /// ```
    /// use singletable::query::Scan;
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into() }).await?;
    /// assert_eq!(Scan::<User>::new().all(&db).await?.len(), 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> Self {
        let mut key_attrs = vec![<T::Table as Table>::PK];
        key_attrs.extend(<T::Table as Table>::SK);
        Self {
            index: None,
            key_attrs,
            segment: None,
            limit: None,
            consistent_read: false,
            filter: None,
            projection: None,
            include_expired: false,
            error: None,
            _marker: PhantomData,
        }
    }

    /// The same Scan on the table's global index `name` (its DynamoDB
    /// name, `GSI1`): the index holds only the items that have its key
    /// attributes (a sparse index holds few), and only the attributes it
    /// projects, so whole entities need an index that projects every
    /// attribute they store, else the scan is refused with
    /// [`Refusal::IndexProjection`] (never an empty success); read the keys
    /// of a keys-only index with [`Scan::keys`]. A name the table does not
    /// declare is refused with [`Refusal::UnknownIndex`]; both when the
    /// scan runs.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Error, Refusal, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # #[gsi1(pk = "TEAM#<team>", sk = "USER#<id>")]
    /// # pub struct User { pub id: String, pub team: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), team: "a".into() }).await?;
    /// assert_eq!(User::scan().global_index("GSI1").all(&db).await?.len(), 1);
    /// let unknown = User::scan().global_index("GSI9").all(&db).await;
    /// assert!(matches!(unknown, Err(Error::Refused(Refusal::UnknownIndex { .. }))));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn global_index(self, name: &'static str) -> Scan<T, OnGlobalIndex> {
        let index = <T::Table as Table>::GLOBAL_INDEXES
            .iter()
            .find(|g| g.name == name);
        let keys: Vec<&'static str> = index
            .map(|g| g.key_attributes().map(|(n, _, _)| n).collect())
            .unwrap_or_default();
        self.on_index(name, "global", index.is_some(), keys)
    }

    /// The same Scan on the table's local index `name` (`LSI1`): as
    /// [`Scan::global_index`], and a strongly consistent read is allowed.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", lsi1)]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # #[lsi1(sk = "AGE#<age>")]
    /// # pub struct User { pub id: String, pub age: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), age: 30 }).await?;
    /// assert_eq!(User::scan().local_index("LSI1").consistent().count(&db).await?, 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn local_index(self, name: &'static str) -> Scan<T, OnLocalIndex> {
        let index = <T::Table as Table>::LOCAL_INDEXES
            .iter()
            .find(|l| l.name == name);
        let keys = index.map(|l| vec![l.sk]).unwrap_or_default();
        self.on_index(name, "local", index.is_some(), keys)
    }

    fn on_index<J>(
        mut self,
        name: &'static str,
        kind: &'static str,
        declared: bool,
        keys: Vec<&'static str>,
    ) -> Scan<T, J> {
        if !declared {
            self.error
                .get_or_insert(Error::Refused(Refusal::UnknownIndex {
                    kind,
                    index: name.to_owned(),
                }));
        }
        self.key_attrs.extend(keys);
        self.key_attrs.sort_unstable();
        self.key_attrs.dedup();
        self.index = Some(name);
        self.retyped()
    }
}

impl<T, I> Scan<T, I> {
    /// The same scan, decoding another type (keys, a projection).
    fn retyped<U, J>(self) -> Scan<U, J> {
        Scan {
            index: self.index,
            key_attrs: self.key_attrs,
            segment: self.segment,
            limit: self.limit,
            consistent_read: self.consistent_read,
            filter: self.filter,
            projection: self.projection,
            include_expired: self.include_expired,
            error: self.error,
            _marker: PhantomData,
        }
    }

    /// Keeps only items matching the typed `filter`, as
    /// [`Query::filter`] does (a `FilterExpression`, evaluated after
    /// reading: it saves bandwidth, not read capacity). Filters added one
    /// after the other must all hold; add them before [`Scan::keys`] or
    /// [`Scan::select`].
    ///
    /// ```
    /// use singletable::FieldPath;
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, pub age: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), age: 30 }).await?;
    /// db.put(&User { id: "bo".into(), age: 12 }).await?;
    /// let adults = User::scan().filter(User::fields().age.ge(&18)).all(&db).await?;
    /// assert_eq!(adults[0].id, "ana");
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
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

    /// [`Scan::filter`] with an untyped [`Condition`].
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// use singletable::expr::Condition;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, pub nick: Option<String> }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), nick: None }).await?;
    /// let nicked = User::scan().filter_raw(Condition::Exists("nick".into()));
    /// assert_eq!(nicked.count(&db).await?, 0);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn filter_raw(mut self, filter: Condition) -> Self {
        self.filter = Some(filter.and_maybe(self.filter.take()));
        self
    }

    /// Reads segment `segment` (from 0) of a parallel scan split into
    /// `total` segments (`Segment`, `TotalSegments`): DynamoDB splits the
    /// items by the hash of their partition key, so the segments are
    /// disjoint and together hold every item; separate workers read them
    /// at once. A cursor of one segment is refused by another. `total` is
    /// 1 to 1,000,000 and `segment` below it, else the scan is refused
    /// ([`Refusal::SegmentCount`], [`Refusal::SegmentOutOfRange`]).
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Error, Refusal, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..10 { db.put(&User { id }).await?; }
    /// let mut total = 0;
    /// for s in 0..3 { total += User::scan().segment(s, 3).count(&db).await?; }
    /// assert_eq!(total, 10);
    /// let wrong = User::scan().segment(3, 3).all(&db).await;
    /// assert!(matches!(wrong, Err(Error::Refused(Refusal::SegmentOutOfRange { .. }))));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn segment(mut self, segment: u32, total: u32) -> Self {
        if !(1..=1_000_000).contains(&total) {
            self.error
                .get_or_insert(Error::Refused(Refusal::SegmentCount {
                    segments: u64::from(total),
                }));
        } else if segment >= total {
            self.error
                .get_or_insert(Error::Refused(Refusal::SegmentOutOfRange {
                    segment,
                    total,
                }));
        }
        self.segment = Some(ScanSegment {
            segment,
            total_segments: total,
        });
        self
    }

    /// At most `n` items evaluated per page (DynamoDB's `Limit`, counted
    /// before the filter), and at most `n` items returned by
    /// [`Scan::all`] and counted by [`Scan::count`].
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..5 { db.put(&User { id }).await?; }
    /// assert_eq!(User::scan().limit(2).page(&db, None).await?.items.len(), 2);
    /// assert_eq!(User::scan().limit(3).all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Strongly consistent read, at twice the read cost: on the table and
    /// local indexes only (on a global index it does not compile).
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: 1 }).await?;
    /// assert_eq!(User::scan().consistent().count(&db).await?, 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn consistent(mut self) -> Self
    where
        I: ConsistentRead,
    {
        self.consistent_read = true;
        self
    }

    /// Also returns items whose TTL has passed but that DynamoDB has not
    /// deleted yet; by default they are hidden, as queries hide them.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: 1 }).await?;
    /// assert_eq!(User::scan().include_expired().count(&db).await?, 1);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn include_expired(mut self) -> Self {
        self.include_expired = true;
        self
    }
}

impl<E: Entity, I> Scan<E, I> {
    /// Reads the items' primary keys only (a `ProjectionExpression` of the
    /// key and entity-type attributes): what a keys-only index holds, and
    /// the least a scan transfers.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, KeyOf, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, pub bio: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), bio: "…".into() }).await?;
    /// let keys: Vec<KeyOf<User>> = User::scan().keys().all(&db).await?;
    /// assert_eq!(keys, [User::key("ana")?]);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn keys(mut self) -> Scan<KeyOf<E>, I> {
        self.project_keys::<E>(&[]);
        self.retyped()
    }

    /// Reads the attributes the `#[derive(Document)]` type `D` names, with
    /// the primary key (a `ProjectionExpression`), as
    /// [`Projected`] items, as a `select = D` access pattern does.
    ///
    /// ```
    /// # use singletable::{Db, Document, Embedded, Entity, Projected, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, pub name: String, pub bio: String }
    /// #[derive(Document, Debug, PartialEq)]
    /// pub struct Card { pub name: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&User { id: "ana".into(), name: "Ana".into(), bio: "…".into() }).await?;
    /// let cards: Vec<Projected<User, Card>> = User::scan().select::<Card>().all(&db).await?;
    /// assert_eq!(cards[0].item, Card { name: "Ana".into() });
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn select<D: crate::nested::Document>(mut self) -> Scan<Projected<E, D>, I> {
        self.project_keys::<E>(D::ATTRIBUTES);
        self.retyped()
    }

    /// Projects the key attributes, the entity-type and TTL attributes
    /// where the place read holds them, and `more`.
    fn project_keys<X: Entity>(&mut self, more: &[&'static str]) {
        let mut names: Vec<&'static str> = self.key_attrs.clone();
        let typed = <X::Table as Table>::ENTITY_TYPE;
        names.extend(
            [Some(typed), X::ttl_attribute()]
                .into_iter()
                .flatten()
                .filter(|a| self.holds::<X>(a)),
        );
        names.extend(more);
        names.sort_unstable();
        names.dedup();
        self.projection = Some(names.into_iter().map(Path::new).collect());
    }
}

impl<T: Decode, I> Scan<T, I> {
    /// Whether the table or index read holds the attribute `attr`.
    fn holds<X: Decode>(&self, attr: &str) -> bool {
        use crate::entity::Projection;
        match self.index.map(X::index_projection) {
            None | Some(Projection::All) => true,
            Some(Projection::KeysOnly) => self.key_attrs.contains(&attr),
            Some(Projection::Include(attrs)) => {
                attrs.contains(&attr) || self.key_attrs.contains(&attr)
            }
        }
    }

    /// The filter sent: the items of `T`'s types (where the place read
    /// holds the entity type and does not key on it), and the user's.
    fn sent_filter(&self) -> Option<Condition> {
        let attr = <T::Table as Table>::ENTITY_TYPE;
        let own = T::type_condition(attr)
            .filter(|_| self.holds::<T>(attr) && !self.key_attrs.contains(&attr))
            .map(|own| {
                if T::adopts() {
                    // Items without an entity type are `T`'s by their
                    // keys, which no filter expresses: read, then kept by
                    // the decoder.
                    own.or(Condition::NotExists(attr.to_owned()))
                } else {
                    own
                }
            });
        match (own, self.filter.clone()) {
            (Some(own), user) => Some(own.and_maybe(user)),
            (None, user) => user,
        }
    }

    /// What this scan's cursors are valid for: `T`, the segment, the index
    /// and the filter.
    fn scope<'a>(&'a self, segment: &'a str, filter: Option<&Condition>) -> CursorScope<'a> {
        CursorScope {
            entity: T::cursor_scope(),
            pattern: "scan",
            partition: segment,
            // Any partition: the start key is checked against the key
            // attributes only (and sealed).
            pk_attr: "",
            key_attrs: &self.key_attrs,
            shape: page::shape_digest(self.index, true, None, filter, 0),
        }
    }

    fn segment_text(&self) -> String {
        match self.segment {
            Some(s) => format!("segment {} of {}", s.segment, s.total_segments),
            None => String::new(),
        }
    }

    fn request(
        &self,
        table: &str,
        filter: Option<Condition>,
        start: Option<Item>,
        limit: Option<u32>,
    ) -> ScanRequest {
        ScanRequest {
            table: table.to_owned(),
            index: self.index.map(str::to_owned),
            filter,
            limit: limit.map(|l| i32::try_from(l).unwrap_or(i32::MAX)),
            consistent: self.consistent_read,
            start,
            segment: self.segment,
            projection: self.projection.clone(),
        }
    }

    /// Sends one Scan page, in its span, and decodes its items into `out`.
    async fn send<E: Executor>(
        &self,
        db: &Db<E>,
        req: ScanRequest,
        page: u32,
        out: &mut Vec<T>,
    ) -> Result<(usize, Option<usize>, Option<Item>), Error> {
        let traced = crate::trace::Request {
            entity: Some(T::cursor_scope()),
            pattern: Some("scan"),
            index: self.index,
            consistent: Some(self.consistent_read),
            limit: req.limit.and_then(|l| u32::try_from(l).ok()),
            page: Some(page),
            attempt: None,
        };
        let span = crate::trace::span("Scan", db.table_name(), &traced);
        let sent = traced.sender("Scan");
        let raw = crate::trace::traced(span.clone(), sent, db.executor().scan(req)).await?;
        crate::trace::count(&span, raw.items.len());
        let count = raw.items.len();
        let ttl = if self.include_expired {
            None
        } else {
            T::ttl_attribute()
        };
        let mut collect = Collect {
            other: OtherTypes::Skip,
            expiry: crate::ttl::Expiry::new(ttl),
            out,
        };
        for item in raw.items {
            collect.read_map(item)?;
        }
        Ok((count, raw.scanned, raw.last_key))
    }

    /// The error building the scan gave, or the refusal of an index that
    /// does not hold what `T` decodes (never an empty success).
    fn take_error(&mut self) -> Result<(), Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.index {
            Some(index) if !T::readable_on(index) => {
                Err(Error::Refused(Refusal::IndexProjection {
                    index: index.to_owned(),
                    read: T::cursor_scope(),
                }))
            }
            _ => Ok(()),
        }
    }

    /// One Scan request: at most 1 MB read (or `limit` items evaluated),
    /// continuing after `cursor`. The page may hold no item and still
    /// carry a cursor (its items were filtered out or of other types):
    /// `None` only on the last page. A cursor of another scan (another
    /// entity, index, segment or filter) is refused with
    /// [`Error::Cursor`].
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Error, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..3 { db.put(&User { id }).await?; }
    /// let first = User::scan().segment(0, 1).limit(1).page(&db, None).await?;
    /// let cursor = first.cursor.unwrap();
    /// assert_eq!(User::scan().segment(0, 1).limit(1).page(&db, Some(&cursor)).await?.items.len(), 1);
    /// // The same cursor on the whole table (no segment): refused.
    /// assert!(matches!(User::scan().page(&db, Some(&cursor)).await, Err(Error::Cursor(_))));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn page<E: Executor>(
        mut self,
        db: &Db<E>,
        cursor: Option<&Cursor<Scan<T, I>>>,
    ) -> Result<Page<T, Scan<T, I>>, Error> {
        self.take_error()?;
        let filter = self.sent_filter();
        let segment = self.segment_text();
        let scope = self.scope(&segment, filter.as_ref());
        let start = match cursor {
            Some(c) => Some(page::decode(db.cursor_secret(), &scope, c.as_str())?),
            None => None,
        };
        let req = self.request(db.table_name(), filter.clone(), start, self.limit);
        let mut items = Vec::new();
        let (count, scanned_count, last) = self.send(db, req, 1, &mut items).await?;
        let cursor = Cursor::after(db.cursor_secret(), &scope, last)?;
        Ok(Page {
            items,
            cursor,
            count,
            scanned_count,
        })
    }

    /// Every matching item, following pages until DynamoDB reports the
    /// last one (empty pages included), or until `limit` items are
    /// collected. One request per page; the whole table (or segment) is
    /// read.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..3 { db.put(&User { id }).await?; }
    /// assert_eq!(User::scan().all(&db).await?.len(), 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn all<E: Executor>(mut self, db: &Db<E>) -> Result<Vec<T>, Error> {
        self.take_error()?;
        let filter = self.sent_filter();
        let mut out = Vec::new();
        let mut start = None;
        let mut page = 0u32;
        loop {
            let collected = u32::try_from(out.len()).unwrap_or(u32::MAX);
            let remaining = self.limit.map(|l| l.saturating_sub(collected));
            if remaining == Some(0) {
                return Ok(out);
            }
            let req = self.request(db.table_name(), filter.clone(), start.take(), remaining);
            page += 1;
            let (_, _, last) = self.send(db, req, page, &mut out).await?;
            match last {
                Some(k) => start = Some(k),
                None => return Ok(out),
            }
        }
    }

    /// How many items [`Scan::all`] returns: the items are read (the read
    /// capacity of a `Select=COUNT` scan is the same; the items whose
    /// entity type or keys are not `T`'s are told apart by reading them)
    /// and counted, every page followed.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..3 { db.put(&User { id }).await?; }
    /// assert_eq!(User::scan().count(&db).await?, 3);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn count<E: Executor>(self, db: &Db<E>) -> Result<u64, Error> {
        // `all` checks what `take_error` checks.
        self.all(db).await.map(|items| items.len() as u64)
    }

    /// The first matching item in scan order (the hash order of the
    /// partition keys: not the oldest nor the smallest), if any. Pages are
    /// read from the start until one holds a match: a filtered page can be
    /// empty before the last, so on a large table with a rare match this
    /// reads up to the whole table; `None` only once the last page is
    /// read.
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, FieldPath, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity, Debug)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// for id in 0..5 { db.put(&User { id }).await?; }
    /// let four = User::scan().limit(1).filter(User::fields().id.eq(&4)).first(&db).await?;
    /// assert_eq!(four.unwrap().id, 4);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn first<E: Executor>(mut self, db: &Db<E>) -> Result<Option<T>, Error> {
        self.take_error()?;
        let filter = self.sent_filter();
        let mut start = None;
        let mut page = 0u32;
        loop {
            let req = self.request(db.table_name(), filter.clone(), start.take(), self.limit);
            page += 1;
            let mut items = Vec::new();
            let (_, _, last) = self.send(db, req, page, &mut items).await?;
            if let Some(first) = items.into_iter().next() {
                return Ok(Some(first));
            }
            match last {
                Some(k) => start = Some(k),
                None => return Ok(None),
            }
        }
    }
}
