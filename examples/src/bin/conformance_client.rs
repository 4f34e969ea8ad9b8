//! A client for the official MCP conformance suite's client scenarios:
//!
//! ```text
//! conformance client --command "target/debug/conformance_client" --scenario tools_call
//! ```
//!
//! The suite starts a scenario server and runs this binary with the server's URL as the last
//! argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO`, the spec version under test
//! in `MCP_CONFORMANCE_PROTOCOL_VERSION` (2026-07-28 selects the stateless era) and any
//! scenario inputs (JSON) in `MCP_CONFORMANCE_CONTEXT`.
//!
//! The Skills scenarios (`sep-2640-client-*`) list the server's skills and, except in
//! `sep-2640-client-no-prefetch`, load each and read its files through the verifying skills
//! client; a skill that fails verification is refused (reported on stderr, exit 0).
//!
//! Every other scenario gets the same session: connect, list the tools and call each (except in
//! `json-schema-ref-no-deref`, whose server only lists them) (with the
//! arguments the context gives, or arguments made up from the schema; a tool named
//! `json_schema_echo` is handed the other tool's `inputSchema`), then read each resource
//! and get each prompt the server offers. Elicitations are accepted with the form's
//! defaults, sampling is answered with a fixed text, roots list one directory.
//!
//! The `auth/*` scenarios put the session behind OAuth (`client::oauth`): the suite's
//! authorization server approves at once, so the user agent step is a `GET` of the
//! authorization URL whose redirect `Location` is the callback. The client ID metadata
//! document URL is the suite's fixed one; the context's `client_id` / `client_secret` are
//! pre-registered credentials (or, for `auth/client-credentials-*`, the client credentials,
//! with the context's private key for `-jwt`). The extension scenarios: `auth/dpop*` bind
//! the tokens to a DPoP key made for the run; `auth/enterprise-managed-authorization`
//! exchanges the context's `idp_id_token` at its `idp_token_endpoint` (as `idp_client_id`)
//! for an ID-JAG; `auth/wif-jwt-bearer` presents the context's `valid_jwt`.

use serde_json::{Value, json};
use std::process::ExitCode;
use tracksuit::client::oauth::{
    CallbackUserAgent, ClientRegistration, DpopKey, EnterpriseAuthorization, JwtSource,
    OAuthClient, OAuthError, PrivateKeyJwt, Url, WorkloadIdentity,
};
use tracksuit::client::{
    Client, Era, HttpTransport, MODERN_PROTOCOL_VERSION, SkillClientError, form_defaults,
};
use tracksuit::protocol::*;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client <server URL>");
        return ExitCode::from(2);
    };
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| LATEST_PROTOCOL_VERSION.to_owned());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let call_tools = scenario != "json-schema-ref-no-deref";
    let oauth = match scenario
        .starts_with("auth/")
        .then(|| oauth_client(&scenario, &context))
    {
        Some(Err(e)) => {
            eprintln!("conformance client: {e}");
            return ExitCode::FAILURE;
        }
        Some(Ok(oauth)) => Some(oauth),
        None => None,
    };
    let outcome = match connect(&url, &version, oauth).await {
        Ok(client) if scenario.starts_with(SKILLS_SCENARIOS) => {
            skills(&client, scenario != "sep-2640-client-no-prefetch").await
        }
        Ok(client) => run(&client, &context, call_tools).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(0) => ExitCode::SUCCESS,
        Ok(failed) => {
            eprintln!("{failed} request(s) failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("conformance client: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The Skills extension's client scenarios (SEP-2640).
const SKILLS_SCENARIOS: &str = "sep-2640-client-";

async fn connect(
    url: &str,
    version: &str,
    oauth: Option<OAuthClient>,
) -> Result<Client, Box<dyn std::error::Error>> {
    let mut transport = HttpTransport::new(url)?;
    if let Some(oauth) = oauth {
        transport = transport.oauth(oauth);
    }
    let era = if version == MODERN_PROTOCOL_VERSION {
        Era::Stateless
    } else {
        Era::Session
    };
    let client = Client::builder()
        .info(Implementation::new(
            "tracksuit-conformance-client",
            env!("CARGO_PKG_VERSION"),
        ))
        .era(era)
        .on_elicitation(|params| async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(form_defaults(&params)),
                meta: None,
                extra: Default::default(),
            })
        })
        .on_sampling(|_params| async move {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: OneOrMany::One(SamplingMessageContentBlock::Text(TextContent::new(
                    "A reply from the conformance client.",
                ))),
                model: "tracksuit-conformance".into(),
                stop_reason: Some(StopReason::EndTurn),
                meta: None,
                extra: Default::default(),
            })
        })
        .roots(vec![Root {
            uri: "file:///tmp/conformance".into(),
            name: Some("conformance".into()),
            meta: None,
        }])
        .connect(transport)
        .await?;
    Ok(client)
}

