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
    #[test]
    fn string_binary() {
        assert_eq!(super::to_string_binary(b"a\x00\xff~"), "a\\x00\\xFF~");
    }
}
