//! CRC32 (IEEE), for the `x-amz-crc32` header the Go and Java SDKs check.

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

/// The CRC32 of `bytes`, as the `x-amz-crc32` response header carries it.
///
/// ```
/// assert_eq!(singletable_server::crc32(b"123456789"), 0xCBF4_3926);
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for b in bytes {
        c = TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}
