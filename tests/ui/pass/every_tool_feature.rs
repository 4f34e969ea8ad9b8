//! A tool using every attribute, context injection and structured output.
use tracksuit::{Ctx, Json, Server, mcp_tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    celsius: f64,
}

/// Gets the forecast.
#[mcp_tool(
    name = "weather.get",
    title = "Weather",
    description = "Forecast for a city",
    read_only,
    destructive,
    idempotent,
    open_world,
    icons = ["https://example.com/sun.png"],
    meta = r#"{"ui": "card"}"#
)]
async fn get_weather(
    ctx: &Ctx,
    cancel: tokio_util::sync::CancellationToken,
    /// The city
    city: String,
    days: Option<u8>,
) -> Result<Json<Forecast>, String> {
    let _ = (ctx, cancel, days);
    if city.is_empty() {
        return Err("no city".into());
    }
    Ok(Json(Forecast { celsius: 21.5 }))
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).tool(get_weather);
}
