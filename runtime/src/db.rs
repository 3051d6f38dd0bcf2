//! [`Db`]: a handle on one table through one executor, with typed
//! operations.
//!
//! ```
//! use singletable::{Condition, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<id>")]
//! #[sk("PROFILE")]
//! pub struct User { pub id: String }
//!
//! // The helpers the typed operations build their requests with:
//! let key = User::key("ana")?.key().to_item::<App>();
//! assert_eq!(key["PK"].as_s().unwrap(), "USER#ana");
//! assert_eq!(Condition::not_exists(App::PK), Condition::NotExists("PK".into())); // create
//! assert_eq!(Condition::exists(App::PK), Condition::Exists("PK".into()));        // replace, update
//! # Ok::<(), singletable::Error>(())
//! ```

use std::sync::Arc;

use crate::admin::{Admin, ExtraIndexes, TableUpdate};
use crate::backend::{HoldsTables, Open, SharedExecutor};
use crate::clock::{Clock, Stamp};
use crate::definition::{Billing, Drift, TableDefinition, compare};
use crate::entity::{Entity, Table};
use crate::error::{Error, Refusal};
use crate::exec::Executor;
use crate::expr::Condition;
use crate::fields::Cond;
use crate::key::{KeyOf, PrimaryKey};
use crate::reader::OtherTypes;
use crate::reader::{AttrReader, ReadEach};
use crate::request::{DeleteItem, GetItem, PutItem, ScanRequest, TransactWrite};
use crate::value::{AttributeValue, Item};

mod tables;
mod writes;

/// A handle on a table: the executor that reaches DynamoDB, the table name,
/// the secret that signs pagination cursors, and the clock writes stamp
/// automatic timestamps from.
///
/// Cheap to share: wrap it in an `Arc` or clone the executor.
///
/// Every operation is one request (batches and transactions aside),
/// named after it: `put` is a PutItem, `get` a GetItem, `delete` a
/// DeleteItem, `scan_all` Scans. On the embedded backend:
///
/// ```
/// use singletable::{clock::Clock, Condition, Counting, Db, Embedded, Entity, Error, FieldPath, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(table = App)]
/// #[pk("USER#<id>")]
/// #[sk("PROFILE")]
/// pub struct User { pub id: String, pub name: String }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db: Db<Embedded> = Db::in_memory::<App>("App")?
///     .with_cursor_secret(b"one secret per fleet".to_vec())
///     .with_clock(Clock::system()); // what automatic timestamps read
/// let _now = db.clock().now();
/// assert_eq!(db.table_name(), "App");
/// let ana = User { id: "ana".into(), name: "Ana".into() };
///
/// db.create(&ana).await?;                                 // PutItem if absent
/// assert!(matches!(db.create(&ana).await, Err(Error::ConditionFailed { .. })));
/// db.put(&ana).await?;                                    // PutItem
/// db.replace(&User { name: "Ana M.".into(), ..ana.clone() }).await?; // PutItem if present
/// let old = db.put_returning_old(&ana).await?;            // ReturnValues=ALL_OLD
/// assert_eq!(old.unwrap().name, "Ana M.");
/// db.put_if(&ana, User::fields().name.exists()).await?;                 // typed ConditionExpression
/// db.put_if_raw(&ana, Condition::Exists("name".into())).await?;         // untyped
///
/// assert_eq!(db.get::<User>(User::key("ana")?).await?, Some(ana.clone()));            // GetItem
/// assert_eq!(db.get_consistent::<User>(User::key("ana")?).await?, Some(ana.clone())); // ConsistentRead
/// assert!(db.get_including_expired::<User>(User::key("ana")?).await?.is_some());
/// assert_eq!(db.scan_all::<User>().await?, vec![ana.clone()]);                        // Scan, every page
///
/// // Capacity as DynamoDB counts it: the meter adds every request's units.
/// db.take_consumed_capacity();
/// db.get::<User>(User::key("ana")?).await?;
/// assert_eq!(db.consumed_capacity(), Some(0.5)); // one eventually consistent 4 KB read
/// assert!(db.take_consumed_capacity().is_some());
///
/// let deleted = db.delete_returning::<User>(User::key("ana")?).await?; // DeleteItem, ALL_OLD
/// assert_eq!(deleted, Some(ana.clone()));
/// db.delete::<User>(User::key("ana")?).await?;          // a missing item is no error
/// db.put(&ana).await?;
/// db.delete_if::<User>(User::key("ana")?, User::fields().name.eq("Ana")).await?;
/// db.put(&ana).await?;
/// db.delete_if_raw::<User>(User::key("ana")?, Condition::Exists("name".into())).await?;
///
/// // Several items: batches (25 writes / 100 keys per request) and transactions.
/// singletable::BatchWriter::new().put(&ana).put(&User { id: "bo".into(), name: "Bo".into() }).execute(&db).await?;
/// let got = singletable::BatchGetter::<User>::new(&[User::key("ana")?, User::key("cy")?]).execute(&db).await?;
/// assert_eq!(got.items, vec![Some(ana.clone()), None]);
/// singletable::Transaction::new().delete::<User>(User::key("bo")?).execute(&db).await?;
/// let mut reads = singletable::ReadTransaction::new();
/// let h = reads.get::<User>(User::key("ana")?);
/// assert_eq!(reads.execute(&db).await?.take(h)?, Some(ana.clone()));
///
/// // The executor, wrapped: count the requests of an operation.
/// let counted = db.map_executor(Counting::new);
/// counted.get::<User>(User::key("ana")?).await?;
/// assert_eq!(counted.executor().count(), 1);
/// let other: Db<Embedded> = Db::with_executor(Embedded::new(), "Other");
/// assert!(other.create_table_if_missing::<App>().await?);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
///
/// Against DynamoDB, the AWS driver's trait `SdkDb` (crate `singletable-aws`)
/// (feature `client`, `singletable::SdkDb`) adds the constructors
/// (`Db::from_env`, `Db::local`, `Db::new`) and table administration.
#[derive(Clone)]
pub struct Db<E = crate::exec::SharedExecutor> {
    exec: E,
    table: String,
    cursor_secret: Vec<u8>,
    clock: Clock,
}

