"""OpenTelemetry end to end, judged by parts tracksuit did not write.

The official Python MCP client (`mcp` 2.x, which makes a span per request and writes its
context into `params._meta`), instrumented with the official OpenTelemetry SDK, calls the
`otel` example under a root span of its own, in both protocol eras. The example exports
OTLP/HTTP to a loopback receiver here that decodes it with the official
`opentelemetry-proto` package, and a real Prometheus server (Debian's) scrapes its
`/metrics`. Checks: one trace from the client's root span through tracksuit's server span
to the sampling request's span, each 2026-07-28 round a server span under the client's
span for it, the attributes and `error.type` of the MCP semantic conventions, the duration
metrics over OTLP and through Prometheus's HTTP API.

Usage: check.py <path of the otel example binary>
Prints PASS/FAIL per check, then "N passed, M failed"; exits 1 on any failure.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext
from opentelemetry import trace
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

DEADLINE = 30.0  # seconds any one wait may take (each returns as soon as its condition holds)
results = {"passed": 0, "failed": 0}


def check(name: str, ok: bool, detail: object = "") -> bool:
    results["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else f': {detail}'}", flush=True)
    return ok


def wait_for(what: str, probe: Callable[[], Any]) -> Any:
    """`probe()`'s first truthy value; None (and a failed check) after DEADLINE."""
    start = time.monotonic()
    while time.monotonic() - start < DEADLINE:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    check(f"waiting until {what}", False, f"not within {DEADLINE}s")
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- the OTLP receiver


class Received:
    """What tracksuit exported, decoded with opentelemetry-proto."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[Span] = []
        self.metrics: list[ExportMetricsServiceRequest] = []

    def spans_of(self, trace_id: int) -> list[Span]:
        with self.lock:
            return [s for s in self.spans if int.from_bytes(s.trace_id, "big") == trace_id]

    def all_spans(self) -> list[Span]:
        with self.lock:
            return list(self.spans)

    def histogram_points(self, name: str) -> list[tuple[dict[str, str], int]]:
        points = []
        with self.lock:
            requests = list(self.metrics)
        for request in requests:
            for rm in request.resource_metrics:
                for sm in rm.scope_metrics:
                    for metric in sm.metrics:
                        if metric.name != name or not metric.HasField("histogram"):
                            continue
                        for p in metric.histogram.data_points:
                            points.append(({kv.key: any_value(kv.value) for kv in p.attributes}, p.count))
        return points


def any_value(v: Any) -> str:
    kind = v.WhichOneof("value")
    return str(getattr(v, kind)) if kind else ""


def receiver(received: Received) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path == "/v1/traces":
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with received.lock:
                    for rs in request.resource_spans:
                        for ss in rs.scope_spans:
                            received.spans.extend(ss.spans)
                answer = ExportTraceServiceResponse().SerializeToString()
            elif self.path == "/v1/metrics":
                request = ExportMetricsServiceRequest()
                request.ParseFromString(body)
                with received.lock:
                    received.metrics.append(request)
                answer = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------- span helpers


def attrs(span: Span) -> dict[str, str]:
    return {kv.key: any_value(kv.value) for kv in span.attributes}


def sid(span: Span) -> int:
    return int.from_bytes(span.span_id, "big")


def parent(span: Span) -> int:
    return int.from_bytes(span.parent_span_id, "big") if span.parent_span_id else 0


def named(spans: list[Span], name: str, kind: int) -> list[Span]:
    return [s for s in spans if s.name == name and s.kind == kind]


SERVER, CLIENT = Span.SpanKind.SPAN_KIND_SERVER, Span.SpanKind.SPAN_KIND_CLIENT


# ---------------------------------------------------------------- the scenarios


class Model:
    """The client's side of sampling: answers, and keeps the `_meta` each request carried."""

    def __init__(self) -> None:
        self.metas: list[dict[str, Any]] = []

    async def on_sample(
        self, ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        dumped = params.model_dump(by_alias=True, exclude_none=True)
        self.metas.append(dict(dumped.get("_meta") or {}))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="word"),
            model="scripted-model",
            stop_reason="endTurn",
        )


