//! TransactWriteItems and TransactGetItems as typed builders: several
//! items written (or read) atomically, at twice the unit cost, at most
//! 100 operations on distinct items.
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
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
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! db.transaction().create(&User { id: "a".into() }).create(&User { id: "b".into() }).execute().await?;
//! let mut read = db.read_transaction();
//! let (a, b) = (read.get::<User>(User::key("a")?), read.get::<User>(User::key("b")?));
//! let mut got = read.execute().await?;
//! assert!(got.take(a)?.is_some() && got.take(b)?.is_some());
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use std::time::SystemTime;

use crate::clock::{Created, Stamp};
use crate::db::{Db, exists, key_item, not_exists};
use crate::entity::Entity;
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::Cond;
use crate::key::{KeyOf, PrimaryKey};
use crate::request::{ConditionCheck, TransactWrite, TransactWriteOp};
use crate::unique::MarkerOp;
use crate::update::Update;

/// DynamoDB's limit of operations in one transaction, checked before
/// sending.
///
/// ```
/// use singletable::{transact::MAX_TRANSACTION_OPS, Db, Embedded, Entity, Error, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<n>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub n: usize }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let mut tx = db.transaction();
/// for n in 0..=MAX_TRANSACTION_OPS {
///     tx = tx.put(&User { n });
/// }
/// assert!(matches!(tx.execute().await, Err(Error::TransactionTooLarge { operations: 101, max: 100, .. }))); // not sent
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
pub const MAX_TRANSACTION_OPS: usize = 100;

/// A TransactWriteItems request being built: up to 100 puts, deletes and
/// condition checks, on distinct items, that all succeed or all fail. Each
/// operation costs twice a plain write.
///
/// When DynamoDB cancels it, [`Error::TransactionCanceled`] lists one reason
/// per operation, at the operation's position in the order they were added;
/// a unique value's marker claimed by another item is
/// [`Error::UniqueViolation`] instead. The marker writes of unique values
/// (see [`crate::unique`]) follow the operation that needs them, count
/// against the 100 operations, and shift the positions of later ones.
///
/// All the transaction's automatic timestamps hold one reading of the
/// handle's clock, taken when the transaction is started.
///
/// ```
/// use singletable::{Condition, Db, Embedded, Entity, Error, FieldPath, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop")]
/// pub struct Shop;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = Shop)]
/// #[pk("ACCOUNT#<id>")]
/// #[sk("ACCOUNT")]
/// pub struct Account { pub id: String, pub balance: i64 }
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = Shop)]
/// #[pk("ACCOUNT#<account>")]
/// #[sk("ORDER#<id>")]
/// pub struct Order { pub account: String, pub id: String, pub total: i64 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Account { id: "ana".into(), balance: 100 }).await?;
/// let acc = Account::fields();
///
/// // Place an order and charge for it, or neither.
/// let tx = db
///     .transaction()
///     .create(&Order { account: "ana".into(), id: "o1".into(), total: 30 })
///     .update(Account::update("ana").add(acc.balance, -30).only_if(acc.balance.ge(&30)))
///     .idempotency_token("order-o1");
/// assert_eq!(tx.len(), 2);
/// assert!(!tx.is_empty());
/// tx.execute().await?;
/// assert_eq!(db.get::<Account>(Account::key("ana")?).await?.unwrap().balance, 70);
///
/// // Cancelled: every reason in request order; nothing is written.
/// let r = db
///     .transaction()
///     .put(&Order { account: "ana".into(), id: "o2".into(), total: 500 })
///     .check::<Account>(Account::key("ana")?, acc.balance.ge(&500))
///     .execute()
///     .await;
/// match r {
///     Err(Error::TransactionCanceled { reasons }) => assert_eq!(reasons[1].code, "ConditionalCheckFailed"),
///     other => panic!("{other:?}"),
/// }
/// assert!(db.get::<Order>(Order::key("ana", "o2")?).await?.is_none());
///
/// // The other operations.
/// db.transaction()
///     .replace(&Account { id: "ana".into(), balance: 75 })
///     .put_if_raw(&Order { account: "ana".into(), id: "o1".into(), total: 25 }, Condition::Exists("total".into()))
///     .put_if(&Order { account: "ana".into(), id: "o3".into(), total: 5 }, Order::fields().total.not_exists())
///     .check_raw::<Order>(Order::key("ana", "o2")?, Condition::NotExists("total".into()))
///     .execute()
///     .await?;
/// db.transaction()
///     .delete_if::<Order>(Order::key("ana", "o3")?, Order::fields().total.eq(&5))
///     .delete_if_raw::<Order>(Order::key("ana", "o1")?, Condition::Exists("total".into()))
///     .delete::<Order>(Order::key("ana", "o9")?)
///     .execute()
///     .await?;
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a transaction does nothing until `execute` is awaited"]
pub struct Transaction<'a, E> {
    db: &'a Db<E>,
    ops: Vec<TransactWriteOp>,
    keys: Vec<PrimaryKey>,
    /// Marker writes of unique values, at their positions in `ops`.
    markers: Vec<(usize, MarkerOp)>,
    /// The one clock reading of the transaction's stamps.
    now: SystemTime,
    token: Option<String>,
    error: Option<Error>,
}

