//! How many tasks may run: server-wide ([`TaskOptions::max_running`]) and per caller
//! ([`TaskOptions::max_running_per_caller`]), so that one caller filling the server with
//! long tasks does not lock every other caller out.
//!
//! [`TaskOptions::max_running`]: super::TaskOptions::max_running
//! [`TaskOptions::max_running_per_caller`]: super::TaskOptions::max_running_per_caller

use super::engine::{SessionKey, TaskEngine};
use crate::protocol::ErrorObject;

impl TaskEngine {
    /// Whether a new task may start for the caller `owner` (a principal's binding key), or
    /// without one, the session `session`: `-32603` naming the limit if not.
    pub(super) fn admit_task(
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
        Ok(())
    }
}
