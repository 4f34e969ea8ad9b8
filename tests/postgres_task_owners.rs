//! Whose tasks are whose without authentication, on a real PostgreSQL task store: a task
//! belongs to the 2025-11-25 session that created it, and one session's stored tasks are
//! counted by the database (`count_owned`) against `max_stored_per_caller`. Run by
//! `scripts/postgres.sh`.

use tracksuit::task::PostgresTaskStore;

#[path = "pg.rs"]
mod pg;
#[path = "task_owner_scenarios.rs"]
mod scenarios;

async fn store() -> PostgresTaskStore {
    let (_, url) = pg::schema().await;
    PostgresTaskStore::connect(&url).await.expect("connect")
}

#[tokio::test]
async fn a_task_belongs_to_the_session_that_created_it() {
    scenarios::a_task_belongs_to_the_session_that_created_it(store().await).await;
}

#[tokio::test]
async fn one_session_cannot_fill_the_task_store() {
    scenarios::one_session_cannot_fill_the_task_store(store().await).await;
}
