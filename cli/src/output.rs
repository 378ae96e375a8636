//! Standard output for every command (issue 21, item 8).
//!
//! `println!` panics when stdout is a closed pipe (`cellbase verify -v DIR | head -1` exited
//! 101) and an unchecked final flush hides a full device (`cellbase shell -e list > /dev/full`
//! exited 0). Every command writes through [`Stdout`] instead: it remembers the first write
//! error, fails every later write fast (so long outputs stop early), and [`Stdout::finish`]
//! flushes and turns the outcome into the exit code: a closed pipe ends the command quietly
//! with [`EXIT_BROKEN_PIPE`] (141, what a shell reports for a process killed by SIGPIPE, so
//! `set -o pipefail` scripts still see that the output was cut short); any other write error is
//! reported on stderr (`ERROR: cannot write standard output: ...`) with exit 1.
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// Exit status of a command whose standard output was closed early (128 + SIGPIPE).
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Buffered standard output that remembers its first write error.
#[derive(Debug)]
pub struct Stdout {
    inner: BufWriter<io::Stdout>,
    error: Option<io::Error>,
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
}

impl Stdout {
    /// Block-buffered standard output.
    pub fn new() -> Self {
        Stdout {
            inner: BufWriter::with_capacity(64 * 1024, io::stdout()),
            error: None,
        }
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    fn remember(&mut self, e: io::Error) -> io::Error {
        let again = io::Error::new(e.kind(), e.to_string());
        if self.error.is_none() {
            self.error = Some(e);
        }
        again
    }

    fn failed_again(&self) -> Option<io::Error> {
        self.error
            .as_ref()
            .map(|e| io::Error::new(e.kind(), e.to_string()))
    }

    /// Flushes, then returns `code` when every byte was written, else the exit code of the
    /// first write error (see the module docs).
    pub fn finish(mut self, code: ExitCode) -> ExitCode {
        let _ = self.flush();
        match self.error.take() {
            None => code,
            Some(e) => {
                // Drop the unwritten rest: BufWriter would retry it when dropped.
                let (_, _) = self.inner.into_parts();
                write_error_exit(&e)
            }
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = self.failed_again() {
            return Err(e);
        }
        self.inner.write(buf).map_err(|e| self.remember(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.failed_again() {
            return Err(e);
        }
        self.inner.flush().map_err(|e| self.remember(e))
    }
}

/// The exit code for a failed write to standard output: quiet [`EXIT_BROKEN_PIPE`] for a
/// closed pipe, else a message on stderr and exit 1.
pub fn write_error_exit(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        ExitCode::from(EXIT_BROKEN_PIPE)
    } else {
        crate::fail(format!("cannot write standard output: {e}"))
    }
}
