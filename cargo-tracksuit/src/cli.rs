//! The command line (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// cargo tracksuit: a dev loop and client commands for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "cargo tracksuit", bin_name = "cargo tracksuit", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build and run the server behind a stable stdio endpoint; rebuild and restart it when
    /// its sources change, and tell the connected client (list_changed).
    Dev(DevArgs),
    /// Print every tool, prompt, resource and template with its schema.
    Inspect(InspectArgs),
    /// List the server's tools, prompts, resources and templates.
    List(ListArgs),
    /// Call one tool and print its result.
    Call(CallArgs),
    /// Write a client's configuration (Claude Code, Claude Desktop, Cursor, VS Code).
    Install(InstallArgs),
}

/// `dev`.
#[derive(Debug, Args)]
pub struct DevArgs {
    /// The package's Cargo.toml (default: the one `cargo` finds from here).
    #[arg(long)]
    pub manifest_path: Option<PathBuf>,
    /// The package to build, in a workspace.
    #[arg(long, short = 'p')]
    pub package: Option<String>,
    /// The binary to build and run (default: the package's only binary).
    #[arg(long)]
    pub bin: Option<String>,
    /// Build with `--release`.
    #[arg(long)]
    pub release: bool,
    /// Extra paths to watch (default: the package's directory, without `target/`).
    #[arg(long = "watch", value_name = "PATH")]
    pub watch: Vec<PathBuf>,
    /// Quiet time after a change before rebuilding, in milliseconds.
    #[arg(long, default_value_t = 300)]
    pub debounce_ms: u64,
    /// How long the restarted server may take to answer the replayed `initialize`, in
    /// seconds.
    #[arg(long, default_value_t = 30)]
    pub init_timeout: u64,
    /// `NAME=VALUE` set in the server's environment.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub env: Vec<(String, String)>,
    /// Serve Streamable HTTP on this loopback port (`/mcp`; 0 picks one) instead of stdio.
    /// The server itself still runs over stdio, one child per 2025 session and one for
    /// 2026-07-28 requests.
    #[arg(long)]
    pub port: Option<u16>,
    /// Arguments for the server (after `--`), e.g. `-- --stdio`.
    #[arg(last = true)]
    pub server_args: Vec<String>,
}

/// Which protocol era the client speaks.
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum EraArg {
    /// 2025-11-25: `initialize`, then a session.
    Session,
    /// 2026-07-28: stateless requests.
    Stateless,
    /// `server/discover` first: 2026-07-28 when offered, else a session.
    #[default]
    Negotiate,
}

/// Where the server is: a stdio command after `--`, or `--url`.
#[derive(Debug, Args)]
pub struct Target {
    /// A Streamable HTTP endpoint instead of a stdio command.
    #[arg(long)]
    pub url: Option<String>,
    /// `Name: value` sent with every HTTP request (e.g. `Authorization: Bearer ...`).
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// `NAME=VALUE` set in a stdio server's environment.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub env: Vec<(String, String)>,
    /// The protocol era.
    #[arg(long, value_enum, default_value_t)]
    pub era: EraArg,
    /// Request timeout in seconds.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// The stdio server's command and arguments (after `--`).
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// A schema profile (`tracksuit::SchemaProfile`).
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ProfileArg {
    /// The portable form (tracksuit's default).
    Portable,
    /// OpenAI's strict mode.
    OpenaiStrict,
    /// The OpenAPI 3.0 subset Gemini accepts.
    GeminiSafe,
    /// As derived, unrewritten.
    Raw,
}

/// `inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub target: Target,
    /// Show the input schemas in this profile: a stdio server is started with
    /// `TRACKSUIT_SCHEMA_PROFILE` (a tracksuit server rewrites them itself); a URL's schemas
    /// are rewritten here.
    #[arg(long, value_enum)]
    pub profile: Option<ProfileArg>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `list` lists.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum Kind {
    /// Everything.
    #[default]
    All,
    /// Tools.
    Tools,
    /// Prompts.
    Prompts,
    /// Resources.
    Resources,
    /// Resource templates.
    Templates,
}

/// `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// What to list.
    #[arg(value_enum, default_value_t)]
    pub kind: Kind,
    #[command(flatten)]
    pub target: Target,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool's name.
    pub tool: String,
    /// The arguments, a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
    #[command(flatten)]
    pub target: Target,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The clients `install` writes for.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ClientKind {
    /// Claude Code: `.mcp.json` (project scope).
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json`.
    Vscode,
}

/// `install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which client's configuration to write.
    #[arg(long, value_enum)]
    pub client: ClientKind,
    /// The server's name in the configuration.
    #[arg(long)]
    pub name: String,
    /// The configuration file (default: the client's usual file, see `--help`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A Streamable HTTP server's URL (instead of a stdio command after `--`).
    #[arg(long)]
    pub url: Option<String>,
    /// `Name: value` the client sends with every HTTP request (e.g. an `Authorization`
    /// header).
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// `NAME=VALUE` in a stdio server's environment.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub env: Vec<(String, String)>,
    /// The stdio server's command and arguments (after `--`).
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// `NAME=VALUE`.
pub fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("expected NAME=VALUE, got {s:?}")),
    }
}

/// `Name: value`.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    match s.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("expected `Name: value`, got {s:?}")),
    }
}
