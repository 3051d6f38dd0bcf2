//! Backfills: after a new index, access pattern or key template is
//! declared (or a new schema version), rewrite the stored items of one
//! entity so that every key attribute matches the declaration.
//!
//! [`Backfill::run`] reads the table with a parallel Scan (one task per
//! segment, each page filtered to the entity's type), decodes each item
//! with the entity, rebuilds it as [`Entity::to_item`] would write it and
//! compares the key attributes (the table's indexes' keys, and the schema
//! version attribute): an item that already matches costs no write. One
//! that differs gets one UpdateItem setting exactly the attributes that
//! differ, conditioned on the item being as it was read (every data
//! attribute equal, every declared attribute that was absent still
//! absent), so a concurrent write is never overwritten: the rewrite fails,
//! the item is read again from the condition failure's return value, and
//! the rewrite is planned anew. Throttled requests are sent again with
//! exponential backoff and full jitter ([`BatchPolicy`]). An item stored
//! under an older schema version is rewritten whole in the current shape.
//!
//! Progress (items scanned and rewritten, rate, estimated time left, and a
//! [`Checkpoint`]) goes to a callback after every page; a checkpoint saved
//! from it resumes the backfill after a crash. Memory stays bounded: each
//! segment holds one page (at most 1 MB) at a time.
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "Shop", gsi1)]
//! pub struct Shop;
//!
//! /// The entity as first declared: no index.
//! #[derive(Entity)]
//! #[entity(table = Shop, name = "Order")]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! pub struct OrderV1 {
//!     pub id: String,
//!     pub customer: String,
//! }
//!
//! /// A year later: orders by customer, on `gsi1`.
//! #[derive(Entity)]
//! #[entity(table = Shop, name = "Order")]
//! #[pk("ORDER#<id>")]
//! #[sk("DETAILS")]
//! #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
//! #[access(by_customer, index = gsi1)]
//! pub struct Order {
//!     pub id: String,
//!     pub customer: String,
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
//! for i in 0..10 {
//!     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
//! }
//! assert_eq!(Order::by_customer("ana").all(&db).await?.len(), 0);
//!
//! let dry = singletable::Backfill::<Order>::new().dry_run().run(&db).await?;
//! assert_eq!(dry.counts.rewritten, 10); // would be rewritten
//!
//! let report = singletable::Backfill::<Order>::new()
//!     .segments(2)
//!     .on_progress(|p| eprintln!("{} of ~{:?} items", p.counts.scanned, p.estimated_total))
//!     .run(&db)
//!     .await?;
//! assert_eq!(report.counts.rewritten, 10);
//! assert_eq!(Order::by_customer("ana").all(&db).await?.len(), 10);
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

mod checkpoint;
mod plan;
mod run;

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

pub use checkpoint::{Checkpoint, Counts};

use plan::Plan;
use run::Run;
use singletable_runtime::batch::BatchPolicy;
use singletable_runtime::db::Db;
use singletable_runtime::entity::{Entity, Table};
use singletable_runtime::error::{Error, Refusal};
use singletable_runtime::exec::Executor;
use singletable_runtime::expr::Condition;
use singletable_runtime::key::PrimaryKey;
use singletable_runtime::request::{ScanRequest, ScanSegment};
use singletable_runtime::value::{AttributeValue, Item};

/// Segments a backfill scans in parallel unless told otherwise.
const DEFAULT_SEGMENTS: u32 = 4;
/// Within a page, progress is reported at most this often.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// Times an item is read again and its rewrite redone after concurrent
/// writes, before it is reported.
const DEFAULT_CONFLICT_RETRIES: u32 = 8;

/// A progress report, sent after every page of every segment, every
/// quarter second within a page, and once at the end.
///
/// ```
/// # use singletable::Embedded;
/// use std::sync::Mutex;
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", gsi1)]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct OrderV1 { pub id: String, pub customer: String }
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub customer: String }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// # for i in 0..10 {
/// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
/// # }
/// let seen = Mutex::new(Vec::new());
/// singletable::Backfill::<Order>::new()
///     .expected_items(10)
///     .on_progress(|p| seen.lock().unwrap().push((p.counts.scanned, p.fraction(), p.done)))
///     .run(&db)
///     .await?;
/// let seen = seen.into_inner().unwrap();
/// let (scanned, fraction, done) = *seen.last().unwrap();
/// assert!(done && scanned >= 10 && fraction.is_some());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct Progress {
    /// Counts so far (including those of the runs this one resumed, and
    /// the items of the pages being processed).
    pub counts: Counts,
    /// Segments read to the end, of [`Progress::segments`].
    pub segments_done: u32,
    /// Segments of the parallel scan.
    pub segments: u32,
    /// Time this run has taken.
    pub elapsed: Duration,
    /// Items scanned per second in this run.
    pub rate: f64,
    /// The items the table holds, as the executor estimates them
    /// ([`Executor::estimated_item_count`]) or as
    /// [`Backfill::expected_items`] said.
    pub estimated_total: Option<u64>,
    /// Estimated time left, from the rate and the estimated total.
    pub eta: Option<Duration>,
    /// Where to resume from: the pages done, with their counts.
    pub checkpoint: Checkpoint,
    /// Whether the backfill is complete.
    pub done: bool,
}

