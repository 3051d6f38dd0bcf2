//! Item sizes as DynamoDB counts them, to refuse oversized items before
//! sending them.
//!
//! The rules (DynamoDB developer guide, "Item sizes and formats"): an item's
//! size is the sum of its attribute names' and values' lengths; strings and
//! binaries count their bytes; a number counts one byte per two significant
//! digits plus one; booleans and nulls one byte; lists and maps three bytes
//! plus their elements (with the names of a map's entries); sets the sum of
//! their elements.

use crate::error::Error;
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit for one item, in bytes.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

fn number_size(n: &str) -> usize {
    let digits: String = n
        .chars()
        .take_while(|c| *c != 'e' && *c != 'E')
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits
        .trim_start_matches('0')
        .trim_end_matches('0')
        .len()
        .max(1);
    significant.div_ceil(2) + 1
}

/// Size of one attribute value.
pub fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(value_size).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| k.len() + value_size(v))
                .sum::<usize>()
        }
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(s) => s.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(s) => s.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

/// Size of an item: attribute names plus values.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Refuses an item over 400 KB.
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
        // 2+6, 1+(3+1), 2+1
        assert_eq!(item_size(&item), 8 + 5 + 3);
        assert_eq!(number_size("0"), 2);
        assert_eq!(number_size("-1200.500"), 4);
    }
}
