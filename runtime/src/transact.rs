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
//! singletable::Transaction::new().create(&User { id: "a".into() }).create(&User { id: "b".into() }).execute(&db).await?;
//! let mut read = singletable::ReadTransaction::new();
//! let (a, b) = (read.get::<User>(User::key("a")?), read.get::<User>(User::key("b")?));
//! let mut got = read.execute(&db).await?;
//! assert!(got.take(a)?.is_some() && got.take(b)?.is_some());
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use std::time::SystemTime;

use crate::clock::{Created, Stamp};
use crate::db::{Db, exists, not_exists};
use crate::entity::Entity;
use crate::error::{Error, Refusal};
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::Cond;
use crate::key::{KeyOf, PrimaryKey};
use crate::request::{ConditionCheck, TransactWrite, TransactWriteOp};
use crate::unique::MarkerOp;
use crate::update::Update;

/// The operations of a [`Transaction`], built when it is sent: the table
/// and the clock reading are the handle's.
struct Writes<'d> {
    table: &'d str,
    ops: Vec<TransactWriteOp>,
    keys: Vec<PrimaryKey>,
    markers: Vec<(usize, MarkerOp)>,
    now: SystemTime,
    error: Option<Error>,
}

impl<'d> Writes<'d> {
    fn new(table: &'d str, now: SystemTime) -> Self {
        Self {
            table,
            ops: Vec::new(),
            keys: Vec::new(),
            markers: Vec::new(),
            now,
            error: None,
        }
    }

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

    fn unique_refused<T: Entity>(&mut self, what: &str) -> bool {
        let Some(u) = T::UNIQUE.first() else {
            return false;
        };
        let (operation, instead) = if what == "delete" {
            (
                "a transaction's delete",
                "its old marker needs the stored item; use `db.delete` outside a transaction, or `update(...).knowing(&item)` here",
            )
        } else {
            (
                "a transaction's put",
                "its old marker needs the stored item; use `db.put` outside a transaction, or `update(...).knowing(&item)` here",
            )
        };
        self.error
            .get_or_insert(Error::Refused(Refusal::UniqueMarker {
                entity: T::ENTITY_TYPE,
                field: u.field,
                operation,
                instead,
            }));
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
        let table = self.table;
        let stamp = Stamp::new(self.now, Created::Keep);
        // No stored creation time at hand: an empty `created_at` also
        // requires the stored item to have none.
        let guard = crate::guarded::no_stored_creation_time(item);
        let condition = match (condition, guard) {
            (Some(c), Some(g)) => Some(c.and(g)),
            (c, g) => c.or(g),
        };
        self.push(item.primary_key(), || {
            let mut put = crate::db::put_request::<T>(table, item, &stamp, condition)?;
            put.return_on_condition_failure = true;
            Ok(TransactWriteOp::Put(put))
        })
    }

    fn put<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, None)
    }

    fn create<T: Entity>(self, item: &T) -> Self {
        let table = self.table;
        let stamp = Stamp::new(self.now, Created::Now);
        let mut encoded = None;
        let mut s = self.push(item.primary_key(), || {
            let mut put =
                crate::db::put_request::<T>(table, item, &stamp, Some(not_exists::<T>()))?;
            put.return_on_condition_failure = true;
            encoded = Some(put.item.clone());
            Ok(TransactWriteOp::Put(put))
        });
        if T::UNIQUE.is_empty() || s.error.is_some() {
            return s;
        }
        let markers = item
            .primary_key()
            .and_then(|owner| crate::unique::moves::<T>(table, &owner, None, encoded.as_ref()));
        match markers {
            Ok(markers) => s.push_markers(markers),
            Err(e) => {
                s.error.get_or_insert(e);
                s
            }
        }
    }

    fn replace<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, Some(exists::<T>()))
    }

    fn put_if<T: Entity>(self, item: &T, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.put_op(item, Some(c)),
            Err(e) => self.fail(e),
        }
    }

    fn put_if_raw<T: Entity>(self, item: &T, condition: Condition) -> Self {
        self.put_op(item, Some(condition))
    }

    fn fail(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    fn delete<T: Entity>(self, key: KeyOf<T>) -> Self {
        self.delete_op::<T>(key.into_key(), None)
    }

    fn delete_if<T: Entity>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.delete_op::<T>(key.into_key(), Some(c)),
            Err(e) => self.fail(e),
        }
    }

    fn delete_if_raw<T: Entity>(self, key: KeyOf<T>, condition: Condition) -> Self {
        self.delete_op::<T>(key.into_key(), Some(condition))
    }

    fn delete_op<T: Entity>(mut self, key: PrimaryKey, condition: Option<Condition>) -> Self {
        if self.unique_refused::<T>("delete") {
            return self;
        }
        let table = self.table;
        let k = key.clone();
        self.push(Ok(key), || {
            let mut del = crate::db::delete_request::<T>(table, k, condition, false);
            del.return_on_condition_failure = true;
            Ok(TransactWriteOp::Delete(del))
        })
    }

    fn check<T: Entity>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.check_raw::<T>(key, c),
            Err(e) => self.fail(e),
        }
    }

    fn check_raw<T: Entity>(self, key: KeyOf<T>, condition: Condition) -> Self {
        let key = key.into_key();
        let table = self.table.to_owned();
        let k = key.to_item::<T::Table>();
        self.push(Ok(key), || {
            Ok(TransactWriteOp::ConditionCheck(ConditionCheck {
                table,
                key: k,
                condition,
                return_on_condition_failure: true,
            }))
        })
    }

    fn update<T: Entity + crate::update::state::Ready<S>, S>(self, update: Update<T, S>) -> Self {
        let key = update.key().clone();
        let table = self.table.to_owned();
        let now = self.now;
        let mut markers = Vec::new();
        let s = self.push(Ok(key), || {
            let write = update.into_write(&table, now)?;
            markers = write.markers;
            Ok(TransactWriteOp::Update(write.request))
        });
        s.push_markers(markers)
    }
}

