//! Building the server with cargo and watching its sources.

use crate::Error;
use crate::cli::DevArgs;
use notify::{EventKind, RecursiveMode, Watcher};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

/// What to build, and where its sources are.
#[derive(Debug, Clone)]
pub struct Package {
    cargo: OsString,
    manifest: Option<PathBuf>,
    package: Option<String>,
    bin: Option<String>,
    release: bool,
    /// The workspace's root: watched, except `target`.
    pub root: PathBuf,
    /// The target directory: never watched; the running copies live under it.
    pub target: PathBuf,
}

/// A successful build.
#[derive(Debug)]
pub struct Built {
    /// The executable cargo wrote.
    pub executable: PathBuf,
    /// Whether cargo found it up to date (nothing was compiled).
    pub fresh: bool,
}

impl Package {
    /// Asks `cargo metadata` where the workspace and its target directory are.
    pub async fn locate(args: &DevArgs) -> Result<Package, Error> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = tokio::process::Command::new(&cargo);
        command.args(["metadata", "--no-deps", "--format-version", "1"]);
        if let Some(manifest) = &args.manifest_path {
            command.arg("--manifest-path").arg(manifest);
        }
        let output = command.stderr(Stdio::inherit()).output().await?;
        if !output.status.success() {
            return Err("cargo metadata failed (is this a cargo package?)".into());
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)?;
        let path = |key: &str| {
            metadata
                .get(key)
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .ok_or_else(|| format!("cargo metadata gave no {key}"))
        };
        Ok(Package {
            cargo,
            manifest: args.manifest_path.clone(),
            package: args.package.clone(),
            bin: args.bin.clone(),
            release: args.release,
            root: path("workspace_root")?,
            target: path("target_directory")?,
        })
    }

    /// `cargo build`: its progress and diagnostics go to this process's stderr (the
    /// terminal); the executable is read from its JSON messages on stdout.
    pub async fn build(&self) -> Result<Built, Error> {
        let mut command = tokio::process::Command::new(&self.cargo);
        command.args(["build", "--message-format=json-render-diagnostics"]);
        if let Some(manifest) = &self.manifest {
            command.arg("--manifest-path").arg(manifest);
        }
        if let Some(package) = &self.package {
            command.args(["--package", package]);
        }
        if let Some(bin) = &self.bin {
            command.args(["--bin", bin]);
        }
        if self.release {
            command.arg("--release");
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = exclusive(|| command.spawn())?;
        let stdout = child.stdout.take().ok_or("cargo's stdout was not piped")?;
        let mut lines = BufReader::new(stdout).lines();
        let mut built = Vec::new();
        while let Some(line) = lines.next_line().await? {
            if let Some(b) = self.artifact(&line) {
                built.push(b);
            }
        }
        if !child.wait().await?.success() {
            return Err("the build failed".into());
        }
        match built.len() {
            1 => Ok(built.remove(0)),
            0 => Err("the build made no binary (name one with --bin)".into()),
            _ => Err("the build made several binaries: pick one with --bin".into()),
        }
    }

    /// A binary of ours in one of cargo's JSON messages.
    fn artifact(&self, line: &str) -> Option<Built> {
        let message: Value = serde_json::from_str(line).ok()?;
        if message.get("reason")?.as_str()? != "compiler-artifact" {
            return None;
        }
        let executable = message.get("executable")?.as_str()?;
        let target = message.get("target")?;
        let is_bin = target
            .get("kind")?
            .as_array()?
            .iter()
            .any(|k| k.as_str() == Some("bin"));
        let name = target.get("name")?.as_str()?;
        if !is_bin || self.bin.as_deref().is_some_and(|b| b != name) {
            return None;
        }
        Some(Built {
            executable: PathBuf::from(executable),
            fresh: message.get("fresh").and_then(Value::as_bool) == Some(true),
        })
    }

    /// A private copy of `executable` for one server, so that the next build never writes
    /// over the file a running server was started from (nor one relay's copy over
    /// another's). The caller removes it when that server is gone, and calls this inside
    /// [`exclusive`] together with the spawn that executes the copy.
    pub fn stage(&self, executable: &Path) -> Result<PathBuf, Error> {
        static STAGED: AtomicU64 = AtomicU64::new(0);
        let dir = self.target.join("tracksuit-dev");
        std::fs::create_dir_all(&dir)?;
        let name = executable
            .file_name()
            .ok_or("the executable has no file name")?;
        let n = STAGED.fetch_add(1, Ordering::Relaxed);
        let mut staged_name = name.to_owned();
        staged_name.push(format!("-{}-{n}", std::process::id()));
        let staged = dir.join(staged_name);
        std::fs::copy(executable, &staged)?;
        Ok(staged)
    }

    /// Whether a change at `path` can matter to the build: not under the target directory
    /// (nor any `target` or `node_modules` directory), not in a hidden directory or file
    /// (`.git`, editor swap files), not a backup (`~`).
    pub fn relevant(&self, path: &Path) -> bool {
        if path.starts_with(&self.target) {
            return false;
        }
        let inside = path.strip_prefix(&self.root).unwrap_or(path);
        let ignored = inside.components().any(|c| {
            let s = c.as_os_str().to_string_lossy();
            s.starts_with('.') || s.ends_with('~') || s == "target" || s == "node_modules"
        });
        !ignored
    }
}

