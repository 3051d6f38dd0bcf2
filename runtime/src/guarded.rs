//! Puts and deletes that keep what the stored item holds: its creation time
//! (see [`crate::clock`]) and the marker items of its unique values (see
//! [`crate::unique`]).
//!
//! Such a write is sent conditioned on what it assumed about the stored
//! item (its `created_at`, its unique values). When DynamoDB refuses it and
//! the item it returns with the failure contradicts an assumption, the
//! write is built again from that item and resent, a few times at most; a
//! failure the assumptions did not cause is the caller's (its own
//! condition, a missing item).

use std::time::Duration;

use crate::clock::{Created, Stamp, TimeKind};
use crate::db::{Db, not_exists};
use crate::entity::Entity;
use crate::error::Error;
use crate::exec::Executor;
use crate::expr::Condition;
use crate::key::PrimaryKey;
use crate::request::{GetItem, TransactWrite, TransactWriteOp};
use crate::unique::{self, MarkerOp};
use crate::value::{AttributeValue, Item};

/// Attempts of a guarded write, and of a transaction that DynamoDB cancels
/// for a conflict with a concurrent one.
const MAX_ATTEMPTS: u32 = 10;

/// What a write assumed about attributes of the stored item (`None`: the
/// attribute or the whole item is absent).
#[derive(Debug)]
struct Guards(Vec<(&'static str, Option<AttributeValue>)>);

impl Guards {
    fn of(attributes: impl IntoIterator<Item = &'static str>, stored: Option<&Item>) -> Self {
        let mut out: Vec<(&'static str, Option<AttributeValue>)> = Vec::new();
        for a in attributes {
            if !out.iter().any(|(b, _)| *b == a) {
                out.push((a, stored.and_then(|i| i.get(a)).cloned()));
            }
        }
        Self(out)
    }

    /// The condition that the stored item still is as assumed.
    fn condition(&self) -> Option<Condition> {
        self.0
            .iter()
            .map(|(a, v)| match v {
                Some(v) => Condition::eq(*a, v.clone()),
                None => Condition::NotExists((*a).to_owned()),
            })
            .reduce(Condition::and)
    }

    /// Whether `item` (the stored item, `None` when there is none) is as
    /// assumed.
    fn hold(&self, item: Option<&Item>) -> bool {
        self.0
            .iter()
            .all(|(a, v)| item.and_then(|i| i.get(*a)) == v.as_ref())
    }
}

fn both(a: Option<Condition>, b: Option<Condition>) -> Option<Condition> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.and(b)),
        (a, b) => a.or(b),
    }
}

/// The stored attributes of `T`'s `created_at` fields.
fn created_attributes<T: Entity>() -> impl Iterator<Item = &'static str> {
    T::TIMESTAMPS
        .iter()
        .filter(|t| t.kind == TimeKind::Created)
        .map(|t| t.attribute)
}

/// The condition a put without a stored creation time at hand adds when
/// its `created_at` is empty: the stored item has none either, so none is
/// replaced. `None` when the put names its creation time.
pub(crate) fn no_stored_creation_time<T: Entity>(item: &T) -> Option<Condition> {
    if item.created_at_set() {
        return None;
    }
    Guards::of(created_attributes::<T>(), None).condition()
}

/// A random wait before retrying a transaction that conflicted with another.
async fn backoff(attempt: u32) {
    let cap = 5_000u64 << attempt.min(6);
    tokio::time::sleep(Duration::from_micros(fastrand::u64(0..=cap))).await;
}

impl<E: Executor> Db<E> {
    /// The stored item with `key`, read strongly consistent (GetItem).
    async fn stored_item<T: Entity>(&self, key: &PrimaryKey) -> Result<Option<Item>, Error> {
        let req = GetItem {
            table: self.table_name().to_owned(),
            key: key.to_item::<T::Table>(),
            consistent: true,
        };
        let r = crate::trace::Request {
            consistent: Some(true),
            ..crate::db::entity::<T>()
        };
        let span = crate::trace::span("GetItem", self.table_name(), &r);
        crate::trace::traced(span, r.sender("GetItem"), self.executor().get_item(req)).await
    }

    /// Creates the item: a PutItem conditioned on no item having its key,
    /// or, with unique fields, a TransactWriteItems of that put and one
    /// marker claim per unique value.
    pub(crate) async fn create_item<T: Entity>(
        &self,
        item: &T,
        return_on_failure: bool,
    ) -> Result<(), Error> {
        let stamp = Stamp::new(self.clock().now(), Created::Now);
        let mut req = self.put_request(item, &stamp, Some(not_exists::<T>()))?;
        req.return_on_condition_failure = return_on_failure;
        if T::UNIQUE.is_empty() {
            return self.send_put::<T>(req).await.map(drop);
        }
        let owner = item.primary_key()?;
        let markers = unique::moves::<T>(self.table_name(), &owner, None, Some(&req.item))?;
        self.unique_transaction(TransactWriteOp::Put(req), &markers)
            .await
    }

