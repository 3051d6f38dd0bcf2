//! CRC32 (IEEE): the `x-amz-crc32` header the Go and Java SDKs check (the
//! endpoint re-exports it), and the checksum of every record of the
//! write-ahead log (`durable`).

/// The byte-at-a-time table (`T[0]`) and seven more for the bytes behind
/// it (`T[k][b]`: the CRC of byte `b` followed by `k` zero bytes), so the
/// loop consumes eight bytes per step ("slicing-by-8").
const fn tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut k = 1;
        while k < 8 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            k += 1;
        }
        i += 1;
    }
    t
}

static TABLES: [[u32; 256]; 8] = tables();

/// The CRC32 (IEEE) of `bytes`: what the `x-amz-crc32` response header
/// carries and what guards each record of a data directory's log and its
/// snapshots.
///
/// ```
/// assert_eq!(singletable_embedded::crc32(b"123456789"), 0xCBF4_3926);
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    let t = &TABLES;
    let mut c = !0u32;
    let mut chunks = bytes.chunks_exact(8);
    for b in &mut chunks {
        let lo = c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][usize::from(b[4])]
            ^ t[2][usize::from(b[5])]
            ^ t[1][usize::from(b[6])]
            ^ t[0][usize::from(b[7])];
    }
    for b in chunks.remainder() {
        c = t[0][((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    /// The byte-at-a-time definition the sliced loop must agree with.
    fn bytewise(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for b in bytes {
            c = super::TABLES[0][((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
        }
        !c
    }

    #[test]
    fn sliced_crc_agrees_with_the_bytewise_one() {
        let data: Vec<u8> = (0..1000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in 0..data.len() {
            for start in [0, 1, 3, 7] {
                let s = &data[start.min(len)..len];
                assert_eq!(super::crc32(s), bytewise(s), "len {len} from {start}");
            }
        }
        assert_eq!(
            super::crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }
}
