//! BatchWriteItem and BatchGetItem of any size: split into requests of 25
//! writes / 100 keys, sent concurrently up to a bound, unprocessed items
//! retried with exponential backoff and full jitter. Whatever still fails
//! after the last attempt comes back in [`Error::Unprocessed`]; nothing is
//! dropped.

use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt;

use crate::db::{Db, key_item};
use crate::entity::{Entity, Table};
use crate::error::Error;
use crate::exec::Executor;
use crate::key::PrimaryKey;
use crate::request::{BatchGet, BatchOp, BatchWrite};
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit of writes per BatchWriteItem.
pub const MAX_BATCH_WRITE: usize = 25;
/// DynamoDB's limit of keys per BatchGetItem.
pub const MAX_BATCH_GET: usize = 100;

/// How batches are sent and retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPolicy {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Attempts per request, the first included.
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubles each time.
    pub base_delay: Duration,
    /// Longest backoff.
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
    /// Full jitter: a random delay up to the capped exponential backoff.
    fn delay(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32.checked_shl(attempt.min(20)).unwrap_or(u32::MAX));
        let cap = exp.min(self.max_delay);
        let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// A BatchWriteItem of any size being built: puts and deletes, applied one
/// by one (no conditions, no atomicity; use a transaction for those).
#[must_use = "a batch does nothing until `execute` is awaited"]
pub struct BatchWriter<'a, E> {
    db: &'a Db<E>,
    ops: Vec<BatchOp>,
    keys: HashMap<PrimaryKey, usize>,
    policy: BatchPolicy,
    error: Option<Error>,
}

impl<'a, E: Executor> BatchWriter<'a, E> {
    pub(crate) fn new(db: &'a Db<E>) -> Self {
        Self {
            db,
            ops: Vec::new(),
            keys: HashMap::new(),
            policy: BatchPolicy::default(),
            error: None,
        }
    }

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
                return Err(Error::InvalidRequest(format!(
                    "batch operations {first} and {} write the same item ({:?} / {:?}); DynamoDB rejects duplicate keys in a batch",
                    self.ops.len(),
                    key.pk,
                    key.sk
                )));
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

    /// Puts the item (replacing any item with its key).
    pub fn put<T: Entity>(self, item: &T) -> Self {
        self.push(item.primary_key(), || {
            let mut encoded = item.to_item()?;
            T::stamp(&mut encoded, false)?;
            crate::size::check_item(T::ENTITY_TYPE, &encoded)?;
            Ok(BatchOp::Put(encoded))
        })
    }

    /// Deletes the item with `key`.
    pub fn delete<T: Entity>(self, key: impl Into<PrimaryKey>) -> Self {
        let key = key.into();
        let item = key_item::<T::Table>(&key);
        self.push(Ok(key), || Ok(BatchOp::Delete(item)))
    }

    /// Sets how requests are sent and retried.
    pub fn policy(mut self, policy: BatchPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Number of writes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there is no write.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Sends every write: one BatchWriteItem per 25 writes (plus retries).
    pub async fn execute(self) -> Result<(), Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let policy = self.policy;
        let db = self.db;
        let mut chunks: Vec<Vec<BatchOp>> = Vec::new();
        let mut ops = self.ops.into_iter().peekable();
        while ops.peek().is_some() {
            chunks.push(ops.by_ref().take(MAX_BATCH_WRITE).collect());
        }
        let results: Vec<(Vec<BatchOp>, Option<Error>)> = futures::stream::iter(chunks)
            .map(|chunk| write_chunk(db, chunk, policy))
            .buffer_unordered(policy.concurrency.max(1))
            .collect()
            .await;
        let mut failed = Vec::new();
        let mut cause = None;
        for (left, err) in results {
            failed.extend(left);
            if cause.is_none() {
                cause = err;
            }
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(Error::Unprocessed {
                writes: failed,
                keys: Vec::new(),
                attempts: policy.max_attempts,
                cause: cause.map(Box::new),
            })
        }
    }
}

