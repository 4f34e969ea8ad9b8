//! Connecting `tracksuit::client::Client` to a [`Target`]: a stdio command run as a child
//! process (`ChildTransport`) or a Streamable HTTP URL (`HttpTransport`), in the era asked.

use crate::Error;
use crate::cli::{EraArg, Target};
use std::time::Duration;
use tracksuit::client::{ChildTransport, Client, Era, HttpTransport};
use tracksuit::protocol::{Implementation, ServerCapabilities};

impl From<EraArg> for Era {
    fn from(era: EraArg) -> Era {
        match era {
            EraArg::Session => Era::Session,
            EraArg::Stateless => Era::Stateless,
            EraArg::Negotiate => Era::Negotiate,
        }
    }
}

/// Connects to `target`; `extra_env` is added to a stdio server's environment.
pub async fn connect(target: &Target, extra_env: &[(String, String)]) -> Result<Client, Error> {
    let builder = Client::builder()
        .info(Implementation::new(
            "cargo-tracksuit",
            env!("CARGO_PKG_VERSION"),
        ))
        .era(target.era.into())
        .timeout(Duration::from_secs(target.timeout));
    match (&target.url, target.command.split_first()) {
        (Some(url), None) => {
            let mut transport = HttpTransport::new(url)?;
            for (name, value) in &target.headers {
                transport = transport.header(name, value)?;
            }
            Ok(builder.connect(transport).await?)
        }
        (None, Some((program, args))) => {
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            command.envs(target.env.iter().chain(extra_env).cloned());
            let transport = ChildTransport::spawn(command)
                .map_err(|e| format!("cannot start {program}: {e}"))?;
            Ok(builder.connect(transport).await?)
        }
        (Some(_), Some(_)) => Err("give either --url or a command after --, not both".into()),
        (None, None) => {
            Err("no server: give --url URL or a stdio command after -- (e.g. -- ./target/debug/my-server)".into())
        }
    }
}

/// What the server said it supports, in either era.
pub fn capabilities(client: &Client) -> ServerCapabilities {
    if let Some(init) = client.server_init() {
        return init.capabilities.clone();
    }
    client
        .discovered()
        .map(|d| d.capabilities.clone())
        .unwrap_or_default()
}

/// The server's name and version, in either era.
pub fn server_info(client: &Client) -> Option<Implementation> {
    if let Some(init) = client.server_init() {
        return Some(init.server_info.clone());
    }
    client.discovered().and_then(|d| d.server())
}

/// The era's name as the command line spells it.
pub fn era_name(client: &Client) -> &'static str {
    match client.era() {
        Era::Stateless => "stateless (2026-07-28)",
        _ => "session (2025-11-25)",
    }
}