/// Runs `f` (writing an executable, or forking a process) while no other thread of this
/// process does either.
///
/// A child forked while another thread has a freshly copied executable open for writing
/// inherits that descriptor until its own `exec`; executing the copy meanwhile fails with
/// `ETXTBSY` ("Text file busy"). HTTP sessions restart their servers concurrently, and the
/// builder forks `cargo` at any time: every write of a staged copy, and every fork, goes
/// through here. A `std` spawn returns only after the child has executed (or failed to), so
/// the child holds no inherited descriptor once the lock is released.
pub fn exclusive<T>(f: impl FnOnce() -> T) -> T {
    static FORKING: Mutex<()> = Mutex::new(());
    let _guard = FORKING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f()
}

/// Watches the workspace and `paths`; sends one `()` per change that `package` finds
/// relevant.
/// The watcher lives as long as the returned value.
pub fn watch(
    package: &Package,
    paths: &[PathBuf],
) -> Result<(notify::RecommendedWatcher, mpsc::UnboundedReceiver<()>), Error> {
    let (tx, rx) = mpsc::unbounded_channel();
    let filter = package.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        let changed = matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
        );
        if changed && event.paths.iter().any(|p| filter.relevant(p)) {
            let _ = tx.send(());
        }
    })?;
    // The root alone (its Cargo.toml, build.rs), then each directory in it but the target
    // directory and hidden ones: a recursive watch of the root would also add one inotify
    // watch per directory under `target/`.
    watcher.watch(&package.root, RecursiveMode::NonRecursive)?;
    for entry in std::fs::read_dir(&package.root)? {
        let path = entry?.path();
        if path.is_dir() && package.relevant(&path) {
            watcher.watch(&path, RecursiveMode::Recursive)?;
        }
    }
    for path in paths {
        watcher.watch(path, RecursiveMode::Recursive)?;
    }
    Ok((watcher, rx))
}

/// Waits for a change, then for `quiet` without one (an editor's save is several events).
/// `None` when the watcher is gone.
pub async fn next_change(changes: &mut mpsc::UnboundedReceiver<()>, quiet: Duration) -> Option<()> {
    changes.recv().await?;
    loop {
        match tokio::time::timeout(quiet, changes.recv()).await {
            Ok(Some(())) => continue,
            Ok(None) => return None,
            Err(_) => return Some(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight threads each copy an executable and run the copy, as concurrent HTTP sessions'
    /// restarts do. Without [`exclusive`], one thread's fork inherits another's write
    /// descriptor and the exec fails with `ETXTBSY`, every run or few.
    #[test]
    fn concurrent_copies_all_start() {
        let dir = std::env::temp_dir().join(format!("tracksuit-dev-stage-{}", std::process::id()));
        let package = Package {
            cargo: "cargo".into(),
            manifest: None,
            package: None,
            bin: None,
            release: false,
            root: dir.clone(),
            target: dir.clone(),
        };
        let executable = Path::new("/bin/true");
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..40 {
                        let (staged, child) = exclusive(|| {
                            let staged = package.stage(executable).expect("copied");
                            let child = std::process::Command::new(&staged).spawn();
                            (staged, child)
                        });
                        let status = child.expect("the copy starts").wait().expect("waited");
                        assert!(status.success());
                        std::fs::remove_file(staged).expect("removed");
                    }
                });
            }
        });
        std::fs::remove_dir_all(dir).expect("cleaned up");
    }

    #[test]
    fn only_sources_are_relevant() {
        let package = Package {
            cargo: "cargo".into(),
            manifest: None,
            package: None,
            bin: None,
            release: false,
            root: PathBuf::from("/w"),
            target: PathBuf::from("/elsewhere/target"),
        };
        for yes in ["/w/src/main.rs", "/w/Cargo.toml", "/w/crates/a/src/lib.rs"] {
            assert!(package.relevant(Path::new(yes)), "{yes}");
        }
        for no in [
            "/elsewhere/target/debug/x",
            "/w/.git/index",
            "/w/src/.main.rs.swp",
            "/w/src/main.rs~",
            "/w/bench/target/release/x",
            "/w/tests/node_modules/a/b.js",
        ] {
            assert!(!package.relevant(Path::new(no)), "{no}");
        }
    }
}
