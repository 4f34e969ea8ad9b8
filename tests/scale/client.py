"""Checks three tracksuit replicas behind HAProxy (scripts/scale-out.sh starts them), over
plain HTTP so every round's replica is visible (HAProxy's X-Served-By header):

1. modern (2026-07-28), round-robin front: a multi round-trip call's rounds land on
   different replicas and the call completes (the sealed requestState opens everywhere);
2. a list change announced on one replica reaches a subscriptions/listen stream held open
   on another (the PostgreSQL event bus);
3. the tasks extension (2026-07-28), round-robin front: an interactive task (`journey`, a
   handoff tool asking two stops) created on one replica is polled, updated with input and
   cancelled through the others, and a listen stream on a replica that does not run it hears
   its status changes (notifications/tasks over the PostgreSQL event bus); then the replica
   running such a task is SIGKILLed between two answers: the survivors answer tasks/get from
   the store, one takes it over once the lease runs out and resumes it by replay, and the
   journey completes with `before` run once (on the dead replica) and `after` once (on the
   survivor);
4. 2025-11-25, sticky front: a session's requests stay on one replica; a task created there
   survives as a record when that replica is SIGKILLed: another replica does not settle it
   while the dead one's lease lasts, then reports it failed; a finished task's result stays
   readable from the survivors.

Usage: client.py --front PORT --sticky PORT --pids name=pid,name=pid,... --lease-ms N --log-dir DIR
Prints PASS/FAIL per check, then "N passed, M failed"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import sys
import time
from typing import Any

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TIMEOUT = 10.0  # seconds: any single wait longer than this fails the check

passed = 0
failed = 0


def check(name: str, ok: bool, detail: Any = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL {name}: {detail}", flush=True)
    return ok


def sse_messages(resp: http.client.HTTPResponse, want_id: Any = None):
    """Yields the JSON messages of an SSE (or JSON) response; stops after the response
    whose id is `want_id` when given."""
    ctype = resp.getheader("content-type", "")
    if "text/event-stream" not in ctype:
        body = resp.read()
        if body:
            yield json.loads(body)
        return
    data: list[str] = []
    while True:
        line = resp.readline()  # de-chunked
        if not line:
            return
        line = line.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            joined = "\n".join(data).strip()
            data = []
            if not joined:  # a priming event (2025-11-25) carries no message
                continue
            msg = json.loads(joined)
            yield msg
            if want_id is not None and msg.get("id") == want_id and "method" not in msg:
                return


class Http:
    def __init__(self, port: int) -> None:
        self.port = port

    def post(self, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], list[dict]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            h = {"content-type": "application/json", "accept": "application/json, text/event-stream", **headers}
            conn.request("POST", "/mcp", json.dumps(body), h)
            resp = conn.getresponse()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
            msgs = list(sse_messages(resp, body.get("id"))) if resp.status == 200 else []
            if resp.status != 200:
                resp.read()
            return resp.status, hdrs, msgs
        finally:
            conn.close()


def modern_request(rid: int, method: str, params: dict, caps: dict | None = None) -> tuple[dict, dict[str, str]]:
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps or {},
    }
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if method == "tools/call":
        headers["mcp-name"] = params["name"]
    elif method.startswith("tasks/"):
        headers["mcp-name"] = params["taskId"]
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, headers


def response(msgs: list[dict], rid: int) -> dict:
    for m in msgs:
        if m.get("id") == rid and "method" not in m:
            return m
    return {}


def text(result: dict) -> str:
    content = result.get("content") or []
    return content[0].get("text", "") if content else ""


def multi_round(front: Http) -> None:
    caps = {"elicitation": {"form": {}}}
    served: list[str] = []
    answers = {}
    state = None
    result: dict = {}
    words = iter(["alpha", "beta", "gamma"])
    for rnd in range(1, 5):
        params: dict = {"name": "two_words", "arguments": {}}
        if state is not None:
            params["inputResponses"] = answers
            params["requestState"] = state
        body, headers = modern_request(100 + rnd, "tools/call", params, caps)
        status, hdrs, msgs = front.post(body, headers)
        served.append(hdrs.get("x-served-by", "?"))
        result = response(msgs, 100 + rnd).get("result", {})
        if status != 200 or result.get("resultType") != "input_required":
            break
        answers = {key: {"action": "accept", "content": {"word": next(words)}} for key in result["inputRequests"]}
        state = result["requestState"]
    check("modern: the two-question call completes through the balancer", text(result).startswith("alpha beta"), result)
    check("modern: it took three rounds", len(served) == 3, served)
    check("modern: its rounds landed on different replicas", len(set(served)) >= 2, served)
    finisher = text(result).rsplit("finished on ", 1)[-1].rstrip(")")
    check("modern: the replica that finished it is the one HAProxy names", finisher == served[-1], (finisher, served))
    print(f"     rounds served by {served}", flush=True)


def listen_across_replicas(front: Http) -> None:
    body, headers = modern_request(1, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    conn = http.client.HTTPConnection("127.0.0.1", front.port, timeout=TIMEOUT)
    conn.request("POST", "/mcp", json.dumps(body), {"content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    resp = conn.getresponse()
    listener = resp.getheader("x-served-by", "?")
    stream = sse_messages(resp)
    ack = next(stream, {})
    check("listen: the stream is acknowledged", ack.get("method") == "notifications/subscriptions/acknowledged", ack)
    # Round-robin: the next requests go to the other replicas; announce on one that is not
    # the listener's.
    announcer = listener
    for i in range(3):
        b, h = modern_request(200 + i, "tools/call", {"name": "announce", "arguments": {}})
        status, hdrs, msgs = front.post(b, h)
        announcer = text(response(msgs, 200 + i).get("result", {}))
        if announcer and announcer != listener:
            break
    check("listen: the announcement ran on another replica", announcer not in ("", listener), (listener, announcer))
    started = time.monotonic()
    note: dict = {}
    try:
        for msg in stream:
            if msg.get("method") == "notifications/tools/list_changed":
                note = msg
                break
    except (socket.timeout, TimeoutError) as e:
        note = {"error": f"no notification within {TIMEOUT}s: {e}"}
    took = time.monotonic() - started
    check(f"listen: {announcer}'s list change reached the stream on {listener}", note.get("method") == "notifications/tools/list_changed", note)
    print(f"     delivered {took * 1000:.0f} ms after the announce returned", flush=True)
    conn.close()


class Session:
    """A 2025-11-25 session through the sticky front."""

    def __init__(self, front: Http, user: str | None = None) -> None:
        self.front = front
        self.user = user
        self.sid: str | None = None
        self.next_id = 1
        self.served: list[str] = []

    def call(self, method: str, params: dict | None = None) -> dict:
        rid = self.next_id
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        headers = {"mcp-protocol-version": LEGACY}
        if self.user:
            headers["x-user"] = self.user
        if self.sid:
            headers["mcp-session-id"] = self.sid
        status, hdrs, msgs = self.front.post(body, headers)
        self.served.append(hdrs.get("x-served-by", "?"))
        if method == "initialize":
            self.sid = hdrs.get("mcp-session-id")
            note = {"mcp-protocol-version": LEGACY, "mcp-session-id": self.sid or ""}
            if self.user:
                note["x-user"] = self.user
            self.front.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, note)
        reply = response(msgs, rid)
        if not reply:
            reply = {"error": {"http": status}}
        return reply

    def open(self) -> None:
        self.call("initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "scale", "version": "0"}})


def killed(pid: int) -> None:
    """SIGKILLs `pid` and waits until it is gone: exited (a zombie, or reaped), its sockets
    closed. Until then the kernel still completes connections to its listening port, and a
    request HAProxy sends on one is lost with the process (a 502 it cannot retry)."""
    os.kill(pid, signal.SIGKILL)

    def gone():
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        return True if state in ("Z", "X") else None

    check(f"pid {pid} exited after SIGKILL", wait_for("the process exits", gone, TIMEOUT) is not None)


def wait_for(what: str, probe, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def legacy_tasks_and_a_kill(sticky: Http, pids: dict[str, int], lease_ms: int) -> None:
    # A principal's tasks outlive its session (and the replica holding it); a task made
    # without one belongs to its session alone (the replicas take the principal from
    # `X-User`: `--trust-user-header`).
    anonymous = Session(sticky)
    anonymous.open()
    theirs = anonymous.call("tools/call", {"name": "slow", "arguments": {"ms": 10}, "task": {"ttl": 600000}})
    theirs_id = theirs.get("result", {}).get("task", {}).get("taskId")
    s = Session(sticky, user="ada")
    s.open()
    owner = s.served[0]
    done = s.call("tools/call", {"name": "slow", "arguments": {"ms": 10}, "task": {"ttl": 600000}})
    done_id = done.get("result", {}).get("task", {}).get("taskId")
    running = s.call("tools/call", {"name": "slow", "arguments": {"ms": 600000}, "task": {"ttl": 600000}})
    run_id = running.get("result", {}).get("task", {}).get("taskId")
    check("2025: two tasks created", bool(done_id) and bool(run_id), (done, running))
    finished = wait_for("the short task completes", lambda: (lambda r: r if r.get("result", {}).get("status") == "completed" else None)(s.call("tasks/get", {"taskId": done_id})), TIMEOUT)
    check("2025: the short task completed", finished is not None, finished)
    check("2025: a sticky session stays on one replica", len(set(s.served)) == 1, s.served)

    killed(pids[owner])
    killed_at = time.monotonic()
    print(f"     SIGKILLed {owner} (pid {pids[owner]}) with task {run_id} running", flush=True)

    other = Session(sticky, user="ada")
    other.open()
    survivor = other.served[0]
    unseen = other.call("tasks/get", {"taskId": theirs_id})
    check("2025: a task made in an anonymous session is not found from another session", bool(theirs_id) and unseen.get("error", {}).get("code") == -32602, (theirs, unseen))
    stranger = Session(sticky, user="eve")
    stranger.open()
    refused = stranger.call("tasks/get", {"taskId": done_id})
    check("2025: another principal does not find ada's task", refused.get("error", {}).get("code") == -32602, refused)
    check("2025: a new session lands on a surviving replica", survivor not in ("?", owner), other.served)
    first = other.call("tasks/get", {"taskId": run_id}).get("result", {})
    within_lease = (time.monotonic() - killed_at) * 1000 < lease_ms
    if within_lease:
        check("2025: within the dead replica's lease, a survivor does not settle its task", first.get("status") == "working", first)
    else:
        print("     NOTE: the first poll came after the lease ran out; the within-lease check did not run", flush=True)
    result = other.call("tasks/result", {"taskId": done_id})
    check("2025: the finished task's result is readable on a survivor", text(result.get("result", {})) == owner, result)
    settled = wait_for(
        "the orphan is settled",
        lambda: (lambda r: r if r.get("status") == "failed" else None)(other.call("tasks/get", {"taskId": run_id}).get("result", {})),
        lease_ms / 1000 + TIMEOUT,
    )
    check("2025: once the lease ran out, the orphan is reported failed (not lost, not stuck)", settled is not None and "stopped" in (settled.get("statusMessage") or ""), settled)
    print(f"     settled {(time.monotonic() - killed_at) * 1000:.0f} ms after the kill (lease {lease_ms} ms)", flush=True)
    later = other.call("tasks/get", {"taskId": run_id}).get("result", {})
    check("2025: and stays failed", later.get("status") == "failed", later)


TASK_CAPS = {"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}


class TaskClient:
    """A modern client of the tasks extension through the round-robin front; remembers which
    replica served each request, and can steer the next one away from a replica (HAProxy's
    round-robin visits the live servers in order)."""

    def __init__(self, front: Http, order: list[str]) -> None:
        self.front = front
        self.order = order
        self.rid = 1000
        self.last = "?"

    def rpc(self, method: str, params: dict) -> tuple[dict, str]:
        self.rid += 1
        body, headers = modern_request(self.rid, method, params, TASK_CAPS)
        status, hdrs, msgs = self.front.post(body, headers)
        self.last = hdrs.get("x-served-by", "?")
        reply = response(msgs, self.rid) or {"error": {"http": status}}
        return reply, self.last

    def get(self, task: str) -> tuple[dict, str]:
        reply, by = self.rpc("tasks/get", {"taskId": task})
        return reply.get("result", reply), by

    def avoid(self, replica: str, live: list[str]) -> None:
        """Sends cheap requests until the next one should land on a replica other than
        `replica` (at most a round)."""
        for _ in range(len(live) + 1):
            if self.last not in live:
                nxt = None
            else:
                nxt = live[(live.index(self.last) + 1) % len(live)]
            if nxt is not None and nxt != replica:
                return
            self.rpc("tools/call", {"name": "whoami", "arguments": {}})

    def question(self, task: str, message: str, timeout: float = TIMEOUT) -> tuple[str | None, list[str], dict]:
        """Polls until the task asks `message`; returns its key, the replicas that served the
        polls, and the last state seen."""
        served: list[str] = []
        deadline = time.monotonic() + timeout
        got: dict = {}
        while time.monotonic() < deadline:
            got, by = self.get(task)
            served.append(by)
            reqs = got.get("inputRequests") or {}
            for key, req in reqs.items():
                if got.get("status") == "input_required" and req.get("params", {}).get("message") == message:
                    return key, served, got
            if got.get("status") in ("completed", "failed", "cancelled"):
                break
            time.sleep(0.02)
        return None, served, got

    def answer(self, task: str, key: str, word: str) -> tuple[dict, str]:
        return self.rpc("tasks/update", {"taskId": task, "inputResponses": {key: {"action": "accept", "content": {"word": word}}}})


def log_lines(log_dir: str, name: str) -> list[str]:
    try:
        with open(os.path.join(log_dir, name)) as f:
            return [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        return []


def extension_task_across_replicas(front: Http, order: list[str]) -> None:
    c = TaskClient(front, order)
    created, creator = c.rpc("tools/call", {"name": "journey", "arguments": {"from": "Lyon"}})
    task = created.get("result", {}).get("taskId")
    check("extension: journey became a task", created.get("result", {}).get("resultType") == "task" and bool(task), created)
    if not task:
        return
    # A listen stream on a replica that does not run the task.
    c.avoid(creator, order)
    body, headers = modern_request(1, "subscriptions/listen", {"notifications": {"taskIds": [task]}}, TASK_CAPS)
    conn = http.client.HTTPConnection("127.0.0.1", front.port, timeout=TIMEOUT)
    conn.request("POST", "/mcp", json.dumps(body), {"content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    resp = conn.getresponse()
    listener = resp.getheader("x-served-by", "?")
    c.last = listener
    stream = sse_messages(resp)
    ack = next(stream, {})
    check("extension: a listen stream for the task opened on another replica", ack.get("method") == "notifications/subscriptions/acknowledged" and listener not in ("?", creator), (listener, creator, ack))

    key1, served, got = c.question(task, "stop 1?")
    check("extension: the first question is visible through the balancer", key1 is not None, got)
    others = [r for r in served if r != creator]
    check("extension: replicas that do not run the task answer tasks/get from the store", len(others) >= 1, served)
    c.avoid(creator, order)
    ack1, by = c.answer(task, key1 or "?", "Dijon")
    check(f"extension: tasks/update through {by}, not the holder {creator}, is acknowledged", by != creator and ack1.get("result", {}).get("resultType") == "complete", (by, ack1))
    # The acknowledgement came once the holder took the answer: the next poll, wherever it
    # lands, shows the second question.
    after_ack, by2 = c.get(task)
    asked2 = [r.get("params", {}).get("message") for r in (after_ack.get("inputRequests") or {}).values()]
    check(f"extension: right after the acknowledgement, {by2} shows the next question", after_ack.get("status") == "input_required" and asked2 == ["stop 2?"], after_ack)

    # notifications/tasks on the listener: the state after the answer.
    heard: list[dict] = []
    try:
        for msg in stream:
            if msg.get("method") == "notifications/tasks":
                heard.append(msg.get("params", {}))
                reqs = msg.get("params", {}).get("inputRequests") or {}
                if any(r.get("params", {}).get("message") == "stop 2?" for r in reqs.values()):
                    break
    except (socket.timeout, TimeoutError) as e:
        heard.append({"error": f"nothing more within {TIMEOUT}s: {e}"})
    check(f"extension: the listen stream on {listener} heard the task move on (notifications/tasks from {creator})", any("stop 2?" in json.dumps(h) for h in heard), heard)

    c.avoid(creator, order)
    cancel, by = c.rpc("tasks/cancel", {"taskId": task})
    check(f"extension: tasks/cancel through {by}, not the holder, is acknowledged", by != creator and "result" in cancel, (by, cancel))
    deadline = time.monotonic() + TIMEOUT
    final: dict = {}
    while time.monotonic() < deadline:
        final, _ = c.get(task)
        if final.get("status") in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.02)
    check("extension: the holder cancelled it", final.get("status") == "cancelled", final)
    got_cancel = False
    try:
        for msg in stream:
            if msg.get("method") == "notifications/tasks" and msg.get("params", {}).get("status") == "cancelled":
                got_cancel = True
                break
    except (socket.timeout, TimeoutError):
        pass
    check("extension: the listen stream heard `cancelled`", got_cancel)
    conn.close()


def extension_task_survives_sigkill(front: Http, order: list[str], pids: dict[str, int], lease_ms: int, log_dir: str) -> str | None:
    """Returns the killed replica's name."""
    before0, after0 = len(log_lines(log_dir, "before.log")), len(log_lines(log_dir, "after.log"))
    c = TaskClient(front, order)
    created, holder = c.rpc("tools/call", {"name": "journey", "arguments": {"from": "Lyon"}})
    task = created.get("result", {}).get("taskId")
    if not check("kill: journey became a task", bool(task), created):
        return None
    key1, _, got = c.question(task, "stop 1?")
    c.answer(task, key1 or "?", "Dijon")
    key2, _, got = c.question(task, "stop 2?")
    check("kill: the user answered the first stop; the second is asked", key2 is not None, got)
    killed(pids[holder])
    killed_at = time.monotonic()
    print(f"     SIGKILLed {holder} (pid {pids[holder]}), which ran task {task}, between two answers", flush=True)
    live = [r for r in order if r != holder]
    first, by = c.get(task)
    within = (time.monotonic() - killed_at) * 1000 < lease_ms
    where = "from the store, within the dead replica's lease" if within else "after the lease ran out"
    check(f"kill: {by} answers tasks/get {where}: the same question", first.get("status") == "input_required" and key2 in (first.get("inputRequests") or {}), first)
    # The user answers; the survivors keep the answer until one of them takes the task over.
    ack, by = c.answer(task, key2 or "?", "Beaune")
    check(f"kill: the second answer is acknowledged by {by}", by in live and ack.get("result", {}).get("resultType") == "complete", (by, ack))
    deadline = time.monotonic() + lease_ms / 1000 + TIMEOUT
    final: dict = {}
    while time.monotonic() < deadline:
        final, _ = c.get(task)
        if final.get("status") in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.05)
    took = (time.monotonic() - killed_at) * 1000
    result = text(final.get("result", {}))
    check("kill: the journey completed on a survivor with every answer", final.get("status") == "completed" and result.startswith("Lyon / Dijon / Beaune (finished on ") and holder not in result, final)
    print(f"     completed {took:.0f} ms after the kill (lease {lease_ms} ms): {result}", flush=True)
    befores = log_lines(log_dir, "before.log")[before0:]
    afters = log_lines(log_dir, "after.log")[after0:]
    check(f"kill: `before` ran once, on {holder}", befores == [holder], befores)
    check("kill: `after` ran once, on a survivor", len(afters) == 1 and afters[0] in live, afters)
    return holder


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--front", type=int, required=True)
    ap.add_argument("--sticky", type=int, required=True)
    ap.add_argument("--pids", required=True)
    ap.add_argument("--lease-ms", type=int, required=True)
    ap.add_argument("--log-dir", required=True)
    args = ap.parse_args()
    pids = {k: int(v) for k, v in (p.split("=") for p in args.pids.split(","))}
    order = list(pids)
    front, sticky = Http(args.front), Http(args.sticky)
    killed: list[str] = []

    def kill_step() -> None:
        name = extension_task_survives_sigkill(front, order, pids, args.lease_ms, args.log_dir)
        if name:
            killed.append(name)

    def legacy_step() -> None:
        live = {k: v for k, v in pids.items() if k not in killed}
        legacy_tasks_and_a_kill(sticky, live, args.lease_ms)

    for step in (
        lambda: multi_round(front),
        lambda: listen_across_replicas(front),
        lambda: extension_task_across_replicas(front, order),
        kill_step,
        legacy_step,
    ):
        try:
            step()
        except Exception as e:  # a step that raises is a failure, not a crash of the run
            import traceback

            traceback.print_exc()
            check(f"step raised {type(e).__name__}", False, e)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
