//! The three departures of the endpoint's list that the random sequences
//! reach, normalised exactly (each only where DynamoDB Local's answer is
//! the one it departs with):
//!
//! - 16: a Query that stops because it evaluated `Limit` items returns a
//!   LastEvaluatedKey on DynamoDB (and the engine) even when its last item
//!   sits on the inclusive bound of the key condition, and that key starts
//!   an empty last page; DynamoDB Local returns no LastEvaluatedKey there.
//!   The engine's extra key is dropped once its empty last page is seen.
//! - 17: a transaction naming one item twice is refused up front on
//!   DynamoDB (and the engine) with a ValidationException; DynamoDB Local
//!   cancels it when a condition fails first.
//! - 24: a TransactGetItems key of the wrong shape cancels the transaction
//!   with a `ValidationError` reason for it (`None` for the others) on
//!   DynamoDB and the engine; DynamoDB Local cancels it with no reasons.

use singletable::Executor;
use singletable_runtime::reader::{ItemReader, ReaderPage};

use super::ops::{Key, Q, TxOp};
use super::{Answer, Backends};

/// The engine's pages of `q` (`embedded`) made comparable with DynamoDB
/// Local's (`local`). The page that the engine's extra key starts is the
/// one after it when the query followed it, or read here when the query
/// stopped at its page count.
pub(super) async fn limit_bound(
    b: &Backends,
    q: &Q,
    prefix: &str,
    local: &Answer,
    embedded: Answer,
) -> Answer {
    let (Answer::Pages(l), Answer::Pages(mut e)) = (local, embedded.clone()) else {
        return embedded;
    };
    let Some(last) = l.len().checked_sub(1) else {
        return embedded;
    };
    let departs = e.len() > last
        && l[last].1.is_none()
        && e[last].1.is_some()
        && e[last].0 == l[last].0
        && e[last].2 == l[last].2
        && q.limit.and_then(|n| usize::try_from(n).ok()) == e[last].2;
    if !departs {
        return embedded;
    }
    let empty_last = |items_empty: bool, key: &Option<_>, scanned: Option<usize>| {
        items_empty && key.is_none() && scanned == Some(0)
    };
    let next_is_empty_last = match e.get(last + 1) {
        Some((items, key, scanned)) => {
            e.len() == last + 2 && empty_last(items.is_empty(), key, *scanned)
        }
        None => match b
            .embedded
            .query_reader(q.request(&b.table, prefix, e[last].1.clone()))
            .await
        {
            Ok(ReaderPage {
                mut items,
                last_key,
                scanned,
            }) => empty_last(items.next_item().is_none(), &last_key, scanned),
            Err(_) => false,
        },
    };
    if !next_is_empty_last {
        return embedded;
    }
    e.truncate(last + 1);
    e[last].1 = None;
    Answer::Pages(e)
}

/// DynamoDB Local's answer to a transaction of `ops`, as DynamoDB answers
/// it: when two operations name one item, and the engine refused the
/// request as DynamoDB does, Local's cancellation becomes that refusal.
pub(super) fn one_item_twice(ops: &[TxOp], local: Answer, embedded: &Answer) -> Answer {
    let mut keys = std::collections::HashSet::new();
    let twice = ops.iter().any(|op| match op {
        TxOp::Put(k, ..) | TxOp::Update(k, ..) | TxOp::Delete(k, ..) | TxOp::Check(k, ..) => {
            matches!(k, Key::Valid { .. }) && !keys.insert(format!("{k:?}"))
        }
    });
    let refused = matches!(embedded, Answer::Service(code) if code == "ValidationException");
    if twice && refused && matches!(local, Answer::Canceled(_)) {
        embedded.clone()
    } else {
        local
    }
}

/// DynamoDB Local's answer to a TransactGetItems, as DynamoDB answers it:
/// where Local cancelled it with no reasons and the engine with a
/// `ValidationError` reason for each malformed key (and `None` for the
/// others), the engine's reasons.
pub(super) fn malformed_get(local: Answer, embedded: &Answer) -> Answer {
    match (&local, embedded) {
        (Answer::Canceled(l), Answer::Canceled(e))
            if l.is_empty()
                && e.iter().any(|(code, _)| code == "ValidationError")
                && e.iter().all(|(code, item)| {
                    item.is_none() && (code == "ValidationError" || code == "None")
                }) =>
        {
            embedded.clone()
        }
        _ => local,
    }
}