/// Sends one chunk until DynamoDB processed all of it or the attempts run
/// out; returns what is left and the error that stopped it, if any.
async fn write_chunk<E: Executor>(
    db: &Db<E>,
    mut chunk: Vec<BatchOp>,
    policy: BatchPolicy,
) -> (Vec<BatchOp>, Option<Error>) {
    for attempt in 0..policy.max_attempts {
        if attempt > 0 {
            tokio::time::sleep(policy.delay(attempt)).await;
        }
        let req = BatchWrite {
            table: db.table_name().to_owned(),
            ops: chunk.clone(),
        };
        match db.executor().batch_write(req).await {
            Ok(left) if left.is_empty() => return (Vec::new(), None),
            Ok(left) => chunk = left,
            // Throttling and network errors are retried by the SDK; what
            // reaches here is not retryable: hand the chunk back.
            Err(e) => return (chunk, Some(e)),
        }
    }
    (chunk, None)
}

fn key_of<T: Table>(item: &Item) -> Option<PrimaryKey> {
    let s = |a: &str| match item.get(a) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    };
    Some(PrimaryKey {
        pk: s(T::PK)?,
        sk: match T::SK {
            Some(a) => Some(s(a)?),
            None => None,
        },
    })
}

impl<E: Executor> Db<E> {
    /// Starts a BatchWriteItem of any size.
    pub fn batch_write(&self) -> BatchWriter<'_, E> {
        BatchWriter::new(self)
    }

    /// BatchGetItem of any number of keys: one request per 100 keys (plus
    /// retries of unprocessed keys), eventually consistent. The result has
    /// one entry per key, in the keys' order; `None` for missing items.
    pub async fn batch_get<T: Entity>(&self, keys: &[PrimaryKey]) -> Result<Vec<Option<T>>, Error> {
        let policy = BatchPolicy::default();
        let mut index: HashMap<&PrimaryKey, usize> = HashMap::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            if let Some(first) = index.insert(k, i) {
                return Err(Error::InvalidRequest(format!(
                    "batch keys {first} and {i} are the same ({:?} / {:?}); DynamoDB rejects duplicate keys in a batch",
                    k.pk, k.sk
                )));
            }
        }
        let chunks: Vec<Vec<Item>> = keys
            .chunks(MAX_BATCH_GET)
            .map(|c| c.iter().map(key_item::<T::Table>).collect())
            .collect();
        // Per chunk: the items found and the keys still unprocessed.
        type ChunkResult = Result<(Vec<Item>, Vec<Item>), Error>;
        let results: Vec<ChunkResult> = futures::stream::iter(chunks)
            .map(|mut chunk| async move {
                let mut found = Vec::new();
                for attempt in 0..policy.max_attempts {
                    if attempt > 0 {
                        tokio::time::sleep(policy.delay(attempt)).await;
                    }
                    let out = self
                        .executor()
                        .batch_get(BatchGet {
                            table: self.table_name().to_owned(),
                            keys: chunk,
                            consistent: false,
                        })
                        .await?;
                    found.extend(out.items);
                    chunk = out.unprocessed;
                    if chunk.is_empty() {
                        break;
                    }
                }
                Ok((found, chunk))
            })
            .buffer_unordered(policy.concurrency)
            .collect()
            .await;
        let mut out: Vec<Option<T>> = keys.iter().map(|_| None).collect();
        let mut left = Vec::new();
        for r in results {
            let (found, unprocessed) = r?;
            left.extend(unprocessed);
            for item in found {
                let Some(i) = key_of::<T::Table>(&item).and_then(|k| index.get(&k).copied()) else {
                    continue;
                };
                out[i] = Some(T::from_item(item)?);
            }
        }
        if !left.is_empty() {
            return Err(Error::Unprocessed {
                writes: Vec::new(),
                keys: left,
                attempts: policy.max_attempts,
                cause: None,
            });
        }
        Ok(out)
    }
}
