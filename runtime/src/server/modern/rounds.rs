//! Multi round-trip requests (MRTR): a `tools/call`, `prompts/get` or `resources/read`
//! served as rounds, each replaying the handler against the answers so far and either
//! finishing or answering `input_required` with new questions and the sealed state.

use super::str_param;
use crate::context::{Carried, Ctx, Exchange, Question, Rounds, Stuck};
use crate::protocol::{
    ErrorObject, JsonObject, ProgressToken, RequestId, TaskSupport, URL_ELICITATION_REQUIRED,
    UrlElicitationRequiredData, methods,
};
use crate::seal::{Binding, Bound, StateKeys, digest_json};
use crate::server::answer::Answer;
use crate::server::idempotent::{self, Admission};
use crate::server::request_scope::RequestScope;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

impl RequestScope {
    /// Serves `tools/call`, `prompts/get` or `resources/read` as one MRTR round: replays the
    /// handler against the answers so far, and either finishes or answers `input_required`
    /// with the handler's new questions and the sealed state of the call.
    pub(in crate::server) async fn in_rounds(
        &self,
        method: &str,
        id: RequestId,
        progress_token: Option<ProgressToken>,
        cancel: CancellationToken,
        params: Option<Value>,
        caller: crate::caller::Caller,
    ) -> Result<Answer, ErrorObject> {
        let mut params = params.unwrap_or_else(|| Value::Object(JsonObject::new()));
        let Some(map) = params.as_object_mut() else {
            return Err(ErrorObject::invalid_params("params must be an object"));
        };
        let (responses, state) = take_round_params(map)?;
        let as_task = self.as_task(method, map, &caller)?;
        let (target, name, binding_digest) = self.round_target(method, map, state.is_some())?;
        let keys = self.server().state_keys();
        // Bound to the caller too: a state minted for one principal is refused for another.
        let owner = caller.owner();
        let binding = Binding {
            method,
            name: &name,
            params_digest: binding_digest.unwrap_or_default(),
            principal: owner.as_deref(),
        };
        // Taken once for a request that opens a state and seals the next one.
        let mut bound = None;
        // The state's tag names the round (with the answers) for its claim.
        let (mut carried, tag) = match &state {
            None => (Carried::default(), None),
            Some(token) => open_state(&keys, bound.insert(binding.bound()), token)?,
        };
        let ttl = self.server().inner.options.request_state_ttl;
        // A later round is claimed before it runs: a re-sent one gets its first outcome.
        let held = match self.claim(tag, &carried, responses.as_ref(), ttl).await {
            Ok(held) => held,
            Err(first_outcome) => return first_outcome,
        };
        carried.absorb(responses.as_ref(), state.is_none());
        let rounds = Arc::new(Rounds::new(target, carried));
        // A call that may become a task gets a token of its own: the task's, cancelled by
        // `tasks/cancel` rather than by the request that started it. Any other call's
        // handler stays on this future's stack, polled by `one_round`.
        let cancel = as_task.map_or(cancel, |_| CancellationToken::new());
        // What a replay of the task needs to rebuild the call in another process.
        let call = as_task.map(|_| self.replayable_call(&name, &params, &caller));
        let exchange = Exchange::rounds(self.peer().clone(), rounds.clone());
        let ctx = Ctx::new(
            self.for_context(),
            exchange,
            id,
            progress_token,
            cancel.clone(),
            caller,
        );
        let (this, method) = (self.clone(), method.to_owned());
        // Made where it is polled (pinned in place, or boxed for a task), never moved: a
        // moved handler would take its room in this future twice.
        let handler = move || this.round_handler(method, ctx, params);
        let ended = match as_task {
            None => one_round(std::pin::pin!(handler()), &rounds, false).await,
            Some(before_task) => {
                let task = (cancel, call, owner.clone());
                match self
                    .round_or_task(handler, before_task, &rounds, task)
                    .await
                {
                    Ok(ended) => ended,
                    Err(outcome) => return settled(held, outcome, true).await,
                }
            }
        };
        // A round that finished, or ran a side effect, must not run again.
        let commit = matches!(ended, Some(Ok(_))) || rounds.ran_effects();
        let can_ask = binding_digest.is_some();
        let bound = move || bound.unwrap_or_else(|| binding.bound());
        let outcome = self.round_answer(ended, &rounds, can_ask, &keys, bound, ttl);
        settled(held, outcome, commit).await
    }

