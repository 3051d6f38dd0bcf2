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

/// Local's `hashValue`/`rangeValue` of one key value's bytes. Every
/// request to a partition asks for its key's hash (GetItem, PutItem,
/// Query…): short values are remembered per thread ([`MEMO`]).
pub(crate) fn of_value(bytes: &[u8]) -> [u8; 20] {
    if bytes.len() > MEMO_BYTES {
        return salted(&[bytes]);
    }
    let mut key = [0u8; MEMO_BYTES];
    key[..bytes.len()].copy_from_slice(bytes);
    // `len + 1`, so that an empty slot (length 0) matches no value.
    let len = bytes.len() as u8 + 1;
    let slot = memo_slot(&key, len);
    MEMO.try_with(|memo| {
        let cell = &memo[slot];
        let seen = cell.get();
        if seen.len == len && seen.key == key {
            return seen.hash;
        }
        let hash = salted(&[bytes]);
        cell.set(Memo { len, key, hash });
        hash
    })
    .unwrap_or_else(|_| salted(&[bytes]))
}

/// The longest value [`MEMO`] remembers (partition keys are mostly short
/// strings: `USER#8f3a…`).
const MEMO_BYTES: usize = 32;

/// How many values [`MEMO`] remembers.
const MEMO_SLOTS: usize = 64;

/// A value hashed by [`of_value`] and its hash; `len` is the value's
/// length plus one, 0 for an empty slot.
#[derive(Clone, Copy)]
struct Memo {
    len: u8,
    key: [u8; MEMO_BYTES],
    hash: [u8; 20],
}

thread_local! {
    /// The hashes of the short values last hashed on this thread, each in
    /// the slot its bytes pick ([`memo_slot`]): a cache of a pure
    /// function, so a hit is the hash itself, and a miss costs a slot
    /// comparison.
    static MEMO: [std::cell::Cell<Memo>; MEMO_SLOTS] = const {
        [const {
            std::cell::Cell::new(Memo {
                len: 0,
                key: [0; MEMO_BYTES],
                hash: [0; 20],
            })
        }; MEMO_SLOTS]
    };
}

/// The slot of a value (zero-padded, and its length plus one) in
/// [`MEMO`]: its words mixed by multiplication.
fn memo_slot(key: &[u8; MEMO_BYTES], len: u8) -> usize {
    let mut h = u64::from(len);
    for word in key.chunks_exact(8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    (h >> 58) as usize % MEMO_SLOTS
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
    fn remembered_hashes_are_the_hashes() {
        // Values that share slots, repeated, empty, at and over the longest
        // remembered length: each time the digest itself.
        let mut values: Vec<Vec<u8>> = (0..400u32)
            .map(|i| format!("USER#{i}").into_bytes())
            .collect();
        values.push(Vec::new());
        values.push(vec![0; 1]);
        values.push(vec![0; 2]);
        values.push(vec![7; MEMO_BYTES]);
        values.push(vec![7; MEMO_BYTES + 1]);
        for _ in 0..3 {
            for v in &values {
                assert_eq!(of_value(v), salted(&[v]), "{v:?}");
            }
        }
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
