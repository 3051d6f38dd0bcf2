//! Item sizes as DynamoDB counts them: the one size function of the crate.
//! The pre-flight check of every write path ([`check_item`]) and the
//! embedded backend's 400 KB limit, 1 MB pages and capacity units all call
//! [`item_size`], so they cannot disagree.
//!
//! The rules (DynamoDB developer guide, "Item sizes and formats", made exact
//! against DynamoDB Local): an item's size is the sum of its attribute
//! names' and values' lengths; strings and binaries count their UTF-8 bytes;
//! a number counts its encoded length (one exponent byte, one byte per pair
//! of significant digits aligned on the exponent's parity, and one
//! terminator byte for a negative number of fewer than 20 pairs); booleans
//! and nulls one byte; lists and maps three bytes, plus one byte per
//! element, plus the elements (and the names of a map's entries); sets the
//! sum of their elements. The boundary is checked byte for byte against
//! DynamoDB Local for every type and nesting
//! (`size_check_agrees_with_dynamodb_local_at_the_boundary`).
//!
//! ```
//! use singletable::{AttributeValue, Item, size};
//!
//! let mut item = Item::new();
//! item.insert("PK".into(), AttributeValue::S("USER#1".into())); // 2 + 6
//! item.insert("n".into(), AttributeValue::N("-1.5".into()));    // 1 + 4
//! item.insert(
//!     "l".into(),
//!     AttributeValue::L(vec![AttributeValue::Bool(true)]),      // 1 + 3 + 1 + 1
//! );
//! assert_eq!(size::item_size(&item), 8 + 5 + 6);
//! ```

use crate::error::Error;
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit for one item, in bytes (400 KB, names and values).
///
/// ```
/// use singletable::{AttributeValue, Item, size};
///
/// let mut item = Item::new();
/// // 1 byte of name: the largest value that fits is one byte short.
/// item.insert("v".into(), AttributeValue::S("x".repeat(size::MAX_ITEM_BYTES - 1)));
/// assert!(size::check_item("Doc", &item).is_ok());
/// ```
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The stored length of a number given as DynamoDB's decimal text
/// (`-1.5`, `12e3`): one exponent byte, significant digits in pairs (an odd
/// decimal exponent starts with a half-empty pair), and a terminator for
/// negatives shorter than 20 pairs. Zero is one byte.
///
/// ```
/// use singletable_core::size::number_size;
///
/// assert_eq!(number_size("0"), 1);
/// assert_eq!(number_size("5"), 2);
/// assert_eq!(number_size("-1.5"), 4); // exponent, two digit pairs, terminator
/// assert_eq!(number_size("100"), 2);
/// ```
pub fn number_size(n: &str) -> usize {
    let neg = n.as_bytes().first() == Some(&b'-');
    let body = n.trim_start_matches(['-', '+']);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let int_len = mantissa.find('.').unwrap_or(mantissa.len());
    let digits = || mantissa.bytes().filter(u8::is_ascii_digit);
    let lead = digits().take_while(|d| *d == b'0').count();
    let total = digits().count();
    let trail = digits().rev().take_while(|d| *d == b'0').count();
    if lead == total {
        return 1;
    }
    let significant = total - lead - trail;
    let exp = (int_len as i64 - lead as i64).saturating_add(exp);
    let odd = usize::from(exp % 2 != 0);
    let pairs = (significant + odd).div_ceil(2);
    pairs + 1 + usize::from(neg && pairs < 20)
}

/// Size of one attribute value, as DynamoDB counts it.
///
/// ```
/// use singletable::{AttributeValue};
/// use singletable_core::{size::value_size};
///
/// let list = AttributeValue::L(vec![AttributeValue::S("a".into()); 2]);
/// assert_eq!(value_size(&list), 3 + 2 + 2);
/// ```
pub fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(s) => s.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(s) => s.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.len() + l.iter().map(value_size).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m.len()
                + m.iter()
                    .map(|(k, v)| k.len() + value_size(v))
                    .sum::<usize>()
        }
        _ => 0,
    }
}

/// The bytes DynamoDB counts toward an index key's limit: the values of
/// the attributes named in `attributes` that `item` holds, summed (a
/// multi-attribute key's partition attributes together may hold at most
/// [`MAX_PARTITION_KEY_BYTES`](crate::key::MAX_PARTITION_KEY_BYTES), its sort
/// attributes at most [`MAX_SORT_KEY_BYTES`](crate::key::MAX_SORT_KEY_BYTES),
/// as for a single key attribute). Strings count their UTF-8 bytes,
/// binaries their bytes, numbers their stored length
/// ([`number_size`]). The pre-flight check and the embedded backend both
/// count with it.
///
/// ```
/// use singletable::{AttributeValue, Item};
/// use singletable_core::{size::key_bytes};
///
/// let mut item = Item::new();
/// item.insert("tenant".into(), AttributeValue::S("acme".into()));
/// item.insert("region".into(), AttributeValue::N("12".into()));
/// assert_eq!(key_bytes(&item, ["tenant", "region", "absent"]), 4 + 2);
/// ```
pub fn key_bytes<'a>(item: &Item, attributes: impl IntoIterator<Item = &'a str>) -> usize {
    attributes
        .into_iter()
        .filter_map(|a| item.get(a))
        .map(value_size)
        .sum()
}

/// Size of an item: attribute names plus values. Also what DynamoDB counts
/// toward a 1 MB Query/Scan page and what capacity units are rounded from.
///
/// ```
/// use singletable::{AttributeValue, Item, size::item_size};
///
/// let mut item = Item::new();
/// item.insert("ok".into(), AttributeValue::Bool(true));
/// assert_eq!(item_size(&item), 3);
/// ```
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Refuses an item over 400 KB with [`Error::ItemTooLarge`]; nothing is
/// sent. Every write path (puts, creates, transactions, batch puts) calls
/// it on the complete item, key attributes and stamps included.
///
/// ```
/// use singletable::{AttributeValue, Error, Item, size};
///
/// let mut item = Item::new();
/// item.insert("big".into(), AttributeValue::S("x".repeat(size::MAX_ITEM_BYTES)));
/// assert!(matches!(size::check_item("Doc", &item), Err(Error::ItemTooLarge { .. })));
/// ```
pub fn check_item(entity: &'static str, item: &Item) -> Result<(), Error> {
    let size = item_size(item);
    if size > MAX_ITEM_BYTES {
        Err(Error::ItemTooLarge {
            entity,
            size,
            max: MAX_ITEM_BYTES,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_names_and_values() {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("USER#1".into()));
        item.insert("n".into(), AttributeValue::N("12345".into()));
        item.insert("ok".into(), AttributeValue::Bool(true));
        // 2+6, 1+(1 + 3 pairs: 1|23|45), 2+1
        assert_eq!(item_size(&item), 8 + 5 + 3);
        assert_eq!(number_size("0"), 1);
        assert_eq!(number_size("-0.0"), 1);
        assert_eq!(number_size("-1200.500"), 5);
        assert_eq!(number_size("1e99999999999999999999"), 2);
    }
}
