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

use crate::db::{Db, exists, key_item, not_exists};
use crate::entity::Entity;
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::Cond;
use crate::key::PrimaryKey;
use crate::request::{ConditionCheck, TransactWrite, TransactWriteOp};
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
/// assert!(matches!(tx.execute().await, Err(Error::Limit(_)))); // 101: not sent
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
pub const MAX_TRANSACTION_OPS: usize = 100;

/// A TransactWriteItems request being built: up to 100 puts, deletes and
/// condition checks, on distinct items, that all succeed or all fail. Each
/// operation costs twice a plain write.
///
/// When DynamoDB cancels it, [`Error::TransactionCanceled`] lists one reason
/// per operation, at the operation's position in the order they were added.
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
///     .put_if(&Order { account: "ana".into(), id: "o1".into(), total: 25 }, Condition::Exists("total".into()))
///     .put_when(&Order { account: "ana".into(), id: "o3".into(), total: 5 }, Order::fields().total.not_exists())
///     .execute()
///     .await?;
/// db.transaction()
///     .delete::<Order>(Order::key("ana", "o3")?, Some(Order::fields().total.eq(&5).into_condition()?))
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
    token: Option<String>,
    error: Option<Error>,
}

impl<'a, E: Executor> Transaction<'a, E> {
    pub(crate) fn new(db: &'a Db<E>) -> Self {
        Self {
            db,
            ops: Vec::new(),
            keys: Vec::new(),
            token: None,
            error: None,
        }
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
                return Err(Error::Limit(format!(
                    "operation {} touches the same item as an earlier operation ({:?} / {:?}); DynamoDB allows one operation per item in a transaction",
                    self.ops.len(),
                    key.pk,
                    key.sk
                )));
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

    fn put_op<T: Entity>(self, item: &T, condition: Option<Condition>) -> Self {
        let db = self.db;
        self.push(item.primary_key(), || {
            let mut put = db.put_request::<T>(item.to_item()?, condition)?;
            put.return_on_condition_failure = true;
            Ok(TransactWriteOp::Put(put))
        })
    }

    /// Puts the item, replacing any item with its key.
    pub fn put<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, None)
    }

    /// Puts the item only if no item has its key.
    pub fn create<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, Some(not_exists::<T>()))
    }

    /// Puts the item only if an item with its key exists.
    pub fn replace<T: Entity>(self, item: &T) -> Self {
        self.put_op(item, Some(exists::<T>()))
    }

    /// Puts the item only if `condition` holds on the stored item.
    pub fn put_if<T: Entity>(self, item: &T, condition: Condition) -> Self {
        self.put_op(item, Some(condition))
    }

    /// Deletes the item with `key`, if `condition` holds (when given).
    pub fn delete<T: Entity>(
        self,
        key: impl Into<PrimaryKey>,
        condition: Option<Condition>,
    ) -> Self {
        let key = key.into();
        let db = self.db;
        let k = key.clone();
        self.push(Ok(key), || {
            let mut del = db.delete_request::<T>(k, condition, false);
            del.return_on_condition_failure = true;
            Ok(TransactWriteOp::Delete(del))
        })
    }

    /// Requires `condition` on the item with `key`, without writing it.
    pub fn check<T: Entity>(self, key: impl Into<PrimaryKey>, condition: Cond<T>) -> Self {
        let key = key.into();
        let table = self.db.table_name().to_owned();
        let k = key_item::<T::Table>(&key);
        self.push(Ok(key), || {
            Ok(TransactWriteOp::ConditionCheck(ConditionCheck {
                table,
                key: k,
                condition: condition.into_condition()?,
                return_on_condition_failure: true,
            }))
        })
    }

    /// Adds an update (with its conditions, version check and index key
    /// rewrites).
    pub fn update<T: Entity>(self, update: Update<T>) -> Self {
        let key = update.key().clone();
        let table = self.db.table_name().to_owned();
        self.push(Ok(key), || {
            Ok(TransactWriteOp::Update(update.into_request(&table)?))
        })
    }

    /// Puts the item only if the typed `condition` holds.
    pub fn put_when<T: Entity>(self, item: &T, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.put_op(item, Some(c)),
            Err(e) => {
                let mut s = self;
                s.error.get_or_insert(e);
                s
            }
        }
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

    /// Sends the transaction: one TransactWriteItems request.
    pub async fn execute(self) -> Result<(), Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.ops.is_empty() {
            return Ok(());
        }
        if self.ops.len() > MAX_TRANSACTION_OPS {
            return Err(Error::Limit(format!(
                "a transaction holds at most {MAX_TRANSACTION_OPS} operations, this one {}",
                self.ops.len()
            )));
        }
        self.db
            .run_transaction(TransactWrite {
                ops: self.ops,
                token: self.token,
            })
            .await
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
    pub fn get<T: Entity>(&mut self, key: impl Into<PrimaryKey>) -> Handle<T> {
        let key = key_item::<T::Table>(&key.into());
        self.gets.push((self.db.table_name().to_owned(), key));
        Handle {
            index: self.gets.len() - 1,
            _m: std::marker::PhantomData,
        }
    }

    /// Sends the request: one TransactGetItems.
    pub async fn execute(self) -> Result<ReadResults, Error> {
        if self.gets.len() > MAX_TRANSACTION_OPS {
            return Err(Error::Limit(format!(
                "a transaction holds at most {MAX_TRANSACTION_OPS} operations, this one {}",
                self.gets.len()
            )));
        }
        let n = self.gets.len();
        let items = self
            .db
            .executor()
            .transact_get(crate::request::TransactGet { gets: self.gets })
            .await?;
        if items.len() != n {
            return Err(Error::InvalidRequest(format!(
                "TransactGetItems returned {} responses for {n} reads",
                items.len()
            )));
        }
        Ok(ReadResults { items })
    }
}
