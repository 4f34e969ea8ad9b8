//! `install`: one server entry written into a client's JSON configuration, idempotently
//! (the same command twice leaves the same file), every other entry and top-level key kept
//! in place and order.
//!
//! The formats, as each product documents them:
//!
//! - **Claude Code**, project scope `.mcp.json` (code.claude.com/docs/en/mcp): `mcpServers`;
//!   stdio `{"type": "stdio", "command", "args", "env"}`, HTTP
//!   `{"type": "http", "url", "headers"}`.
//! - **Claude Desktop**, `claude_desktop_config.json` (modelcontextprotocol.io/quickstart/user):
//!   `mcpServers` with `{"command", "args", "env"}`. The file only launches stdio servers
//!   (an entry with a `url` is skipped as invalid; remote servers are added as connectors
//!   in the app), so an HTTP server is reached through the `mcp-remote` stdio bridge
//!   (npmjs.com/package/mcp-remote): `npx -y mcp-remote URL --header Name:${VAR}` with the
//!   header's value in `env`, where it stays out of the argument list.
//! - **Cursor**, `.cursor/mcp.json` or `~/.cursor/mcp.json` (cursor.com/docs/mcp):
//!   `mcpServers`; stdio `{"command", "args", "env"}`, HTTP `{"url", "headers"}`.
//! - **VS Code**, `.vscode/mcp.json` (code.visualstudio.com/docs/copilot/reference/mcp-configuration):
//!   `servers` (not `mcpServers`), each with a `type`; stdio
//!   `{"type": "stdio", "command", "args", "env"}`, HTTP `{"type": "http", "url", "headers"}`;
//!   a top-level `inputs` array, kept as it is.

use crate::Error;
use crate::cli::{ClientKind, InstallArgs};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The top-level member holding the servers.
fn servers_key(client: ClientKind) -> &'static str {
    match client {
        ClientKind::Vscode => "servers",
        _ => "mcpServers",
    }
}

/// The file a client reads when `--config` is not given.
fn default_config(client: ClientKind) -> Result<PathBuf, Error> {
    Ok(match client {
        ClientKind::ClaudeCode => PathBuf::from(".mcp.json"),
        ClientKind::Cursor => PathBuf::from(".cursor/mcp.json"),
        ClientKind::Vscode => PathBuf::from(".vscode/mcp.json"),
        ClientKind::ClaudeDesktop => claude_desktop_config()?,
    })
}

fn claude_desktop_config() -> Result<PathBuf, Error> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library/Application Support/Claude"))
    } else if cfg!(windows) {
        std::env::var_os("APPDATA").map(|a| PathBuf::from(a).join("Claude"))
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".config")))
            .map(|c| c.join("Claude"))
    };
    dir.map(|d| d.join("claude_desktop_config.json"))
        .ok_or_else(|| "cannot find Claude Desktop's configuration directory; give --config".into())
}

