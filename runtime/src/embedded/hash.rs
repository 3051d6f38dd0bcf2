//! The order DynamoDB Local gives items that no key orders: a Scan visits
//! partitions by a salted SHA-1 of the partition key, and index entries with
//! equal index keys follow a salted SHA-1 of the table key. The embedded
//! backend uses the same hashes, so its scans and index queries list items
//! in the order DynamoDB Local does (real DynamoDB's order there is
//! unspecified, so any order is correct; this one is testable).
//!
//! SHA-1 serves ordering only, never security; it is small enough to carry
//! here rather than as a dependency.

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
    h.finish()
}

/// Local's `hashValue`/`rangeValue` of one key value's bytes.
pub(crate) fn of_value(bytes: &[u8]) -> [u8; 20] {
    salted(&[bytes])
}

/// Local's `hashRangeValue` of a table key.
pub(crate) fn of_key(pk: &[u8], sk: &[u8]) -> [u8; 20] {
    salted(&[&of_value(pk), &of_value(sk)])
}

struct Sha1 {
    state: [u32; 5],
    block: [u8; 64],
    filled: usize,
    total: u64,
}

impl Sha1 {
    fn new() -> Self {
        Self {
            state: [
                0x6745_2301,
                0xEFCD_AB89,
                0x98BA_DCFE,
                0x1032_5476,
                0xC3D2_E1F0,
            ],
            block: [0; 64],
            filled: 0,
            total: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        while !data.is_empty() {
            let take = (64 - self.filled).min(data.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled == 64 {
                let block = self.block;
                self.compress(&block);
                self.filled = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; 20] {
        let bits = self.total.wrapping_mul(8);
        self.update(&[0x80]);
        while self.filled != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0u8; 20];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    fn compress(&mut self, block: &[u8; 64]) {
        let mut w = [0u32; 80];
        for (i, chunk) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = self.state;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha1_test_vectors() {
        let plain = |d: &[u8]| {
            let mut h = Sha1::new();
            h.update(d);
            hex(&h.finish())
        };
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