impl<'a, E: Executor> Transaction<'a, E> {
    pub(crate) fn new(db: &'a Db<E>) -> Self {
        Self {
            db,
            ops: Vec::new(),
            keys: Vec::new(),
            markers: Vec::new(),
            now: db.clock().now(),
            token: None,
            error: None,
        }
    }

    /// Adds marker writes after the operation that needs them.
    fn push_markers(mut self, markers: Vec<MarkerOp>) -> Self {
        for m in markers {
            let op = m.op.clone();
            let key = m.key.clone();
            self = self.push(Ok(key), || Ok(op));
            if self.error.is_some() {
                return self;
            }
            self.markers.push((self.ops.len() - 1, m));
        }
        self
    }

    /// Refuses a write of an entity with unique fields that needs the
    /// stored item's values, which a transaction cannot read.
    fn unique_refused<T: Entity>(&mut self, what: &str) -> bool {
        let Some(u) = T::UNIQUE.first() else {
            return false;
        };
        self.error.get_or_insert(Error::InvalidRequest(format!(
            "a transaction cannot {what} `{}`: it has unique field `{}`, whose old value's marker needs the stored item; use `db.{}` outside a transaction, or `update(...).knowing(&item)` here",
            T::ENTITY_TYPE,
            u.field,
            if what == "delete" { "delete" } else { "put" },
        )));
        true
    }

