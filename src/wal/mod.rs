//! The write-ahead log and the CRC-framed record log shared with the manifest.
