//! Names kept for one release, deprecated, so that code written against
//! the earlier API still compiles and the compiler names the new call:
//! transactions, batches and backfills became values run with the handle
//! (`Transaction::new()….execute(&db)`), where they were methods of `Db`.
//! Each shim returns the new value; the call that runs it takes the
//! handle (`.execute(&db)`, `.run(&db)`), as the deprecation note says.

use crate::batch::{BatchGetter, BatchWriter};
use crate::db::Db;
use crate::fields::Cond;
use crate::query::Query;
use crate::shard::ShardedQuery;
use crate::transact::{ReadTransaction, Transaction};
use singletable_core::entity::Entity;
use singletable_core::exec::Executor;
use singletable_core::key::KeyOf;

impl<E: Executor> Db<E> {
    /// Deprecated: a transaction is a [`Transaction`] run with the handle.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{Db, Embedded, Table, Transaction};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let tx: Transaction = db.transaction(); // now: Transaction::new()
    /// assert!(tx.is_empty());
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(note = "use `Transaction::new()`, and run it with `.execute(&db)`")]
    pub fn transaction<'a>(&self) -> Transaction<'a> {
        Transaction::new()
    }

    /// Deprecated: a read transaction is a [`ReadTransaction`] run with the
    /// handle.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{Db, Embedded, ReadTransaction, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let rt: ReadTransaction = db.read_transaction(); // now: ReadTransaction::new()
    /// # let _ = rt;
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(note = "use `ReadTransaction::new()`, and run it with `.execute(&db)`")]
    pub fn read_transaction(&self) -> ReadTransaction {
        ReadTransaction::new()
    }

    /// Deprecated: a batch write is a [`BatchWriter`] run with the handle.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{BatchWriter, Db, Embedded, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let batch: BatchWriter = db.batch_write(); // now: BatchWriter::new()
    /// # let _ = batch;
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(note = "use `BatchWriter::new()`, and run it with `.execute(&db)`")]
    pub fn batch_write<'a>(&self) -> BatchWriter<'a> {
        BatchWriter::new()
    }

    /// Deprecated: a batch read is a [`BatchGetter`] run with the handle.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{BatchGetter, Db, Embedded, Entity, KeyOf, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// # let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let keys: Vec<KeyOf<User>> = vec![User::key("ana")?];
    /// let get: BatchGetter<User> = db.batch_get(&keys); // now: BatchGetter::new(&keys)
    /// # let _ = get;
    /// # Ok::<(), singletable::Error>(())
    /// ```
    #[deprecated(note = "use `BatchGetter::<T>::new(&keys)`, and run it with `.execute(&db)`")]
    pub fn batch_get<'a, T: Entity>(&self, keys: &'a [KeyOf<T>]) -> BatchGetter<'a, T> {
        BatchGetter::new(keys)
    }
}

impl<'a> Transaction<'a> {
    /// Deprecated: [`Transaction::put_if`] takes the typed condition.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{Entity, FieldPath, Table, Transaction};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String, pub visits: u32 }
    /// let user = User { id: "ana".into(), visits: 1 };
    /// let tx = Transaction::new().put_when(&user, User::fields().visits.exists()); // now: put_if
    /// assert!(!tx.is_empty());
    /// ```
    #[deprecated(note = "use `put_if(item, condition)`")]
    pub fn put_when<T: Entity + Sync + 'a>(self, item: &'a T, condition: Cond<T>) -> Self {
        self.put_if(item, condition)
    }
}

impl<T, I, P> Query<T, I, P> {
    /// Deprecated: an access pattern's value is the query itself.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("USER#<user>")]
    /// #[sk("ORDER#<id>")]
    /// #[access(orders)]
    /// pub struct Order { pub user: String, pub id: String }
    ///
    /// let q = Order::orders("ana").into_query(); // now: Order::orders("ana")
    /// # let _ = q;
    /// ```
    #[deprecated(note = "remove `.into_query()`: the access pattern is the query")]
    pub fn into_query(self) -> Self {
        self
    }
}

impl<T, P> ShardedQuery<T, P> {
    /// Deprecated: a sharded access pattern's value is the query itself.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// # use singletable::{Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    /// #[derive(Entity)]
    /// #[entity(table = App)]
    /// #[pk("ORDER#<id>")]
    /// #[sk("DETAILS")]
    /// #[gsi1(pk = "ORDERS", sk = "AT#<at>#<id>", shards = 4)]
    /// #[access(recent, index = gsi1)]
    /// pub struct Order { pub id: String, pub at: String }
    ///
    /// let q = Order::recent().into_query(); // now: Order::recent()
    /// # let _ = q;
    /// ```
    #[deprecated(note = "remove `.into_query()`: the access pattern is the query")]
    pub fn into_query(self) -> Self {
        self
    }
}