impl Progress {
    /// The part done, from 0 to 1, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        if self.done {
            return Some(1.0);
        }
        let total = self.estimated_total.filter(|t| *t > 0)?;
        Some((self.counts.scanned as f64 / total as f64).min(1.0))
    }
}

/// An item a backfill could not rewrite, with the reason.
///
/// ```
/// # use singletable::Embedded;
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", gsi1)]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct OrderV1 { pub id: String, pub customer: String }
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub customer: String }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// # for i in 0..10 {
/// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
/// # }
/// let report = singletable::Backfill::<Order>::new().run(&db).await?;
/// for failure in &report.failures {
///     eprintln!("{:?}: {}", failure.key, failure.error); // none here
/// }
/// assert!(report.failures.is_empty());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct Failure {
    /// The key it is stored under.
    pub key: PrimaryKey,
    /// Why: it does not decode ([`Error::Decode`], including a key that no
    /// longer matches its template), it fails a validation, it kept
    /// changing ([`Error::ConditionFailed`]), or DynamoDB refused the
    /// rewrite.
    pub error: Error,
}

/// What a backfill did.
///
/// ```
/// # use singletable::Embedded;
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", gsi1)]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct OrderV1 { pub id: String, pub customer: String }
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub customer: String }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// # for i in 0..10 {
/// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
/// # }
/// let report = singletable::Backfill::<Order>::new().run(&db).await?;
/// assert_eq!(report.counts.rewritten, 10);
/// assert!(!report.dry_run && report.rate() >= 0.0);
/// assert!(report.checkpoint.is_done());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct BackfillReport {
    /// Counts, including those of the runs this one resumed.
    pub counts: Counts,
    /// The counts the checkpoint it resumed from carried.
    pub resumed: Counts,
    /// Time this run took.
    pub elapsed: Duration,
    /// Whether nothing was written (a dry run).
    pub dry_run: bool,
    /// The items not rewritten, with why (this run's).
    pub failures: Vec<Failure>,
    /// The final checkpoint (every segment done).
    pub checkpoint: Checkpoint,
}