async fn run(
    client: &Client,
    context: &Value,
    call_tools: bool,
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut failed = 0;
    let mut report = |what: String, outcome: Result<(), tracksuit::RequestError>| {
        if let Err(e) = outcome {
            eprintln!("{what}: {e}");
            failed += 1;
        }
    };

    let tools = client.list_tools(None).await?.tools;
    for tool in tools.iter().filter(|_| call_tools) {
        let arguments = arguments_for(tool, &tools, context);
        let outcome = client.call_tool(&tool.name, arguments).await.map(drop);
        report(format!("tools/call {}", tool.name), outcome);
    }

    let capabilities = match (client.server_init(), client.discovered()) {
        (Some(init), _) => init.capabilities.clone(),
        (None, Some(discovered)) => discovered.capabilities.clone(),
        (None, None) => Default::default(),
    };
    if capabilities.resources.is_some() {
        for resource in client.list_resources(None).await?.resources {
            let outcome = client.read_resource(&resource.uri).await.map(drop);
            report(format!("resources/read {}", resource.uri), outcome);
        }
    }
    if capabilities.prompts.is_some() {
        for prompt in client.list_prompts(None).await?.prompts {
            let outcome = client.get_prompt(&prompt.name, json!({})).await.map(drop);
            report(format!("prompts/get {}", prompt.name), outcome);
        }
    }
    Ok(failed)
}

/// Lists the server's skills; with `load`, loads each (reading and verifying its `SKILL.md`)
/// and reads its other files. A skill that fails verification is refused, which is what the
/// scenarios that serve one want: it is reported, not counted as a failure.
async fn skills(client: &Client, load: bool) -> Result<usize, Box<dyn std::error::Error>> {
    let entries = client.skills().list_all().await?;
    for entry in entries.iter().filter(|_| load) {
        let skill = match client.skills().load(entry).await {
            Ok(skill) => skill,
            Err(SkillClientError::Request(e)) => return Err(e.into()),
            Err(refused) => {
                eprintln!("refused skill {}: {refused}", entry.uri);
                continue;
            }
        };
        let paths: Vec<String> = skill.paths().map(str::to_owned).collect();
        for path in paths.iter().filter(|p| *p != "SKILL.md") {
            if let Err(refused) = skill.file(path).await {
                eprintln!("refused {path} of {}: {refused}", entry.uri);
            }
        }
    }
    Ok(0)
}

/// The suite's client ID metadata document URL (its authorization server accepts it as is).
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth client for an `auth/*` scenario.
fn oauth_client(scenario: &str, context: &Value) -> Result<OAuthClient, OAuthError> {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let credentials = text("client_id").map(|id| match text("client_secret") {
        Some(secret) => ClientRegistration::confidential(id.clone(), secret),
        None => ClientRegistration::public(id.clone()),
    });
    let builder = OAuthClient::builder().client_name("test-auth-client");
    let builder = match credentials {
        Some(c) if scenario == "auth/client-credentials-jwt" => {
            let pem = text("private_key_pem").unwrap_or_default();
            let algorithm = text("signing_algorithm").unwrap_or_else(|| "ES256".into());
            builder.private_key_jwt(PrivateKeyJwt::from_pem(c.client_id, &pem, &algorithm)?)
        }
        Some(c) if scenario.starts_with("auth/client-credentials") => builder.client_credentials(c),
        Some(c) if scenario == "auth/wif-jwt-bearer" => {
            let jwt = JwtSource::fixed(text("valid_jwt").unwrap_or_default());
            builder.workload_identity(WorkloadIdentity::new(jwt).client_id(c.client_id))
        }
        Some(c) => builder.pre_registered(c),
        None => builder,
    };
    let builder = match scenario {
        "auth/enterprise-managed-authorization" => {
            let endpoint = text("idp_token_endpoint").unwrap_or_default();
            let id_token = JwtSource::fixed(text("idp_id_token").unwrap_or_default());
            let idp_client = ClientRegistration::public(text("idp_client_id").unwrap_or_default());
            builder.enterprise(
                EnterpriseAuthorization::new(endpoint, id_token)?.idp_client(idp_client),
            )
        }
        s if s.starts_with("auth/dpop") => builder.dpop(DpopKey::generate()?),
        _ => builder,
    };
    builder
        .client_metadata_url(CIMD_URL)
        .user_agent(CallbackUserAgent::new(
            "http://localhost:3000/callback",
            approve,
        ))
        .build()
}

/// The user agent step against an authorization server that approves at once: the
/// redirect it answers the authorization URL with.
async fn approve(url: Url) -> Result<Url, OAuthError> {
    let failed = |e: String| OAuthError::UserAgent(e);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let response = http
        .get(url.clone())
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    let location = response
        .headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .ok_or_else(|| {
            failed(format!(
                "no redirect from {url} (HTTP {})",
                response.status()
            ))
        })?;
    url.join(location).map_err(|e| failed(e.to_string()))
}

/// The arguments to call `tool` with: the scenario's, the sibling schema for an echo tool,
/// or values made up for its required parameters.
fn arguments_for(tool: &Tool, tools: &[Tool], context: &Value) -> Value {
    let given = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|call| call.get("name").and_then(Value::as_str) == Some(tool.name.as_str()));
    if let Some(arguments) = given.and_then(|call| call.get("arguments")) {
        return arguments.clone();
    }
    if tool.name == "json_schema_echo"
        && let Some(other) = tools.iter().find(|t| t.name != tool.name)
    {
        return json!({ "schema": other.input_schema });
    }
    let schema = &tool.input_schema;
    let mut arguments = serde_json::Map::new();
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = name.as_str() else { continue };
        let kind = schema
            .get("properties")
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string");
        let value = match kind {
            "integer" => json!(2),
            "number" => json!(3),
            "boolean" => json!(true),
            "object" => json!({}),
            "array" => json!([]),
            "null" => Value::Null,
            _ => json!("conformance"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}