/// Shows the table and the executor's type, never the cursor secret
/// (whoever reads a log line with it could forge cursors).
///
/// ```
/// use singletable::{Db, Embedded, Table};
///
/// #[derive(Table)]
/// #[table(name = "App")]
/// pub struct App;
///
/// let db = Db::<Embedded>::in_memory::<App>("App")?.with_cursor_secret(b"hush".to_vec());
/// let shown = format!("{db:?}");
/// assert!(shown.contains("\"App\"") && shown.contains("<redacted>"));
/// assert!(!shown.contains("hush") && !shown.contains("104, 117"));
/// # Ok::<(), singletable::Error>(())
/// ```
impl<E> std::fmt::Debug for Db<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("table", &self.table)
            .field("executor", &std::any::type_name::<E>())
            .field("cursor_secret", &format_args!("<redacted>"))
            .finish_non_exhaustive()
    }
}

impl<E: Executor> Db<E> {
    /// A handle over any executor.
    pub fn with_executor(exec: E, table: impl Into<String>) -> Self {
        let table = table.into();
        let cursor_secret = crate::page::process_secret();
        Self {
            exec,
            table,
            cursor_secret,
            clock: Clock::system(),
        }
    }

    /// Seals cursors with `secret`: they are encrypted and authenticated
    /// with keys derived from it (see [`crate::page`]). Without it, a
    /// handle uses a random secret drawn once per process, so cursors are
    /// opaque and unforgeable but valid only in the process that made them:
    /// set the same secret on every process that serves the same clients
    /// (a fleet, a Lambda function), and keep it out of client reach.
    pub fn with_cursor_secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.cursor_secret = secret.into();
        self
    }

    /// The same handle over another executor (a wrapper of this one).
    pub fn map_executor<F>(self, f: impl FnOnce(E) -> F) -> Db<F> {
        Db {
            exec: f(self.exec),
            table: self.table,
            cursor_secret: self.cursor_secret,
            clock: self.clock,
        }
    }

    /// Stamps `#[attr(created_at)]` and `#[attr(updated_at)]` fields from
    /// `clock` instead of the system clock: every write of this handle
    /// (puts, creates, replaces, versioned puts, transactions, batch puts,
    /// updates and upserts) reads it once. See [`crate::clock`].
    ///
    /// ```
    /// # #[derive(singletable::Table)]
    /// # #[table(name = "App")]
    /// # struct App;
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use singletable::{Clock, Db, Embedded};
    ///
    /// let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    /// let db = Db::<Embedded>::in_memory::<App>("App").unwrap().with_clock(Clock::fixed(at));
    /// assert_eq!(db.clock().now(), at);
    /// ```
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The clock writes stamp automatic timestamps from.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The table name requests go to.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// Capacity units consumed by this handle's executor since the last
    /// [`Db::take_consumed_capacity`], as DynamoDB reported them (`None` for
    /// executors that do not report capacity). Shared by concurrent callers.
    pub fn consumed_capacity(&self) -> Option<f64> {
        self.exec.capacity().map(crate::exec::CapacityMeter::total)
    }

    /// Returns the consumed capacity and resets the meter: call it before
    /// and after an operation to get what that operation consumed.
    pub fn take_consumed_capacity(&self) -> Option<f64> {
        self.exec.capacity().map(crate::exec::CapacityMeter::take)
    }

    /// Records what this handle's requests consume from now on, by access
    /// pattern and write path, in `recorder` (see
    /// [`crate::cost::Recorder`]): the capacity the backend reports (the
    /// embedded engine's meter, DynamoDB's `ConsumedCapacity`), the items
    /// each request read and returned. Every handle on the same executor
    /// records into it. Refused with [`Refusal::Unsupported`] for an
    /// executor that reports no capacity.
    ///
    /// ```
    /// use singletable::cost::Recorder;
    /// use singletable::{Db, Embedded, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # #[derive(Entity)]
    /// # #[entity(table = App)]
    /// # #[pk("USER#<id>")]
    /// # #[sk("PROFILE")]
    /// # pub struct User { pub id: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<App>("App")?;
    /// let recorder = Recorder::new();
    /// db.record_costs(&recorder)?;
    /// db.put(&User { id: "ana".into() }).await?;
    /// db.get::<User>(User::key("ana")?).await?;
    /// assert_eq!(recorder.path("User", "put").unwrap().write_units, 1.0);
    /// assert_eq!(recorder.path("User", "get").unwrap().read_units, 0.5);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn record_costs(&self, recorder: &crate::cost::Recorder) -> Result<(), Error> {
        let meter = self
            .exec
            .capacity()
            .ok_or(Error::Refused(Refusal::Unsupported {
                operation: "record_costs (the executor reports no consumed capacity)",
            }))?;
        recorder.attach(meter);
        Ok(())
    }

    /// The executor.
    pub fn executor(&self) -> &E {
        &self.exec
    }

    pub(crate) fn cursor_secret(&self) -> &[u8] {
        &self.cursor_secret
    }

    /// GetItem, eventually consistent (half the cost of a consistent read).
    pub async fn get<T: Entity>(&self, key: KeyOf<T>) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into_key(), false, false).await
    }

    /// GetItem, strongly consistent: sees every acknowledged write.
    pub async fn get_consistent<T: Entity>(&self, key: KeyOf<T>) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into_key(), true, false).await
    }

    async fn get_with<T: Entity>(
        &self,
        key: PrimaryKey,
        consistent: bool,
        include_expired: bool,
    ) -> Result<Option<T>, Error> {
        let req = GetItem {
            table: self.table.clone(),
            key: key.to_item::<T::Table>(),
            consistent,
        };
        let items = self.send_get::<T>(req).await?;
        let ttl = <T::Table as Table>::TTL.filter(|_| !include_expired);
        let mut one = GetOne::<T> {
            expiry: crate::ttl::Expiry::new(ttl),
            found: None,
        };
        items.read_each(&mut one)?;
        Ok(one.found)
    }

    /// GetItem that also returns an item whose TTL has passed but that
    /// DynamoDB has not deleted yet.
    pub async fn get_including_expired<T: Entity>(
        &self,
        key: KeyOf<T>,
    ) -> Result<Option<T>, Error> {
        self.get_with::<T>(key.into_key(), false, true).await
    }

    /// Scan for every item of entity type `T`: reads **the whole table**, page
    /// by page, and pays read capacity for every item read, of every type.
    /// Meant for maintenance jobs and small tables, never request paths.
    /// The items are those `T` reads, as its queries recognise them: its
    /// entity type, and for an `#[entity(untyped)]` or
    /// `#[entity(adopt = keys)]` entity the items without one whose
    /// primary key its key templates build.
    ///
    /// ```
    /// use singletable::{AttributeValue, Db, Embedded, Entity, Item, Table};
    /// # use singletable_runtime::{exec::Executor, request::PutItem};
    /// # #[derive(Table)]
    /// # #[table(name = "Legacy")]
    /// # pub struct Legacy;
    /// #[derive(Entity, Debug, PartialEq)]
    /// #[entity(table = Legacy, untyped)]
    /// #[pk("USER#<id>")]
    /// #[sk("PROFILE")]
    /// pub struct User { #[attr(from_key)] pub id: String, pub name: String }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let db = Db::<Embedded>::in_memory::<Legacy>("Legacy")?;
    /// db.put(&User { id: "ana".into(), name: "Ana".into() }).await?; // no entityType
    /// let note: Item = [("PK", "NOTE#1"), ("SK", "NOTE")] // no template of User's
    ///     .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.into())))
    ///     .into();
    /// # db.executor().put_item(PutItem { table: "Legacy".into(), item: note, condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// assert_eq!(db.scan_all::<User>().await?, [User { id: "ana".into(), name: "Ana".into() }]);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn scan_all<T: Entity>(&self) -> Result<Vec<T>, Error> {
        let mut out = Vec::new();
        let mut start = None;
        let type_attr = <T::Table as Table>::ENTITY_TYPE;
        let own = Condition::eq(type_attr, AttributeValue::S(T::ENTITY_TYPE.to_owned()));
        // Items without an entity type are `T`'s by their keys, which no
        // filter expresses: read, then kept by the rule every read path
        // follows.
        let ty = if T::ADOPTS {
            own.or(Condition::NotExists(type_attr.to_owned()))
        } else {
            own
        };
        loop {
            let req = ScanRequest {
                table: self.table.clone(),
                index: None,
                filter: Some(ty.clone()),
                limit: None,
                consistent: false,
                start: start.take(),
                segment: None,
                projection: None,
            };
            let r = entity::<T>();
            let span = crate::trace::span("Scan", &self.table, &r);
            let page =
                crate::trace::traced(span.clone(), r.sender("Scan"), self.exec.scan(req)).await?;
            crate::trace::count(&span, page.items.len());
            for item in page.items {
                if T::ADOPTS && !singletable_core::__private::attributed_to::<T>(&item) {
                    continue;
                }
                out.push(T::from_item(item)?);
            }
            match page.last_key {
                Some(k) => start = Some(k),
                None => return Ok(out),
            }
        }
    }

    pub(crate) async fn run_transaction(&self, req: TransactWrite) -> Result<(), Error> {
        let r = crate::trace::Request::default();
        let span = crate::trace::span("TransactWriteItems", &self.table, &r);
        let sent = r.sender("TransactWriteItems");
        crate::trace::traced(span, sent, self.exec.transact_write(req)).await
    }

    /// PutItem of an entity, in its span.
    pub(crate) async fn send_put<T: Entity>(&self, req: PutItem) -> Result<Option<Item>, Error> {
        let r = entity::<T>();
        let span = crate::trace::span("PutItem", &self.table, &r);
        crate::trace::traced(span, r.sender("PutItem"), self.exec.put_item(req)).await
    }

    /// DeleteItem of an entity, in its span.
    pub(crate) async fn send_delete<T: Entity>(
        &self,
        req: DeleteItem,
    ) -> Result<Option<Item>, Error> {
        let r = entity::<T>();
        let span = crate::trace::span("DeleteItem", &self.table, &r);
        crate::trace::traced(span, r.sender("DeleteItem"), self.exec.delete_item(req)).await
    }

    /// GetItem of an entity, in its span.
    async fn send_get<T: Entity>(&self, req: GetItem) -> Result<crate::reader::Items, Error> {
        let r = crate::trace::Request {
            consistent: Some(req.consistent),
            ..entity::<T>()
        };
        let span = crate::trace::span("GetItem", &self.table, &r);
        let items = crate::trace::traced(
            span.clone(),
            r.sender("GetItem"),
            self.exec.get_item_reader(req),
        )
        .await?;
        crate::trace::count(&span, crate::reader::ItemReader::remaining(&items));
        Ok(items)
    }
}