async def run_calls(url: str, mode: str, model: Model, tracer: trace.Tracer) -> int:
    """Calls `ask` and `fails` under a root span; returns the root's trace id."""
    with tracer.start_as_current_span(f"test root {mode}") as root:
        client = Client(
            url,
            mode=mode,
            client_info=types.Implementation(name="tracksuit-otel-check", version="0.1.0"),
            sampling_callback=model.on_sample,
        )
        with anyio.fail_after(DEADLINE):
            async with client:
                result = await client.call_tool("ask", {})
                text = result.content[0].text if result.content else ""
                check(f"{mode}: ask answers the model's word", text == "word", text)
                failed = await client.call_tool("fails", {})
                check(f"{mode}: fails is a tool error", failed.is_error is True, failed)
        return root.get_span_context().trace_id


def check_legacy(received: Received, sent: InMemorySpanExporter, model: Model, trace_id: int) -> None:
    label = "2025-11-25"
    ours = wait_for(
        f"{label}: tracksuit's spans of the call arrive",
        lambda: (lambda s: s if named(s, "sampling/createMessage", CLIENT) and named(s, "tools/call fails", SERVER) else None)(
            received.spans_of(trace_id)
        ),
    ) or []
    theirs = [s for s in sent.get_finished_spans() if s.context.trace_id == trace_id]
    send_ask = [s for s in theirs if s.name == "MCP send tools/call ask"]
    served = named(ours, "tools/call ask", SERVER)
    asked = named(ours, "sampling/createMessage", CLIENT)
    if not (check(f"{label}: one client span, one server span, one sampling span", (len(send_ask), len(served), len(asked)) == (1, 1, 1), f"{len(send_ask)} {len(served)} {len(asked)} of {[s.name for s in ours]}")):
        return
    served_ask, sampling = served[0], asked[0]
    check(f"{label}: the server span's parent is the Python client's span", parent(served_ask) == send_ask[0].context.span_id, (hex(parent(served_ask)), hex(send_ask[0].context.span_id)))
    roots = [s for s in theirs if s.name.startswith("test root")]
    check(
        f"{label}: the Python client's span is under the test's root span",
        len(roots) == 1 and send_ask[0].parent is not None and send_ask[0].parent.span_id == roots[0].context.span_id,
        [s.name for s in theirs],
    )
    check(f"{label}: the sampling request's span is a child of the server span", parent(sampling) == sid(served_ask), (hex(parent(sampling)), hex(sid(served_ask))))
    a = attrs(served_ask)
    expected = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "ask",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    check(f"{label}: the server span's attributes", all(a.get(k) == v for k, v in expected.items()), a)
    check(f"{label}: jsonrpc.request.id and mcp.session.id are set", bool(a.get("jsonrpc.request.id")) and bool(a.get("mcp.session.id")), a)
    check(f"{label}: the server span is SERVER, the sampling span CLIENT", served_ask.kind == SERVER and sampling.kind == CLIENT)
    check(f"{label}: sampling span attributes", attrs(sampling).get("mcp.method.name") == "sampling/createMessage", attrs(sampling))
    carried = (model.metas[0] if model.metas else {}).get("traceparent", "")
    check(
        f"{label}: the sampling request carried its span's context in _meta",
        carried == f"00-{trace_id:032x}-{sid(sampling):016x}-01",
        carried,
    )
    failed = named(ours, "tools/call fails", SERVER)
    fa = attrs(failed[0]) if failed else {}
    check(f"{label}: a tool error is error.type=tool_error with an error status", fa.get("error.type") == "tool_error" and failed[0].status.code == Status.StatusCode.STATUS_CODE_ERROR, fa)
    strays = [s for s in received.all_spans() if s.name == "tools/call ask" and int.from_bytes(s.trace_id, "big") != trace_id and attrs(s).get("mcp.protocol.version") == "2025-11-25"]
    check(f"{label}: no span of the call in another trace", not strays, strays)


