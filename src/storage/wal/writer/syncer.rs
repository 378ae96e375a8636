//! Sync-ahead: the background thread that fdatasyncs the current segment once
//! [`WalOptions::sync_ahead`] bytes were written without a sync.

use super::*;

impl Wal {
    /// Asks the background sync thread (started on first use) to fdatasync segment `id`.
    pub(super) fn sync_in_background(&self, id: u64) {
        {
            let mut st = self.syncer.state.lock();
            st.request = Some(id);
        }
        self.syncer.cv.notify_one();
        let mut t = self.syncer_thread.lock();
        if t.is_none() {
            let (syncer, fs, dir) = (self.syncer.clone(), self.fs.clone(), self.dir.clone());
            match std::thread::Builder::new()
                .name("cellbase-wal-sync".into())
                .spawn(move || syncer.run(&*fs, &dir))
            {
                Ok(h) => *t = Some(h),
                // No thread: the roll syncs everything, as without sync-ahead.
                Err(_) => self.syncer.state.lock().request = None,
            }
        }
    }
}

/// The background sync thread's mailbox.
#[derive(Default)]
pub(super) struct Syncer {
    pub(super) state: Mutex<SyncerState>,
    pub(super) cv: parking_lot::Condvar,
}

#[derive(Default)]
pub(super) struct SyncerState {
    /// The segment to fdatasync next.
    pub(super) request: Option<u64>,
    pub(super) stop: bool,
    /// A failed background fdatasync: the WAL's next batch fails with it (poisoning the WAL),
    /// as a failed fdatasync by the leader would.
    pub(super) error: Option<String>,
}

impl Syncer {
    /// Serves requests until told to stop: opens the segment (a second handle of the same
    /// file; `fdatasync` makes the file's data durable whichever handle wrote it) and syncs it.
    /// A segment that is gone (deleted once flushed) needs nothing.
    pub(super) fn run(&self, fs: &dyn FileSystem, dir: &Path) {
        loop {
            let id = {
                let mut st = self.state.lock();
                loop {
                    if st.stop {
                        return;
                    }
                    if let Some(id) = st.request.take() {
                        break id;
                    }
                    self.cv.wait(&mut st);
                }
            };
            let path = segment::segment_path(dir, id);
            let res = fs.open_append(&path).and_then(|mut f| f.sync_data());
            match res {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    let mut st = self.state.lock();
                    st.error.get_or_insert_with(|| {
                        format!(
                            "background fdatasync of WAL segment {} failed: {e}",
                            path.display()
                        )
                    });
                }
            }
        }
    }
}
