//! The tracksuit MCP client behind OAuth (`client::oauth`), for end-to-end runs against
//! authorization servers nobody here wrote: tests/interop/auth/client.mjs drives it against
//! `oidc-provider` in front of the `auth` example server, and against the TypeScript SDK's
//! demo authorization server.
//!
//! It connects to `--server` in the chosen era, runs the steps given as arguments in order
//! and prints one JSON line per step (what the tool said, the scopes held afterwards,
//! whether a refresh token is held, whether the access token changed), then a summary (the era spoken, how often the user
//! agent ran). Steps:
//!
//! - a tool name (`whoami`), `name=text` (`write_note=hello` calls it with `{"text"}`) or
//!   `name={json}` (the arguments as given);
//! - `tools`: `tools/list`;
//! - `wait-expiry`: waits until the client deems its access token expired (give the
//!   authorization server a short token lifetime; the next request refreshes it);
//! - `spoil`: replaces the stored access token with one no server accepts, keeping the
//!   refresh token (the next request is refused with `401` and the client must refresh).
//!
//! The user agent is scripted: it follows the authorization server's redirects (login and
//! consent pages that approve at once, carrying their cookies) until the redirect URI, and
//! hands that URL back without contacting it. With `--loopback` the client uses the
//! command-line user agent instead (`LoopbackUserAgent`: the URL printed, the browser's
//! redirect received on 127.0.0.1).
//!
//! ```text
//! cargo run -p tracksuit-examples --bin oauth_client -- \
//!     --server http://127.0.0.1:8000/mcp --era stateless whoami write_note=hi
//! cargo run -p tracksuit-examples --bin oauth_client -- --server http://127.0.0.1:8000/mcp \
//!     --grant client-credentials --client-id svc --client-secret svc-secret whoami
//! ```

use clap::{Parser, ValueEnum};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracksuit::client::oauth::{
    CallbackUserAgent, ClientRegistration, LoopbackUserAgent, OAuthClient, OAuthError,
    PrivateKeyJwt, Url,
};
use tracksuit::client::{Client, Era, HttpTransport};