impl BackfillReport {
    /// Items scanned per second in this run.
    pub fn rate(&self) -> f64 {
        let scanned = self.counts.scanned - self.resumed.scanned;
        scanned as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

type ProgressFn<'a> = Box<dyn Fn(&Progress) + Send + Sync + 'a>;

/// A backfill of entity `T`, built by [`Backfill::new`] (or [`Backfill::adopt`]); nothing is read
/// until [`Backfill::run`].
///
/// ```
/// use singletable::{BatchPolicy, Embedded};
/// # use singletable::{Db, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "Shop", gsi1)]
/// # pub struct Shop;
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # pub struct OrderV1 { pub id: String, pub customer: String }
/// # #[derive(Entity)]
/// # #[entity(table = Shop, name = "Order")]
/// # #[pk("ORDER#<id>")]
/// # #[sk("DETAILS")]
/// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
/// # pub struct Order { pub id: String, pub customer: String }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
/// # for i in 0..10 {
/// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
/// # }
/// // What would change, without writing (Scan only).
/// let dry = singletable::Backfill::<Order>::new().dry_run().run(&db).await?;
/// assert_eq!(dry.counts.rewritten, 10);
///
/// let report = singletable::Backfill::<Order>::new()
///     .segments(2)                 // a parallel Scan of two segments
///     .page_size(4)                // Limit per Scan page
///     .policy(BatchPolicy::default()) // retries of throttled requests
///     .conflict_retries(3)         // re-reads after concurrent writes
///     .expected_items(10)          // for the progress estimate
///     .on_progress(|_| {})
///     .run(&db)
///     .await?;
/// assert_eq!(report.counts.rewritten, 10);
///
/// // A run resumed from its checkpoint finds nothing left to do.
/// let again = singletable::Backfill::<Order>::new().resume_from(report.checkpoint.clone()).run(&db).await?;
/// assert_eq!(again.counts.rewritten, report.counts.rewritten);
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a backfill does nothing until it is run"]
pub struct Backfill<'a, T> {
    segments: Option<u32>,
    page_size: Option<u32>,
    dry_run: bool,
    resume: Option<Checkpoint>,
    policy: BatchPolicy,
    conflict_retries: u32,
    expected: Option<u64>,
    progress: Option<ProgressFn<'a>>,
    /// An adoption (`Backfill::adopt`): stamps the items `T` adopts.
    adopt: bool,
    _entity: PhantomData<fn() -> T>,
}

impl<T: Entity> Backfill<'_, T> {
    /// A backfill of entity `T` (run on a table with [`Backfill::run`]):
    /// rewrites its stored items whose key
    /// attributes (or schema version) differ from what the entity writes
    /// now. See [`crate::backfill`]. It reads the whole table (a Scan,
    /// which consumes read capacity for every item of every type) and
    /// writes one UpdateItem per item that differs.
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{Db, Entity, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", gsi1)]
    /// # pub struct Shop;
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop, name = "Order")]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # pub struct OrderV1 { pub id: String, pub customer: String }
    /// # #[derive(Entity)]
    /// # #[entity(table = Shop, name = "Order")]
    /// # #[pk("ORDER#<id>")]
    /// # #[sk("DETAILS")]
    /// # #[gsi1(pk = "CUSTOMER#<customer>", sk = "ORDER#<id>")]
    /// # pub struct Order { pub id: String, pub customer: String }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Shop>("Shop")?;
    /// # for i in 0..10 {
    /// #     db.put(&OrderV1 { id: format!("o{i}"), customer: "ana".into() }).await?;
    /// # }
    /// let report = singletable::Backfill::<Order>::new().run(&db).await?;
    /// assert_eq!(report.counts.rewritten, 10);
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> Self {
        Backfill {
            segments: None,
            page_size: None,
            dry_run: false,
            resume: None,
            policy: BatchPolicy {
                concurrency: 8,
                ..BatchPolicy::default()
            },
            conflict_retries: DEFAULT_CONFLICT_RETRIES,
            expected: None,
            progress: None,
            adopt: false,
            _entity: PhantomData,
        }
    }

    /// An adoption of entity `T` (`#[entity(adopt = keys)]`): a backfill
    /// that stamps the items `T` adopts, those without an entity type whose
    /// primary key matches `T`'s templates, with what the library writes
    /// and they lack: the entity type, the copies of the key fields, the
    /// index keys `T` declares. Each write is one UpdateItem that sets only
    /// those, conditioned on the item being as it was read (still without
    /// an entity type, every attribute equal); the attributes other clients
    /// wrote stay. Items of other types, and items `T` does not claim, are
    /// untouched. Resumable, with progress and a report, as
    /// [`Backfill::new`]; a checkpoint of an adoption resumes adoptions
    /// only. An entity that does not adopt is refused
    /// ([`Refusal::NotAdopting`]).
    ///
    /// ```
    /// # use singletable::Embedded;
    /// # use singletable::{AttributeValue, Db, Entity, Item, Table};
    /// # use singletable_runtime::{exec::Executor, request::PutItem};
    /// # #[derive(Table)]
    /// # #[table(name = "Billing")]
    /// # pub struct Billing;
    /// #[derive(Entity, Debug, PartialEq)]
    /// #[entity(table = Billing, adopt = keys)]
    /// #[pk("ACCOUNT#<account_id>")]
    /// #[sk("INVOICE#<invoice_id>")]
    /// pub struct Invoice { pub account_id: String, pub invoice_id: String, pub total: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let db = Db::<Embedded>::in_memory::<Billing>("Billing")?;
    /// // Written by another client: keys and data, no entity type.
    /// let legacy: Item = [
    ///     ("PK", AttributeValue::S("ACCOUNT#a1".into())),
    ///     ("SK", AttributeValue::S("INVOICE#i-0".into())),
    ///     ("total", AttributeValue::N("12".into())),
    /// ]
    /// .map(|(k, v)| (k.to_owned(), v))
    /// .into();
    /// # db.executor().put_item(PutItem { table: "Billing".into(), item: legacy.clone(), condition: None, return_old: false, return_on_condition_failure: false }).await?;
    /// let report = singletable::Backfill::<Invoice>::adopt().run(&db).await?;
    /// assert_eq!(report.counts.rewritten, 1);
    /// assert_eq!(singletable::Backfill::<Invoice>::adopt().run(&db).await?.counts.rewritten, 0); // nothing left
    /// let stamped = Invoice { account_id: "a1".into(), invoice_id: "i-0".into(), total: 12 };
    /// assert_eq!(db.get::<Invoice>(Invoice::key("a1", "i-0")?).await?, Some(stamped));
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn adopt() -> Self {
        Backfill {
            adopt: true,
            ..Self::new()
        }
    }
}

