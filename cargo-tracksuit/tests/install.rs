//! `install`: the written file parsed back and its keys checked per client; the same command
//! twice leaves the same bytes; other servers and top-level keys are kept.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{run, run_in};

async fn install(config: &Path, args: &[&str]) {
    let config = config.to_str().expect("a UTF-8 path");
    let mut all = vec!["install", "--config", config];
    all.extend_from_slice(args);
    let out = run(&all).await;
    assert!(
        out.status.success(),
        "install {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the file was written");
    serde_json::from_str(&text).expect("valid JSON")
}

const STDIO: &[&str] = &[
    "--name",
    "notes",
    "--env",
    "NOTES_DB=/tmp/notes.db",
    "--",
    "/opt/notes",
    "--stdio",
];
const HTTP: &[&str] = &[
    "--name",
    "notes-http",
    "--url",
    "http://127.0.0.1:8000/mcp",
    "--header",
    "Authorization: Bearer s3cret",
];

/// (client, servers key, stdio entry, http entry) as each product documents them.
fn expected() -> Vec<(&'static str, &'static str, Value, Value)> {
    let env = json!({"NOTES_DB": "/tmp/notes.db"});
    let headers = json!({"Authorization": "Bearer s3cret"});
    vec![
        (
            "claude-code",
            "mcpServers",
            json!({"type": "stdio", "command": "/opt/notes", "args": ["--stdio"], "env": env}),
            json!({"type": "http", "url": "http://127.0.0.1:8000/mcp", "headers": headers}),
        ),
        (
            "cursor",
            "mcpServers",
            json!({"command": "/opt/notes", "args": ["--stdio"], "env": env}),
            json!({"url": "http://127.0.0.1:8000/mcp", "headers": headers}),
        ),
        (
            "vscode",
            "servers",
            json!({"type": "stdio", "command": "/opt/notes", "args": ["--stdio"], "env": env}),
            json!({"type": "http", "url": "http://127.0.0.1:8000/mcp", "headers": headers}),
        ),
        (
            "claude-desktop",
            "mcpServers",
            json!({"command": "/opt/notes", "args": ["--stdio"], "env": env}),
            // Through the mcp-remote bridge; the header's value stays out of the arguments.
            json!({
                "command": "npx",
                "args": ["-y", "mcp-remote", "http://127.0.0.1:8000/mcp", "--header", "Authorization:${MCP_HEADER_0}"],
                "env": {"MCP_HEADER_0": "Bearer s3cret"}
            }),
        ),
    ]
}

#[tokio::test]
async fn each_client_gets_its_format_for_stdio_and_http() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (client, key, stdio, http) in expected() {
        let path = dir.path().join(client).join("mcp.json");
        install(&path, &[&["--client", client][..], STDIO].concat()).await;
        install(&path, &[&["--client", client][..], HTTP].concat()).await;
        let written = read(&path);
        assert_eq!(written[key]["notes"], stdio, "{client}");
        assert_eq!(written[key]["notes-http"], http, "{client}");
        assert_eq!(
            written.as_object().map(|o| o.len()),
            Some(1),
            "{client}: {written}"
        );
    }
}

#[tokio::test]
async fn installing_twice_changes_nothing_and_other_entries_are_kept() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (client, key, stdio, _) in expected() {
        let path = dir.path().join(format!("{client}.json"));
        let before = json!({
            "inputs": [{"type": "promptString", "id": "token", "password": true}],
            key: {
                "other": {"command": "other-server", "args": []},
                "notes": {"command": "an old path"}
            },
            "globalShortcut": "Ctrl+Space"
        });
        std::fs::write(&path, serde_json::to_string_pretty(&before).expect("JSON"))
            .expect("written");
        install(&path, &[&["--client", client][..], STDIO].concat()).await;
        let once = std::fs::read(&path).expect("read");
        install(&path, &[&["--client", client][..], STDIO].concat()).await;
        assert_eq!(
            std::fs::read(&path).expect("read"),
            once,
            "{client}: a second install changed the file"
        );
        let after = read(&path);
        assert_eq!(
            after[key]["notes"], stdio,
            "{client}: the entry is replaced"
        );
        assert_eq!(after[key]["other"], before[key]["other"], "{client}");
        assert_eq!(after["inputs"], before["inputs"], "{client}");
        assert_eq!(after["globalShortcut"], "Ctrl+Space", "{client}");
        // Order kept: the servers where they were, the new entry in the old one's place.
        let order: Vec<&String> = after[key].as_object().expect("an object").keys().collect();
        assert_eq!(order, ["other", "notes"], "{client}");
        let top: Vec<&String> = after.as_object().expect("an object").keys().collect();
        assert_eq!(top, ["inputs", key, "globalShortcut"], "{client}");
    }
}

#[tokio::test]
async fn a_file_it_cannot_read_as_json_is_left_alone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for content in ["{ // a comment\n}", "[1, 2]", "{\"mcpServers\": []}"] {
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, content).expect("written");
        let config = path.to_str().expect("UTF-8");
        let out = run(&[
            &["install", "--client", "cursor", "--config", config][..],
            STDIO,
        ]
        .concat())
        .await;
        assert_eq!(out.status.code(), Some(1), "{content}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("left as it is"),
            "{content}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), content);
    }
    // Mixed transports are refused before anything is written.
    let path = dir.path().join("fresh.json");
    let config = path.to_str().expect("UTF-8");
    for args in [
        &[
            "--name",
            "x",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--",
            "cmd",
        ][..],
        &[
            "--name",
            "x",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--env",
            "A=b",
        ],
        &["--name", "x", "--header", "A: b", "--", "cmd"],
        &["--name", "x"],
    ] {
        let out = run(&[
            &["install", "--client", "vscode", "--config", config][..],
            args,
        ]
        .concat())
        .await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!path.exists(), "{args:?}");
    }
}

#[tokio::test]
async fn a_relative_path_becomes_absolute_and_default_files_are_used() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("target/release")).expect("created");
    std::fs::write(dir.path().join("target/release/notes"), "").expect("written");
    let args = [
        "install",
        "--client",
        "vscode",
        "--name",
        "notes",
        "--",
        "./target/release/notes",
        "npx",
    ];
    let out = run_in(dir.path(), &args).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without --config: the client's usual file, here `.vscode/mcp.json`.
    let written = read(&dir.path().join(".vscode/mcp.json"));
    let expected = std::fs::canonicalize(dir.path().join("target/release/notes")).expect("exists");
    assert_eq!(
        written["servers"]["notes"]["command"],
        expected.to_str().expect("UTF-8")
    );
    // Arguments are left as they are; a bare program name too.
    assert_eq!(written["servers"]["notes"]["args"], json!(["npx"]));
    let out = run_in(
        dir.path(),
        &[
            "install", "--client", "cursor", "--name", "n", "--", "npx", "-y", "x",
        ],
    )
    .await;
    assert!(out.status.success());
    assert_eq!(
        read(&dir.path().join(".cursor/mcp.json"))["mcpServers"]["n"]["command"],
        "npx"
    );
}
