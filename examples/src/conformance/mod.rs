//! The server the official MCP conformance suite runs against
//! (`npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8001/mcp`;
//! `cargo run -p tracksuit-examples --bin conformance`).
//!
//! Every tool, resource, template and prompt the suite's server scenarios name, written with
//! the authoring macros, plus the tools the interop tests use (cancellation, a handoff tool,
//! the tasks extension's), and the fixtures of the suite's next release ([`Fixtures`]).

mod basics;
mod interop;
mod items;
mod modern;
mod next;

use tracksuit::Server;
use tracksuit::host::http::HttpOptions;
use tracksuit::protocol::Implementation;

/// Which instance to serve.
#[derive(Debug, Clone, Default)]
pub struct Fixtures {
    /// The scope-challenge instance of `sep-2350-server-scope-challenge` (conformance#481),
    /// whose resource is this URL (the one the suite is given, e.g.
    /// `http://127.0.0.1:8001/mcp`): `test_simple_text`, `test://static-text`,
    /// `test://template/{id}/data` and `test_simple_prompt` each require their own scopes,
    /// and every request needs one of the fixed tokens `mcp-conformance-scope-low` /
    /// `-full`. `None` (the default) serves them to anyone.
    pub scope_challenge: Option<String>,
}

/// The conformance server, assembled: with the skills in `examples/skills/` (SEP-2640).
///
/// ```
/// let server = tracksuit_examples::conformance::server(&Default::default())?.build()?;
/// assert!(server.tool_names().iter().any(|n| n == "test_tool_slow"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn server(fixtures: &Fixtures) -> std::io::Result<Server> {
    let skills =
        tracksuit::skills::Skills::from_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))
            .map_err(std::io::Error::other)?;
    let server = Server::new(Implementation::new(
        "tracksuit-conformance",
        env!("CARGO_PKG_VERSION"),
    ))
    .instructions("tracksuit's conformance-suite server.")
    // The suite's own fixtures come from a server of their own, mounted without a prefix:
    // every scenario that reaches them goes through a mount.
    .mount_flat(suite_fixtures())
    // And one of them again under a prefix (`mounted_test_elicitation`), for the
    // TypeScript SDK client's mount check (tests/interop/node/mount.mjs).
    .mount(
        "mounted",
        Server::new(Implementation::new("mounted", env!("CARGO_PKG_VERSION")))
            .tool(basics::test_elicitation),
    )
    .tool(basics::test_reconnection)
    .tool(basics::authorize)
    .tool(basics::needs_authorization)
    .tool(basics::wait_for_cancel)
    .tool(basics::cancelled_count)
    .tool(modern::test_trigger_tool_change)
    .tool(modern::test_trigger_prompt_change)
    .tool(modern::test_custom_header())
    .tool(interop::TripPlanner)
    .tool(interop::phase_counts)
    .tool(interop::greet)
    .tool(interop::slow_compute)
    .tool(interop::failing_job)
    .tool(interop::protocol_error_job)
    .tool(interop::confirm_delete)
    .tool(interop::multi_input)
    .tool(next::test_tool_slow)
    .tool(next::test_tool_fast)
    .skills(skills);
    Ok(match fixtures.scope_challenge {
        None => server
            .tool(basics::test_simple_text)
            .resource(items::static_text)
            .resource_template(items::template_data)
            .prompt(items::test_simple_prompt),
        Some(_) => server
            .tool(next::scoped_simple_text)
            .resource(next::scoped_static_text)
            .resource_template(next::scoped_template_data)
            .prompt(next::scoped_simple_prompt),
    })
}

/// The content, sampling, elicitation, logging, progress, multi round-trip and task tools,
/// the resources and the prompts the suite's scenarios call: a server of its own, which
/// [`server`] serves through [`Server::mount_flat`].
fn suite_fixtures() -> Server {
    Server::new(Implementation::new(
        "tracksuit-conformance-fixtures",
        env!("CARGO_PKG_VERSION"),
    ))
    .tool(basics::test_image_content)
    .tool(basics::test_audio_content)
    .tool(basics::test_embedded_resource)
    .tool(basics::test_multiple_content_types)
    .tool(basics::test_tool_with_logging)
    .tool(basics::test_tool_with_progress)
    .tool(basics::test_error_handling)
    .tool(basics::test_sampling)
    .tool(basics::test_elicitation)
    .tool(basics::test_elicitation_sep1034_defaults)
    .tool(basics::test_elicitation_sep1330_enums)
    .tool(basics::json_schema_2020_12_tool())
    .tool(modern::test_missing_capability)
    .tool(modern::test_streaming_elicitation)
    .tool(modern::test_logging_tool)
    .tool(modern::test_input_required_result_elicitation)
    .tool(modern::test_input_required_result_sampling)
    .tool(modern::test_input_required_result_list_roots)
    .tool(modern::test_input_required_result_request_state)
    .tool(modern::test_input_required_result_multiple_inputs)
    .tool(modern::test_input_required_result_multi_round)
    .tool(modern::test_input_required_result_tampered_state)
    .tool(modern::test_input_required_result_capabilities)
    .tool(interop::test_tool_with_task())
    .resource(items::static_binary)
    .resource(items::watched_resource)
    .prompt(items::test_prompt_with_arguments)
    .prompt(items::test_prompt_with_embedded_resource)
    .prompt(items::test_prompt_with_image)
    .prompt(modern::test_input_required_result_prompt)
}

/// The HTTP options of the instance: JSON or SSE responses, and the fixture tokens'
/// resource server for the scope-challenge instance.
pub fn http_options(fixtures: &Fixtures, json_response: bool) -> HttpOptions {
    let options = HttpOptions::default().json_response(json_response);
    match &fixtures.scope_challenge {
        Some(resource) => options.auth(next::resource_server(resource)),
        None => options,
    }
}
