//! The tracksuit twin with `OtelLayer` on: what the layer costs a served call end to end,
//! against the plain twin of the same build (`OTEL=1 scripts/bench-ab.sh`). Built with
//! `--features otel`. `TWIN_OTEL=sdk` (the default) gives the layer an OpenTelemetry SDK
//! tracer provider with no exporter: every request's span is created, sampled, given its
//! attributes and ended, then dropped. `TWIN_OTEL=noop` leaves the global no-op providers.

use opentelemetry::metrics::noop::NoopMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracksuit::otel::{OtelLayer, Telemetry};
use tracksuit_bench::tracksuit_tools::{built, tools};

#[path = "tracksuit_twin.rs"]
#[allow(dead_code)]
mod twin;

fn main() -> std::io::Result<()> {
    let noop = std::env::var("TWIN_OTEL").is_ok_and(|v| v == "noop");
    twin::serve_with(true, move || {
        let layer = if noop {
            OtelLayer::new()
        } else {
            let tracers = SdkTracerProvider::builder().build();
            OtelLayer::with_telemetry(Telemetry::new(&tracers, &NoopMeterProvider::new()))
        };
        built(tools().layer(layer))
    })
}