/// One operation of a [`Transaction`], applied to its writes when it is
/// sent.
type Step<'a> = Box<dyn for<'d> FnOnce(Writes<'d>) -> Writes<'d> + Send + 'a>;

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
/// handle's clock, taken when it is sent ([`Transaction::execute`]).
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
/// // Place an order and charge for it, or neither. The transaction
/// // borrows the items it writes until it is sent.
/// let order = Order { account: "ana".into(), id: "o1".into(), total: 30 };
/// let tx = singletable::Transaction::new()
///     .create(&order)
///     .update(Account::update("ana").add(acc.balance, -30).only_if(acc.balance.ge(&30)))
///     .idempotency_token("order-o1");
/// assert_eq!(tx.len(), 2);
/// assert!(!tx.is_empty());
/// tx.execute(&db).await?;
/// assert_eq!(db.get::<Account>(Account::key("ana")?).await?.unwrap().balance, 70);
///
/// // Cancelled: every reason in request order; nothing is written.
/// let r = singletable::Transaction::new()
///     .put(&Order { account: "ana".into(), id: "o2".into(), total: 500 })
///     .check::<Account>(Account::key("ana")?, acc.balance.ge(&500))
///     .execute(&db)
///     .await;
/// match r {
///     Err(Error::TransactionCanceled { reasons }) => assert_eq!(reasons[1].code, "ConditionalCheckFailed"),
///     other => panic!("{other:?}"),
/// }
/// assert!(db.get::<Order>(Order::key("ana", "o2")?).await?.is_none());
///
/// // The other operations.
/// singletable::Transaction::new()
///     .replace(&Account { id: "ana".into(), balance: 75 })
///     .put_if_raw(&Order { account: "ana".into(), id: "o1".into(), total: 25 }, Condition::Exists("total".into()))
///     .put_if(&Order { account: "ana".into(), id: "o3".into(), total: 5 }, Order::fields().total.not_exists())
///     .check_raw::<Order>(Order::key("ana", "o2")?, Condition::NotExists("total".into()))
///     .execute(&db)
///     .await?;
/// singletable::Transaction::new()
///     .delete_if::<Order>(Order::key("ana", "o3")?, Order::fields().total.eq(&5))
///     .delete_if_raw::<Order>(Order::key("ana", "o1")?, Condition::Exists("total".into()))
///     .delete::<Order>(Order::key("ana", "o9")?)
///     .execute(&db)
///     .await?;
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a transaction does nothing until `execute` is awaited"]
pub struct Transaction<'a> {
    steps: Vec<Step<'a>>,
    token: Option<String>,
}

impl std::fmt::Debug for Transaction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("operations", &self.steps.len())
            .field("token", &self.token)
            .finish()
    }
}

