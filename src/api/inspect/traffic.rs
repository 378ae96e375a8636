//! [`read_traffic`]: the traffic a database recorded
//! ([`DbOptions::traffic_recording`](crate::DbOptions::traffic_recording)) and saved in its
//! directory's `TRAFFIC` file, read without opening the database (so also while the process
//! that records it has it open).

use super::files::read_regular;
use crate::base::error::{Error, Result};
use crate::base::io::StdFs;
use crate::engine::traffic::Traffic;
use crate::engine::traffic_file::{TRAFFIC_FILE, decode};
use std::path::Path;

/// Reads the `TRAFFIC` file of the database directory `dir` (docs/FORMAT.md, "TRAFFIC").
///
/// # Errors
/// [`Error::InvalidArgument`] when `dir` holds no `TRAFFIC` file (the database never saved
/// recorded traffic: recording was off, or it has not closed or called
/// [`Db::save_traffic`](crate::Db::save_traffic) yet); [`Error::Corruption`] naming the file
/// and offset when its bytes are damaged; [`Error::UnsupportedFormat`] for a newer format
/// version; [`Error::Io`].
///
/// # Examples
/// ```
/// use cellbase::{Db, DbOptions, FamilyDescriptor, Put, TableDescriptor, inspect};
/// use std::time::Duration;
///
/// let dir = tempfile::tempdir()?;
/// let db = Db::open_with(
///     dir.path(),
///     DbOptions::default().traffic_recording(Duration::from_secs(10), 360),
/// )?;
/// let t = db.create_table(TableDescriptor::new("t").family(FamilyDescriptor::new("f")))?;
/// t.put(Put::new("r").add("f", "q", "v"))?;
/// db.close()?;
/// let traffic = inspect::read_traffic(dir.path())?;
/// assert_eq!(traffic.intervals.last().unwrap().regions[0].writes, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_traffic(dir: impl AsRef<Path>) -> Result<Traffic> {
    let path = dir.as_ref().join(TRAFFIC_FILE);
    let fs = StdFs;
    if !crate::base::io::FileSystem::exists(&fs, &path) {
        return Err(Error::invalid(format!(
            "{}: no recorded traffic (open the database with DbOptions::traffic_recording; the file is written at close or by Db::save_traffic)",
            path.display()
        )));
    }
    let bytes = read_regular(&fs, &path)?;
    decode(&bytes, &path)
}
