//! Durable interactive tasks (tasks extension, MCP 2026-07-28) across real processes: a
//! handoff tool runs as a task in one server process (`task_replica`, SQLite task store);
//! the user answers its first question; the process is killed with SIGKILL; a second
//! process on the same database file, with the same state keys, resumes the task by replay
//! — as the same principal (the tool needs a scope) — `before` is not run again, the first
//! answer is replayed, the second question is asked —
//! and `after` runs once. While the first process lives, a second one cannot open the file.

use serde_json::{Value, json};
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tracksuit_tests::support::DEADLINE;

/// A server process, killed (SIGKILL) when dropped.
struct Replica {
    child: Child,
    port: u16,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn command(port: u16, db: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_task_replica"));
    cmd.arg(port.to_string())
        .arg(db)
        .arg(dir)
        // Both processes seal and open replay records with the same key.
        .env(
            "TRACKSUIT_STATE_KEYS",
            "dHJhY2tzdWl0LXJlcGxheS10ZXN0LWtleS0zMi1ieXRlcyE=",
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Starts a replica and waits until it accepts connections.
fn start(db: &Path, dir: &Path) -> Replica {
    let port = free_port();
    let child = command(port, db, dir).spawn().expect("start task_replica");
    let mut replica = Replica { child, port };
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = replica.child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = replica.child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!("task_replica exited with {status}: {err}");
        }
        assert!(started.elapsed() < DEADLINE, "task_replica did not listen");
        std::thread::sleep(Duration::from_millis(10));
    }
    replica
}

/// One modern JSON-RPC request over HTTP/1.1 (headers mirroring the body); the JSON body.
fn rpc(port: u16, method: &str, mut params: Value, name: Option<&str>) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let name_header = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name_header}X-Test-User: alice\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn get(port: u16, task: &str) -> Value {
    let got = rpc(port, "tasks/get", json!({"taskId": task}), Some(task));
    got["result"].clone()
}

/// Polls `tasks/get` until `done` says the task is where the test wants it.
fn poll(port: u16, task: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let got = get(port, task);
        if done(&got) {
            return got;
        }
        assert!(started.elapsed() < DEADLINE, "task never {what}: {got}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The single question a task waits on: its key and message.
fn question(port: u16, task: &str, message: &str) -> String {
    let got = poll(port, task, &format!("asked {message:?}"), |t| {
        t["status"] == "input_required"
            && t["inputRequests"]
                .as_object()
                .is_some_and(|r| r.values().any(|q| q["params"]["message"] == message))
    });
    let requests = got["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{got}");
    requests.keys().next().expect("a key").clone()
}

fn answer(port: u16, task: &str, key: &str, word: &str) {
    let ack = rpc(
        port,
        "tasks/update",
        json!({"taskId": task, "inputResponses": {key: {"action": "accept", "content": {"word": word}}}}),
        Some(task),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
}

fn lines(path: PathBuf) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_task_survives_sigkill_of_its_process_and_resumes_by_replay_in_another() {
    let dir = std::env::temp_dir().join(format!(
        "tracksuit-replay-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let db = dir.join("tasks.db");

    let first = start(&db, &dir);
    // One live process per database file: a second one is refused while the first lives.
    let refused = command(free_port(), &db, &dir)
        .output()
        .expect("run a second replica");
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("one server process per database file"),
        "{refused:?}"
    );

    let created = rpc(
        first.port,
        "tools/call",
        json!({"name": "journey", "arguments": {"from": "Lyon"}}),
        Some("journey"),
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    let first_key = question(first.port, &task, "stop 1?");
    answer(first.port, &task, &first_key, "Dijon");
    let second_key = question(first.port, &task, "stop 2?");
    assert_ne!(first_key, second_key);

    // The process dies between two answers of the user, after the once block between them.
    let first_pid = first.child.id();
    drop(first);
    assert_eq!(lines(dir.join("before.log")).len(), 1);
    assert_eq!(lines(dir.join("once.log")), [format!("pid {first_pid}")]);

    let second = start(&db, &dir);
    let resumed = get(second.port, &task);
    assert_eq!(resumed["status"], "input_required", "{resumed}");
    assert!(
        resumed["inputRequests"].get(&second_key).is_some(),
        "the same question, under the same key: {resumed}"
    );
    answer(second.port, &task, &second_key, "Paris");
    let done = poll(second.port, &task, "completed", |t| {
        t["status"] == "completed" || t["status"] == "failed"
    });
    assert_eq!(done["status"], "completed", "{done}");
    // The resumed replay got the once block's logged result: it did not run it again.
    assert_eq!(
        done["result"]["content"][0]["text"],
        format!("from Lyon for alice / Dijon / stamped by {first_pid} / Paris"),
        "{done}"
    );
    assert_eq!(
        lines(dir.join("once.log")).len(),
        1,
        "the once block ran again"
    );
    let before = lines(dir.join("before.log"));
    let after = lines(dir.join("after.log"));
    assert_eq!(before.len(), 1, "before ran again: {before:?}");
    assert_eq!(after.len(), 1, "after ran {after:?}");
    assert_eq!(
        after[0],
        format!("pid {}", second.child.id()),
        "after ran in the process that resumed the task"
    );
    drop(second);
    std::fs::remove_dir_all(&dir).ok();
}
