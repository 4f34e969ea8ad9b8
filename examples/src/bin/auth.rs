//! An MCP server protected by OAuth 2.1: it accepts only access tokens that the
//! authorization server at `--issuer` issued for this server's canonical URI (`--resource`),
//! publishes its protected resource metadata, and shows each tool who is calling.
//!
//! ```text
//! cargo run -p tracksuit-examples --bin auth -- \
//!     --port 8000 --issuer https://auth.example.com --resource http://127.0.0.1:8000/mcp
//! ```
//!
//! With `--introspection URL --client-id ID --client-secret SECRET` it checks opaque tokens
//! at the authorization server's introspection endpoint (RFC 7662) instead of JWTs. With
//! `--required-scope notes:read` every request needs that scope and a `401` asks for it
//! alone (the OAuth client end-to-end test uses it to make `write_note` a step-up).
//!
//! With `--hide-unauthorized` a caller without `notes:write` does not see `write_note` at
//! all (left out of `tools/list`, unknown to `tools/call`: `ServerOptions::hide_unauthorized`).
//!
//! Tools: `whoami` (anyone with a valid token), `write_note` (needs `notes:write`),
//! `calls` (how often the other two ran: the interop test checks that no refused request
//! reached them).

use clap::Parser;
use std::sync::atomic::{AtomicU64, Ordering};
use tracksuit::host::http::auth::{IntrospectionValidator, JwtValidator, ResourceServer};
use tracksuit::host::http::{HttpOptions, StreamableHttp, serve};
use tracksuit::{Ctx, Server, ToolError, mcp_tool};

#[derive(Parser)]
#[command(about = "tracksuit as an OAuth 2.1 resource server")]
struct Args {
    /// Port for Streamable HTTP on 127.0.0.1.
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// The authorization server's issuer identifier (its metadata gives the key set).
    #[arg(long)]
    issuer: String,
    /// This server's canonical URI: the audience its tokens must name.
    #[arg(long)]
    resource: String,
    /// Check tokens at this introspection endpoint (opaque tokens) instead of as JWTs.
    #[arg(long)]
    introspection: Option<String>,
    /// This server's client id at the authorization server (for introspection).
    #[arg(long, default_value = "")]
    client_id: String,
    /// This server's client secret at the authorization server (for introspection).
    #[arg(long, default_value = "")]
    client_secret: String,
    /// A scope every request needs (repeatable): the `scope` of the `401` challenge names
    /// these only, so a client asks for less and `write_note` makes it step up.
    #[arg(long = "required-scope")]
    required_scopes: Vec<String>,
    /// Hide what the caller's scopes do not allow (`write_note` without `notes:write`).
    #[arg(long)]
    hide_unauthorized: bool,
}

static CALLS: AtomicU64 = AtomicU64::new(0);

/// Says who is calling: the token's subject, client and scopes.
#[mcp_tool(read_only)]
async fn whoami(ctx: &Ctx) -> Result<String, ToolError> {
    CALLS.fetch_add(1, Ordering::SeqCst);
    let p = ctx
        .principal()
        .ok_or_else(|| ToolError::new("not authenticated"))?;
    Ok(format!(
        "subject={} client={} scopes={}",
        p.subject,
        p.client_id.as_deref().unwrap_or("-"),
        p.scopes.join(" ")
    ))
}

/// Writes a note (needs the `notes:write` scope).
#[mcp_tool(scopes = ["notes:write"])]
async fn write_note(
    ctx: &Ctx,
    /** the note */
    text: String,
) -> String {
    CALLS.fetch_add(1, Ordering::SeqCst);
    let who = ctx.principal().map_or("?", |p| p.subject.as_str());
    format!("{who} wrote: {text}")
}

/// How many times `whoami` and `write_note` ran.
#[mcp_tool(read_only)]
async fn calls() -> String {
    CALLS.load(Ordering::SeqCst).to_string()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let auth = match &args.introspection {
        Some(endpoint) => ResourceServer::new(
            &args.resource,
            IntrospectionValidator::new(
                endpoint,
                &args.resource,
                &args.client_id,
                &args.client_secret,
            )
            .issuer(&args.issuer),
        ),
        None => ResourceServer::new(
            &args.resource,
            JwtValidator::discover(&args.issuer, &args.resource).await?,
        ),
    };
    let auth = auth
        .authorization_server(&args.issuer)
        .scopes_supported(["notes:read", "notes:write"])
        .required_scopes(args.required_scopes.iter().cloned())
        .resource_name("tracksuit auth example");
    let options = tracksuit::ServerOptions::default().hide_unauthorized(args.hide_unauthorized);
    let server = Server::with_options(tracksuit::crate_info!(), options)
        .tool(whoami)
        .tool(write_note)
        .tool(calls)
        .build()?;
    let app = StreamableHttp::new(server, HttpOptions::default().auth(auth)).router("/mcp");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
    serve(listener, app).await?;
    Ok(())
}
