//! `--memory-limit-mib`: one memory cgroup per engine, so that the engine's child processes
//! (its resident memory and the page cache they fill) stay under the limit and reads go to
//! storage once the data set is larger than it.
//!
//! cgroup v2 when `ROOT/cgroup.controllers` exists (`ROOT/NAME/memory.max`, and
//! `memory.swap.max` = 0 when present), else cgroup v1's memory controller
//! (`ROOT/memory/NAME/memory.limit_in_bytes`, and `memory.memsw.limit_in_bytes` equal to it when
//! present, so nothing is swapped out instead). Both charge page cache to the cgroup of the
//! process that brought the page in. A child joins its cgroup before it runs anything: it is
//! started as `sh -c 'echo $$ > PROCS && exec EXE ARGS'`, so the harness's own binary starts
//! inside the cgroup (no `pre_exec`, no `unsafe`).

use crate::engines::Res;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where cgroups are mounted on Linux.
pub const ROOT: &str = "/sys/fs/cgroup";

/// Which cgroup interface a limit goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// The unified hierarchy: `memory.max`, `memory.swap.max`.
    V2,
    /// The memory controller's own hierarchy: `memory.limit_in_bytes`,
    /// `memory.memsw.limit_in_bytes`.
    V1,
}

/// The interface and directory cgroup `name` gets under `root` (a cgroup mount, normally
/// [`ROOT`]).
pub fn layout(root: &Path, name: &str) -> (Version, PathBuf) {
    if root.join("cgroup.controllers").exists() {
        (Version::V2, root.join(name))
    } else {
        (Version::V1, root.join("memory").join(name))
    }
}

/// One memory cgroup created by the harness; [`Cgroup::remove`] removes it.
#[derive(Debug)]
pub struct Cgroup {
    version: Version,
    dir: PathBuf,
}

fn write(path: &Path, value: &str) -> Res<()> {
    std::fs::write(path, value)
        .map_err(|e| format!("cannot write {value:?} to {}: {e}", path.display()).into())
}

impl Cgroup {
    /// Creates cgroup `name` under `root` limited to `limit_bytes` of memory (page cache
    /// included) and no swap. Fails with a message naming the path when the cgroup cannot be
    /// made (no permission, no memory controller).
    pub fn create(root: &Path, name: &str, limit_bytes: u64) -> Res<Cgroup> {
        let (version, dir) = layout(root, name);
        let parent = dir.parent().unwrap_or(root);
        match version {
            Version::V2 => {
                // The memory controller must be enabled for the parent's children.
                let ctl = parent.join("cgroup.subtree_control");
                let on = std::fs::read_to_string(&ctl).unwrap_or_default();
                if !on.split_whitespace().any(|c| c == "memory") {
                    write(&ctl, "+memory").map_err(|e| {
                        format!("the cgroup v2 memory controller is not enabled: {e}")
                    })?;
                }
            }
            Version::V1 => {
                if !parent.join("memory.limit_in_bytes").exists() {
                    return Err(format!(
                        "no cgroup v1 memory controller at {} (and no cgroup v2 at {}): \
                         --memory-limit-mib needs one",
                        parent.display(),
                        root.join("cgroup.controllers").display()
                    )
                    .into());
                }
            }
        }
        if dir.exists() {
            // Left over by an earlier run that was killed: empty, or rmdir fails and says so.
            std::fs::remove_dir(&dir)
                .map_err(|e| format!("cannot remove the old cgroup {}: {e}", dir.display()))?;
        }
        std::fs::create_dir(&dir)
            .map_err(|e| format!("cannot create the cgroup {}: {e}", dir.display()))?;
        let cg = Cgroup { version, dir };
        if let Err(e) = cg.limit(limit_bytes) {
            let _ = std::fs::remove_dir(&cg.dir);
            return Err(e);
        }
        Ok(cg)
    }

    fn limit(&self, bytes: u64) -> Res<()> {
        let b = bytes.to_string();
        match self.version {
            Version::V2 => {
                write(&self.dir.join("memory.max"), &b)?;
                let swap = self.dir.join("memory.swap.max");
                if swap.exists() {
                    write(&swap, "0")?;
                }
            }
            Version::V1 => {
                // memsw (memory + swap) may never be below the memory limit: set that first.
                write(&self.dir.join("memory.limit_in_bytes"), &b)?;
                let memsw = self.dir.join("memory.memsw.limit_in_bytes");
                if memsw.exists() {
                    write(&memsw, &b)?;
                }
            }
        }
        Ok(())
    }

    /// The cgroup's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The interface the limit went through.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The file a process id is written to to move that process into the cgroup.
    pub fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// A command that runs `exe` inside this cgroup from its first instruction: a shell
    /// writes its own pid to the cgroup, then execs `exe` (arguments are added to the
    /// returned command). Exit status 125 when the shell cannot join the cgroup.
    pub fn command(&self, exe: &Path) -> Command {
        let mut c = Command::new("sh");
        c.args([
            "-c",
            r#"echo $$ > "$1" || exit 125; shift; exec "$@""#,
            "sh",
        ])
        .arg(self.procs_file())
        .arg(exe);
        c
    }