    /// The handler a round replays.
    async fn round_handler(
        self,
        method: String,
        ctx: Ctx,
        params: Value,
    ) -> Result<Answer, ErrorObject> {
        match method.as_str() {
            methods::TOOLS_CALL => self.call_tool(ctx, Some(params)).await,
            methods::PROMPTS_GET => self.get_prompt(ctx, Some(params)).await.map(Answer::Tree),
            _ => self
                .read_resource(ctx, Some(params))
                .await
                .map(Answer::Tree),
        }
    }

    /// What a round answers once it ended: the handler's outcome, or `input_required` with
    /// its questions and the sealed state of the call (bound to `bound`).
    fn round_answer(
        &self,
        ended: Option<Result<Result<Answer, ErrorObject>, Stuck>>,
        rounds: &Rounds,
        can_ask: bool,
        keys: &StateKeys,
        bound: impl FnOnce() -> Bound,
        ttl: Duration,
    ) -> Result<Answer, ErrorObject> {
        match ended {
            // Only a call that may become a task ends a round asking for it (answered
            // before this).
            None => Err(ErrorObject::internal("the call asked to become a task")),
            Some(Ok(outcome)) => outcome,
            Some(Err(Stuck::Failed(error))) => Err(error),
            Some(Err(Stuck::Input(_))) if !can_ask => Err(ErrorObject::internal(format!(
                "{} asked the client, but says it cannot",
                rounds.target()
            ))),
            Some(Err(Stuck::Input(questions))) => {
                let carried = rounds.carry(&questions);
                let info = &self.server().inner.info_text;
                input_required(keys, &bound(), &questions, &carried, ttl, info)
                    .map(Answer::InputRequired)
            }
        }
    }

    /// A round of a call that may become a task: its handler is boxed (a task takes it
    /// along). Polled here, and after each poll that leaves it waiting the rounds say
    /// whether it is stuck on questions (or failed), or asks to become a task: questions
    /// are only asked while it is polled, so no extra wake-up or task is needed to notice.
    /// `Err` is the answer of a call that became a task (`task`: its cancellation, its
    /// replayable call, its owner).
    async fn round_or_task<F>(
        &self,
        handler: impl FnOnce() -> F,
        before_task: bool,
        rounds: &Arc<Rounds>,
        task: (CancellationToken, Option<Value>, Option<String>),
    ) -> Result<Option<Result<Result<Answer, ErrorObject>, Stuck>>, Result<Answer, ErrorObject>>
    where
        F: std::future::Future<Output = Result<Answer, ErrorObject>> + Send + 'static,
    {
        let mut handler: futures::future::BoxFuture<'static, _> = Box::pin(handler());
        let ended = match before_task {
            // The call is a task before the tool runs.
            false => None,
            true => one_round(handler.as_mut(), rounds, true).await,
        };
        if ended.is_some() {
            return Ok(ended);
        }
        let (cancel, call, owner) = task;
        let tasks = &self.server().inner.tasks;
        Err(start_task(tasks, rounds.clone(), cancel, handler, call, owner).await)
    }