/// The tracing description of a request on one entity.
pub(crate) fn entity<T: Entity>() -> crate::trace::Request<'static> {
    crate::trace::Request {
        entity: Some(T::ENTITY_TYPE),
        ..Default::default()
    }
}

// A handle on a new backend that holds its tables.
impl<E: HoldsTables> Db<E> {
    /// A handle on a new, empty in-memory backend holding one table named
    /// `table`, laid out as `T` declares it. Fails only on a name DynamoDB
    /// would refuse (3 to 255 characters of `a-z A-Z 0-9 _ - .`). The
    /// backend's type is named once, on the handle or the call
    /// (`Db::<Embedded>::in_memory`).
    ///
    /// ```
    /// use singletable::{Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App", gsi1)]
    /// # pub struct App;
    ///
    /// let db: Db<Embedded> = Db::in_memory::<App>("App")?;
    /// assert!(db.executor().has_table("App"));
    /// assert!(Db::<Embedded>::in_memory::<App>("x").is_err()); // too short for DynamoDB
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn in_memory<T: Table>(table: impl Into<String>) -> Result<Self, Error> {
        let table = table.into();
        let exec = E::with_table::<T>(&table)?;
        Ok(Self::with_executor(exec, table))
    }
}

impl Db<SharedExecutor> {
    /// A handle on table `table` of `backend` (the facade's `Backend`: the
    /// embedded backend, DynamoDB or DynamoDB Local). The embedded backend
    /// starts empty with the table created as `T` declares it; DynamoDB
    /// tables are not created ([`Db::create_table_if_missing`] creates
    /// them, on this handle as on any other, or create them with the
    /// definition from `TableDefinition`).
    ///
    /// ```
    /// use singletable::{Backend, Db};
    /// # use singletable::{Entity, Table};
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
    /// let db: Db = Db::open::<App>(Backend::Embedded, "App").await?;
    /// db.put(&User { id: "ana".into() }).await?;
    /// assert_eq!(db.get::<User>(User::key("ana")?).await?, Some(User { id: "ana".into() }));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Against DynamoDB Local or AWS (needs the service; not run here):
    ///
    /// ```no_run
    /// # use singletable::{Backend, Db, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # async fn run() -> singletable::Result<()> {
    /// let local = Db::open::<App>(Backend::DynamoDbLocal { endpoint: "http://127.0.0.1:8000".into() }, "App").await?;
    /// let aws = Db::open::<App>(Backend::DynamoDb { endpoint: None }, "App").await?;
    /// # Ok(()) }
    /// ```
    pub async fn open<T: Table>(
        backend: impl Open,
        table: impl Into<String>,
    ) -> Result<Self, Error> {
        let table = table.into();
        let exec = backend.open::<T>(table.clone()).await?;
        Ok(Self::with_executor(exec, table))
    }
}

