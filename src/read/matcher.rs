//! The visibility matcher (user reads, flush and compaction).