impl Default for Transaction<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl Transaction<'_> {
    /// DynamoDB's limit of operations in one transaction (a [`Transaction`]
    /// or a [`ReadTransaction`]), checked before sending.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, Table, Transaction};
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
    /// let users: Vec<User> = (0..=Transaction::MAX_OPS).map(|n| User { n }).collect();
    /// let mut tx = singletable::Transaction::new();
    /// for user in &users {
    ///     tx = tx.put(user);
    /// }
    /// assert!(matches!(tx.execute(&db).await, Err(Error::TransactionTooLarge { operations: 101, max: 100, .. }))); // not sent
    /// # Ok::<(), Error>(())
    /// # }).unwrap();
    /// ```
    pub const MAX_OPS: usize = 100;
}

impl<'a> Transaction<'a> {
    /// A transaction without operations yet. It borrows the items it puts
    /// until it is sent with [`Transaction::execute`] (they are `Sync`, so
    /// that the transaction, and the future sending it, are `Send`).
    pub fn new() -> Self {
        Self {
            steps: Vec::new(),
            token: None,
        }
    }

    fn then(mut self, step: impl for<'d> FnOnce(Writes<'d>) -> Writes<'d> + Send + 'a) -> Self {
        self.steps.push(Box::new(step));
        self
    }

    /// Puts the item, replacing any item with its key. Its `updated_at`
    /// fields get the transaction's time; an empty `created_at` gets it
    /// too, and the put then requires that the stored item has no creation
    /// time (see [`crate::clock`]). Refused for entities with unique fields.
    pub fn put<T: Entity + Sync + 'a>(self, item: &'a T) -> Self {
        self.then(move |w| w.put(item))
    }

    /// Puts the item only if no item has its key; its timestamps get the
    /// transaction's time. For an entity with unique fields, also claims
    /// the marker of each unique value (see [`crate::unique`]); a value
    /// another item holds fails the transaction with
    /// [`Error::UniqueViolation`].
    pub fn create<T: Entity + Sync + 'a>(self, item: &'a T) -> Self {
        self.then(move |w| w.create(item))
    }

    /// Puts the item only if an item with its key exists. Timestamps as
    /// [`Transaction::put`]; refused for entities with unique fields.
    pub fn replace<T: Entity + Sync + 'a>(self, item: &'a T) -> Self {
        self.then(move |w| w.replace(item))
    }

    /// Puts the item only if the typed `condition` holds on the stored item.
    /// Timestamps as [`Transaction::put`]; refused for entities with
    /// unique fields.
    pub fn put_if<T: Entity + Sync + 'a>(self, item: &'a T, condition: Cond<T>) -> Self {
        self.then(move |w| w.put_if(item, condition))
    }

    /// [`Transaction::put_if`] with an untyped [`Condition`].
    pub fn put_if_raw<T: Entity + Sync + 'a>(self, item: &'a T, condition: Condition) -> Self {
        self.then(move |w| w.put_if_raw(item, condition))
    }

    /// Deletes the item with `key`. Refused for entities with unique fields
    /// (their markers need the stored values): use [`Db::delete`] for those.
    pub fn delete<T: Entity + 'a>(self, key: KeyOf<T>) -> Self {
        self.then(move |w| w.delete(key))
    }

    /// Deletes the item with `key` only if the typed `condition` holds.
    ///
    /// ```
    /// use singletable::{Db, Embedded, Entity, Error, FieldPath, Table, Transaction};
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
    /// Transaction::new()
    ///     .delete_if::<Seat>(Seat::key("a1")?, f.holder.eq("ana"))
    ///     .execute(&db)
    ///     .await?;
    /// assert!(db.get::<Seat>(Seat::key("a1")?).await?.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub fn delete_if<T: Entity + 'a>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        self.then(move |w| w.delete_if(key, condition))
    }

    /// [`Transaction::delete_if`] with an untyped [`Condition`].
    pub fn delete_if_raw<T: Entity + 'a>(self, key: KeyOf<T>, condition: Condition) -> Self {
        self.then(move |w| w.delete_if_raw(key, condition))
    }

    /// Requires the typed `condition` on the item with `key`, without
    /// writing it (a ConditionCheck).
    pub fn check<T: Entity + 'a>(self, key: KeyOf<T>, condition: Cond<T>) -> Self {
        self.then(move |w| w.check(key, condition))
    }

    /// [`Transaction::check`] with an untyped [`Condition`].
    pub fn check_raw<T: Entity + 'a>(self, key: KeyOf<T>, condition: Condition) -> Self {
        self.then(move |w| w.check_raw(key, condition))
    }

    /// Adds an update (with its conditions, version check, stamps at the
    /// transaction's time, index key rewrites, and the marker moves of the
    /// unique values it changes).
    pub fn update<T: Entity + crate::update::state::Ready<S> + 'a, S: 'a>(
        self,
        update: Update<T, S>,
    ) -> Self
    where
        Update<T, S>: Send,
    {
        self.then(move |w| w.update(update))
    }

    /// Sets the idempotency token: a retry with the same token within ten
    /// minutes is not applied twice.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Number of operations added so far (the marker writes of unique
    /// values, which are added when the transaction is sent, not counted).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether no operation was added.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Sends the transaction on `db`'s table: one TransactWriteItems
    /// request. Every automatic timestamp holds one reading of the handle's
    /// clock, taken now. A transaction without operations is refused with
    /// [`Error::EmptyTransaction`] before anything is sent, as DynamoDB
    /// refuses a TransactWriteItems of zero items (ValidationException).
    pub async fn execute<E: Executor>(self, db: &Db<E>) -> Result<(), Error> {
        let mut w = Writes::new(db.table_name(), db.clock().now());
        for step in self.steps {
            w = step(w);
        }
        if let Some(e) = w.error {
            return Err(e);
        }
        if w.ops.is_empty() {
            return Err(Error::EmptyTransaction {
                operation: "TransactWriteItems",
            });
        }
        if w.ops.len() > Transaction::MAX_OPS {
            return Err(Error::TransactionTooLarge {
                operation: "TransactWriteItems",
                operations: w.ops.len(),
                max: Transaction::MAX_OPS,
            });
        }
        let result = db
            .run_transaction(TransactWrite {
                ops: w.ops,
                token: self.token,
            })
            .await;
        match result {
            Err(Error::TransactionCanceled { reasons }) => {
                let markers: Vec<(usize, &MarkerOp)> =
                    w.markers.iter().map(|(i, m)| (*i, m)).collect();
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
/// let mut read = singletable::ReadTransaction::new();
/// let account = read.get::<Account>(Account::key("ana")?);
/// let order = read.get::<Order>(Order::key("ana", "o1")?);
/// let missing = read.get::<Order>(Order::key("ana", "o9")?);
/// let mut results = read.execute(&db).await?;
/// assert_eq!(results.take(account)?.unwrap().balance, 100);
/// assert_eq!(results.take(order)?.unwrap().total, 30);
/// assert_eq!(results.take(missing)?, None);
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a read transaction does nothing until `execute` is awaited"]
#[derive(Debug, Default)]
pub struct ReadTransaction {
    /// The keys read, in order.
    gets: Vec<crate::value::Item>,
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
/// let mut read = singletable::ReadTransaction::new();
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
/// let mut read = singletable::ReadTransaction::new();
/// let h = read.get::<User>(User::key("ana")?);
/// let mut results = read.execute(&db).await?;
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

impl ReadTransaction {
    /// A read transaction without reads yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the item of type `T` with `key`.
    pub fn get<T: Entity>(&mut self, key: KeyOf<T>) -> Handle<T> {
        let key = key.into_key().to_item::<T::Table>();
        self.gets.push(key);
        Handle {
            index: self.gets.len() - 1,
            _m: std::marker::PhantomData,
        }
    }

    /// Sends the request on `db`'s table: one TransactGetItems. A request
    /// without reads is refused with [`Error::EmptyTransaction`] before
    /// anything is sent, as DynamoDB refuses a TransactGetItems of zero
    /// items.
    pub async fn execute<E: Executor>(self, db: &Db<E>) -> Result<ReadResults, Error> {
        if self.gets.is_empty() {
            return Err(Error::EmptyTransaction {
                operation: "TransactGetItems",
            });
        }
        if self.gets.len() > Transaction::MAX_OPS {
            return Err(Error::TransactionTooLarge {
                operation: "TransactGetItems",
                operations: self.gets.len(),
                max: Transaction::MAX_OPS,
            });
        }
        let n = self.gets.len();
        let r = crate::trace::Request::default();
        let span = crate::trace::span("TransactGetItems", db.table_name(), &r);
        let table = db.table_name();
        let gets = self
            .gets
            .into_iter()
            .map(|k| (table.to_owned(), k))
            .collect();
        let request = db
            .executor()
            .transact_get(crate::request::TransactGet { gets });
        let items =
            crate::trace::traced(span.clone(), r.sender("TransactGetItems"), request).await?;
        crate::trace::count(&span, items.iter().flatten().count());
        if items.len() != n {
            return Err(Error::Refused(Refusal::UnexpectedResponse {
                operation: "TransactGetItems",
                problem: format!("{} responses for {n} reads", items.len()),
            }));
        }
        Ok(ReadResults { items })
    }
}
