//! Interop fixtures: one handoff tool that takes every kind of round, and the tasks
//! extension's tools (SEP-2663).

use super::basics::schema;
use super::modern::{AskKeys, Confirm};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracksuit::protocol::*;
use tracksuit::{Ctx, Elicited, Elicits, PhaseCtx, ToolError, ToolFn, mcp_tool};

// --- Interop fixtures: one handoff tool that takes every kind of round ------------------

/// How often `trip_planner`'s phases ran in this process (`phase_counts`).
pub(super) static BEFORE_RUNS: AtomicU64 = AtomicU64::new(0);
pub(super) static AFTER_RUNS: AtomicU64 = AtomicU64::new(0);

/// What `trip_planner` asks the user by key.
#[derive(Elicits)]
pub(super) enum TripKeys {
    /// Where would you like to go?
    #[elicit(response = Destination)]
    PickDestination {
        /// Days available for the trip.
        days: u8,
    },
}

/// A destination.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct Destination {
    /// A city
    city: String,
}

/// A trip plan, as the client's model must write it.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub(super) struct Plan {
    /// The city.
    city: String,
    /// Sights to see, one per day at most.
    sights: Vec<String>,
}

/// `trip_planner`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct TripRequest {
    /// Days available for the trip.
    days: u8,
}

/// The trip being planned (`before`'s state, sealed between rounds).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Trip {
    days: u8,
}

/// What the interactive phase found.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Chosen {
    city: String,
    sights: Vec<String>,
    booked: bool,
}

/// Plans a trip: asks the user where to go (keyed elicitation), has the client's model
/// write a typed plan (`sample_schema`, retried on invalid output), then asks the user to
/// confirm. `before` and `after` run once per call, in either protocol era.
pub(super) struct TripPlanner;

/// Plan a trip with the user and the client's model.
#[mcp_tool(elicits = TripKeys, name = "trip_planner")]
impl TripPlanner {
    async fn before(request: TripRequest, _ctx: &PhaseCtx) -> Result<Trip, ToolError> {
        BEFORE_RUNS.fetch_add(1, Ordering::SeqCst);
        Ok(Trip { days: request.days })
    }

    async fn client(trip: &Trip, ctx: &Ctx<TripKeys>) -> Result<Chosen, ToolError> {
        let Some(destination) = ctx
            .elicit(TripKeys::pick_destination(trip.days))
            .await?
            .accepted()
        else {
            return Err(ToolError::new("the user did not pick a destination"));
        };
        let plan = ctx
            .sample_schema::<Plan>()
            .prompt(format!(
                "Plan {} days in {}: list at most {} sights.",
                trip.days, destination.city, trip.days
            ))
            .max_tokens(200)
            .retries(2)
            .await?;
        let booked = ctx
            .elicit_form::<Confirm>(format!("Book {} days in {}?", trip.days, plan.parsed.city))
            .await?
            .accepted()
            .is_some_and(|c| c.ok);
        Ok(Chosen {
            city: plan.parsed.city,
            sights: plan.parsed.sights,
            booked,
        })
    }

    async fn after(trip: Trip, out: Chosen, _ctx: &PhaseCtx) -> String {
        AFTER_RUNS.fetch_add(1, Ordering::SeqCst);
        format!(
            "{} days in {}: {}; booked={}",
            trip.days,
            out.city,
            out.sights.join(", "),
            out.booked
        )
    }
}

/// How often `trip_planner`'s `before` and `after` phases ran in this process.
#[mcp_tool]
pub(super) async fn phase_counts() -> String {
    json!({
        "before": BEFORE_RUNS.load(Ordering::SeqCst),
        "after": AFTER_RUNS.load(Ordering::SeqCst),
    })
    .to_string()
}

/// Tasks extension (SEP-2663): a plain tool that never runs as a task.
#[mcp_tool]
pub(super) async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Tasks extension: sleeps `seconds` (cancellable: a cancelled task stops sleeping), then
/// reports its `label`.
#[mcp_tool(task_support = "optional")]
pub(super) async fn slow_compute(ctx: &Ctx, seconds: f64, label: Option<String>) -> String {
    let wait = Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
    tokio::select! {
        _ = tokio::time::sleep(wait) => {}
        _ = ctx.cancelled() => {}
    }
    format!(
        "computed {} after {seconds}s",
        label.unwrap_or_else(|| "result".into())
    )
}

/// Tasks extension: must run as a task; fails as a tool (an `isError` result).
#[mcp_tool(task_support = "required")]
pub(super) async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(ToolError::new("the job failed"))
}

/// Tasks extension: fails with a JSON-RPC error (the task ends `failed`).
#[mcp_tool(task_support = "optional")]
pub(super) async fn protocol_error_job() -> Result<String, ToolError> {
    Err(ToolError::protocol(ErrorObject::internal(
        "protocol_error_job always fails",
    )))
}

/// Whether to delete.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct DeleteConfirm {
    /// Delete the file?
    confirm: bool,
}

/// Tasks extension: asks for a confirmation (the task's `inputRequests`), then answers.
#[mcp_tool(task_support = "optional")]
pub(super) async fn confirm_delete(ctx: &Ctx, filename: String) -> Result<String, ToolError> {
    let confirmed = ctx
        .elicit_form::<DeleteConfirm>(&format!("Delete {filename}?"))
        .await?
        .accepted()
        .is_some_and(|c| c.confirm);
    Ok(if confirmed {
        format!("deleted {filename}")
    } else {
        format!("kept {filename}")
    })
}

/// A name and a confirmation.
#[derive(serde::Deserialize, Elicits)]
pub(super) struct NameConfirm {
    /// A name
    name: String,
    /// Go ahead?
    confirm: bool,
}

/// Tasks extension: asks two things at once (two `inputRequests`, answerable one by one).
#[mcp_tool(task_support = "optional")]
pub(super) async fn multi_input(ctx: &Ctx) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(
        ctx.elicit_form::<NameConfirm>("First input"),
        ctx.elicit_form::<NameConfirm>("Second input"),
    );
    let name = |e: Elicited<NameConfirm>| match e.accepted() {
        Some(n) if n.confirm => n.name,
        Some(n) => format!("{} (unconfirmed)", n.name),
        None => "nobody".into(),
    };
    Ok(format!("got {} and {}", name(first?), name(second?)))
}

/// Tasks extension: asks the user's name in multi round-trip rounds, then becomes a task
/// (`Ctx::become_task`) whose result greets them.
pub(super) fn test_tool_with_task() -> impl tracksuit::ToolHandler {
    // Argument-less, in the shape derived tools publish (strict converters and LangChain's
    // adapter read `properties`).
    let no_arguments = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let mut t = Tool::new("test_tool_with_task", schema(no_arguments));
    t.description = Some("Asks your name, then greets you from a task".into());
    t.execution = Some(ToolExecution {
        task_support: Some(TaskSupport::Required),
    });
    ToolFn::new(t, |ctx: Ctx, _| async move {
        let name = ctx
            .with_keys::<AskKeys>()
            .elicit(AskKeys::user_name())
            .await?
            .accepted()
            .map(|n| n.name)
            .unwrap_or_else(|| "stranger".into());
        ctx.become_task().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(CallToolResult::text(format!(
            "Hello, {name}! (from a task)"
        )))
    })
    .input_before_task_then()
}
