//! `inspect`, `list` and `call`: one connection through `tracksuit::client`, one answer
//! printed, the connection closed.

use crate::Error;
use crate::cli::{CallArgs, InspectArgs, Kind, ListArgs, ProfileArg};
use crate::connect::{capabilities, connect, era_name, server_info};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::process::ExitCode;
use tracksuit::SchemaProfile;
use tracksuit::client::Client;

/// Pages one list may take before the server is taken to loop.
const MAX_PAGES: usize = 1000;

/// The four lists: kind, method, the result's array member.
const LISTS: [(Kind, &str, &str); 4] = [
    (Kind::Tools, "tools/list", "tools"),
    (Kind::Prompts, "prompts/list", "prompts"),
    (Kind::Resources, "resources/list", "resources"),
    (
        Kind::Templates,
        "resources/templates/list",
        "resourceTemplates",
    ),
];

impl From<ProfileArg> for SchemaProfile {
    fn from(profile: ProfileArg) -> SchemaProfile {
        match profile {
            ProfileArg::Portable => SchemaProfile::Portable,
            ProfileArg::OpenaiStrict => SchemaProfile::OpenAiStrict,
            ProfileArg::GeminiSafe => SchemaProfile::GeminiSafe,
            ProfileArg::Raw => SchemaProfile::Raw,
        }
    }
}

/// Every page of one list, as the server sent it.
async fn all_pages(client: &Client, method: &str, member: &str) -> Result<Vec<Value>, Error> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page: Value = client
            .request(method, params)
            .await
            .map_err(|e| format!("{method}: {e}"))?;
        if let Some(found) = page.get(member).and_then(Value::as_array) {
            items.extend(found.iter().cloned());
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(items),
        }
    }
    Err(format!("{method}: more than {MAX_PAGES} pages").into())
}

/// The lists `kind` asks for that the server offers: `(member, items)`.
async fn lists(client: &Client, kind: Kind) -> Result<Vec<(&'static str, Vec<Value>)>, Error> {
    let caps = capabilities(client);
    let mut out = Vec::new();
    for (k, method, member) in LISTS {
        let offered = match k {
            Kind::Tools => caps.tools.is_some(),
            Kind::Prompts => caps.prompts.is_some(),
            _ => caps.resources.is_some(),
        };
        if offered && (kind == Kind::All || kind == k) {
            out.push((member, all_pages(client, method, member).await?));
        }
    }
    Ok(out)
}

fn text(item: &Value, key: &str) -> String {
    item.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// One line per item: its name (or URI) and description.
fn summary(member: &str, item: &Value) -> String {
    let id = match member {
        "resources" => format!("{} ({})", text(item, "uri"), text(item, "name")),
        "resourceTemplates" => format!("{} ({})", text(item, "uriTemplate"), text(item, "name")),
        _ => text(item, "name"),
    };
    let description = text(item, "description");
    let first = description.lines().next().unwrap_or_default();
    if first.is_empty() {
        format!("  {id}")
    } else {
        format!("  {id} — {first}")
    }
}

fn heading(client: &Client) -> String {
    let info = server_info(client)
        .map(|i| format!("{} {}", i.name, i.version))
        .unwrap_or_else(|| "(unnamed server)".into());
    format!("{info}, {}", era_name(client))
}

/// `list`.
pub async fn list(args: ListArgs) -> Result<ExitCode, Error> {
    let client = connect(&args.target, &[]).await?;
    let found = lists(&client, args.kind).await?;
    let mut out = String::new();
    if args.json {
        let object: serde_json::Map<String, Value> = found
            .into_iter()
            .map(|(member, items)| (member.to_owned(), Value::Array(items)))
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&object)?)?;
        return emit(&out);
    }
    writeln!(out, "{}", heading(&client))?;
    for (member, items) in found {
        writeln!(out, "{member} ({}):", items.len())?;
        for item in &items {
            writeln!(out, "{}", summary(member, item))?;
        }
    }
    emit(&out)
}