impl<E: Executor + 'static> Db<E> {
    /// The same handle (table, cursor secret, executor) behind the shared
    /// executor type, so that code written for `Db` runs on it.
    ///
    /// ```
    /// use singletable::{Counting, Db, Embedded};
    /// # use singletable::Table;
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    ///
    /// let counted: Db<Counting<Embedded>> = Db::<Embedded>::in_memory::<App>("App")?.map_executor(Counting::new);
    /// let db: Db = counted.into_shared();
    /// assert_eq!(db.table_name(), "App");
    /// # Ok::<(), singletable::Error>(())
    /// ```
    pub fn into_shared(self) -> Db<SharedExecutor> {
        self.map_executor(|e| Arc::new(e) as SharedExecutor)
    }
}

/// A PutItem of `item` into `table` as `stamp` stamps it, refused when it
/// is over 400 KB.
pub(crate) fn put_request<T: Entity>(
    table: &str,
    item: &T,
    stamp: &Stamp,
    condition: Option<Condition>,
) -> Result<PutItem, Error> {
    let item = item.to_item_stamped(stamp)?;
    crate::size::check_item(T::ENTITY_TYPE, &item)?;
    Ok(PutItem {
        table: table.to_owned(),
        item,
        condition,
        return_old: false,
        return_on_condition_failure: false,
    })
}

