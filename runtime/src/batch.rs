//! BatchWriteItem and BatchGetItem of any size: split into requests of 25
//! writes / 100 keys, sent concurrently up to a bound.
//!
//! Every request follows the [`BatchPolicy`]: what DynamoDB leaves
//! unprocessed, and a request it throttles ([`Error::Throttled`]), is sent
//! again after an exponential backoff with full jitter, until the policy's
//! attempts run out. What is still not done then comes back to the caller
//! with the attempts made and the error of the last attempt; nothing is
//! dropped, and what succeeded is kept: a batch write's error lists only the
//! writes not applied, a batch get returns the items it read beside the keys
//! it could not read ([`BatchGetOutcome`]).
//!
//! ```
//! use singletable::{BatchGetter, BatchWriter, Counting, Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App")]
//! pub struct App;
//!
//! #[derive(Entity)]
//! #[entity(table = App)]
//! #[pk("USER#<n>")]
//! #[sk("PROFILE")]
//! pub struct User { pub n: u32 }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?.map_executor(Counting::new);
//! let users: Vec<User> = (0..60).map(|n| User { n }).collect();
//! let mut batch = singletable::BatchWriter::new();
//! for user in &users {
//!     batch = batch.put(user);
//! }
//! batch.execute(&db).await?;
//! assert_eq!(db.executor().count(), 3); // 60 writes: 25 + 25 + 10
//! assert_eq!((BatchWriter::PER_REQUEST, BatchGetter::<User>::PER_REQUEST), (25, 100));
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use futures_util::StreamExt;

use crate::clock::{Created, Stamp, TimeKind};
use crate::db::Db;
use crate::entity::{Entity, Table};
use crate::error::{Error, Refusal};
use crate::exec::Executor;
use crate::key::{KeyOf, PrimaryKey};
use crate::request::{BatchGet, BatchOp, BatchWrite};
use crate::value::{AttributeValue, Item};

mod get;
pub use get::{BatchGetOutcome, BatchGetter};

/// How batches are sent and retried, for writes ([`BatchWriter::policy`])
/// and reads ([`BatchGetter::policy`]) alike.
///
/// Each request (25 writes or 100 keys) gets `max_attempts` attempts, the
/// first included (at least one is always made). An attempt that leaves
/// items unprocessed, or that DynamoDB throttles
/// (`ProvisionedThroughputExceededException`, `ThrottlingException`,
/// `RequestLimitExceeded`, after the SDK's own retries), is followed by a
/// wait of [`BatchPolicy::max_backoff`] at most, chosen at random (full
/// jitter, so that throttled clients do not retry in step), and another
/// attempt with what is left. Any other error ends the request's attempts.
///
/// ```
/// use std::time::Duration;
/// use singletable::BatchPolicy;
///
/// let policy = BatchPolicy { max_attempts: 5, concurrency: 2, ..BatchPolicy::default() };
/// assert_eq!(policy.max_backoff(1), Duration::from_millis(25));  // before the 2nd attempt
/// assert_eq!(policy.max_backoff(3), Duration::from_millis(100)); // doubled twice
/// assert_eq!(policy.max_backoff(20), Duration::from_secs(2));    // capped at max_delay
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPolicy {
    /// Requests in flight at once (at least one).
    pub concurrency: usize,
    /// Attempts per request, the first included (at least one).
    pub max_attempts: u32,
    /// Longest backoff before the second attempt; doubles each time.
    pub base_delay: Duration,
    /// Longest backoff of any attempt.
    pub max_delay: Duration,
}

