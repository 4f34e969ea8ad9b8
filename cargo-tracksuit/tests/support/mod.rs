//! Helpers shared by the command tests: running `cargo-tracksuit`, and the example servers
//! it is pointed at.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cargo-tracksuit");

/// The workspace's root.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is inside the workspace")
}

/// The `conformance` example server (every tool, prompt and resource of the official
/// suite), built once per test binary with the same cargo into the same target directory:
/// `target/debug/conformance`, next to the binary under test.
pub fn conformance() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "-p",
                "tracksuit-examples",
                "--bin",
                "conformance",
            ])
            .current_dir(workspace())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the conformance example failed");
        Path::new(BIN)
            .with_file_name("conformance")
            .with_extension(std::env::consts::EXE_EXTENSION)
    })
}

/// Runs `cargo-tracksuit` as `cargo tracksuit ARGS` runs it (with the `tracksuit` word).
pub async fn run(args: &[&str]) -> Output {
    run_in(Path::new("."), args).await
}

/// [`run`] in directory `dir`.
pub async fn run_in(dir: &Path, args: &[&str]) -> Output {
    tokio::process::Command::new(BIN)
        .arg("tracksuit")
        .args(args)
        .current_dir(dir)
        .output()
        .await
        .expect("cargo-tracksuit runs")
}

/// Its stdout, asserting it succeeded.
pub async fn ok(args: &[&str]) -> String {
    let output = run(args).await;
    assert!(
        output.status.success(),
        "cargo tracksuit {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// Its stdout parsed as JSON, asserting it succeeded.
pub async fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args).await;
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}
