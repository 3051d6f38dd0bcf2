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

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

pub use checkpoint::{Checkpoint, Counts};

use plan::Plan;
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

fn is_validation(e: &Error) -> bool {
    e.code() == Some("ValidationException")
}

/// What happened to one item.
enum Outcome {
    Unchanged,
    Rewritten,
    Vanished,
    Failed(Failure),
}

/// One run of a backfill.
struct Run<'r, 'a, T, E> {
    db: &'r Db<E>,
    backfill: &'r Backfill<'a, T>,
    shared: &'r Mutex<Shared>,
    started: Instant,
    resumed: Counts,
    estimated_total: Option<u64>,
}

impl<T: Entity, E: Executor> Run<'_, '_, T, E> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn progress(&self, done: bool) -> Progress {
        let mut shared = self.lock();
        shared.reported = Instant::now();
        let mut counts = shared.checkpoint.counts();
        counts.add(&shared.pending);
        let elapsed = self.started.elapsed();
        let scanned = counts.scanned - self.resumed.scanned;
        let rate = scanned as f64 / elapsed.as_secs_f64().max(1e-9);
        let eta = self.estimated_total.and_then(|total| {
            let left = total.saturating_sub(counts.scanned);
            (rate > 0.0).then(|| Duration::from_secs_f64(left as f64 / rate))
        });
        Progress {
            counts,
            segments_done: shared.checkpoint.segments_done(),
            segments: shared.checkpoint.total_segments(),
            elapsed,
            rate,
            estimated_total: self.estimated_total,
            eta: if done { Some(Duration::ZERO) } else { eta },
            checkpoint: shared.checkpoint.clone(),
            done,
        }
    }

    /// Sends a request again while DynamoDB throttles it, with backoff.
    async fn throttled<R, F, Fut>(&self, mut send: F) -> Result<R, Error>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<R, Error>>,
    {
        let policy = &self.backfill.policy;
        let mut attempt = 1;
        loop {
            match send().await {
                Err(e) if e.is_throttling() && attempt < policy.attempts() => {
                    self.lock().checkpoint.counts_mut().throttled += 1;
                    tokio::time::sleep(policy.delay(attempt)).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// Reads segment `segment` of `total` to its end, page by page.
    async fn segment(&self, segment: u32, total: u32) -> Result<(), Error> {
        let db = self.db;
        let mut start = self.lock().checkpoint.start(segment)?;
        let type_attr = <T::Table as Table>::ENTITY_TYPE;
        // An adoption reads the items without an entity type, a backfill
        // the entity's.
        let filter = if self.backfill.adopt {
            Condition::NotExists(type_attr.to_owned())
        } else {
            Condition::eq(type_attr, AttributeValue::S(T::ENTITY_TYPE.to_owned()))
        };
        loop {
            let req = ScanRequest {
                table: db.table_name().to_owned(),
                index: None,
                filter: Some(filter.clone()),
                limit: self
                    .backfill
                    .page_size
                    .map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
                consistent: false,
                start: start.take(),
                segment: Some(ScanSegment {
                    segment,
                    total_segments: total,
                }),
            };
            let mut page = self.throttled(|| db.executor().scan(req.clone())).await?;
            if self.backfill.adopt {
                // Only the items `T` claims are its; the others stay.
                page.items
                    .retain(|item| singletable_runtime::__private::attributed_to::<T>(item));
            }
            // Items of other types count as scanned at once, the entity's
            // as each is processed, so progress follows the work.
            let matched = page.items.len() as u64;
            let mut done = Counts {
                scanned: page
                    .scanned
                    .map_or(0, |n| (n as u64).saturating_sub(matched)),
                ..Counts::default()
            };
            self.lock().pending.add(&done);
            let mut failures = Vec::new();
            let mut outcomes = futures_util::stream::iter(page.items)
                .map(|item| self.item(item))
                .buffer_unordered(self.backfill.policy.concurrency());
            while let Some(outcome) = outcomes.next().await {
                let mut one = Counts {
                    scanned: 1,
                    matched: 1,
                    ..Counts::default()
                };
                match outcome? {
                    Outcome::Unchanged => one.unchanged = 1,
                    Outcome::Rewritten => one.rewritten = 1,
                    Outcome::Vanished => one.vanished = 1,
                    Outcome::Failed(f) => {
                        one.failed = 1;
                        failures.push(f);
                    }
                }
                done.add(&one);
                let due = {
                    let mut shared = self.lock();
                    shared.pending.add(&one);
                    shared.reported.elapsed() >= PROGRESS_EVERY
                };
                // A page can take seconds: report within it too.
                if let (true, Some(f)) = (due, &self.backfill.progress) {
                    f(&self.progress(false));
                }
            }
            drop(outcomes);
            {
                let mut shared = self.lock();
                shared.pending.sub(&done);
                shared.checkpoint.counts_mut().add(&done);
                shared.failures.extend(failures);
                shared.checkpoint.advance(segment, page.last_key.as_ref())?;
            }
            if let Some(f) = &self.backfill.progress {
                f(&self.progress(false));
            }
            match page.last_key {
                Some(k) => start = Some(k),
                None => return Ok(()),
            }
        }
    }

    /// Rewrites one item if its keys differ, reading it again (from the
    /// failed condition's return value) whenever a concurrent write got
    /// there first.
    async fn item(&self, mut stored: Item) -> Result<Outcome, Error> {
        let db = self.db;
        let policy = &self.backfill.policy;
        let key = plan::stored_key::<T::Table>(&stored);
        let fail = |error| {
            Ok(Outcome::Failed(Failure {
                key: key.clone(),
                error,
            }))
        };
        let (mut conflicts, mut retries) = (0, 0);
        loop {
            let planned = if self.backfill.adopt {
                plan::adoption::<T>(db.table_name(), &stored)
            } else {
                plan::plan::<T>(db.table_name(), &stored)
            };
            let update = match planned {
                Ok(Plan::Unchanged) => return Ok(Outcome::Unchanged),
                Ok(Plan::Gone) => return Ok(Outcome::Vanished),
                Ok(Plan::Rewrite(update)) => *update,
                Err(e) => return fail(e),
            };
            if self.backfill.dry_run {
                return Ok(Outcome::Rewritten);
            }
            // A retry plans the rewrite again (a function of the item read)
            // instead of keeping a copy of every request.
            match db.executor().update_item(update).await {
                Ok(_) => return Ok(Outcome::Rewritten),
                Err(e) if e.is_throttling() && retries + 1 < policy.attempts() => {
                    retries += 1;
                    self.lock().checkpoint.counts_mut().throttled += 1;
                    tokio::time::sleep(policy.delay(retries)).await;
                }
                Err(Error::ConditionFailed { .. })
                    if conflicts >= self.backfill.conflict_retries =>
                {
                    return fail(Error::ConditionFailed { item: None });
                }
                Err(Error::ConditionFailed { item }) => {
                    conflicts += 1;
                    self.lock().checkpoint.counts_mut().conflicts += 1;
                    match item {
                        Some(current) => stored = *current,
                        // Deleted since it was read.
                        None => return Ok(Outcome::Vanished),
                    }
                }
                // DynamoDB refused this rewrite (an item grown past
                // 400 KB, an expression over its limits): this item's
                // failure. Anything else (throttling past the policy, the
                // service unreachable) ends the run before the page is
                // checkpointed, so a resumed run redoes it.
                Err(e @ Error::Service { .. }) if is_validation(&e) => return fail(e),
                Err(e) => return Err(e),
            }
        }
    }
}
