//! The order DynamoDB Local gives items that no key orders: a Scan visits
//! partitions by a salted SHA-1 of the partition key, and index entries with
//! equal index keys follow a salted SHA-1 of the table key. The embedded
//! backend uses the same hashes, so its scans and index queries list items
//! in the order DynamoDB Local does (real DynamoDB's order there is
//! unspecified, so any order is correct; this one is testable).
//!
//! SHA-1 serves ordering only, never security (RustCrypto's `sha1`, which
//! uses the CPU's SHA extensions where there are any).

use sha1::{Digest, Sha1};

/// DynamoDB Local's salt (`LocalDBUtils.SALT`).
const SALT: &[u8] = b"LocalDdb";

/// Bytes of a hash kept in positions: a 64-bit prefix orders like the full
/// digest unless two prefixes collide, which the full key behind them then
/// settles.
pub(crate) const PREFIX: usize = 8;

/// `sha1(SALT ++ parts…)`.
pub(crate) fn salted(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    h.update(SALT);
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// Local's `hashValue`/`rangeValue` of one key value's bytes.
pub(crate) fn of_value(bytes: &[u8]) -> [u8; 20] {
    salted(&[bytes])
}

/// Local's `hashRangeValue` of a table key.
pub(crate) fn of_key(pk: &[u8], sk: &[u8]) -> [u8; 20] {
    salted(&[&of_value(pk), &of_value(sk)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha1_test_vectors() {
        let plain = |d: &[u8]| hex(&Sha1::digest(d));
        assert_eq!(plain(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(plain(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            plain(&[b'a'; 1000]),
            "291e9a6c66994949b57ba5e650361e98fc36b1ba"
        );
    }

    #[test]
    fn number_keys_scan_in_dynamodb_local_order() {
        use super::super::number::Num;
        // The order DynamoDB Local 3.3.1 scanned a table with these number
        // partition keys in (it hashes its own encoding of the number).
        let local = "3.14159 12 0.1 1 -12.5 5 -0.001 10000000000 -0.00001 100 1000000 123 0 -42 1.5 0.5 42 -1 -7 99";
        let mut keys: Vec<Num> = local.split(' ').map(|n| Num::parse(n).unwrap()).collect();
        keys.sort_by_key(|n| of_value(&n.local_bytes()));
        let ours: Vec<String> = keys.iter().map(Num::canonical).collect();
        assert_eq!(ours.join(" "), local);
    }

    #[test]
    fn scan_order_of_dynamodb_local() {
        // The order DynamoDB Local 3.3.1 scanned these partition keys in.
        let mut keys: Vec<&str> = "abcdefghijklmnopq"
            .split("")
            .filter(|s| !s.is_empty())
            .collect();
        keys.sort_by_key(|k| of_value(k.as_bytes()));
        assert_eq!(keys.concat(), "qgbdejlfnkmocihpa");
    }
}