impl Default for BatchPolicy {
    fn default() -> Self {
        Self {
            concurrency: 4,
            max_attempts: 10,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl BatchPolicy {
    /// The longest wait before retry `retry` (1 for the second attempt):
    /// `base_delay` doubled `retry - 1` times, at most `max_delay`. The wait
    /// is drawn uniformly from zero to this.
    pub fn max_backoff(&self, retry: u32) -> Duration {
        let doublings = retry.saturating_sub(1).min(31);
        self.base_delay
            .saturating_mul(1u32 << doublings)
            .min(self.max_delay)
    }

    /// Full jitter: a random wait up to [`BatchPolicy::max_backoff`], what
    /// a job waits before retry `retry`.
    ///
    /// ```
    /// use singletable::BatchPolicy;
    ///
    /// let policy = BatchPolicy::default();
    /// assert!(policy.delay(3) <= policy.max_backoff(3));
    /// ```
    pub fn delay(&self, retry: u32) -> Duration {
        let cap = self.max_backoff(retry);
        let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }

    /// Attempts per request, the first included: `max_attempts`, at least
    /// one.
    ///
    /// ```
    /// use singletable::BatchPolicy;
    ///
    /// let policy = BatchPolicy { max_attempts: 0, ..BatchPolicy::default() };
    /// assert_eq!(policy.attempts(), 1);
    /// ```
    pub fn attempts(&self) -> u32 {
        self.max_attempts.max(1)
    }

    /// Requests in flight at once: `concurrency`, at least one.
    ///
    /// ```
    /// use singletable::BatchPolicy;
    ///
    /// let policy = BatchPolicy { concurrency: 0, ..BatchPolicy::default() };
    /// assert_eq!(policy.concurrency(), 1);
    /// ```
    pub fn concurrency(&self) -> usize {
        self.concurrency.max(1)
    }
}

/// What the attempts of one request came to.
struct Run<W, O> {
    /// What the request produced (items read; nothing for writes).
    done: Vec<O>,
    /// What is still not done.
    left: Vec<W>,
    /// Attempts made, the first included.
    attempts: u32,
    /// The error of the last attempt, if it failed.
    error: Option<Error>,
}

/// Sends one request's worth of `pending` under `policy`: `send` makes one
/// attempt and returns what it produced and what it left unprocessed. The
/// one retry loop of both batch writes and batch gets.
async fn run<W, O, F, Fut>(policy: &BatchPolicy, mut pending: Vec<W>, send: F) -> Run<W, O>
where
    W: Clone,
    F: Fn(Vec<W>, u32) -> Fut,
    Fut: Future<Output = Result<(Vec<O>, Vec<W>), Error>>,
{
    let mut done = Vec::new();
    let mut attempts = 0;
    let mut error = None;
    while !pending.is_empty() && attempts < policy.attempts() {
        if attempts > 0 {
            tokio::time::sleep(policy.delay(attempts)).await;
        }
        attempts += 1;
        // The request consumes its items; on an error they are still ours.
        match send(pending.clone(), attempts).await {
            Ok((produced, left)) => {
                done.extend(produced);
                pending = left;
                error = None;
            }
            // Nothing of a throttled request was applied: all of it again.
            Err(e) if e.is_throttling() => error = Some(e),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    Run {
        done,
        left: pending,
        attempts,
        error,
    }
}

/// The runs of every request of a batch, added up.
struct Totals<W, O> {
    done: Vec<O>,
    left: Vec<W>,
    attempts: u32,
    cause: Option<Error>,
}

fn totals<W, O>(runs: Vec<Run<W, O>>) -> Totals<W, O> {
    let mut t = Totals {
        done: Vec::new(),
        left: Vec::new(),
        attempts: 0,
        cause: None,
    };
    let mut attempts_all = 0;
    for run in runs {
        attempts_all = attempts_all.max(run.attempts);
        if !run.left.is_empty() {
            t.attempts = t.attempts.max(run.attempts);
        }
        t.done.extend(run.done);
        t.left.extend(run.left);
        // An error that retrying does not cure says more than throttling.
        let better = match (&t.cause, &run.error) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(old), Some(new)) => old.is_throttling() && !new.is_throttling(),
        };
        if better {
            t.cause = run.error;
        }
    }
    if t.left.is_empty() {
        t.attempts = attempts_all;
    }
    t
}

/// A BatchWriteItem of any size being built: puts and deletes, applied one
/// by one (no conditions, no atomicity; use a transaction for those).
///
/// ```
/// use singletable::{BatchPolicy, Db, Embedded, Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App")]
/// # pub struct App;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(table = App)]
/// # #[pk("USER#<n>")]
/// # #[sk("PROFILE")]
/// # pub struct User { pub n: u32 }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let db = Db::<Embedded>::in_memory::<App>("App")?;
/// db.put(&User { n: 0 }).await?;
/// let (one, two) = (User { n: 1 }, User { n: 2 });
/// // The batch borrows the items it puts until it is sent.
/// let batch = singletable::BatchWriter::new()
///     .put(&one)
///     .put(&two)
///     .delete::<User>(User::key(0)?)
///     .policy(BatchPolicy { max_attempts: 3, ..BatchPolicy::default() });
/// assert_eq!(batch.len(), 3);
/// assert!(!batch.is_empty());
/// batch.execute(&db).await?; // one BatchWriteItem; unprocessed writes retried
/// assert_eq!(db.scan_all::<User>().await?.len(), 2);
///
/// // Two writes of one item in one batch: refused before sending.
/// let one = User { n: 1 };
/// let dup = singletable::BatchWriter::new().put(&one).delete::<User>(User::key(1)?);
/// assert!(dup.execute(&db).await.is_err());
/// # Ok::<(), singletable::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a batch does nothing until `execute` is awaited"]
pub struct BatchWriter<'a> {
    steps: Vec<BatchStep<'a>>,
    policy: BatchPolicy,
}

/// One write of a [`BatchWriter`], applied to its writes when it is sent.
type BatchStep<'a> = Box<dyn FnOnce(BatchOps) -> BatchOps + Send + 'a>;

impl std::fmt::Debug for BatchWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchWriter")
            .field("writes", &self.steps.len())
            .field("policy", &self.policy)
            .finish()
    }
}

