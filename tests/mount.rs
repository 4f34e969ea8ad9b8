//! `Server::mount`, `mount_with` and `mount_flat`: a mounted server's tools, prompts,
//! resources and templates served through another, in both eras, in memory and over
//! Streamable HTTP — calls, prompts, reads, completions, elicitation (2025 requests and 2026
//! MRTR rounds), tasks, each server's own app state, merged instructions — and the build
//! errors: duplicates naming both sources, settings a mount cannot honour.

use serde_json::json;
use tokio::net::TcpListener;
use tracksuit::client::{Client, ClientBuilder, Era, HttpTransport, TaskCall};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{
    Ctx, Elicits, Mount, Server, ServerError, ServerHandle, ToolError, mcp_prompt, mcp_resource,
    mcp_tool,
};
use tracksuit_tests::support::{connect, text, within};

/// Whose ledger a handler sees.
struct Ledger(&'static str);

/// A value only the outer server has.
struct Region(&'static str);

/// Pays an invoice from the ledger this server was given.
#[mcp_tool]
async fn pay(ctx: &Ctx, invoice: u32) -> Result<String, ToolError> {
    let region = ctx.state::<Region>().map(|r| r.0).unwrap_or("none");
    Ok(format!(
        "{invoice} paid from {} in {region}",
        ctx.state::<Ledger>()?.0
    ))
}

/// An amount.
#[derive(serde::Deserialize, Elicits)]
struct Amount {
    /// How much
    amount: u32,
}

/// Asks how much to refund, twice (two rounds on 2026-07-28).
#[mcp_tool]
async fn refund(ctx: &Ctx) -> Result<String, ToolError> {
    let mut total = 0;
    for n in 1..=2 {
        let answer = ctx.elicit_form::<Amount>(format!("amount {n}?")).await?;
        total += answer.accepted().map_or(0, |a| a.amount);
    }
    Ok(format!(
        "refunded {total} from {}",
        ctx.state::<Ledger>()?.0
    ))
}

/// A long job that may run as a task.
#[mcp_tool(task_support = "optional")]
async fn settle(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(format!("settled {}", ctx.state::<Ledger>()?.0))
}

/// Drafts a dunning letter.
#[mcp_prompt(complete = complete_customers)]
async fn dun(
    /// The customer
    customer: String,
) -> String {
    format!("Remind {customer} to pay.")
}

async fn complete_customers(ctx: &Ctx, _argument: &str, value: &str) -> Vec<String> {
    let ledger = ctx.state::<Ledger>().map(|l| l.0).unwrap_or("none");
    ["acme", "apex", "zeta"]
        .iter()
        .filter(|c| c.starts_with(value))
        .map(|c| format!("{c}@{ledger}"))
        .collect()
}

/// The billing policy.
#[mcp_resource(uri = "billing://policy", mime_type = "text/plain")]
async fn policy() -> String {
    "net 30".into()
}

/// An invoice by number.
#[mcp_resource(uri = "billing://invoices/{n}", complete = complete_invoices)]
async fn invoice(n: u32) -> String {
    format!("invoice {n}")
}

async fn complete_invoices(ctx: &Ctx, _variable: &str, value: &str) -> Vec<String> {
    let ledger = ctx.state::<Ledger>().map(|l| l.0).unwrap_or("none");
    [format!("1-{ledger}"), format!("2-{ledger}")]
        .into_iter()
        .filter(|i| i.starts_with(value))
        .collect()
}

/// Says which ledger the outer server has.
#[mcp_tool]
async fn whose(ctx: &Ctx) -> Result<String, ToolError> {
    Ok(ctx.state::<Ledger>()?.0.to_owned())
}

/// The billing server on its own, with its own ledger.
fn billing() -> Server {
    Server::new(Implementation::new("billing", "1.0.0"))
        .state(Ledger("billing"))
        .instructions("Pay before you refund.")
        .tool(pay)
        .tool(refund)
        .tool(settle)
        .prompt(dun)
        .resource(policy)
        .resource_template(invoice)
}

/// An outer server with a ledger of its own and a region, billing mounted at `billing`.
fn outer() -> ServerHandle {
    Server::new(tracksuit::crate_info!())
        .state(Ledger("outer"))
        .state(Region("eu"))
        .instructions("Ask before paying.")
        .tool(whose)
        .mount("billing", billing())
        .build()
        .expect("distinct names")
}

/// A client that answers each form with `amount` = 5.
fn answering(era: Era) -> ClientBuilder {
    Client::builder().era(era).on_elicitation(|_params| async {
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: Some(
                json!({"amount": 5})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            meta: None,
            extra: Default::default(),
        })
    })
}

/// Everything the mounted server offers, through `client`.
async fn exercise(client: &Client) {
    let tools: Vec<String> = client
        .list_tools(None)
        .await
        .expect("tools/list")
        .tools
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        tools,
        ["whose", "billing_pay", "billing_refund", "billing_settle"]
    );
    let paid = client
        .call_tool("billing_pay", json!({"invoice": 7}))
        .await
        .expect("call");
    assert_eq!(text(&paid), "7 paid from billing in eu", "{paid:?}");
    let own = client.call_tool("whose", json!({})).await.expect("call");
    assert_eq!(text(&own), "outer");
    let refunded = client
        .call_tool("billing_refund", json!({}))
        .await
        .expect("call");
    assert_eq!(text(&refunded), "refunded 10 from billing");
    let unprefixed = client.call_tool("pay", json!({"invoice": 1})).await;
    let error = unprefixed.expect_err("the mounted name is the prefixed one");
    assert!(error.to_string().contains("Unknown tool: pay"), "{error}");

    let prompts = client.list_prompts(None).await.expect("prompts/list");
    assert_eq!(prompts.prompts[0].name, "billing_dun");
    let prompt = client
        .get_prompt("billing_dun", json!({"customer": "acme"}))
        .await
        .expect("prompts/get");
    assert_eq!(prompt.messages.len(), 1);
    let done = client
        .complete(
            json!({"type": "ref/prompt", "name": "billing_dun"}),
            "customer",
            "a",
        )
        .await
        .expect("complete");
    assert_eq!(
        done["completion"]["values"],
        json!(["acme@billing", "apex@billing"])
    );

    let resources = client.list_resources(None).await.expect("resources/list");
    assert_eq!(resources.resources[0].uri, "billing://policy", "URIs kept");
    let read = client
        .read_resource("billing://policy")
        .await
        .expect("read");
    assert_eq!(
        serde_json::to_value(&read.contents[0]).expect("json")["text"],
        "net 30"
    );
    let templates = client
        .list_resource_templates(None)
        .await
        .expect("templates/list");
    assert_eq!(
        templates.resource_templates[0].uri_template,
        "billing://invoices/{n}"
    );
    let read = client
        .read_resource("billing://invoices/12")
        .await
        .expect("read through the template");
    assert_eq!(
        serde_json::to_value(&read.contents[0]).expect("json")["text"],
        "invoice 12"
    );
    let done = client
        .complete(
            json!({"type": "ref/resource", "uri": "billing://invoices/{n}"}),
            "n",
            "1",
        )
        .await
        .expect("complete");
    assert_eq!(done["completion"]["values"], json!(["1-billing"]));
}

