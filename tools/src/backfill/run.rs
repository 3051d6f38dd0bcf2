//! One backfill's run: the segments' scans, each item's plan applied
//! with a conditional write, retries after throttling and conflicts.

use super::*;

pub(super) fn is_validation(e: &Error) -> bool {
    e.code() == Some("ValidationException")
}

/// What happened to one item.
pub(super) enum Outcome {
    Unchanged,
    Rewritten,
    Vanished,
    Failed(Failure),
}

/// One run of a backfill.
pub(super) struct Run<'r, 'a, T, E> {
    pub(super) db: &'r Db<E>,
    pub(super) backfill: &'r Backfill<'a, T>,
    pub(super) shared: &'r Mutex<Shared>,
    pub(super) started: Instant,
    pub(super) resumed: Counts,
    pub(super) estimated_total: Option<u64>,
}

impl<T: Entity, E: Executor> Run<'_, '_, T, E> {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn progress(&self, done: bool) -> Progress {
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
    pub(super) async fn throttled<R, F, Fut>(&self, mut send: F) -> Result<R, Error>
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
    pub(super) async fn segment(&self, segment: u32, total: u32) -> Result<(), Error> {
        let db = self.db;
        let mut start = self.lock().checkpoint.start(segment)?;
        let type_attr = <T::Table as Table>::ENTITY_TYPE;
        // An adoption reads the items without an entity type, a backfill
        // the entity's: those of its type and, for an entity that reads
        // items without one (`untyped`, `adopt = keys`), those too.
        let own = Condition::eq(type_attr, AttributeValue::S(T::ENTITY_TYPE.to_owned()));
        let untyped = Condition::NotExists(type_attr.to_owned());
        let filter = if self.backfill.adopt {
            untyped
        } else if T::ADOPTS {
            own.or(untyped)
        } else {
            own
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
                projection: None,
            };
            let mut page = self.throttled(|| db.executor().scan(req.clone())).await?;
            // Of the items without an entity type, only those `T` claims
            // by their keys are its (as its queries read them); the others
            // stay, counted as unclaimed.
            let read = page.items.len() as u64;
            if T::ADOPTS {
                page.items
                    .retain(|item| singletable_runtime::__private::attributed_to::<T>(item));
            }
            let unclaimed = read - page.items.len() as u64;
            // Items of other types count as scanned at once, the entity's
            // as each is processed, so progress follows the work.
            let matched = page.items.len() as u64;
            let mut done = Counts {
                scanned: page
                    .scanned
                    .map_or(unclaimed, |n| (n as u64).saturating_sub(matched)),
                unclaimed,
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
    pub(super) async fn item(&self, mut stored: Item) -> Result<Outcome, Error> {
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