    /// Whether a tool call may become a task of the tasks extension (`Some(input before
    /// the task)`): only for a client that declared it, and only for a tool whose
    /// `taskSupport` allows it. The 2025-11-25 `task` param is tolerated and ignored (the
    /// server decides).
    fn as_task(
        &self,
        method: &str,
        map: &mut JsonObject,
        caller: &crate::caller::Caller,
    ) -> Result<Option<bool>, ErrorObject> {
        if method != methods::TOOLS_CALL {
            return Ok(None);
        }
        map.remove("task");
        let Some(Value::String(name)) = map.get("name") else {
            return Ok(None);
        };
        let Some((input_before_task, support)) = self.task_support(name, caller) else {
            return Ok(None);
        };
        match (support, self.declares_tasks_extension()) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Ok(None),
            (TaskSupport::Required, false) => {
                Err(crate::task::missing_extension(&format!("tool `{name}`")))
            }
            (_, true) => Ok(Some(input_before_task)),
        }
    }

    /// What the round is about: its target as errors name it, the name (or URI) the state
    /// is bound to, and the digest of the arguments it is bound to (taken from the params
    /// in place; `None` for a first call of a tool that cannot ask anything, which never
    /// needs it).
    fn round_target(
        &self,
        method: &str,
        map: &JsonObject,
        has_state: bool,
    ) -> Result<(String, String, Option<[u8; 32]>), ErrorObject> {
        let arguments_digest = || digest_json(map.get("arguments").unwrap_or(&Value::Null));
        Ok(match method {
            methods::TOOLS_CALL => {
                let name = str_param(map, "name")?;
                let needed = has_state || self.server().tool_asks_client(&name);
                let digest = needed.then(arguments_digest);
                (format!("tool `{name}`"), name, digest)
            }
            methods::PROMPTS_GET => {
                let name = str_param(map, "name")?;
                (format!("prompt `{name}`"), name, Some(arguments_digest()))
            }
            _ => {
                let uri = str_param(map, "uri")?;
                let digest = Some(digest_json(&Value::Null));
                (format!("resource `{uri}`"), uri, digest)
            }
        })
    }

    /// Claims a later round (one with a state's `tag`) before it runs. `Err` holds the
    /// outcome to answer at once: the first outcome of a re-sent round, or why the claim
    /// failed.
    async fn claim(
        &self,
        tag: Option<[u8; 16]>,
        carried: &Carried,
        responses: Option<&JsonObject>,
        ttl: Duration,
    ) -> Result<Option<idempotent::Held>, Result<Answer, ErrorObject>> {
        let Some(tag) = tag else {
            return Ok(None);
        };
        let store = &self.server().inner.rounds_store;
        match idempotent::admit(store, tag, &carried.pending, responses, ttl).await {
            Ok(Admission::Serve(held)) => Ok(Some(held)),
            Ok(Admission::Replay(outcome)) => Err(outcome),
            Err(error) => Err(Err(error)),
        }
    }

    /// The call as a replay of its task rebuilds it in another process.
    fn replayable_call(&self, name: &str, params: &Value, caller: &crate::caller::Caller) -> Value {
        let init = self.client();
        json!({
            "name": name,
            "arguments": params.get("arguments").cloned().unwrap_or(Value::Null),
            "capabilities": init.map(|i| serde_json::to_value(&*i.capabilities).unwrap_or(Value::Null)),
            "clientInfo": init.map(|i| serde_json::to_value(&*i.client_info).unwrap_or(Value::Null)),
            "principal": caller.principal.as_deref().map(crate::caller::Principal::to_record),
        })
    }
}

/// A round's `inputResponses` and `requestState`, taken out of its params.
fn take_round_params(
    map: &mut JsonObject,
) -> Result<(Option<JsonObject>, Option<String>), ErrorObject> {
    let responses = match map.remove("inputResponses") {
        None | Some(Value::Null) => None,
        Some(Value::Object(r)) => Some(r),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "`inputResponses` must be an object",
            ));
        }
    };
    let state = match map.remove("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "`requestState` must be a string",
            ));
        }
    };
    Ok((responses, state))
}

/// The call state sealed in `token` (bound to `bound`), and its tag.
fn open_state(
    keys: &StateKeys,
    bound: &Bound,
    token: &str,
) -> Result<(Carried, Option<[u8; 16]>), ErrorObject> {
    let opened = keys
        .open_bound(bound, token, SystemTime::now())
        .map_err(|e| ErrorObject::invalid_params(format!("requestState refused: {e}")))?;
    let carried = serde_json::from_slice::<Carried>(&opened.payload).map_err(|_| {
        ErrorObject::invalid_params("requestState refused: its contents are not a call state")
    })?;
    Ok((carried, Some(opened.tag)))
}

/// `outcome`, after the round's claim (if it has one) is settled with it.
pub(super) async fn settled(
    held: Option<idempotent::Held>,
    outcome: Result<Answer, ErrorObject>,
    commit: bool,
) -> Result<Answer, ErrorObject> {
    if let Some(held) = held {
        held.settle(&outcome, commit).await;
    }
    outcome
}

