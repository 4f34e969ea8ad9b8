//! Server processes under test and what `/proc` says about them.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// How to start one server.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    /// Name in the report.
    pub name: &'static str,
    /// Program and leading arguments.
    pub program: PathBuf,
    /// Leading arguments (e.g. the script for node).
    pub args: Vec<String>,
    /// HTTP port it listens on in HTTP mode.
    pub port: u16,
    /// Extra arguments for HTTP mode (after `--port N`).
    pub http_args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
}

/// A running server.
#[derive(Debug)]
pub struct ServerProcess {
    /// The child (killed on drop).
    pub child: Child,
    /// Its pid.
    pub pid: u32,
}

impl ServerSpec {
    /// Starts it in stdio mode with piped stdin/stdout.
    pub fn spawn_stdio(&self) -> std::io::Result<ServerProcess> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .arg("--stdio")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let child = cmd.spawn()?;
        let pid = child.id().unwrap_or_default();
        Ok(ServerProcess { child, pid })
    }

    /// Starts it in HTTP mode and waits until the port accepts connections.
    ///
    /// Refuses a port something already listens on, and fails if the child exits before it
    /// listens: otherwise the readiness probe would reach that other process (a second
    /// bench run, a twin left over) and the rows would measure it.
    pub async fn spawn_http(&self) -> std::io::Result<ServerProcess> {
        if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_ok()
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                format!(
                    "port {} already answers before {} starts (another bench run?)",
                    self.port, self.name
                ),
            ));
        }
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .arg("--port")
            .arg(self.port.to_string())
            .args(&self.http_args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let pid = child.id().unwrap_or_default();
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            if let Some(status) = child.try_wait()? {
                return Err(std::io::Error::other(format!(
                    "{} exited ({status}) before it listened on {}",
                    self.name, self.port
                )));
            }
            if Instant::now() > deadline {
                return Err(std::io::Error::other(format!(
                    "{} did not listen on {}",
                    self.name, self.port
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(ServerProcess { child, pid })
    }
}

impl ServerProcess {
    /// CPU time (user + system) the process has used so far, dead threads included.
    pub fn cpu(&self) -> Duration {
        cpu_time(self.pid)
    }

    /// Resident set size in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid)
    }

    /// Stops it.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

fn clock_ticks_per_second() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100)
    })
}

/// utime + stime of `pid` from `/proc/<pid>/stat`.
pub fn cpu_time(pid: u32) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields
        .get(11..13)
        .map(|f| f.iter().filter_map(|v| v.parse::<u64>().ok()).sum())
        .unwrap_or(0);
    Duration::from_nanos(ticks * 1_000_000_000 / clock_ticks_per_second())
}

/// VmRSS of `pid` in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