fn object(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// `program` as the client should see it: a relative path that exists here (say
/// `./target/release/notes`) made absolute, since the client starts it from elsewhere; a
/// bare name (`npx`) or anything else as given.
fn absolute(program: &str) -> String {
    let path = Path::new(program);
    if path.is_relative()
        && path.components().count() > 1
        && let Ok(absolute) = std::fs::canonicalize(path)
    {
        return absolute.to_string_lossy().into_owned();
    }
    program.to_owned()
}

/// The entry for a stdio server.
fn stdio_entry(client: ClientKind, command: &[String], env: &[(String, String)]) -> Value {
    let (program, args) = command.split_first().map_or(("", &[][..]), |(p, a)| (p, a));
    let program = absolute(program);
    let mut entry = Map::new();
    if matches!(client, ClientKind::ClaudeCode | ClientKind::Vscode) {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(program));
    entry.insert("args".into(), json!(args));
    if !env.is_empty() {
        entry.insert("env".into(), object(env));
    }
    Value::Object(entry)
}

/// The entry for a Streamable HTTP server.
fn http_entry(client: ClientKind, url: &str, headers: &[(String, String)]) -> Value {
    if client == ClientKind::ClaudeDesktop {
        return desktop_bridge(url, headers);
    }
    let mut entry = Map::new();
    if matches!(client, ClientKind::ClaudeCode | ClientKind::Vscode) {
        entry.insert("type".into(), json!("http"));
    }
    entry.insert("url".into(), json!(url));
    if !headers.is_empty() {
        entry.insert("headers".into(), object(headers));
    }
    Value::Object(entry)
}

/// Claude Desktop reaches an HTTP server through `mcp-remote`; header values go in `env`.
fn desktop_bridge(url: &str, headers: &[(String, String)]) -> Value {
    let mut args = vec![json!("-y"), json!("mcp-remote"), json!(url)];
    let mut env = Vec::new();
    for (i, (name, value)) in headers.iter().enumerate() {
        let var = format!("MCP_HEADER_{i}");
        args.push(json!("--header"));
        // No space after the colon: mcp-remote's README, for Windows' argument quoting.
        args.push(json!(format!("{name}:${{{var}}}")));
        env.push((var, value.clone()));
    }
    let mut entry = Map::new();
    entry.insert("command".into(), json!("npx"));
    entry.insert("args".into(), Value::Array(args));
    if !env.is_empty() {
        entry.insert("env".into(), object(&env));
    }
    Value::Object(entry)
}

/// The entry `args` asks for.
fn entry(args: &InstallArgs) -> Result<Value, Error> {
    match (&args.url, args.command.is_empty()) {
        (Some(url), true) => {
            if !args.env.is_empty() {
                return Err("--env is for stdio servers; an HTTP server takes --header".into());
            }
            Ok(http_entry(args.client, url, &args.headers))
        }
        (None, false) => {
            if !args.headers.is_empty() {
                return Err("--header is for HTTP servers; a stdio server takes --env".into());
            }
            Ok(stdio_entry(args.client, &args.command, &args.env))
        }
        (Some(_), false) => Err("give either --url or a command after --, not both".into()),
        (None, true) => Err("no server: give --url URL or a stdio command after --".into()),
    }
}

/// `config` with `name` set to `entry` under `key`; `None` when it already was.
pub fn merged(config: &str, key: &str, name: &str, entry: Value) -> Result<Option<String>, Error> {
    let mut root: Map<String, Value> = if config.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str(config) {
            Ok(Value::Object(root)) => root,
            Ok(_) => return Err("the configuration is not a JSON object; left as it is".into()),
            Err(e) => {
                return Err(
                    format!("the configuration is not plain JSON ({e}); left as it is").into(),
                );
            }
        }
    };
    let servers = root.entry(key).or_insert_with(|| json!({}));
    let Value::Object(servers) = servers else {
        return Err(format!("`{key}` is not an object; left as it is").into());
    };
    if servers.get(name) == Some(&entry) {
        return Ok(None);
    }
    servers.insert(name.to_owned(), entry);
    let mut text = serde_json::to_string_pretty(&Value::Object(root))?;
    text.push('\n');
    Ok(Some(text))
}

/// Writes `text` to `path` through a temporary file in the same directory, so a reader
/// never sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), Error> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tracksuit-tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// `install`.
pub fn run(args: InstallArgs) -> Result<(), Error> {
    let path = match &args.config {
        Some(path) => path.clone(),
        None => default_config(args.client)?,
    };
    let entry = entry(&args)?;
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display()).into()),
    };
    let key = servers_key(args.client);
    match merged(&existing, key, &args.name, entry)
        .map_err(|e| format!("{}: {e}", path.display()))?
    {
        Some(text) => {
            write_atomically(&path, &text)?;
            eprintln!("{}: `{}` written under `{key}`", path.display(), args.name);
        }
        None => eprintln!("{}: `{}` already up to date", path.display(), args.name),
    }
    Ok(())
}