    /// Removes the cgroup (rmdir) once no process is left in it: its charged page cache goes
    /// to the parent. Retries for up to 5 s while the kernel says busy (EBUSY: an exited
    /// child can take a moment to leave).
    pub fn remove(&self) -> Res<()> {
        const EBUSY: i32 = 16;
        let mut tries = 0;
        loop {
            match std::fs::remove_dir(&self.dir) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) if e.raw_os_error() == Some(EBUSY) && tries < 50 => tries += 1,
                Err(e) => {
                    return Err(
                        format!("cannot remove the cgroup {}: {e}", self.dir.display()).into(),
                    );
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// The command for a child run: `exe` itself, or `exe` started inside `cgroup`.
pub fn child_command(exe: &Path, cgroup: Option<&Cgroup>) -> Command {
    match cgroup {
        Some(cg) => cg.command(exe),
        None => Command::new(exe),
    }
}

/// The cgroups of a run, one per engine (none without a limit). Those not yet removed by
/// [`Cgroups::remove`] are removed when this is dropped (an error path of the run).
#[derive(Debug, Default)]
pub struct Cgroups(Vec<(String, Cgroup)>);

impl Cgroups {
    /// Creates `cellbase-harness-PID-ENGINE` under [`ROOT`] for every engine, limited to
    /// `limit_mib` MiB; nothing when `limit_mib` is 0.
    pub fn for_engines(engines: &[String], limit_mib: u64) -> Res<Cgroups> {
        let mut all = Cgroups::default();
        if limit_mib == 0 {
            return Ok(all);
        }
        for e in engines {
            let name = format!("cellbase-harness-{}-{e}", std::process::id());
            let cg = Cgroup::create(Path::new(ROOT), &name, limit_mib << 20)?;
            eprintln!(
                "  {e}: memory cgroup {:?} {} limited to {limit_mib} MiB (page cache included, no swap)",
                cg.version(),
                cg.dir().display()
            );
            all.0.push((e.clone(), cg));
        }
        Ok(all)
    }

    /// Engine `e`'s cgroup.
    pub fn get(&self, e: &str) -> Option<&Cgroup> {
        self.0.iter().find(|(n, _)| n == e).map(|(_, c)| c)
    }

    /// Removes every cgroup (once their processes have exited); the first failure is
    /// returned after trying them all.
    pub fn remove(mut self) -> Res<()> {
        let mut first = None;
        for (_, cg) in self.0.drain(..) {
            if let Err(e) = cg.remove() {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for Cgroups {
    fn drop(&mut self) {
        for (_, cg) in self.0.drain(..) {
            if let Err(e) = cg.remove() {
                eprintln!("warning: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_when_cgroup_controllers_exists_else_v1_memory() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(
            layout(root.path(), "x"),
            (Version::V1, root.path().join("memory/x"))
        );
        std::fs::write(root.path().join("cgroup.controllers"), "cpu memory io\n").unwrap();
        assert_eq!(
            layout(root.path(), "x"),
            (Version::V2, root.path().join("x"))
        );
    }

    #[test]
    fn v1_limit_files_in_a_fake_root() {
        // A plain directory standing in for the v1 mount: without the memory controller's
        // files the error names the path; with them, the limit is written where the kernel
        // expects it (in a plain directory writing creates the file).
        let root = tempfile::tempdir().unwrap();
        let e = Cgroup::create(root.path(), "h", 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no cgroup v1 memory controller at"), "{e}");
        assert!(
            e.contains(&root.path().join("memory").display().to_string()),
            "{e}"
        );
        std::fs::create_dir(root.path().join("memory")).unwrap();
        std::fs::write(root.path().join("memory/memory.limit_in_bytes"), "max").unwrap();
        let cg = Cgroup::create(root.path(), "h", 64 << 20).unwrap();
        assert_eq!(cg.version(), Version::V1);
        assert_eq!(
            std::fs::read_to_string(cg.dir().join("memory.limit_in_bytes")).unwrap(),
            (64u64 << 20).to_string()
        );
        // No memsw file (swap accounting off): none is written.
        assert!(!cg.dir().join("memory.memsw.limit_in_bytes").exists());
        assert_eq!(cg.procs_file(), root.path().join("memory/h/cgroup.procs"));
        // The fake's files make rmdir fail: the error names the directory.
        let e = cg.remove().unwrap_err().to_string();
        assert!(e.contains(&cg.dir().display().to_string()), "{e}");
    }

    #[test]
    fn the_child_command_joins_before_exec() {
        // `sh` writes its pid to the procs file, then execs the program with the arguments.
        let dir = tempfile::tempdir().unwrap();
        let cg = Cgroup {
            version: Version::V1,
            dir: dir.path().to_path_buf(),
        };
        let out = cg
            .command(Path::new("/bin/echo"))
            .args(["a b", "c"])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b c\n");
        let pid = std::fs::read_to_string(cg.procs_file()).unwrap();
        assert!(pid.trim().parse::<u32>().is_ok(), "{pid:?}");
        // A procs file that cannot be written stops the child before it runs anything.
        let bad = Cgroup {
            version: Version::V1,
            dir: dir.path().join("missing"),
        };
        let out = bad
            .command(Path::new("/bin/echo"))
            .arg("x")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(125));
        assert!(out.stdout.is_empty());
    }
}
