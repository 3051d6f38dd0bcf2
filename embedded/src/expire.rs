//! TTL's deletions: the items whose TTL attribute has passed, deleted the
//! way DynamoDB's TTL process deletes them.
//!
//! An item is expired when its table has TTL enabled and the item's TTL
//! attribute is a Number (any other type is ignored, as DynamoDB ignores
//! it) of epoch seconds earlier than now, but not more than five years
//! earlier (DynamoDB leaves such items alone: "items with an expiration
//! time older than five years are not deleted"). This module is the rule;
//! the deletion (`write::expire`) goes through
//! the engine's one delete path (`TableData::write`): indexes, vector
//! indexes, the change feed (a `REMOVE` record marked as TTL's, which the
//! endpoint reports with the `userIdentity` of DynamoDB's TTL service) and
//! the log of a durable store; no capacity is charged to anyone, as
//! DynamoDB's TTL deletions are free (`write::expire`).

use crate::value::Val;

/// How far in the past a TTL attribute may be and still expire its item.
const FIVE_YEARS: u64 = 5 * 365 * 24 * 60 * 60;

/// Whether a TTL attribute of value `v` (`None`: absent) has expired at
/// `now` (seconds since the epoch).
pub(crate) fn expired(v: Option<&Val<'_>>, now: u64) -> bool {
    let Some(Val::N(n)) = v else {
        return false;
    };
    let Ok(at) = n.parse::<f64>() else {
        return false;
    };
    at < now as f64 && at >= now.saturating_sub(FIVE_YEARS) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn only_numbers_in_the_last_five_years_expire() {
        let now = 2_000_000_000;
        let n = |s: &'static str| Val::N(Cow::Borrowed(s));
        assert!(expired(Some(&n("1999999999")), now));
        assert!(expired(Some(&n("1.9E9")), now)); // exponent form
        assert!(!expired(Some(&n("1.5E9")), now)); // over five years ago
        assert!(!expired(Some(&n("2000000000")), now)); // not before now
        assert!(!expired(Some(&n("2000000001")), now));
        assert!(!expired(Some(&n("1")), now)); // over five years ago
        assert!(!expired(Some(&Val::S("1999999999")), now));
        assert!(!expired(None, now));
    }
}