#[tokio::test]
async fn a_prefixed_mount_serves_everything_in_memory_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let client = connect(outer(), answering(era)).await;
        exercise(&client).await;
    }
}

/// Serves `server` on a loopback port; returns the endpoint URL.
async fn start(server: ServerHandle) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server, HttpOptions::default()).router("/mcp");
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    format!("http://{addr}/mcp")
}

#[tokio::test]
async fn a_prefixed_mount_serves_everything_over_http_in_both_eras() {
    let url = start(outer()).await;
    for era in [Era::Session, Era::Stateless] {
        let transport = HttpTransport::new(&url).expect("url");
        let client = within("connect", answering(era).connect(transport))
            .await
            .expect("connected");
        assert_eq!(client.era(), era);
        exercise(&client).await;
    }
}

#[tokio::test]
async fn instructions_are_merged_naming_the_mount() {
    let client = connect(outer(), Client::builder()).await;
    let init = client.server_init().expect("initialized");
    assert_eq!(
        init.instructions.as_deref(),
        Some("Ask before paying.\n\nFrom mount `billing`:\nPay before you refund.")
    );
}

#[tokio::test]
async fn a_mounted_tool_runs_as_a_task_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let client = connect(outer(), answering(era).tasks_extension()).await;
        let call = within(
            "tools/call",
            client.call_tool_task("billing_settle", json!({}), None),
        )
        .await
        .expect("created");
        let TaskCall::Task(task) = call else {
            panic!("{era:?}: expected a task");
        };
        assert_eq!(task.is_extension(), era == Era::Stateless, "{era:?}");
        let result = within("the task's result", task.result()).await;
        assert_eq!(
            text(&result.expect("completed")),
            "settled billing",
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn flat_mounts_keep_names_and_a_chosen_separator_joins_them() {
    let server = Server::new(tracksuit::crate_info!())
        .mount_flat(Server::new(tracksuit::crate_info!()).tool(pay))
        .mount_with(
            "billing",
            Server::new(tracksuit::crate_info!()).tool(pay),
            Mount::separator("."),
        )
        .state(Ledger("outer"))
        .build()
        .expect("distinct names");
    assert_eq!(server.tool_names(), ["pay", "billing.pay"]);
    let client = connect(server, Client::builder()).await;
    let paid = client
        .call_tool("billing.pay", json!({"invoice": 1}))
        .await
        .expect("call");
    // The mounted server had no ledger: the outer one's is seen.
    assert_eq!(text(&paid), "1 paid from outer in none");
}

#[tokio::test]
async fn nested_mounts_read_the_innermost_state_first() {
    let inner = Server::new(tracksuit::crate_info!())
        .state(Ledger("inner"))
        .tool(pay);
    let middle = Server::new(tracksuit::crate_info!())
        .state(Region("middle"))
        .mount("inner", inner);
    let server = Server::new(tracksuit::crate_info!())
        .state(Ledger("outer"))
        .state(Region("outer"))
        .mount("middle", middle)
        .build()
        .expect("distinct names");
    assert_eq!(server.tool_names(), ["middle_inner_pay"]);
    let client = connect(server, Client::builder()).await;
    let paid = client
        .call_tool("middle_inner_pay", json!({"invoice": 3}))
        .await
        .expect("call");
    assert_eq!(text(&paid), "3 paid from inner in middle");
}

fn duplicate(server: Server) -> String {
    server.build().expect_err("a duplicate").to_string()
}

#[test]
fn duplicates_name_both_sources() {
    let on_server = Server::new(tracksuit::crate_info!())
        .tool(named("billing_pay"))
        .mount("billing", Server::new(tracksuit::crate_info!()).tool(pay));
    assert_eq!(
        duplicate(on_server),
        "tool `billing_pay` from mount `billing` collides with tool `billing_pay` registered on the server"
    );
    let two_mounts = Server::new(tracksuit::crate_info!())
        .mount_flat(Server::new(Implementation::new("a", "1")).resource(policy))
        .mount_flat(Server::new(Implementation::new("b", "1")).resource(policy));
    assert_eq!(
        duplicate(two_mounts),
        "resource `billing://policy` from the flat mount of `b` collides with resource `billing://policy` from the flat mount of `a`"
    );
    let after = Server::new(tracksuit::crate_info!())
        .mount_flat(Server::new(Implementation::new("a", "1")).prompt(dun))
        .prompt(dun)
        .build()
        .expect_err("a duplicate");
    assert!(
        matches!(&after, ServerError::Duplicate { kind: "prompt", existing_from: Some(a), added_from: None, .. } if a == "the flat mount of `a`"),
        "{after:?}"
    );
    let nested = Server::new(tracksuit::crate_info!())
        .tool(named("m_n_pay"))
        .mount(
            "m",
            Server::new(tracksuit::crate_info!())
                .mount("n", Server::new(tracksuit::crate_info!()).tool(pay)),
        );
    assert_eq!(
        duplicate(nested),
        "tool `m_n_pay` from mount `m` (its mount `n`) collides with tool `m_n_pay` registered on the server"
    );
}

#[test]
fn what_a_mount_cannot_honour_is_a_build_error() {
    let cases: [(Server, &str); 4] = [
        (
            Server::new(tracksuit::crate_info!()).layer(tower::layer::util::Identity::new()),
            "layers",
        ),
        (
            Server::new(tracksuit::crate_info!())
                .task_store(tracksuit::task::InMemoryTaskStore::new()),
            "a task store",
        ),
        (
            Server::new(tracksuit::crate_info!()).visibility(|_, _| true),
            "visibility rules",
        ),
        (
            Server::with_options(
                tracksuit::crate_info!(),
                tracksuit::ServerOptions::default().hide_unauthorized(true),
            ),
            "`hide_unauthorized`",
        ),
    ];
    for (mounted, what) in cases {
        let error = Server::new(tracksuit::crate_info!())
            .mount("part", mounted)
            .build()
            .expect_err("refused");
        assert!(matches!(error, ServerError::Mount { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.starts_with("cannot mount mount `part`: it has "),
            "{message}"
        );
        assert!(message.contains(what), "{message}");
    }
    let bad_prefix = Server::new(tracksuit::crate_info!())
        .mount("a b", Server::new(tracksuit::crate_info!()))
        .build();
    assert!(matches!(bad_prefix, Err(ServerError::Mount { .. })));
    // The mounted server's own mistakes surface too.
    let inner_duplicate = Server::new(tracksuit::crate_info!())
        .mount(
            "x",
            Server::new(tracksuit::crate_info!()).tool(pay).tool(pay),
        )
        .build();
    assert!(matches!(
        inner_duplicate,
        Err(ServerError::Duplicate {
            existing_from: None,
            added_from: None,
            ..
        })
    ));
}

/// A tool of a given name that answers its name.
fn named(name: &str) -> impl tracksuit::ToolHandler + use<> {
    let name = name.to_owned();
    tracksuit::ToolFn::new(
        Tool::new(name.clone(), Default::default()),
        move |_ctx, _| {
            let name = name.clone();
            async move { Ok(CallToolResult::text(name)) }
        },
    )
}
