//! Layer 0, `base`: what every other layer stands on and that knows nothing of cells. The typed
//! [`Error`](error::Error), the bounds-checked decoders of [`codec`], the [`clock`], the I/O seam
//! ([`io::FileSystem`]: the real file system, an in-memory one and a fault-injecting one) and
//! small helpers. Imports nothing of the crate's other layers.

pub mod clock;
pub mod codec;
pub mod error;
pub mod io;
pub mod stats;
pub(crate) mod util;
