//! Typed UpdateItem requests that keep every index key in sync.
//!
//! `Order::update(order_id)` starts an [`Update`]; its `set`, `remove`,
//! `add`, `delete`, `append`, `prepend` and `set_if_not_exists` take the
//! typed field handles of `Order::fields()`. Every update stamps the
//! `#[attr(updated_at)]` fields (from the handle's clock, see
//! [`crate::clock`]). When an update changes a field that a key attribute
//! is built from (a stamp included), the same request rewrites that
//! attribute, each key attribute on its own: a change of a field only an
//! index's sort key uses needs nothing of its partition key. When it turns
//! a sparse index's condition false, the same request removes the index's
//! key attributes. A template field the update does not set can come from
//! an item the application holds ([`Update::knowing`]); otherwise the
//! update does not compile (its type records which such fields are set; one opted out with
//! [`Update::check_at_run_time`] is refused before anything is sent, as is
//! one whose sparse condition or unique field needs the held item). Changing a unique value
//! moves its marker item in the same transaction (see [`crate::unique`]).
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1)]
//! pub struct App;
//!
//! #[derive(Entity, Debug)]
//! #[entity(table = App)]
//! #[pk("TICKET#<id>")]
//! #[sk("TICKET")]
//! #[gsi1(pk = "QUEUE#<queue>", sk = "TICKET#<id>")]
//! #[access(in_queue, index = gsi1)]
//! pub struct Ticket { pub id: String, pub queue: String }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! db.put(&Ticket { id: "t1".into(), queue: "triage".into() }).await?;
//! // One UpdateItem: SET queue = :v, GSI1PK = "QUEUE#billing".
//! Ticket::update("t1").set(Ticket::fields().queue, "billing".to_string()).execute(&db).await?;
//! assert_eq!(Ticket::in_queue("triage").count(&db).await?, 0);
//! assert_eq!(Ticket::in_queue("billing").count(&db).await?, 1);
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! See [`Update`] for an example of every action.

use std::collections::BTreeSet;
use std::marker::PhantomData;
use std::time::SystemTime;

use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, Refusal};
use crate::exec::{BoxFuture, Executor};
use crate::expr::{Condition, Path};
use crate::fields::{Cond, Field, FieldPath, KeyField};
use crate::key::{KeyPart, PrimaryKey};
use crate::nested::{Entry, Nested};
use crate::request::{ReturnValues, SetValue, TransactWriteOp, UpdateAction, UpdateItem};
use crate::value::{Attr, AttributeValue, Item};

pub(crate) mod paths;
mod rewrite;
mod send;
pub(crate) mod state;

// The bounds of the actions and the typestate's markers are the derive's
// vocabulary (`__private::update`); users name only the two states they
// choose by calling a method.
use paths::{Addable, NonKeyPath, Removable, SetType, Settable};
pub use state::{Dynamic, Known};
use state::{Mark, Ready};

use crate::shape::{IndexKeys, KeyTemplate, Seg, When};

/// The error for a value a field's declared validations refuse.
fn invalid<E: Entity>(field: &'static str, message: String) -> Error {
    Error::Validation {
        entity: E::ENTITY_TYPE,
        field,
        message,
    }
}

/// What an executed update returned ([`Update::execute_returning`]).
///
/// ```
/// use singletable::{Db, Embedded, Entity, Returned, ReturnValues, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("C#<id>")]
/// # #[sk("C")]
/// # pub struct Counter { pub id: String, pub n: u64 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&Counter { id: "c".into(), n: 1 }).await?;
/// let f = Counter::fields();
/// let r = Counter::update("c").add(f.n, 1).execute_returning(&db, ReturnValues::UpdatedNew).await?;
/// match r {
///     Returned::Attributes(item) => assert_eq!(item["n"].as_n().unwrap(), "2"),
///     other => panic!("{other:?}"),
/// }
/// let r = Counter::update("c").add(f.n, 1).execute_returning(&db, ReturnValues::None).await?;
/// assert_eq!(r, Returned::Nothing);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Returned<E> {
    /// Nothing was asked for.
    Nothing,
    /// The whole item (`ALL_OLD` / `ALL_NEW`); `None` when there was none.
    Item(Option<E>),
    /// The updated attributes only (`UPDATED_OLD` / `UPDATED_NEW`).
    Attributes(Item),
}

