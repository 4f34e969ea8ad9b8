//! Whose tasks are whose without authentication, on the in-memory and SQLite task stores
//! (the scenarios are in `task_owner_scenarios.rs`; `postgres_task_owners.rs` runs them on
//! PostgreSQL).

use tracksuit::task::{InMemoryTaskStore, SqliteTaskStore};

#[path = "task_owner_scenarios.rs"]
mod scenarios;

fn sqlite() -> SqliteTaskStore {
    SqliteTaskStore::in_memory().expect("an in-memory SQLite database")
}

#[tokio::test]
async fn a_task_belongs_to_the_session_that_created_it() {
    scenarios::a_task_belongs_to_the_session_that_created_it(InMemoryTaskStore::new()).await;
    scenarios::a_task_belongs_to_the_session_that_created_it(sqlite()).await;
}

#[tokio::test]
async fn tasks_list_is_off_unless_turned_on() {
    scenarios::tasks_list_is_off_unless_turned_on(InMemoryTaskStore::new).await;
}

#[tokio::test]
async fn one_session_cannot_fill_the_task_store() {
    scenarios::one_session_cannot_fill_the_task_store(InMemoryTaskStore::new()).await;
    scenarios::one_session_cannot_fill_the_task_store(sqlite()).await;
}

#[tokio::test]
async fn the_in_memory_store_holds_at_most_max_records() {
    scenarios::a_full_store_refuses_new_tasks(InMemoryTaskStore::new().max_records(2)).await;
}