def check_modern(received: Received, sent: InMemorySpanExporter, trace_id: int) -> None:
    label = "2026-07-28"
    ours = wait_for(
        f"{label}: tracksuit's spans of both rounds arrive",
        lambda: (lambda s: s if len(named(s, "tools/call ask", SERVER)) >= 2 and named(s, "tools/call fails", SERVER) else None)(
            received.spans_of(trace_id)
        ),
    ) or []
    theirs = [s for s in sent.get_finished_spans() if s.context.trace_id == trace_id]
    sends = {s.context.span_id for s in theirs if s.name == "MCP send tools/call ask"}
    rounds = named(ours, "tools/call ask", SERVER)
    check(f"{label}: two rounds, two Python client spans, two server spans", len(sends) == 2 and len(rounds) == 2, f"{len(sends)} sends, {len(rounds)} rounds")
    check(f"{label}: each round's server span is a child of the client span that sent it", {parent(r) for r in rounds} == sends, ([hex(parent(r)) for r in rounds], [hex(s) for s in sends]))
    asked = [r for r in rounds if any(e.name == "input_required" for e in r.events)]
    check(f"{label}: the first round is marked input_required", len(asked) == 1, [[e.name for e in r.events] for r in rounds])
    check(f"{label}: rounds carry mcp.protocol.version 2026-07-28", all(attrs(r).get("mcp.protocol.version") == "2026-07-28" for r in rounds), [attrs(r) for r in rounds])


def prometheus_query(port: int, query: str) -> list[Any]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
    except OSError:
        return []
    return body.get("data", {}).get("result", []) if body.get("status") == "success" else []


def check_prometheus(server_port: int) -> None:
    binary = shutil.which("prometheus")
    if not check("prometheus is installed", binary is not None):
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = f"{tmp}/prometheus.yml"
        with open(config, "w") as f:
            f.write(
                "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                "scrape_configs:\n"
                "  - job_name: tracksuit\n"
                "    scrape_interval: 1s\n"
                f"    static_configs: [{{targets: ['127.0.0.1:{server_port}']}}]\n"
            )
        prom = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={tmp}/data", f"--web.listen-address=127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=open(f"{tmp}/prometheus.log", "w"),
        )
        try:
            tool_errors = 'sum(mcp_server_operation_duration_seconds_count{gen_ai_tool_name="fails",error_type="tool_error"})'
            got = wait_for("Prometheus has scraped the tool-error series", lambda: [r for r in prometheus_query(port, tool_errors) if float(r["value"][1]) >= 2])
            check("prometheus: both tool errors counted (mcp_server_operation_duration_seconds_count)", bool(got), got)
            by_method = prometheus_query(port, "sum by (mcp_method_name) (mcp_server_operation_duration_seconds_count)")
            methods = {r["metric"].get("mcp_method_name") for r in by_method}
            check("prometheus: the operation series by method", {"tools/call", "initialize"} <= methods, methods)
            sessions = prometheus_query(port, "sum(mcp_server_session_duration_seconds_count)")
            check("prometheus: the 2025-11-25 session's duration (mcp_server_session_duration_seconds)", bool(sessions) and float(sessions[0]["value"][1]) >= 1, sessions)
            sampled = prometheus_query(port, 'sum(mcp_client_operation_duration_seconds_count{mcp_method_name="sampling/createMessage"})')
            check("prometheus: the sampling request's client duration", bool(sampled) and float(sampled[0]["value"][1]) >= 1, sampled)
        finally:
            prom.terminate()
            prom.wait(timeout=10)


def main() -> int:
    binary = sys.argv[1]
    received = Received()
    otlp = receiver(received)
    provider = TracerProvider()
    sent = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(sent))
    trace.set_tracer_provider(provider)
    tracer = trace.get_tracer("tracksuit-otel-check")

    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--otlp", f"http://127.0.0.1:{otlp.server_address[1]}"],
    )
    try:
        if not wait_for("the example accepts connections", lambda: _accepts(port)):
            return 1
        url = f"http://127.0.0.1:{port}/mcp"
        model = Model()
        legacy = anyio.run(run_calls, url, "legacy", model, tracer)
        check_legacy(received, sent, model, legacy)
        modern = anyio.run(run_calls, url, "2026-07-28", Model(), tracer)
        check_modern(received, sent, modern)
        points = wait_for(
            "mcp.server.operation.duration arrives over OTLP with the tool errors",
            lambda: [p for p in received.histogram_points("mcp.server.operation.duration") if p[0].get("error.type") == "tool_error" and p[1] >= 1],
        )
        check("otlp: mcp.server.operation.duration with error.type=tool_error", bool(points), points)
        check_prometheus(port)
    finally:
        server.terminate()
        server.wait(timeout=10)
        otlp.shutdown()
    print(f"{results['passed']} passed, {results['failed']} failed", flush=True)
    return 1 if results["failed"] else 0


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
