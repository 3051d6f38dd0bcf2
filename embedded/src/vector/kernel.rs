//! The first pass's kernels: the `i8` dot products of the query's copy
//! with the rows' copies (portable, and AVX2 where the CPU has it), and
//! how a large search splits them across threads.

/// The dot product of two `i8` copies (of a length a multiple of 32): in
/// `i32`, exact (every product is at most 127², and a row is at most
/// [`MAX_QUANTIZED_DIMS`] long).
#[inline(always)]
pub(super) fn idot_portable(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for i in 0..16 {
            acc[i] += i32::from(i16::from(x[i]) * i16::from(y[i]));
        }
    }
    acc.iter().sum()
}

/// Past this many dimensions the search reads the `f32` rows only (the
/// `i32` sums of the copy could overflow past 133,000).
pub(super) const MAX_QUANTIZED_DIMS: usize = 65_536;

/// The copy's bytes from which a search splits its first pass across
/// threads (the tests split small sets). The first pass is bound by memory
/// bandwidth: on the 2-core machine of the benchmarks, shared with other
/// work, two threads over 100,000 rows of 768 dimensions (77 MB) measured
/// no faster than one (5.3 to 6.0 ms against 6.0 to 6.8 ms, load average
/// 3.4), so a search splits only past 128 MB (about 170,000 such rows, 6
/// ms of one core), where a second core's bandwidth may pay.
#[cfg(not(test))]
pub(super) const PARALLEL_BYTES: usize = 128 << 20;
#[cfg(test)]
pub(super) const PARALLEL_BYTES: usize = 16 << 10;

/// The rows of a block of the first pass that a thread takes at a time
/// (about 40 µs of one core's work at 768 dimensions; fewer in the tests).
#[cfg(not(test))]
pub(super) const BLOCK_ROWS: usize = 1024;
#[cfg(test)]
pub(super) const BLOCK_ROWS: usize = 64;

/// The `i8` dot products of the query's copy with rows of codes.
pub(super) type Kernel = fn(&[i8], &[i8], usize, &mut [i32]);

pub(super) fn idots_portable(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
    for (row, o) in codes.chunks_exact(stride).zip(out) {
        *o = idot_portable(q, row);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::idots_portable`] with AVX2: `|q|` times `v` with `q`'s
    /// sign, in unsigned-by-signed byte products summed by pairs (at most
    /// 2 * 127², no saturation), then in `i32`.
    ///
    /// # Safety
    /// The CPU has AVX2; `q.len() == stride`, a multiple of 32.
    #[target_feature(enable = "avx2")]
    unsafe fn idots(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
        debug_assert!(q.len() == stride && stride.is_multiple_of(32));
        let ones = _mm256_set1_epi16(1);
        for (row, o) in codes.chunks_exact(stride).zip(out) {
            let mut acc0 = _mm256_setzero_si256();
            let mut acc1 = _mm256_setzero_si256();
            let mut j = 0;
            while j + 64 <= stride {
                // SAFETY: j + 64 <= stride == q.len() == row.len().
                let (q0, v0, q1, v1) = unsafe {
                    (
                        _mm256_loadu_si256(q.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(q.as_ptr().add(j + 32).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j + 32).cast()),
                    )
                };
                let p0 = _mm256_maddubs_epi16(_mm256_abs_epi8(q0), _mm256_sign_epi8(v0, q0));
                let p1 = _mm256_maddubs_epi16(_mm256_abs_epi8(q1), _mm256_sign_epi8(v1, q1));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
                acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(p1, ones));
                j += 64;
            }
            if j < stride {
                // SAFETY: j + 32 == stride.
                let (q0, v0) = unsafe {
                    (
                        _mm256_loadu_si256(q.as_ptr().add(j).cast()),
                        _mm256_loadu_si256(row.as_ptr().add(j).cast()),
                    )
                };
                let p0 = _mm256_maddubs_epi16(_mm256_abs_epi8(q0), _mm256_sign_epi8(v0, q0));
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
            }
            let acc = _mm256_add_epi32(acc0, acc1);
            let s = _mm_add_epi32(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256::<1>(acc),
            );
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
            *o = _mm_cvtsi128_si32(s);
        }
    }

    /// [`idots`] behind a check of its contract, for [`super::Kernel`].
    pub(super) fn idots_checked(q: &[i8], codes: &[i8], stride: usize, out: &mut [i32]) {
        assert!(q.len() == stride && stride.is_multiple_of(32));
        assert!(is_x86_feature_detected!("avx2"));
        // SAFETY: checked just above.
        unsafe { idots(q, codes, stride, out) }
    }
}

/// The fastest kernel this CPU runs.
pub(super) fn kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        return avx2::idots_checked;
    }
    idots_portable
}

/// How many threads a large search splits its first pass across.
pub(super) fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
            .min(8)
    })
}