impl<T: Entity> Default for Backfill<'_, T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The state the segments share.
struct Shared {
    /// Positions and the counts of the pages done.
    checkpoint: Checkpoint,
    /// Counts of the pages being processed, not in the checkpoint yet.
    pending: Counts,
    failures: Vec<Failure>,
    /// When progress was last reported.
    reported: Instant,
}

impl<'a, T: Entity> Backfill<'a, T> {
    /// Scan segments read at once (default 4; DynamoDB allows up to
    /// 1,000,000). More segments go faster on a large table, each taking
    /// its share of the table's throughput.
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = Some(n);
        self
    }

    /// At most `n` items evaluated per Scan page (`Limit`); by default a
    /// page is 1 MB. Smaller pages give more frequent progress reports and
    /// checkpoints.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = Some(n);
        self
    }

    /// Counts what would be rewritten, writing nothing.
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// Goes on from a checkpoint of an earlier run (of the same entity):
    /// segments it finished are not read again, the others resume after
    /// their last page. The scan keeps the checkpoint's segment count.
    pub fn resume_from(mut self, checkpoint: Checkpoint) -> Self {
        self.resume = Some(checkpoint);
        self
    }

    /// How throttled requests are retried (attempts, backoff) and how many
    /// rewrites each segment keeps in flight (`concurrency`, default 8).
    pub fn policy(mut self, policy: BatchPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// How many times an item that keeps changing under the backfill is
    /// read again before it is reported as a failure (default 8).
    pub fn conflict_retries(mut self, n: u32) -> Self {
        self.conflict_retries = n;
        self
    }

    /// The number of items the table holds, for the time estimate, instead
    /// of the executor's estimate (DescribeTable's `ItemCount`, refreshed
    /// by DynamoDB about every six hours).
    pub fn expected_items(mut self, n: u64) -> Self {
        self.expected = Some(n);
        self
    }

    /// Calls `f` with a [`Progress`] after every page of every segment and
    /// at the end.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Runs the backfill to the end. An error that ends it (a request that
    /// fails other than by a condition, throttling past the policy's
    /// attempts) is returned; the last checkpoint reported resumes it.
    /// Items that cannot be rewritten do not end it: they are counted and
    /// listed in the report's failures.
    pub async fn run<E: Executor>(self, db: &Db<E>) -> Result<BackfillReport, Error> {
        let segments = match (&self.resume, self.segments) {
            (Some(c), Some(n)) if c.total_segments() != n => {
                return Err(Error::Refused(Refusal::CheckpointSegments {
                    checkpoint: c.total_segments(),
                    requested: n,
                }));
            }
            (Some(c), _) => c.total_segments(),
            (None, n) => n.unwrap_or(DEFAULT_SEGMENTS),
        };
        if !(1..=1_000_000).contains(&segments) {
            return Err(Error::Refused(Refusal::SegmentCount {
                segments: segments.into(),
            }));
        }
        if self.adopt && !T::ADOPTS {
            return Err(Error::Refused(Refusal::NotAdopting {
                entity: T::ENTITY_TYPE,
            }));
        }
        // An adoption's checkpoints are its own: a backfill's would skip
        // the pages it read, with another filter.
        let scope = if self.adopt {
            format!("adopt:{}", T::ENTITY_TYPE)
        } else {
            T::ENTITY_TYPE.to_owned()
        };
        let checkpoint = match self.resume.clone() {
            Some(c) if c.entity() != scope => {
                return Err(Error::Refused(Refusal::CheckpointOfAnother {
                    checkpoint: c.entity().to_owned(),
                    backfill: scope,
                }));
            }
            Some(c) => c,
            None => Checkpoint::new(&scope, segments),
        };
        let resumed = checkpoint.counts();
        let estimated_total = match self.expected {
            Some(n) => Some(n),
            // Only for the estimate: a failure here ends nothing.
            None => db
                .executor()
                .estimated_item_count(db.table_name())
                .await
                .ok()
                .flatten(),
        };
        let started = Instant::now();
        let shared = Mutex::new(Shared {
            checkpoint,
            pending: Counts::default(),
            failures: Vec::new(),
            reported: started,
        });
        let run = Run {
            db,
            backfill: &self,
            shared: &shared,
            started,
            resumed,
            estimated_total,
        };
        let pending: Vec<u32> = (0..segments)
            .filter(|s| !run.lock().checkpoint.is_segment_done(*s))
            .collect();
        futures_util::future::try_join_all(pending.into_iter().map(|s| run.segment(s, segments)))
            .await?;
        let progress = run.progress(true);
        if let Some(f) = &self.progress {
            f(&progress);
        }
        let Shared {
            checkpoint,
            failures,
            ..
        } = shared
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(BackfillReport {
            counts: checkpoint.counts(),
            resumed,
            elapsed: started.elapsed(),
            dry_run: self.dry_run,
            failures,
            checkpoint,
        })
    }
}
