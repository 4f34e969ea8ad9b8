//! The `tasks/*` requests of MCP 2025-11-25 (`tasks/get`, `tasks/list`, `tasks/cancel`,
//! `tasks/result`) answered from the engine: the caller's own tasks only, paged by cursor.

use super::{TaskEngine, WaitingGuard, is_terminal, now_ms, status_name, store_error, timestamp};
use crate::peer::Peer;
use crate::peer::sync::lock;
use crate::protocol::{
    ErrorObject, GetTaskResult, ListTasksResult, PaginatedRequestParams, RequestId, TaskIdParams,
    TaskStatus,
};
use crate::task::RELATED_TASK_META;
use crate::task::store::{TaskOutcome, TaskRecord};
use base64::Engine as _;
use serde_json::{Value, json};

pub(super) const CURSOR_PREFIX: &str = "tracksuit-task:";

impl TaskEngine {
    /// The stored record of `id` as `owner` may see it: not found if unknown, expired or
    /// created by another principal; a task that was running when a previous server process
    /// stopped is settled as failed.
    async fn record(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, ErrorObject> {
        if let Some(live) = self.live(id) {
            // Running here: what this process knows is the truth (and may be ahead of the
            // store while a terminal write is retried).
            if live.owner.as_deref() != owner {
                return Err(ErrorObject::task_not_found(id));
            }
            return Ok(live.snapshot().await);
        }
        self.purge().await;
        let record = self
            .store()
            .get(id)
            .await
            .map_err(store_error)?
            .filter(|r| r.owner.as_deref() == owner)
            .ok_or_else(|| ErrorObject::task_not_found(id))?;
        if record.is_expired(now_ms()) {
            return Err(ErrorObject::invalid_params(format!(
                "Failed to retrieve task {id}: Task has expired"
            )));
        }
        self.settle_orphan(record).await
    }

    /// A non-terminal record no task in this process runs is an orphan only if no live
    /// process holds it: its lease is claimed first (a task another live process holds is
    /// left to it, and answered as stored), then it is failed under the new lease.
    pub(crate) async fn settle_orphan(
        &self,
        record: TaskRecord,
    ) -> Result<TaskRecord, ErrorObject> {
        let id = record.task.task_id.clone();
        if is_terminal(record.task.status)
            || self.live(&id).is_some()
            || lock(&self.extension).contains_key(&id)
        {
            return Ok(record);
        }
        let Some(claim) = self.store().claim(&id).await.map_err(store_error)? else {
            // Held by a live process, or finished meanwhile: answer what the store holds.
            let stored = self.store().get(&id).await.map_err(store_error)?;
            return Ok(stored.unwrap_or(record));
        };
        let mut record = claim.record;
        let message = "the server stopped while the task was running".to_owned();
        record.task.status = TaskStatus::Failed;
        record.task.status_message = Some(message.clone());
        record.task.last_updated_at = timestamp();
        record.outcome = Some(TaskOutcome::Error(ErrorObject::internal(message)));
        match self.store().put(record.clone()).await {
            Ok(()) => self.announce(&record).await,
            // It finished meanwhile (the stored terminal record wins), or another process
            // claimed it since: answer what the store holds.
            Err(
                crate::task::TaskStoreError::Terminal(_) | crate::task::TaskStoreError::Fenced(_),
            ) => {}
            Err(e) => return Err(store_error(e)),
        }
        let stored = self.store().get(&id).await.map_err(store_error)?;
        Ok(stored.unwrap_or(record))
    }

    /// `tasks/get`.
    pub(crate) async fn get(
        &self,
        params: Option<Value>,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let p: TaskIdParams = crate::protocol::decode(params)?;
        let record = self.record(&p.task_id, owner).await?;
        crate::protocol::encode(GetTaskResult::new(record.task))
    }

    /// `tasks/list`.
    pub(crate) async fn list(
        &self,
        params: Option<Value>,
        page_size: usize,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let p: PaginatedRequestParams = match params {
            None | Some(Value::Null) => PaginatedRequestParams::default(),
            Some(v) => serde_json::from_value(v).map_err(ErrorObject::invalid_params)?,
        };
        let after = p.cursor.as_deref().map(decode_cursor).transpose()?;
        self.purge().await;
        let page = self
            .store()
            .list(after.as_deref(), page_size.max(1))
            .await
            .map_err(|e| match e {
                crate::task::TaskStoreError::UnknownCursor => ErrorObject::invalid_params(format!(
                    "invalid cursor {:?}: it names no task (expired?)",
                    ErrorObject::quote(p.cursor.as_deref().unwrap_or_default())
                )),
                other => store_error(other),
            })?;
        let now = now_ms();
        let next_cursor = page
            .more
            .then(|| page.records.last().map(|r| encode_cursor(&r.task.task_id)))
            .flatten();
        let mut tasks = Vec::with_capacity(page.records.len());
        for record in page.records {
            // Another principal's tasks are not listed (the page may come out short).
            if !record.is_expired(now) && record.owner.as_deref() == owner {
                tasks.push(self.settle_orphan(record).await?.task);
            }
        }
        crate::protocol::encode(ListTasksResult {
            tasks,
            next_cursor,
            ..Default::default()
        })
    }

    /// `tasks/cancel`.
    pub(crate) async fn cancel(
        &self,
        params: Option<Value>,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let p: TaskIdParams = crate::protocol::decode(params)?;
        let record = self.record(&p.task_id, owner).await?;
        let refuse = |status| {
            ErrorObject::invalid_params(format!(
                "Cannot cancel task {}: already in terminal status '{}'",
                p.task_id,
                status_name(status)
            ))
        };
        if is_terminal(record.task.status) {
            return Err(refuse(record.task.status));
        }
        let Some(live) = self.live(&p.task_id) else {
            return Err(ErrorObject::task_not_found(&p.task_id));
        };
        let changed = self
            .transition(
                &live,
                |_| {
                    Some((
                        TaskStatus::Cancelled,
                        Some("The task was cancelled by request.".to_owned()),
                    ))
                },
                None,
            )
            .await;
        live.cancel.cancel();
        match changed {
            Some(task) => crate::protocol::encode(GetTaskResult::new(task)),
            // It reached a terminal status first.
            None => Err(refuse(live.state.lock().await.status)),
        }
    }

    /// `tasks/result`: waits for a terminal status, then answers exactly what the
    /// underlying request would have, tagged with the task.
    pub(crate) async fn result(
        &self,
        params: Option<Value>,
        peer: &Peer,
        request: RequestId,
        owner: Option<&str>,
    ) -> Result<Value, ErrorObject> {
        let p: TaskIdParams = crate::protocol::decode(params)?;
        // Another principal's task is not found, and its messages never route to them.
        if let Some(live) = self
            .live(&p.task_id)
            .filter(|live| live.owner.as_deref() == owner)
        {
            let entry = (peer.id(), request);
            lock(&live.waiting).push(entry.clone());
            let _waiting = WaitingGuard { live: &live, entry };
            let mut rx = live.status.subscribe();
            // Until it finishes, or stops here (its lease was lost: the store tells the end).
            tokio::select! {
                _ = rx.wait_for(|s| is_terminal(*s)) => {}
                _ = live.cancel.cancelled() => {}
            }
        }
        let record = self.record(&p.task_id, owner).await?;
        let tag = json!({ "taskId": p.task_id });
        match (record.task.status, record.outcome) {
            (TaskStatus::Cancelled, _) => Err(ErrorObject::invalid_params(format!(
                "Task {} was cancelled: it has no result",
                p.task_id
            ))
            .with_data(json!({ "taskId": p.task_id, "status": "cancelled" }))),
            (_, Some(TaskOutcome::Result(mut value))) => {
                if let Value::Object(map) = &mut value {
                    let meta = map
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(Default::default()));
                    if let Value::Object(meta) = meta {
                        meta.insert(RELATED_TASK_META.to_owned(), tag);
                    }
                }
                Ok(value)
            }
            (_, Some(TaskOutcome::Error(error))) => Err(error),
            (status, None) => Err(ErrorObject::internal(format!(
                "task {} is {} but has no outcome",
                p.task_id,
                status_name(status)
            ))),
        }
    }
}

/// The first text block of a tool result (the status message of a failed tool task).
pub(super) fn first_text(result: &Value) -> Option<String> {
    result
        .get("content")?
        .as_array()?
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))
        .map(str::to_owned)
}

pub(super) fn encode_cursor(id: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{id}"))
}

pub(super) fn decode_cursor(cursor: &str) -> Result<String, ErrorObject> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.strip_prefix(CURSOR_PREFIX).map(str::to_owned))
        .ok_or_else(|| {
            ErrorObject::invalid_params(format!("invalid cursor {:?}", ErrorObject::quote(cursor)))
        })
}
