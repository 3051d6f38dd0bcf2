//! CRC32 (IEEE): the `x-amz-crc32` header the Go and Java SDKs check (the
//! endpoint re-exports it), and the checksum of every record of the
//! write-ahead log (`durable`).

const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
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
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = table();

/// The CRC32 (IEEE) of `bytes`: what the `x-amz-crc32` response header
/// carries and what guards each record of a data directory's log.
///
/// ```
/// assert_eq!(singletable_embedded::crc32(b"123456789"), 0xCBF4_3926);
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for b in bytes {
        c = TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}