/// `inspect`: every item in full; tools' input schemas in the profile asked for.
pub async fn inspect(args: InspectArgs) -> Result<ExitCode, Error> {
    let profile = args.profile.map(SchemaProfile::from);
    // A stdio tracksuit server rewrites its schemas itself, per the environment variable.
    let env: Vec<(String, String)> = profile
        .map(|p| ("TRACKSUIT_SCHEMA_PROFILE".to_owned(), p.as_str().to_owned()))
        .into_iter()
        .collect();
    let client = connect(&args.target, &env).await?;
    let mut found = lists(&client, Kind::All).await?;
    // Over HTTP the server's own profile cannot be chosen from here: rewrite what it sent.
    if let (Some(profile), Some(_)) = (profile, &args.target.url) {
        for (member, items) in &mut found {
            if *member == "tools" {
                items.iter_mut().for_each(|tool| reprofile(tool, profile));
            }
        }
    }
    let mut object = serde_json::Map::new();
    object.insert("server".into(), json!(server_info(&client)));
    object.insert("era".into(), json!(era_name(&client)));
    object.insert("capabilities".into(), json!(capabilities(&client)));
    if let Some(p) = profile {
        object.insert("profile".into(), json!(p.as_str()));
    }
    for (member, items) in found {
        object.insert(member.to_owned(), Value::Array(items));
    }
    let mut out = String::new();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&object)?)?;
    } else {
        print_inspection(&mut out, &client, &object)?;
    }
    emit(&out)
}

/// A tool's `inputSchema` through `profile` (client side, for servers reached by URL).
fn reprofile(tool: &mut Value, profile: SchemaProfile) {
    if let Some(schema) = tool.get("inputSchema").and_then(Value::as_object) {
        let rewritten = profile.apply(schema);
        tool["inputSchema"] = Value::Object(rewritten);
    }
}

fn print_inspection(
    out: &mut String,
    client: &Client,
    object: &serde_json::Map<String, Value>,
) -> Result<(), Error> {
    writeln!(out, "{}", heading(client))?;
    if let Some(p) = object.get("profile").and_then(Value::as_str) {
        writeln!(out, "schema profile: {p}")?;
    }
    for (_, _, member) in LISTS {
        let Some(items) = object.get(member).and_then(Value::as_array) else {
            continue;
        };
        writeln!(out, "\n== {member} ({}) ==", items.len())?;
        for item in items {
            writeln!(out, "\n{}", summary(member, item).trim_start())?;
            let mut rest = item.as_object().cloned().unwrap_or_default();
            for key in ["name", "uri", "uriTemplate"] {
                rest.remove(key);
            }
            // A one-line description is already on the item's first line.
            if rest
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.contains('\n'))
            {
                rest.remove("description");
            }
            for (key, value) in rest {
                let shown = match &value {
                    Value::String(s) => s.clone(),
                    other => serde_json::to_string_pretty(other)?,
                };
                writeln!(out, "  {key}: {}", shown.replace('\n', "\n  "))?;
            }
        }
    }
    Ok(())
}

/// `call`: exit status 1 when the tool reports an error (`isError`).
pub async fn call(args: CallArgs) -> Result<ExitCode, Error> {
    let arguments: Value =
        serde_json::from_str(&args.args).map_err(|e| format!("--args is not JSON: {e}"))?;
    if !arguments.is_object() {
        return Err("--args must be a JSON object".into());
    }
    let client = connect(&args.target, &[]).await?;
    let result = client
        .call_tool(&args.tool, arguments)
        .await
        .map_err(|e| format!("tools/call {}: {e}", args.tool))?;
    let failed = result.is_error == Some(true);
    let mut out = String::new();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        for block in &result.content {
            match block.as_text() {
                Some(text) => writeln!(out, "{text}"),
                None => writeln!(out, "{}", serde_json::to_string_pretty(block)?),
            }?;
        }
        if result.content.is_empty()
            && let Some(structured) = &result.structured_content
        {
            writeln!(out, "{}", serde_json::to_string_pretty(structured)?)?;
        }
    }
    emit(&out)?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes the output; a reader that went away (`| head`) is not an error.
fn emit(out: &str) -> Result<ExitCode, Error> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