    fn push(
        mut self,
        key: Result<PrimaryKey, Error>,
        op: impl FnOnce() -> Result<TransactWriteOp, Error>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        let result = key.and_then(|key| {
            if self.keys.contains(&key) {
                return Err(Error::TransactionItemTwice {
                    index: self.ops.len(),
                    pk: key.pk,
                    sk: key.sk,
                });
            }
            Ok((key, op()?))
        });
        match result {
            Ok((key, op)) => {
                self.keys.push(key);
                self.ops.push(op);
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    fn put_op<T: Entity>(mut self, item: &T, condition: Option<Condition>) -> Self {
        if self.unique_refused::<T>("put") {
            return self;
        }
        let db = self.db;
        let stamp = Stamp::new(self.now, Created::Keep);
        // No stored creation time at hand: an empty `created_at` also
        // requires the stored item to have none.
        let guard = crate::guarded::no_stored_creation_time(item);
        let condition = match (condition, guard) {
            (Some(c), Some(g)) => Some(c.and(g)),
            (c, g) => c.or(g),
        };
        self.push(item.primary_key(), || {
            let mut put = db.put_request::<T>(item, &stamp, condition)?;
            put.return_on_condition_failure = true;
            Ok(TransactWriteOp::Put(put))
        })
    }

    /// Puts the item, replacing any item with its key. Its `updated_at`
    /// fields get the transaction's time; an empty `created_at` gets it
    /// too, and the put then requires that the stored item has no creation
    /// time (see [`crate::clock`]). Refused for entities with unique fields.
    pub fn put<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, None)
    }

    /// Puts the item only if no item has its key; its timestamps get the
    /// transaction's time. For an entity with unique fields, also claims
    /// the marker of each unique value (see [`crate::unique`]); a value
    /// another item holds fails the transaction with
    /// [`Error::UniqueViolation`].
    pub fn create<T: Entity>(self, item: &T) -> Self {
        let db = self.db;
        let stamp = Stamp::new(self.now, Created::Now);
        let mut encoded = None;
        let mut s = self.push(item.primary_key(), || {
            let mut put = db.put_request::<T>(item, &stamp, Some(not_exists::<T>()))?;
            put.return_on_condition_failure = true;
            encoded = Some(put.item.clone());
            Ok(TransactWriteOp::Put(put))
        });
        if T::UNIQUE.is_empty() || s.error.is_some() {
            return s;
        }
        let markers = item.primary_key().and_then(|owner| {
            crate::unique::moves::<T>(db.table_name(), &owner, None, encoded.as_ref())
        });
        match markers {
            Ok(markers) => s.push_markers(markers),
            Err(e) => {
                s.error.get_or_insert(e);
                s
            }
        }
    }

    /// Puts the item only if an item with its key exists. Timestamps as
    /// [`Transaction::put`]; refused for entities with unique fields.
    pub fn replace<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, Some(exists::<T>()))
    }

    /// Puts the item only if the typed `condition` holds on the stored item.
    /// Timestamps as [`Transaction::put`]; refused for entities with
    /// unique fields.
    pub fn put_if<T: Entity>(self, item: &T, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.put_op(item, Some(c)),
            Err(e) => self.fail(e),
        }
    }

    /// [`Transaction::put_if`] with an untyped [`Condition`].
    pub fn put_if_raw<T: Entity>(self, item: &T, condition: Condition) -> Self {
        self.put_op(item, Some(condition))
    }

    fn fail(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    /// Deletes the item with `key`. Refused for entities with unique fields
    /// (their markers need the stored values): use [`Db::delete`] for those.
    pub fn delete<T: Entity>(self, key: KeyOf<T>) -> Self {
        self.delete_op::<T>(key.into_key(), None)
    }

    /// Deletes the item with `key` only if the typed `condition` holds.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, FieldPath, Table};
    ///
    /// #[derive(Table)]
    /// #[table(name = "App")]
    /// pub struct App;
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(table = App, name = "Seat")]
    /// #[pk("SEAT#<id>")]
    /// #[sk("SEAT")]
    /// pub struct Seat { pub id: String, pub holder: Option<String> }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> singletable::Result<()> {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let f = Seat::fields();
    /// db.put(&Seat { id: "a1".into(), holder: Some("ana".into()) }).await?;
    /// // One TransactWriteItems: the seat goes only if ana still holds it.
    /// db.transaction()
    ///     .delete_if::<Seat>(Seat::key("a1")?, f.holder.eq("ana"))
    ///     .execute()
    ///     .await?;
    /// assert!(db.get::<Seat>(Seat::key("a1")?).await?.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub fn delete_if<T: Entity>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.delete_op::<T>(key.into_key(), Some(c)),
            Err(e) => self.fail(e),
        }
    }

    /// [`Transaction::delete_if`] with an untyped [`Condition`].
    pub fn delete_if_raw<T: Entity>(self, key: KeyOf<T>, condition: Condition) -> Self {
        self.delete_op::<T>(key.into_key(), Some(condition))
    }

    fn delete_op<T: Entity>(mut self, key: PrimaryKey, condition: Option<Condition>) -> Self {
        if self.unique_refused::<T>("delete") {
            return self;
        }
        let db = self.db;
        let k = key.clone();
        self.push(Ok(key), || {
            let mut del = db.delete_request::<T>(k, condition, false);
            del.return_on_condition_failure = true;
            Ok(TransactWriteOp::Delete(del))
        })
    }

    /// Requires the typed `condition` on the item with `key`, without
    /// writing it (a ConditionCheck).
    pub fn check<T: Entity>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.check_raw::<T>(key, c),
            Err(e) => self.fail(e),
        }
    }

    /// [`Transaction::check`] with an untyped [`Condition`].
    pub fn check_raw<T: Entity>(self, key: KeyOf<T>, condition: Condition) -> Self {
        let key = key.into_key();
        let table = self.db.table_name().to_owned();
        let k = key_item::<T::Table>(&key);
        self.push(Ok(key), || {
            Ok(TransactWriteOp::ConditionCheck(ConditionCheck {
                table,
                key: k,
                condition,
                return_on_condition_failure: true,
            }))
        })
    }

    /// Adds an update (with its conditions, version check, stamps at the
    /// transaction's time, index key rewrites, and the marker moves of the
    /// unique values it changes).
    pub fn update<T: Entity + crate::update::Ready<S>, S>(self, update: Update<T, S>) -> Self {
        let key = update.key().clone();
        let table = self.db.table_name().to_owned();
        let now = self.now;
        let mut markers = Vec::new();
        let s = self.push(Ok(key), || {
            let write = update.into_write(&table, now)?;
            markers = write.markers;
            Ok(TransactWriteOp::Update(write.request))
        });
        s.push_markers(markers)
    }

    /// Sets the idempotency token: a retry with the same token within ten
    /// minutes is not applied twice.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Number of operations so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no operation was added.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Sends the transaction: one TransactWriteItems request. A
    /// transaction without operations is refused with
    /// [`Error::EmptyTransaction`] before anything is sent, as DynamoDB
    /// refuses a TransactWriteItems of zero items (ValidationException).
    pub async fn execute(self) -> Result<(), Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.ops.is_empty() {
            return Err(Error::EmptyTransaction {
                operation: "TransactWriteItems",
            });
        }
        if self.ops.len() > MAX_TRANSACTION_OPS {
            return Err(Error::TransactionTooLarge {
                operation: "TransactWriteItems",
                operations: self.ops.len(),
                max: MAX_TRANSACTION_OPS,
            });
        }
        let result = self
            .db
            .run_transaction(TransactWrite {
                ops: self.ops,
                token: self.token,
            })
            .await;
        match result {
            Err(Error::TransactionCanceled { reasons }) => {
                let markers: Vec<(usize, &MarkerOp)> =
                    self.markers.iter().map(|(i, m)| (*i, m)).collect();
                Err(crate::unique::violation(&reasons, &markers)
                    .unwrap_or(Error::TransactionCanceled { reasons }))
            }
            other => other,
        }
    }
}