    /// A put of `item` under `base` that replaces no stored creation time
    /// it did not name, and moves the markers of the unique values it
    /// changes: the replaced item when `return_old` (entities without
    /// unique fields only).
    ///
    /// Without unique fields and with `created_at` set, one PutItem. With
    /// an empty `created_at`, a PutItem conditioned on the stored item
    /// having no creation time, resent with the stored one when it has one.
    /// With unique fields, a strongly consistent GetItem of the stored item,
    /// then a TransactWriteItems of the put (conditioned on the stored
    /// unique values and creation time it read) and the marker moves.
    pub(crate) async fn guarded_put<T: Entity>(
        &self,
        item: &T,
        base: Option<Condition>,
        return_old: bool,
    ) -> Result<Option<Item>, Error> {
        let now = self.clock().now();
        let keep_created = !item.created_at_set();
        let unique = !T::UNIQUE.is_empty();
        if !keep_created && !unique {
            let mut req = self.put_request(item, &Stamp::new(now, Created::Keep), base)?;
            req.return_old = return_old;
            req.return_on_condition_failure = req.condition.is_some();
            return self.send_put::<T>(req).await;
        }
        let owner = item.primary_key()?;
        // What is known of the stored item: without unique fields, a new
        // item is assumed until DynamoDB says otherwise.
        let mut stored = if unique {
            self.stored_item::<T>(&owner).await?
        } else {
            None
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let watched = T::UNIQUE
                .iter()
                .map(|u| u.attribute)
                .filter(|_| unique)
                .chain(created_attributes::<T>().filter(|_| keep_created));
            let guards = Guards::of(watched, stored.as_ref());
            let created = match &stored {
                Some(s) if keep_created => Created::Stored(s.clone()),
                _ => Created::Keep,
            };
            let condition = both(base.clone(), guards.condition());
            let mut req = self.put_request(item, &Stamp::new(now, created), condition)?;
            req.return_on_condition_failure = true;
            let result = if unique {
                let markers = unique::moves::<T>(
                    self.table_name(),
                    &owner,
                    stored.as_ref(),
                    Some(&req.item),
                )?;
                self.unique_transaction(TransactWriteOp::Put(req), &markers)
                    .await
                    .map(|()| None)
            } else {
                req.return_old = return_old;
                self.send_put::<T>(req).await
            };
            match result {
                Err(Error::ConditionFailed { item: found })
                    if attempt < MAX_ATTEMPTS && !guards.hold(found.as_deref()) =>
                {
                    stored = found.map(|b| *b);
                }
                other => return other,
            }
        }
    }

    /// A delete of the item with `key` under `base`, with the markers of
    /// its unique values: the deleted item when `return_old`.
    ///
    /// Without unique fields, one DeleteItem. With them, a strongly
    /// consistent GetItem, then a TransactWriteItems of the delete
    /// (conditioned on the unique values read) and the marker deletes; a
    /// missing item costs the read only (and a DeleteItem when `base` must
    /// still be checked).
    pub(crate) async fn guarded_delete<T: Entity>(
        &self,
        key: PrimaryKey,
        base: Option<Condition>,
        return_old: bool,
    ) -> Result<Option<Item>, Error> {
        if T::UNIQUE.is_empty() {
            let mut req = self.delete_request::<T>(key, base, return_old);
            req.return_on_condition_failure = req.condition.is_some();
            return self.send_delete::<T>(req).await;
        }
        let mut stored = self.stored_item::<T>(&key).await?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let guards = Guards::of(T::UNIQUE.iter().map(|u| u.attribute), stored.as_ref());
            let Some(current) = stored.take() else {
                if base.is_none() {
                    return Ok(None);
                }
                // Nothing to delete, but the condition is still DynamoDB's
                // to decide, on the absent item.
                let condition = both(base.clone(), Some(not_exists::<T>()));
                let mut req = self.delete_request::<T>(key.clone(), condition, false);
                req.return_on_condition_failure = true;
                match self.send_delete::<T>(req).await {
                    Err(Error::ConditionFailed { item: Some(found) }) if attempt < MAX_ATTEMPTS => {
                        stored = Some(*found);
                        continue;
                    }
                    other => return other.map(|_| None),
                }
            };
            let markers = unique::moves::<T>(self.table_name(), &key, Some(&current), None)?;
            let condition = both(base.clone(), guards.condition());
            let mut req = self.delete_request::<T>(key.clone(), condition, false);
            req.return_on_condition_failure = true;
            match self
                .unique_transaction(TransactWriteOp::Delete(req), &markers)
                .await
            {
                Ok(()) => return Ok(return_old.then_some(current)),
                Err(Error::ConditionFailed { item: found })
                    if attempt < MAX_ATTEMPTS && !guards.hold(found.as_deref()) =>
                {
                    stored = found.map(|b| *b);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends `first` and the marker writes in one TransactWriteItems. A
    /// failed condition of `first` is [`Error::ConditionFailed`] (with the
    /// item, when `first` asked for it), a failed claim
    /// [`Error::UniqueViolation`]; a cancellation for a conflict with a
    /// concurrent transaction is retried after a random wait.
    pub(crate) async fn unique_transaction(
        &self,
        first: TransactWriteOp,
        markers: &[MarkerOp],
    ) -> Result<(), Error> {
        let mut ops = Vec::with_capacity(1 + markers.len());
        ops.push(first);
        ops.extend(markers.iter().map(|m| m.op.clone()));
        let req = TransactWrite { ops, token: None };
        let positions: Vec<(usize, &MarkerOp)> = markers
            .iter()
            .enumerate()
            .map(|(i, m)| (i + 1, m))
            .collect();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let reasons = match self.run_transaction(req.clone()).await {
                Err(Error::TransactionCanceled { reasons }) => reasons,
                other => return other,
            };
            if let Some(r) = reasons.first()
                && r.code == "ConditionalCheckFailed"
            {
                return Err(Error::ConditionFailed {
                    item: r.item.clone().map(Box::new),
                });
            }
            if let Some(e) = unique::violation(&reasons, &positions) {
                return Err(e);
            }
            if attempt < MAX_ATTEMPTS && reasons.iter().any(|r| r.code == "TransactionConflict") {
                backoff(attempt).await;
                continue;
            }
            return Err(Error::TransactionCanceled { reasons });
        }
    }
}
