//! Block files (HFile-like immutable sorted files).
