//! Small shared helpers.

/// HBase's `Bytes.toStringBinary`: printable ASCII as is, everything else as `\xNN` (upper-case
/// hex).
pub fn to_string_binary(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (b' '..=b'~').contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

/// Length of the longest common prefix of `a` and `b`, compared eight bytes at a time (a
/// block builder computes it for every cell it writes: byte by byte it was ~40 % of a flush's
/// block building for YCSB keys, whose ~37-byte prefixes are shared).
#[inline]
pub(crate) fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let (mut wx, mut wy) = ([0u8; 8], [0u8; 8]);
        wx.copy_from_slice(x);
        wy.copy_from_slice(y);
        let diff = u64::from_le_bytes(wx) ^ u64::from_le_bytes(wy);
        if diff != 0 {
            // Little-endian: the first differing byte holds the lowest set bit.
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Returns the allocator's free memory to the operating system, where the allocator keeps it
/// (glibc's `malloc_trim`; elsewhere nothing). Called once a flush or compaction has released
/// its memory: glibc keeps freed memory in the arena of the thread that allocated it, and
/// memstores are allocated by writer threads (or, in replay, by the opening thread) and freed
/// by the flushing thread, so without it a process keeps the high-water mark of every arena
/// resident (measured in the harness's overwrite after a crash: 165 -> 113 MiB peak RSS).
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: `malloc_trim` is glibc's, declared with its C signature (`int
        // malloc_trim(size_t pad)`); it takes no pointers, may be called from any thread at any
        // time, and only hands free pages of the allocator's own arenas back to the kernel.
        // Exercised by tests/free_memory.rs.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// A seeded generator for randomized unit tests (printed seeds make failures replayable):
/// `next(n)` is uniform enough in `0..n` for test data. REQUIRES: `n > 0`.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    println!("seed {seed}");
    let mut s = seed;
    move |n: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % n
    }
}

#[cfg(test)]
mod tests {
    /// Agrees with the byte-by-byte count for every split of equal and differing bytes,
    /// lengths on both sides of the 8-byte chunks.
    #[test]
    fn common_prefix_len_matches_the_bytewise_count() {
        let mut next = super::test_rng(0xc0ffee);
        for _ in 0..20_000 {
            let n = next(40) as usize;
            let a: Vec<u8> = (0..n).map(|_| next(3) as u8).collect();
            let mut b = a.clone();
            b.truncate(next(n as u64 + 1) as usize);
            if !b.is_empty() && next(2) == 0 {
                let i = next(b.len() as u64) as usize;
                b[i] = b[i].wrapping_add(1 + next(255) as u8);
            }
            b.extend((0..next(10)).map(|_| next(3) as u8));
            let want = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            assert_eq!(super::common_prefix_len(&a, &b), want, "{a:?} {b:?}");
            assert_eq!(super::common_prefix_len(&b, &a), want);
        }
        assert_eq!(super::common_prefix_len(b"", b"abc"), 0);
    }

    #[test]
    fn string_binary() {
        assert_eq!(super::to_string_binary(b"a\x00\xff~"), "a\\x00\\xFF~");
    }
}