/// A TransactGetItems request being built: up to 100 items of any entity
/// types, read atomically (at twice the cost of a strongly consistent read).
///
/// ```
/// use singletable::{Condition, Db, Embedded, Entity, Error, FieldPath, Table};
///
/// #[derive(Table)]
/// #[table(name = "Shop")]
/// pub struct Shop;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = Shop)]
/// #[pk("ACCOUNT#<id>")]
/// #[sk("ACCOUNT")]
/// pub struct Account { pub id: String, pub balance: i64 }
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = Shop)]
/// #[pk("ACCOUNT#<account>")]
/// #[sk("ORDER#<id>")]
/// pub struct Order { pub account: String, pub id: String, pub total: i64 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// db.put(&Account { id: "ana".into(), balance: 100 }).await?;
/// db.put(&Order { account: "ana".into(), id: "o1".into(), total: 30 }).await?;
/// // One TransactGetItems: both items as of the same instant.
/// let mut read = db.read_transaction();
/// let account = read.get::<Account>(Account::key("ana")?);
/// let order = read.get::<Order>(Order::key("ana", "o1")?);
/// let missing = read.get::<Order>(Order::key("ana", "o9")?);
/// let mut results = read.execute().await?;
/// assert_eq!(results.take(account)?.unwrap().balance, 100);
/// assert_eq!(results.take(order)?.unwrap().total, 30);
/// assert_eq!(results.take(missing)?, None);
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a read transaction does nothing until `execute` is awaited"]
pub struct ReadTransaction<'a, E> {
    db: &'a Db<E>,
    gets: Vec<(String, crate::value::Item)>,
}

