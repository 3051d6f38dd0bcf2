//! Building a query: key conditions, filters, projections, limits,
//! consistency, on the table or an index.

use super::*;

/// Where a query on a multi-attribute index reads, as generated code
/// describes it.
#[derive(Debug, Clone, Copy)]
pub struct AttrTarget {
    /// The access pattern's name, for spans and cursors.
    pub pattern: &'static str,
    /// The index's name in DynamoDB.
    pub index: &'static str,
    /// The index's key attributes.
    pub key: AttributeKey,
    /// The table's partition key attribute.
    pub table_pk: &'static str,
    /// The table's sort key attribute, if any.
    pub table_sk: Option<&'static str>,
}

/// Where a query reads, as generated code describes it.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The access pattern's name, for spans and cursors.
    pub pattern: &'static str,
    /// The index's name in DynamoDB; `None` for the table.
    pub index: Option<&'static str>,
    /// The partition key attribute read.
    pub pk_attr: &'static str,
    /// The sort key attribute read, if any.
    pub sk_attr: Option<&'static str>,
    /// The table's partition key attribute.
    pub table_pk: &'static str,
    /// The table's sort key attribute, if any.
    pub table_sk: Option<&'static str>,
}

impl<T, I, P> Query<T, I, P> {
    /// A query of the partition `pk` (or the error that building it gave).
    pub(crate) fn new(target: Target, pk: Result<String, Error>) -> Self {
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
    pub(crate) fn on_attributes(
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
    pub(crate) fn with_attr_eq(
        self,
        attr: &'static str,
        value: Result<AttributeValue, Error>,
    ) -> Self {
        self.with_attr_condition(attr, value, |k, v| k.equal.push((attr.to_owned(), v)))
    }

    /// Sets the range condition on a sort attribute of a multi-attribute
    /// key (the last condition).
    pub(crate) fn with_attr_range(
        self,
        attr: &'static str,
        range: Result<AttrRange, Error>,
    ) -> Self {
        self.with_attr_condition(attr, range, |k, r| k.range = Some((attr.to_owned(), r)))
    }

    /// Adds a condition on a sort attribute of a multi-attribute key with
    /// `add`; the first error (of the value, or of a query on no such
    /// index) is kept for the request.
    pub(super) fn with_attr_condition<V>(
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
    pub(crate) fn with_sort(mut self, sk: Result<SortCondition, Error>) -> Self {
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
    /// db.executor().put_item(singletable_runtime::request::PutItem {
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