/// An update as it is sent: the UpdateItem, and the marker writes that go
/// with it in one transaction when it changes unique values.
#[derive(Debug)]
pub(crate) struct UpdateWrite {
    pub request: UpdateItem,
    pub markers: Vec<crate::unique::MarkerOp>,
}

/// An UpdateItem request on one item of entity `E`, built by the generated
/// `E::update(key fields…)`.
///
/// Values given to `set`, `set_if_not_exists` and `remove` are checked
/// against the field's declared validations (`min`, `max`, `min_len`,
/// `max_len`, `validate`) as puts are: a refused value is an
/// `Error::Validation` and nothing is sent. `add`, `append`, `prepend` and
/// `delete` change the stored value relative to what DynamoDB holds, so
/// their result is not checked.
///
/// ```
/// use std::collections::BTreeSet;
/// use singletable::{Db, Embedded, Entity, Error, FieldPath, ReturnValues, Returned, Table};
///
/// #[derive(Table)]
/// #[table(name = "App", gsi1)]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = App)]
/// #[pk("POST#<id>")]
/// #[sk("POST")]
/// #[gsi1(pk = "AUTHOR#<author>", sk = "POST#<id>")]
/// pub struct Post {
///     pub id: String,
///     pub author: String,
///     pub views: u64,
///     pub tags: BTreeSet<String>,
///     pub history: Vec<String>,
///     pub draft: Option<String>,
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let f = Post::fields();
/// // An upsert creates the complete item in one UpdateItem.
/// Post::update("p1")
///     .set(f.author, "ana".to_string())
///     .set(f.views, 0)
///     .set(f.history, vec!["created".to_string()])
///     .upsert()
///     .execute(&db)
///     .await?;
/// // SET views = views + 1, ADD tags, SET history = list_append(...): one
/// // request, applied atomically (each attribute once: DynamoDB refuses
/// // overlapping paths).
/// Post::update("p1")
///     .add(f.views, 1)
///     .add(f.tags, BTreeSet::from(["rust".to_string(), "db".to_string()]))
///     .append(f.history, vec!["edited".to_string()])
///     .set_if_not_exists(f.draft, Some("wip".to_string()))
///     .only_if(f.views.lt(&100))
///     .execute(&db)
///     .await?;
/// Post::update("p1")
///     .delete(f.tags, BTreeSet::from(["db".to_string()]))
///     .prepend(f.history, vec!["imported".to_string()])
///     .remove(f.draft)
///     .execute(&db)
///     .await?;
/// // Changing the author rewrites GSI1PK in the same request.
/// Post::update("p1").set(f.author, "bo".to_string()).execute(&db).await?;
///
/// let post = db.get::<Post>(Post::key("p1")?).await?.unwrap();
/// assert_eq!(post.views, 1);
/// assert_eq!(post.tags, BTreeSet::from(["rust".to_string()]));
/// assert_eq!(post.history, ["imported", "created", "edited"]);
/// assert_eq!(post.draft, None);
/// assert_eq!(post.to_item()?["GSI1PK"].as_s().unwrap(), "AUTHOR#bo");
///
/// // Without `.upsert()`, a missing item is not created.
/// let r = Post::update("nope").set(f.views, 1).execute(&db).await;
/// assert!(matches!(r, Err(Error::NotFound { .. })));
///
/// // ReturnValues: the item after the update, decoded.
/// let after = Post::update("p1").add(f.views, 1).execute_returning(&db, ReturnValues::AllNew).await?;
/// assert!(matches!(after, Returned::Item(Some(Post { views: 2, .. }))));
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
///
/// An entity with a `#[attr(version)]` field is updated only at the
/// version read (`ConditionExpression version = :v`), and the update
/// increments it:
///
/// ```
/// use singletable::{Db, Embedded, Entity, Error, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("DOC")]
/// pub struct Doc { pub id: String, pub body: String, #[attr(version)] pub version: u64 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let mut doc = Doc { id: "d".into(), body: "v1".into(), version: 0 };
/// db.put_versioned(&mut doc).await?; // version 1
/// let f = Doc::fields();
/// Doc::update("d").set(f.body, "v2".to_string()).if_version(1).execute(&db).await?;
/// let stale = Doc::update("d").set(f.body, "v3".to_string()).if_version(1).execute(&db).await;
/// assert!(matches!(stale, Err(Error::VersionConflict { .. })));
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[must_use = "an update does nothing until it is executed"]
pub struct Update<E, S = ()> {
    key: PrimaryKey,
    parts: Vec<(&'static str, String)>,
    touched: Vec<&'static str>,
    bools: Vec<(&'static str, bool)>,
    actions: Vec<UpdateAction>,
    condition: Option<Condition>,
    expected_version: Option<u64>,
    upsert: bool,
    /// The primary-key fields as stored attributes (or why one cannot be
    /// stored), written by an upsert.
    key_values: Vec<(&'static str, Result<AttributeValue, Error>)>,
    /// The primary-key fields (Rust names).
    primary: Vec<&'static str>,
    /// The item given with `knowing`.
    held: Option<rewrite::Held>,
    error: Option<Error>,
    _m: PhantomData<fn() -> (E, S)>,
}

impl<E, S> std::fmt::Debug for Update<E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("key", &self.key)
            .field("actions", &self.actions)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl<E: Entity, S> Update<E, S> {
    /// An update of the item with `key`, whose primary-key fields encode to
    /// `parts` (Rust field name, key part). Used by generated code.
    pub(crate) fn new(
        key: Result<PrimaryKey, Error>,
        parts: Vec<(&'static str, Result<String, Error>)>,
    ) -> Self {
        let mut error = None;
        let key = key.unwrap_or_else(|e| {
            error = Some(e);
            PrimaryKey {
                pk: String::new(),
                sk: None,
            }
        });
        let primary = parts.iter().map(|(f, _)| *f).collect();
        let parts = parts
            .into_iter()
            .filter_map(|(f, p)| match p {
                Ok(p) => Some((f, p)),
                Err(e) => {
                    error.get_or_insert(e);
                    None
                }
            })
            .collect();
        Self {
            key,
            parts,
            touched: Vec::new(),
            bools: Vec::new(),
            actions: Vec::new(),
            condition: None,
            expected_version: None,
            upsert: false,
            key_values: Vec::new(),
            primary,
            held: None,
            error,
            _m: PhantomData,
        }
    }

    /// [`Update::new`] of an entity's typed key, then
    /// [`Update::with_key_values`]: one call in each generated `update`.
    #[inline]
    pub(crate) fn of_key<const P: usize, const V: usize>(
        key: Result<crate::KeyOf<E>, Error>,
        parts: [(&'static str, Result<String, Error>); P],
        values: [(&'static str, Result<AttributeValue, Error>); V],
    ) -> Self {
        Self::new(key.map(crate::KeyOf::into_key), Vec::from(parts))
            .with_key_values(Vec::from(values))
    }

    /// The primary-key fields' stored attributes, each checked against the
    /// field's validations. Used by generated code.
    pub(crate) fn with_key_values(
        mut self,
        values: Vec<(&'static str, Result<AttributeValue, Error>)>,
    ) -> Self {
        self.key_values = values;
        self
    }

    fn fail(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    /// The same update in state `S2`.
    fn cast<S2>(self) -> Update<E, S2> {
        Update {
            key: self.key,
            parts: self.parts,
            touched: self.touched,
            bools: self.bools,
            actions: self.actions,
            condition: self.condition,
            expected_version: self.expected_version,
            upsert: self.upsert,
            key_values: self.key_values,
            primary: self.primary,
            held: self.held,
            error: self.error,
            _m: PhantomData,
        }
    }

    fn encode<T: Attr>(&self, attribute: &str, value: &T) -> Result<AttributeValue, Error> {
        value.to_attr().map_err(|e| Error::Encode {
            entity: E::ENTITY_TYPE,
            source: e.at(attribute),
        })
    }

    fn touch(&mut self, field: &'static str) {
        if !self.touched.contains(&field) {
            self.touched.push(field);
        }
    }

    /// Records a change of what `path` names: the field it starts at is
    /// touched only when the path is the whole field (a write below a
    /// field changes no key).
    fn push<T: Attr, P: FieldPath<E, T>>(
        mut self,
        path: &P,
        action: impl FnOnce(Path) -> UpdateAction,
    ) -> Self {
        if path.steps().is_empty() {
            self.touch(path.field_name());
        }
        self.actions.push(action(path.path()));
        self
    }

    /// `SET path = value`: a field (index keys built from it follow), or a
    /// path below one (`f.tags.entry("k")`, `f.address.field(|a| a.city)`,
    /// `f.lines.at(3)`).
    ///
    /// Setting a field that an index key needs beside others marks it in
    /// the update's type, so that `execute` compiles only once every key
    /// the update changes can be rebuilt.
    pub fn set<T: Attr, F: Settable<E, T>>(self, field: F, value: T) -> Update<E, S::Out>
    where
        S: Mark<F::Slot>,
    {
        self.set_field(field, value).cast()
    }

    fn set_field<T: Attr, F: Settable<E, T>>(mut self, field: F, value: T) -> Self {
        if let Err(message) = field.check(&value) {
            return self.fail(invalid::<E>(field.field_name(), message));
        }
        if !field.steps().is_empty() {
            if field.absent_removes() && value.is_absent() {
                return self.push(&field, UpdateAction::remove);
            }
            return match self.encode(field.attribute(), &value) {
                Ok(v) => self.push(&field, |p| UpdateAction::set(p, SetValue::Value(v))),
                Err(e) => self.fail(e),
            };
        }
        let attr = field.attribute();
        if value.is_absent() {
            // None and empty sets are stored as absent attributes.
            return self.remove_attr(attr, field.field_name());
        }
        let v = match self.encode(attr, &value) {
            Ok(v) => v,
            Err(e) => return self.fail(e),
        };
        // A key field that only an index key holds (`from_key`) is no
        // attribute of its own: the rewritten index key is the whole write.
        let mut stored = true;
        if let Some(part) = field.key_part(&value) {
            match part {
                Ok(p) => {
                    self.parts.retain(|(f, _)| *f != field.field_name());
                    self.parts.push((field.field_name(), p));
                }
                Err(e) => return self.fail(e),
            }
            stored = E::SHAPE.attributes.contains(&attr);
        }
        if let AttributeValue::Bool(b) = v {
            self.bools.retain(|(f, _)| *f != field.field_name());
            self.bools.push((field.field_name(), b));
        }
        self.touch(field.field_name());
        if stored {
            self.actions
                .push(UpdateAction::Set(attr.to_owned(), SetValue::Value(v)));
        }
        self
    }

    fn remove_attr(mut self, attr: &'static str, field: &'static str) -> Self {
        self.touch(field);
        self.actions.push(UpdateAction::Remove(attr.to_owned()));
        self
    }

    /// `REMOVE path`: an `Option` field (reads back as `None`; refused
    /// when the field's validations do not accept `None`), an `Option`
    /// field of a nested document, a map entry, or a list element (the
    /// later elements move down).
    pub fn remove<T: Attr, P: Removable<E, T>>(self, path: P) -> Self {
        if let Err(message) = path.check_removal() {
            return self.fail(invalid::<E>(path.field_name(), message));
        }
        self.push(&path, UpdateAction::remove)
    }

    /// `SET path = if_not_exists(path, value)`.
    pub fn set_if_not_exists<T: Attr, P: NonKeyPath<E, T>>(self, path: P, value: T) -> Self {
        if let Err(message) = path.check(&value) {
            return self.fail(invalid::<E>(path.field_name(), message));
        }
        match self.encode(path.attribute(), &value) {
            Ok(v) => self.push(&path, |p| UpdateAction::set(p, SetValue::IfNotExists(v))),
            Err(e) => self.fail(e),
        }
    }

    /// `ADD path value`: an atomic counter (no read-modify-write) or set
    /// union. A missing number counts from 0. `T` is a number type or a
    /// set (`BTreeSet`, `HashSet`).
    pub fn add<T: Addable, P: NonKeyPath<E, T>>(self, path: P, value: T) -> Self {
        match self.encode(path.attribute(), &value) {
            Ok(v) => self.push(&path, |p| UpdateAction::add(p, v)),
            Err(e) => self.fail(e),
        }
    }

    /// `DELETE path elements`: removes elements from a set.
    pub fn delete<T: SetType, P: NonKeyPath<E, T>>(self, path: P, elements: T) -> Self {
        if elements.is_absent() {
            return self;
        }
        match self.encode(path.attribute(), &elements) {
            Ok(v) => self.push(&path, |p| UpdateAction::delete(p, v)),
            Err(e) => self.fail(e),
        }
    }

    /// `SET path = list_append(path, values)`.
    pub fn append<V: Attr, P: NonKeyPath<E, Vec<V>>>(self, path: P, values: Vec<V>) -> Self {
        match self.encode(path.attribute(), &values) {
            Ok(v) => self.push(&path, |p| UpdateAction::set(p, SetValue::Append(v))),
            Err(e) => self.fail(e),
        }
    }

    /// `SET path = list_append(values, path)`.
    pub fn prepend<V: Attr, P: NonKeyPath<E, Vec<V>>>(self, path: P, values: Vec<V>) -> Self {
        match self.encode(path.attribute(), &values) {
            Ok(v) => self.push(&path, |p| UpdateAction::set(p, SetValue::Prepend(v))),
            Err(e) => self.fail(e),
        }
    }

    /// Applies the update only if `condition` holds.
    pub fn only_if(mut self, condition: Cond<E>) -> Self {
        match condition.into_condition() {
            Ok(c) => {
                self.condition = Some(match self.condition.take() {
                    Some(prev) => prev.and(c),
                    None => c,
                });
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// Optimistic locking: applies only if the stored version is `version`
    /// (the one that was read), and increments it. Required for entities
    /// with a `#[attr(version)]` field.
    pub fn if_version(mut self, version: u64) -> Self {
        self.expected_version = Some(version);
        self
    }

    /// Creates the item when it does not exist. By default an update of a
    /// missing item fails with [`Error::NotFound`], so no partial item
    /// without required fields is ever created.
    ///
    /// An upsert writes a complete item in its one UpdateItem: the
    /// entity-type attribute, the primary-key fields, every index key (the
    /// fields of each must be set by the update or be key fields), the
    /// `created_at` stamp if the item is new (`if_not_exists`; a key built
    /// from `created_at` and primary-key fields only is written the same
    /// way, so it keeps agreeing with the stored creation time; one that
    /// also needs another field is refused). It must set every field the
    /// entity cannot read as absent (non-`Option` fields without a
    /// default), or it is refused before sending
    /// ([`Error::UpsertIncomplete`], naming the fields); its values pass the fields'
    /// validations. It applies only where no item or an item of this
    /// entity type exists (otherwise [`Error::ConditionFailed`]).
    /// Versioned entities are created with `put_versioned` instead, and an
    /// upsert that sets a unique field is refused (its marker would need
    /// the stored item): create the item with `create`.
    pub fn upsert(mut self) -> Self {
        self.upsert = true;
        self
    }

    /// Takes the fields the update does not set from `current`, an item
    /// the application holds (typically the one it just read), for what
    /// the update must rebuild but not change: a key attribute whose
    /// template mixes fields the update sets with fields it does not, the
    /// sparse condition of an index whose key changes, the old value of a
    /// unique field the update changes (see [`crate::unique`]). Those
    /// values are not sent as changes; the update is conditioned on the
    /// stored item still holding each one it used, so a stale `current`
    /// fails with [`Error::ConditionFailed`] instead of writing a wrong
    /// key. Refused with `.upsert()`, and when `current` has another key.
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # #[derive(singletable::Table)]
    /// # #[table(name = "App", gsi1)]
    /// # struct App;
    /// #[derive(singletable::Entity, Clone)]
    /// #[entity(table = App, rename_all = "camelCase")]
    /// #[pk("DOC#<id>")]
    /// #[sk("DOC")]
    /// #[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
    /// struct Doc {
    ///     id: String,
    ///     owner: String,
    ///     team: String,
    /// }
    ///
    /// # futures::executor::block_on(async {
    /// let db = singletable::Db::<Embedded>::in_memory::<App>("App").unwrap();
    /// let doc = Doc { id: "d".into(), owner: "ana".into(), team: "red".into() };
    /// db.put(&doc).await.unwrap();
    /// // GSI1PK needs `team` too: taken from the held item, not changed.
    /// Doc::update("d")
    ///     .set(Doc::fields().owner, "bob".to_owned())
    ///     .knowing(&doc)
    ///     .execute(&db)
    ///     .await
    ///     .unwrap();
    /// # });
    /// ```
    pub fn knowing(self, current: &E) -> Update<E, Known> {
        self.know(current).cast()
    }

    fn know(mut self, current: &E) -> Self {
        match rewrite::Held::of(current) {
            Ok(held) if self.error.is_none() && held.key != self.key => {
                let e = Error::Refused(Refusal::KnowingAnotherItem {
                    entity: E::ENTITY_TYPE,
                    given: (held.key.pk.clone(), held.key.sk.clone()),
                    updated: (self.key.pk.clone(), self.key.sk.clone()),
                });
                self.fail(e)
            }
            Ok(held) => {
                self.held = Some(held);
                self
            }
            Err(e) => self.fail(e),
        }
    }

    /// Defers the check that the update can rebuild every index key it
    /// changes from compile time to when it is sent: for an update whose
    /// fields are chosen at run time (set in branches), whose type would
    /// otherwise differ by branch. An update that cannot rebuild a key is
    /// then refused before anything is sent, with
    /// [`Error::UpdateNeedsItem`].
    ///
    /// ```
    /// # use singletable::{Db, Embedded, Entity, Error, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// #[derive(Entity, Clone)]
    /// #[entity(table = App)]
    /// #[pk("DOC#<id>")]
    /// #[sk("DOC")]
    /// #[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
    /// pub struct Doc { pub id: String, pub owner: String, pub team: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// db.put(&Doc { id: "d".into(), owner: "ana".into(), team: "red".into() }).await?;
    /// let (owner, team) = (Some("bo".to_owned()), None::<String>);
    /// let f = Doc::fields();
    /// let mut update = Doc::update("d").check_at_run_time();
    /// if let Some(o) = owner { update = update.set(f.owner, o); }
    /// if let Some(t) = team { update = update.set(f.team, t); }
    /// let err = update.execute(&db).await.unwrap_err();
    /// assert!(matches!(err, Error::UpdateNeedsItem { needs: "team", .. }));
    /// # Ok::<(), Error>(())
    /// # }).unwrap();
    /// ```
    pub fn check_at_run_time(self) -> Update<E, Dynamic> {
        self.cast()
    }

    pub(crate) fn key(&self) -> &PrimaryKey {
        &self.key
    }

    /// Sends the update: one UpdateItem request, or, when it changes a
    /// unique field, one TransactWriteItems of the update and the marker
    /// moves (see [`crate::unique`]); a value another item holds is
    /// [`Error::UniqueViolation`].
    pub fn execute<'a, X: Executor>(self, db: &'a Db<X>) -> BoxFuture<'a, Result<(), Error>>
    where
        E: Ready<S> + 'a,
        S: 'a,
    {
        Box::pin(async move { self.send(db, ReturnValues::None).await.map(drop) })
    }

    /// Sends the update and returns what `returning` asks for.
    pub fn execute_returning<'a, X: Executor>(
        self,
        db: &'a Db<X>,
        returning: ReturnValues,
    ) -> BoxFuture<'a, Result<Returned<E>, Error>>
    where
        E: Ready<S> + 'a,
        S: 'a,
    {
        Box::pin(self.send(db, returning))
    }
}
