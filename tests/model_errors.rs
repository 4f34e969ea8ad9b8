//! The texts a client (and its model) reads when arguments are wrong, end to end over an
//! in-process connection: a tool's invalid arguments (an `isError` result naming every
//! allowed value, the expected format, the whole range) and a prompt's (`-32602` naming the
//! argument and what it must be). Exact texts: a change to one is a change to what models read.

use serde_json::json;
use tracksuit::RequestError;
use tracksuit::protocol::{CallToolResult, ErrorObject};
use tracksuit::{Server, client::Client, mcp_prompt, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Category {
    Groceries,
    Dining,
    Transport,
    Rent,
    Utilities,
    Health,
    Travel,
    Gifts,
    Other,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Expense {
    #[allow(dead_code)] // its schema is what this test reads
    category: Category,
    /// The day it was spent.
    #[schemars(extend("format" = "date"))]
    on: String,
    /// Whole euros.
    #[schemars(range(min = 1, max = 10000))]
    amount: u32,
}

/// Files an expense.
#[mcp_tool]
async fn file_expense(#[params] expense: Expense) -> String {
    format!("filed {} on {}", expense.amount, expense.on)
}

/// Reports on a month.
#[mcp_prompt]
async fn month_report(month: u8, detailed: Option<bool>) -> String {
    format!("Report on month {month} (detailed: {detailed:?})")
}

/// Refuses a month it has no data for, with the code of an invalid argument.
#[mcp_prompt]
async fn archive(month: String) -> Result<String, ErrorObject> {
    if month != "2026-11" {
        return Err(ErrorObject::invalid_params(format!(
            "no archive for {month}: only 2026-11"
        )));
    }
    Ok("the November archive".into())
}

async fn client() -> Client {
    let server = Server::new(tracksuit::crate_info!())
        .tool(file_expense)
        .prompt(month_report)
        .prompt(archive)
        .build()
        .expect("a server");
    tracksuit::host::connect_in_memory(server, Client::builder())
        .await
        .expect("connected")
}

fn error_text(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    result.content[0].as_text().expect("a text")
}

#[tokio::test]
async fn a_tools_invalid_arguments_name_what_is_allowed() {
    let client = client().await;
    let call = |args| client.call_tool("file_expense", args);
    let wrong_category = call(json!({"category": "snacks", "on": "2026-11-28", "amount": 12}));
    assert_eq!(
        error_text(&wrong_category.await.expect("a result")),
        "Invalid arguments for tool `file_expense`: `category`: \"snacks\" is not allowed: use \
         one of \"groceries\", \"dining\", \"transport\", \"rent\", \"utilities\", \"health\", \
         \"travel\", \"gifts\", \"other\""
    );
    let wrong_date = call(json!({"category": "rent", "on": "28/11/2026", "amount": 12}));
    assert_eq!(
        error_text(&wrong_date.await.expect("a result")),
        "Invalid arguments for tool `file_expense`: `on`: \"28/11/2026\" is not a valid date \
         (expected YYYY-MM-DD, e.g. 2026-07-28)"
    );
    let too_much = call(json!({"category": "rent", "on": "2026-11-28", "amount": 20000}));
    assert_eq!(
        error_text(&too_much.await.expect("a result")),
        "Invalid arguments for tool `file_expense`: `amount`: 20000 is out of range (expected \
         an integer from 1 to 10000)"
    );
    let fine = call(json!({"category": "rent", "on": "2026-11-28", "amount": 900}));
    let fine = fine.await.expect("a result");
    assert_eq!(fine.content[0].as_text(), Some("filed 900 on 2026-11-28"));
}

fn rpc_error(e: RequestError) -> ErrorObject {
    match e {
        RequestError::Peer(e) => e,
        other => panic!("not a JSON-RPC error: {other}"),
    }
}

#[tokio::test]
async fn a_prompts_invalid_argument_is_invalid_params_naming_it() {
    let client = client().await;
    let bad_month = client.get_prompt("month_report", json!({"month": "thirteenth"}));
    let e = rpc_error(bad_month.await.expect_err("refused"));
    assert_eq!(e.code, -32602);
    assert_eq!(
        e.message,
        "Invalid params: argument `month`: \"thirteenth\" is not valid (expected an integer from 0 to 255)"
    );
    let bad_flag = client.get_prompt("month_report", json!({"month": "11", "detailed": "yes"}));
    let e = rpc_error(bad_flag.await.expect_err("refused"));
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "Invalid params: argument `detailed`: \"yes\" is not valid (expected true or false)"
        )
    );
    let missing = client.get_prompt("month_report", json!({}));
    let e = rpc_error(missing.await.expect_err("refused"));
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "Invalid params: missing required argument `month` for prompt `month_report`"
        )
    );
    let fine = client.get_prompt("month_report", json!({"month": " 11 ", "detailed": "true"}));
    let text = serde_json::to_value(&fine.await.expect("a prompt").messages[0]).expect("JSON");
    assert_eq!(
        text["content"]["text"],
        "Report on month 11 (detailed: Some(true))"
    );
}

#[tokio::test]
async fn a_prompt_returning_an_error_object_keeps_its_code() {
    let client = client().await;
    let e = rpc_error(
        client
            .get_prompt("archive", json!({"month": "2025-01"}))
            .await
            .expect_err("refused"),
    );
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "Invalid params: no archive for 2025-01: only 2026-11"
        )
    );
}