/// A DeleteItem of the item with `key` in `table`.
pub(crate) fn delete_request<T: Entity>(
    table: &str,
    key: PrimaryKey,
    condition: Option<Condition>,
    return_old: bool,
) -> DeleteItem {
    DeleteItem {
        table: table.to_owned(),
        key: key.to_item::<T::Table>(),
        condition,
        return_old,
        return_on_condition_failure: false,
    }
}

/// `attribute_not_exists(PK)`: the item does not exist yet (what
/// [`Db::create`] sends; users write `Condition::not_exists(App::PK)`).
pub(crate) fn not_exists<T: Entity>() -> Condition {
    Condition::not_exists(<T::Table as Table>::PK)
}

/// `attribute_exists(PK)`: the item exists (what [`Db::replace`] and
/// updates without `.upsert()` send).
pub(crate) fn exists<T: Entity>() -> Condition {
    Condition::exists(<T::Table as Table>::PK)
}

/// Decodes the item of a GetItem (see [`Db::get`]).
struct GetOne<T> {
    expiry: crate::ttl::Expiry,
    found: Option<T>,
}

impl<T: Entity> ReadEach for GetOne<T> {
    fn read_map(&mut self, item: Item) -> Result<(), Error> {
        if !self.expiry.hides(&item) {
            self.found = Some(T::from_item(item)?);
        }
        Ok(())
    }

