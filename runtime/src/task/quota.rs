//! How many tasks may run: server-wide ([`TaskOptions::max_running`]) and per caller
//! ([`TaskOptions::max_running_per_caller`]), and how many one caller may keep stored
//! ([`TaskOptions::max_stored_per_caller`]), so that one caller filling the server with
//! long tasks, or with finished ones, does not lock every other caller out.
//!
//! [`TaskOptions::max_running`]: super::TaskOptions::max_running
//! [`TaskOptions::max_running_per_caller`]: super::TaskOptions::max_running_per_caller
//! [`TaskOptions::max_stored_per_caller`]: super::TaskOptions::max_stored_per_caller

use super::engine::{SessionKey, TaskEngine, now_ms};
use crate::protocol::ErrorObject;

impl TaskEngine {
    /// Whether a new task may start for the caller `owner` (a principal's binding key), or
    /// without one, the session `session`: `-32603` naming the limit if not.
    pub(super) async fn admit_task(
        &self,
        owner: Option<&str>,
        session: Option<SessionKey>,
    ) -> Result<(), ErrorObject> {
        let options = self.options();
        if self.running() >= options.max_running {
            return Err(ErrorObject::internal(format!(
                "too many running tasks (the limit is {}); try again later",
                options.max_running
            )));
        }
        let mine = self.running_of(owner, session);
        if mine >= options.max_running_per_caller {
            return Err(ErrorObject::internal(format!(
                "this caller has {mine} tasks running, the most one caller may \
                 (TaskOptions::max_running_per_caller); wait for one to end or cancel one"
            )));
        }
        let Some(owner) = owner else {
            return Ok(());
        };
        let stored = self.store().count_owned(owner, now_ms()).await;
        match stored.map_err(ErrorObject::internal)? {
            Some(n) if n >= options.max_stored_per_caller => Err(ErrorObject::internal(format!(
                "this caller has {n} tasks stored, the most one caller may \
                 (TaskOptions::max_stored_per_caller); they are deleted as their ttl runs out"
            ))),
            _ => Ok(()),
        }
    }
}