/// A typed handle on one read of a [`ReadTransaction`]: it remembers the
/// entity type, so [`ReadResults::take`] decodes the right one.
///
/// ```
/// use singletable::{transact::Handle, Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
///
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// let mut read = db.read_transaction();
/// let handle: Handle<User> = read.get(User::key("ana")?);
/// # let _ = handle;
/// # Ok::<(), singletable::Error>(())
/// ```
#[derive(Debug)]
pub struct Handle<T> {
    index: usize,
    _m: std::marker::PhantomData<fn() -> T>,
}

/// The items a [`ReadTransaction`] read; take each with its handle.
///
/// ```
/// use singletable::{Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<id>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub id: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { id: "ana".into() }).await?;
/// let mut read = db.read_transaction();
/// let h = read.get::<User>(User::key("ana")?);
/// let mut results = read.execute().await?;
/// assert_eq!(results.take(h)?, Some(User { id: "ana".into() }));
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct ReadResults {
    items: Vec<Option<crate::value::Item>>,
}

impl ReadResults {
    /// The item read through `handle`, decoded; `None` when it does not exist.
    pub fn take<T: Entity>(&mut self, handle: Handle<T>) -> Result<Option<T>, Error> {
        self.items
            .get_mut(handle.index)
            .and_then(Option::take)
            .map(T::from_item)
            .transpose()
    }
}

impl<'a, E: Executor> ReadTransaction<'a, E> {
    pub(crate) fn new(db: &'a Db<E>) -> Self {
        Self {
            db,
            gets: Vec::new(),
        }
    }

    /// Reads the item of type `T` with `key`.
    pub fn get<T: Entity>(&mut self, key: KeyOf<T>) -> Handle<T> {
        let key = key_item::<T::Table>(&key.into_key());
        self.gets.push((self.db.table_name().to_owned(), key));
        Handle {
            index: self.gets.len() - 1,
            _m: std::marker::PhantomData,
        }
    }

    /// Sends the request: one TransactGetItems. A request without reads is
    /// refused with [`Error::EmptyTransaction`] before anything is sent, as
    /// DynamoDB refuses a TransactGetItems of zero items.
    pub async fn execute(self) -> Result<ReadResults, Error> {
        if self.gets.is_empty() {
            return Err(Error::EmptyTransaction {
                operation: "TransactGetItems",
            });
        }
        if self.gets.len() > MAX_TRANSACTION_OPS {
            return Err(Error::TransactionTooLarge {
                operation: "TransactGetItems",
                operations: self.gets.len(),
                max: MAX_TRANSACTION_OPS,
            });
        }
        let n = self.gets.len();
        let span = crate::trace::span(
            "TransactGetItems",
            self.db.table_name(),
            &crate::trace::Request::default(),
        );
        let request = self
            .db
            .executor()
            .transact_get(crate::request::TransactGet { gets: self.gets });
        let items = crate::trace::traced(span.clone(), request).await?;
        crate::trace::count(&span, items.iter().flatten().count());
        if items.len() != n {
            return Err(Error::InvalidRequest(format!(
                "TransactGetItems returned {} responses for {n} reads",
                items.len()
            )));
        }
        Ok(ReadResults { items })
    }
}

// The handle's entry points to transactions live beside them, so that
// `db` names nothing built on top of it.
impl<E: Executor> Db<E> {
    /// Starts a TransactGetItems request.
    pub fn read_transaction(&self) -> ReadTransaction<'_, E> {
        ReadTransaction::new(self)
    }

    /// Starts a TransactWriteItems request.
    pub fn transaction(&self) -> Transaction<'_, E> {
        Transaction::new(self)
    }
}
