//! TransactWriteItems as a typed builder.

use crate::db::{Db, exists, key_item, not_exists};
use crate::entity::Entity;
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::Cond;
use crate::key::PrimaryKey;
use crate::request::{ConditionCheck, TransactWrite, TransactWriteOp};
use crate::update::Update;

/// DynamoDB's limit of operations in one transaction.
pub const MAX_TRANSACTION_OPS: usize = 100;

/// A TransactWriteItems request being built: up to 100 puts, deletes and
/// condition checks, on distinct items, that all succeed or all fail. Each
/// operation costs twice a plain write.
///
/// When DynamoDB cancels it, [`Error::TransactionCanceled`] lists one reason
/// per operation, at the operation's position in the order they were added.
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

    /// Puts the item only if the typed `condition` holds on the stored item.
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

    /// Deletes the item with `key`.
    pub fn delete<T: Entity>(self, key: impl Into<PrimaryKey>) -> Self {
        self.delete_op::<T>(key.into(), None)
    }

    /// Deletes the item with `key` only if the typed `condition` holds.
    ///
    /// ```
    /// use singletable::{Db, Entity, Error, FieldPath, Table};
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
    /// let db = Db::in_memory::<App>("App")?;
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
    pub fn delete_if<T: Entity>(self, key: impl Into<PrimaryKey>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.delete_op::<T>(key.into(), Some(c)),
            Err(e) => self.fail(e),
        }
    }

    /// [`Transaction::delete_if`] with an untyped [`Condition`].
    pub fn delete_if_raw<T: Entity>(
        self,
        key: impl Into<PrimaryKey>,
        condition: Condition,
    ) -> Self {
        self.delete_op::<T>(key.into(), Some(condition))
    }

    fn delete_op<T: Entity>(self, key: PrimaryKey, condition: Option<Condition>) -> Self {
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
    pub fn check<T: Entity>(self, key: impl Into<PrimaryKey>, condition: Cond<T>) -> Self {
        match condition.into_condition() {
            Ok(c) => self.check_raw::<T>(key, c),
            Err(e) => self.fail(e),
        }
    }

    /// [`Transaction::check`] with an untyped [`Condition`].
    pub fn check_raw<T: Entity>(self, key: impl Into<PrimaryKey>, condition: Condition) -> Self {
        let key = key.into();
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

    /// Adds an update (with its conditions, version check and index key
    /// rewrites).
    pub fn update<T: Entity>(self, update: Update<T>) -> Self {
        let key = update.key().clone();
        let table = self.db.table_name().to_owned();
        self.push(Ok(key), || {
            Ok(TransactWriteOp::Update(update.into_request(&table)?))
        })
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
#[must_use = "a read transaction does nothing until `execute` is awaited"]
pub struct ReadTransaction<'a, E> {
    db: &'a Db<E>,
    gets: Vec<(String, crate::value::Item)>,
}

/// A typed handle on one read of a [`ReadTransaction`].
#[derive(Debug)]
pub struct Handle<T> {
    index: usize,
    _m: std::marker::PhantomData<fn() -> T>,
}

/// The items a [`ReadTransaction`] read; take each with its handle.
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