impl Default for BatchWriter<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// The writes of a [`BatchWriter`], built when it is sent, with the
/// handle's clock reading.
struct BatchOps {
    /// The one clock reading of the batch's stamps.
    now: std::time::SystemTime,
    ops: Vec<BatchOp>,
    keys: HashMap<PrimaryKey, usize>,
    error: Option<Error>,
}

impl BatchOps {
    fn push(
        mut self,
        key: Result<PrimaryKey, Error>,
        op: impl FnOnce() -> Result<BatchOp, Error>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        let result = key.and_then(|key| {
            if let Some(first) = self.keys.get(&key) {
                return Err(Error::Refused(Refusal::DuplicateBatchKey {
                    first: *first,
                    second: self.ops.len(),
                    pk: key.pk,
                    sk: key.sk,
                }));
            }
            Ok((key, op()?))
        });
        match result {
            Ok((key, op)) => {
                self.keys.insert(key, self.ops.len());
                self.ops.push(op);
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    fn put<T: Entity>(self, item: &T) -> Self {
        let stamp = Stamp::new(self.now, Created::Keep);
        self.push(item.primary_key(), || {
            no_unique::<T>(
                "a batch put",
                "batch writes are not transactional; use `db.put` (or a transaction) instead",
            )?;
            if !item.created_at_set() {
                let field = T::TIMESTAMPS
                    .iter()
                    .find(|t| t.kind == TimeKind::Created)
                    .map_or("created_at", |t| t.field);
                return Err(Error::Refused(Refusal::BatchPutWithoutCreated {
                    entity: T::ENTITY_TYPE,
                    field,
                }));
            }
            let encoded = item.to_item_stamped(&stamp)?;
            crate::size::check_item(T::ENTITY_TYPE, &encoded)?;
            Ok(BatchOp::Put(encoded))
        })
    }

    fn delete<T: Entity>(self, key: KeyOf<T>) -> Self {
        let key = key.into_key();
        let item = key.to_item::<T::Table>();
        self.push(Ok(key), || {
            no_unique::<T>(
                "a batch delete",
                "batch writes are not transactional; use `db.delete` (or a transaction) instead",
            )?;
            Ok(BatchOp::Delete(item))
        })
    }
}

impl BatchWriter<'_> {
    /// DynamoDB's limit of writes per BatchWriteItem: a batch sends one
    /// request per this many writes.
    ///
    /// ```
    /// assert_eq!(singletable::BatchWriter::PER_REQUEST, 25);
    /// ```
    pub const PER_REQUEST: usize = 25;
}

impl<'a> BatchWriter<'a> {
    /// A batch without writes yet. It borrows the items it puts until it
    /// is sent with [`BatchWriter::execute`] (they are `Sync`, so that the
    /// batch, and the future sending it, are `Send`).
    pub fn new() -> Self {
        Self {
            steps: Vec::new(),
            policy: BatchPolicy::default(),
        }
    }

    /// Puts the item (a PutRequest, replacing any item with its key). Its `updated_at`
    /// fields get the batch's time (one clock reading per batch) and its
    /// `created_at` fields keep the struct's value: a batch cannot
    /// condition its writes, so a put whose `created_at` is empty is
    /// refused ([`Refusal::BatchPutWithoutCreated`]) rather than risk replacing the
    /// creation time of an item that exists; set it (an item read from
    /// the table has it), or write new items with [`Db::create`]. Entities
    /// with unique fields are refused too: their markers need a
    /// transaction (see [`crate::unique`]).
    pub fn put<T: Entity + Sync + 'a>(mut self, item: &'a T) -> Self {
        self.steps.push(Box::new(move |w: BatchOps| w.put(item)));
        self
    }

    /// Deletes the item with `key` (a DeleteRequest). Refused for entities with unique
    /// fields, whose markers must go in the same transaction: use
    /// [`Db::delete`] for those.
    pub fn delete<T: Entity + 'a>(mut self, key: KeyOf<T>) -> Self {
        self.steps.push(Box::new(move |w: BatchOps| w.delete(key)));
        self
    }