#[derive(Parser)]
#[command(about = "an MCP client behind OAuth, with a scripted user agent")]
struct Args {
    /// The MCP endpoint.
    #[arg(long)]
    server: String,
    /// The protocol era to speak.
    #[arg(long, value_enum, default_value_t = EraArg::Session)]
    era: EraArg,
    /// How to obtain tokens.
    #[arg(long, value_enum, default_value_t = Grant::Code)]
    grant: Grant,
    /// The client id: a pre-registered public client with `--grant code` (default: dynamic
    /// client registration); the confidential client with the other grants.
    #[arg(long)]
    client_id: Option<String>,
    /// The client secret (`--grant client-credentials`).
    #[arg(long)]
    client_secret: Option<String>,
    /// A PEM file with the client's private key (`--grant private-key-jwt`).
    #[arg(long)]
    key: Option<String>,
    /// The key's algorithm (`--grant private-key-jwt`).
    #[arg(long, default_value = "ES256")]
    alg: String,
    /// The redirect URI registered (never contacted: the user agent stops there).
    #[arg(long, default_value = "http://127.0.0.1:8976/callback")]
    redirect_uri: String,
    /// Use the command-line user agent instead of the scripted one: a listener on a free
    /// loopback port, the authorization URL printed to standard error for a browser (or a
    /// test acting as one) to open.
    #[arg(long)]
    loopback: bool,
    /// The steps, in order.
    steps: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EraArg {
    Session,
    Stateless,
    Negotiate,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Grant {
    /// Authorization code + PKCE through the scripted user agent.
    Code,
    /// Client credentials with a secret.
    ClientCredentials,
    /// Client credentials with a `private_key_jwt` assertion.
    PrivateKeyJwt,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let agent = ScriptedAgent::default();
    let loopback = match args.loopback {
        true => Some(LoopbackUserAgent::bind(0).await?),
        false => None,
    };
    let oauth = oauth_client(&args, agent.clone(), loopback)?;
    let era = match args.era {
        EraArg::Session => Era::Session,
        EraArg::Stateless => Era::Stateless,
        EraArg::Negotiate => Era::Negotiate,
    };
    let transport = HttpTransport::new(&args.server)?.oauth(oauth.clone());
    let client = Client::builder().era(era).connect(transport).await?;
    let mut last = current_token(&oauth, &args.server).await;
    for step in &args.steps {
        let outcome = run_step(&client, &oauth, &args.server, step).await;
        let stored = oauth.store().token(&args.server).await;
        let token = stored.as_ref().map(|t| t.access_token.clone());
        let mut line = json!({
            "step": step,
            "scopes": stored.as_ref().map(|t| t.scopes.clone()).unwrap_or_default(),
            "refresh_token": stored.is_some_and(|t| t.refresh_token.is_some()),
            "token_changed": token != last,
        });
        match outcome {
            Ok(text) => line["text"] = json!(text),
            Err(error) => line["error"] = json!(error),
        }
        println!("{line}");
        last = token;
    }
    let summary = json!({
        "summary": {
            "era": if client.era() == Era::Stateless { "stateless" } else { "session" },
            // The scripted user agent's runs (0 with --loopback: the browser counts those).
            "user_agent_runs": agent.runs.load(Ordering::SeqCst),
        }
    });
    println!("{summary}");
    Ok(())
}

/// The access token kept for `server`, if any (compared between steps, never printed).
async fn current_token(oauth: &OAuthClient, server: &str) -> Option<String> {
    oauth.store().token(server).await.map(|t| t.access_token)
}

/// One step: a tool call's text (an `isError` result is an error), `tools`, or `spoil`.
async fn run_step(
    client: &Client,
    oauth: &OAuthClient,
    server: &str,
    step: &str,
) -> Result<String, String> {
    match step {
        "tools" => {
            let tools = client.list_tools(None).await.map_err(|e| e.to_string())?;
            let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
            Ok(names.join(" "))
        }
        "wait-expiry" => {
            // Waits (polling the store) until the client deems the token expired.
            for _ in 0..600 {
                match oauth.store().token(server).await {
                    Some(token) if token.expired() => return Ok("expired".into()),
                    Some(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                    None => return Err("no token".into()),
                }
            }
            Err("the token did not expire within 60 s".into())
        }
        "spoil" => {
            let mut token = oauth
                .store()
                .token(server)
                .await
                .ok_or("no token to spoil")?;
            token.access_token = "spoiled".into();
            oauth.store().save_token(server, token).await;
            Ok("spoiled".into())
        }
        _ => {
            let (name, arguments) = match step.split_once('=') {
                Some((name, object)) if object.starts_with('{') => {
                    let arguments = serde_json::from_str(object).map_err(|e| e.to_string())?;
                    (name, arguments)
                }
                Some((name, text)) => (name, json!({ "text": text })),
                None => (step, json!({})),
            };
            let result = client
                .call_tool(name, arguments)
                .await
                .map_err(|e| e.to_string())?;
            let text: String = result.content.iter().filter_map(|c| c.as_text()).collect();
            if result.is_error == Some(true) {
                return Err(text);
            }
            Ok(text)
        }
    }
}

fn oauth_client(
    args: &Args,
    agent: ScriptedAgent,
    loopback: Option<LoopbackUserAgent>,
) -> Result<OAuthClient, OAuthError> {
    let builder = OAuthClient::builder().client_name("tracksuit-oauth-e2e");
    let id = || {
        args.client_id
            .clone()
            .ok_or_else(|| OAuthError::Config("--client-id is needed".into()))
    };
    let builder = match args.grant {
        Grant::Code => {
            let redirect_uri = args.redirect_uri.clone();
            let builder = match loopback {
                Some(loopback) => builder.user_agent(loopback),
                None => builder
                    .user_agent(CallbackUserAgent::new(redirect_uri.clone(), move |url| {
                        agent.clone().approve(url, redirect_uri.clone())
                    })),
            };
            match &args.client_id {
                Some(id) => builder.pre_registered(ClientRegistration::public(id.clone())),
                None => builder,
            }
        }
        Grant::ClientCredentials => {
            let secret = args.client_secret.clone().unwrap_or_default();
            builder.client_credentials(ClientRegistration::confidential(id()?, secret))
        }
        Grant::PrivateKeyJwt => {
            let path = args.key.as_deref().unwrap_or_default();
            let pem = std::fs::read_to_string(path)
                .map_err(|e| OAuthError::Config(format!("{path}: {e}")))?;
            builder.private_key_jwt(PrivateKeyJwt::from_pem(id()?, &pem, &args.alg)?)
        }
    };
    builder.build()
}

/// A user agent that approves whatever the authorization server shows: it follows the
/// redirects (carrying cookies, as a browser would) to the redirect URI.
#[derive(Clone, Default)]
struct ScriptedAgent {
    cookies: Arc<Mutex<HashMap<String, String>>>,
    runs: Arc<AtomicUsize>,
}

/// The most redirects one authorization may take.
const MAX_HOPS: usize = 12;

impl ScriptedAgent {
    async fn approve(self, url: Url, redirect_uri: String) -> Result<Url, OAuthError> {
        let failed = |e: String| OAuthError::UserAgent(e);
        self.runs.fetch_add(1, Ordering::SeqCst);
        tracing::info!(%url, "the user agent opens");
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| failed(e.to_string()))?;
        let mut url = url;
        for _ in 0..MAX_HOPS {
            let response = http
                .get(url.clone())
                .header("cookie", self.cookie_header())
                .send()
                .await
                .map_err(|e| failed(e.to_string()))?;
            self.keep_cookies(&response);
            let status = response.status();
            let Some(location) = response
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
            else {
                let body = response.text().await.unwrap_or_default();
                return Err(failed(format!("stopped at {url} (HTTP {status}): {body}")));
            };
            url = url.join(location).map_err(|e| failed(e.to_string()))?;
            if url.as_str().starts_with(&redirect_uri) {
                return Ok(url);
            }
        }
        Err(failed(format!("more than {MAX_HOPS} redirects")))
    }

    fn cookie_header(&self) -> String {
        let jar = self.cookies.lock().unwrap_or_else(|e| e.into_inner());
        let pairs: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join("; ")
    }

    fn keep_cookies(&self, response: &reqwest::Response) {
        let mut jar = self.cookies.lock().unwrap_or_else(|e| e.into_inner());
        for cookie in response.headers().get_all("set-cookie") {
            let Ok(cookie) = cookie.to_str() else {
                continue;
            };
            let pair = cookie.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                jar.insert(name.trim().to_owned(), value.trim().to_owned());
            }
        }
    }
}