/// Continues a call as a task of the tasks extension (its result kept as a tree).
pub(super) async fn start_task(
    tasks: &Arc<crate::task::TaskEngine>,
    rounds: Arc<Rounds>,
    cancel: CancellationToken,
    handler: futures::future::BoxFuture<'static, Result<Answer, ErrorObject>>,
    call: Option<Value>,
    owner: Option<String>,
) -> Result<Answer, ErrorObject> {
    use futures::FutureExt as _;
    let work = Box::pin(handler.map(|outcome| outcome.map(Answer::into_value)));
    // Boxed: the start of a task is a few store round trips whose state would otherwise
    // sit in every call's future.
    Box::pin(tasks.start_extension(rounds, cancel, work, call, owner))
        .await
        .map(Answer::Tree)
}

/// Polls `handler` until it finishes (`Some(Ok)`), is stuck on questions or failed
/// (`Some(Err)`), or, if `may_become_task`, asks to continue as a task (`None`).
pub(super) async fn one_round<F>(
    mut handler: std::pin::Pin<&mut F>,
    rounds: &Rounds,
    may_become_task: bool,
) -> Option<Result<Result<Answer, ErrorObject>, Stuck>>
where
    F: std::future::Future<Output = Result<Answer, ErrorObject>> + ?Sized,
{
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(outcome) = handler.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(Ok(outcome)));
        }
        if let Some(stuck) = rounds.stuck() {
            return std::task::Poll::Ready(Some(Err(stuck)));
        }
        if may_become_task && rounds.task_requested() {
            return std::task::Poll::Ready(None);
        }
        std::task::Poll::Pending
    })
    .await
}

/// The `input_required` result of a round that ended on `questions`, written whole: the
/// questions go in as the text they were asked as, beside the server's info.
pub(super) fn input_required(
    keys: &StateKeys,
    bound: &Bound,
    questions: &[Question],
    carried: &Carried,
    ttl: Duration,
    server_info: &serde_json::value::RawValue,
) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
    use serde::ser::{SerializeMap, Serializer};
    /// `inputRequests`: the questions by key.
    struct Requests<'a>(&'a [Question]);
    impl serde::Serialize for Requests<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(self.0.len()))?;
            for q in self.0 {
                map.serialize_entry(&q.key, &q.request)?;
            }
            map.end()
        }
    }
    #[derive(serde::Serialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/serverInfo")]
        server_info: &'a serde_json::value::RawValue,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct InputRequired<'a> {
        result_type: &'static str,
        input_requests: Requests<'a>,
        request_state: &'a str,
        #[serde(rename = "_meta")]
        meta: Meta<'a>,
    }
    let payload = carried
        .to_json()
        .map_err(|e| ErrorObject::internal(format!("could not serialise the call state: {e}")))?;
    let token = keys
        .seal_bound(bound, ttl, SystemTime::now(), &payload)
        .map_err(|e| ErrorObject::internal(format!("could not seal the call state: {e}")))?;
    serde_json::value::to_raw_value(&InputRequired {
        result_type: "input_required",
        input_requests: Requests(questions),
        request_state: &token,
        meta: Meta { server_info },
    })
    .map_err(|e| ErrorObject::internal(format!("could not write the round's result: {e}")))
}

/// A 2025-style "URL elicitation required" error (`-32042`, which 2026-07-28 servers must
/// not send) becomes what the modern revision does instead: an `input_required` result
/// asking the client to open the URLs, after which it retries the call.
pub(super) fn url_elicitations_as_input(error: ErrorObject) -> Result<Value, ErrorObject> {
    if error.code != URL_ELICITATION_REQUIRED {
        return Err(error);
    }
    let Some(data) = error
        .data
        .clone()
        .and_then(|d| serde_json::from_value::<UrlElicitationRequiredData>(d).ok())
    else {
        return Err(error);
    };
    let requests: JsonObject = data
        .elicitations
        .into_iter()
        .enumerate()
        .map(|(n, e)| {
            let params = json!({ "mode": "url", "message": e.message, "url": e.url });
            let request = json!({ "method": methods::ELICITATION_CREATE, "params": params });
            (format!("url-{n}"), request)
        })
        .collect();
    if requests.is_empty() {
        return Err(error);
    }
    Ok(json!({ "resultType": "input_required", "inputRequests": requests }))
}