    /// Sets how requests are sent and retried.
    pub fn policy(mut self, policy: BatchPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Number of writes.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there is no write.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Sends every write: one BatchWriteItem per 25 writes, retried under
    /// the policy (unprocessed items and throttled requests).
    ///
    /// Every write not in the error was applied. [`Error::Unprocessed`]
    /// holds every write that was not (or, after a failure other than
    /// throttling, may not have been), the attempts made for them and the
    /// error of the last attempt, if it failed; an invalid batch (duplicate
    /// keys, an item over 400 KB) is refused before anything is sent.
    ///
    /// An empty batch sends no request and succeeds: the writer splits its
    /// writes into requests, and no writes make no request (DynamoDB itself
    /// refuses a BatchWriteItem of zero items, so none is ever sent). A
    /// transaction, which is one request, refuses to be empty instead
    /// ([`Error::EmptyTransaction`]).
    ///
    /// ```
    /// # use singletable::{Counting, Db, Embedded, Table};
    /// # #[derive(Table)]
    /// # #[table(name = "App")]
    /// # pub struct App;
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let embedded = Db::<Embedded>::in_memory::<App>("App")?;
    /// let db = Db::with_executor(Counting::new(embedded.executor().clone()), "App");
    /// singletable::BatchWriter::new().execute(&db).await?;
    /// assert_eq!(db.executor().count(), 0); // no request was sent
    /// # Ok::<(), singletable::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn execute<E: Executor>(self, db: &Db<E>) -> Result<(), Error> {
        let mut w = BatchOps {
            now: db.clock().now(),
            ops: Vec::new(),
            keys: HashMap::new(),
            error: None,
        };
        for step in self.steps {
            w = step(w);
        }
        if let Some(e) = w.error {
            return Err(e);
        }
        let policy = self.policy;
        let exec = db.executor();
        let table = db.table_name();
        let mut chunks: Vec<Vec<BatchOp>> = Vec::new();
        let mut ops = w.ops.into_iter().peekable();
        while ops.peek().is_some() {
            chunks.push(ops.by_ref().take(Self::PER_REQUEST).collect());
        }
        let runs: Vec<Run<BatchOp, ()>> = futures_util::stream::iter(chunks)
            .map(|chunk| {
                run(&policy, chunk, move |ops, attempt| async move {
                    let req = BatchWrite {
                        table: table.to_owned(),
                        ops,
                    };
                    let r = crate::trace::Request {
                        attempt: Some(attempt),
                        ..Default::default()
                    };
                    let span = crate::trace::span("BatchWriteItem", table, &r);
                    crate::trace::traced(span, r.sender("BatchWriteItem"), exec.batch_write(req))
                        .await
                        .map(|left| (Vec::new(), left))
                })
            })
            .buffer_unordered(policy.concurrency())
            .collect()
            .await;
        let t = totals(runs);
        if t.left.is_empty() {
            Ok(())
        } else {
            Err(Error::Unprocessed {
                writes: t.left,
                keys: Vec::new(),
                attempts: t.attempts,
                cause: t.cause.map(Box::new),
            })
        }
    }
}

/// Refuses a batch write of an entity with unique fields.
fn no_unique<T: Entity>(operation: &'static str, instead: &'static str) -> Result<(), Error> {
    match T::UNIQUE.first() {
        None => Ok(()),
        Some(u) => Err(Error::Refused(Refusal::UniqueMarker {
            entity: T::ENTITY_TYPE,
            field: u.field,
            operation,
            instead,
        })),
    }
}