    fn read<R: AttrReader + ?Sized>(&mut self, item: &mut R) -> Result<(), Error> {
        // The watch costs a comparison per attribute: only when needed.
        let read = if self.expiry.hides_nothing() {
            T::read_item(item, OtherTypes::Error)
        } else {
            match self
                .expiry
                .read(item, |r| T::read_item(r, OtherTypes::Error))
            {
                Some(read) => read,
                None => return Ok(()),
            }
        };
        // Other entity types are errors here, so a decoded item is never
        // `None`; the error names the type expected.
        let entity = read?.ok_or_else(|| Error::Decode {
            entity: T::ENTITY_TYPE,
            source: crate::error::DecodeError::new(crate::error::DecodeErrorKind::EntityType {
                expected: T::ENTITY_TYPE,
                found: String::new(),
            })
            .at(<T::Table as Table>::ENTITY_TYPE),
        })?;
        self.found = Some(entity);
        Ok(())
    }
}

/// Sets an item's version to `keep` when dropped: what
/// [`Db::put_versioned`] leaves in the caller's item whether the write
/// succeeded, failed or was cancelled.
struct VersionGuard<'a, T: Entity> {
    item: &'a mut T,
    keep: u64,
}

impl<T: Entity> Drop for VersionGuard<'_, T> {
    fn drop(&mut self) {
        self.item.set_version(self.keep);
    }
}
