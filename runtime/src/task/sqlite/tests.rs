use super::*;
use crate::task::store::tests::{exercise, record};

#[tokio::test]
async fn sqlite_store_behaves() {
    exercise(&SqliteTaskStore::in_memory().expect("open")).await;
}

#[tokio::test]
async fn records_survive_reopening_the_file() {
    let dir = std::env::temp_dir().join(format!("tracksuit-sqlite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("tasks.db");
    let _ = std::fs::remove_file(&path);
    {
        let store = SqliteTaskStore::open(&path).expect("open");
        store.put(record("kept", None)).await.expect("put");
    }
    let store = SqliteTaskStore::open(&path).expect("reopen");
    assert_eq!(
        store.get("kept").await.expect("get"),
        Some(record("kept", None))
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A fresh database path in its own directory.
fn scratch(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "tracksuit-sqlite-{name}-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4()
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("tasks.db");
    (dir, path)
}

#[tokio::test]
async fn a_second_store_on_the_same_file_is_refused_until_the_first_is_dropped() {
    let (dir, path) = scratch("twice");
    let first = SqliteTaskStore::open(&path).expect("open");
    first.put(record("a", None)).await.expect("put");
    let started = std::time::Instant::now();
    match SqliteTaskStore::open(&path) {
        Err(TaskStoreError::InUse(message)) => {
            assert!(
                message.contains("one server process per database file"),
                "{message}"
            )
        }
        other => panic!("a second open succeeded or failed otherwise: {other:?}"),
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "the refusal should not wait for a timeout"
    );
    // The first store still works, and once it is gone the file opens again.
    first
        .put(record("b", None))
        .await
        .expect("put after refusal");
    drop(first);
    let again = SqliteTaskStore::open(&path).expect("reopen after drop");
    assert!(again.get("b").await.expect("get").is_some());
    drop(again);
    std::fs::remove_dir_all(&dir).ok();
}

/// Env var naming the database a child process (this test binary run again) opens.
const CHILD_DB: &str = "TRACKSUIT_SQLITE_LOCK_CHILD_DB";

/// Run in a child process by the test below: opens the database named in the
/// environment and prints the outcome (a no-op when run directly).
#[test]
fn lock_probe_child() {
    if let Ok(path) = std::env::var(CHILD_DB) {
        match SqliteTaskStore::open(&path) {
            Ok(_) => println!("PROBE: opened"),
            Err(TaskStoreError::InUse(m)) => println!("PROBE: in use: {m}"),
            Err(e) => println!("PROBE: other error: {e}"),
        }
    }
}

#[tokio::test]
async fn another_process_cannot_open_a_held_file() {
    let (dir, path) = scratch("process");
    let probe = || {
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "task::sqlite::tests::lock_probe_child",
                "--nocapture",
            ])
            .env(CHILD_DB, &path)
            .output()
            .expect("run the child");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let held = SqliteTaskStore::open(&path).expect("open");
    let refused = probe();
    assert!(
        refused.contains("PROBE: in use") && refused.contains("one server process"),
        "the child was not refused: {refused}"
    );
    drop(held);
    let opened = probe();
    assert!(
        opened.contains("PROBE: opened"),
        "the child could not open a free file: {opened}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `SQLITE_BUSY` (another connection holds the write lock) fails a write; the task
/// engine retries a terminal write until the lock is free, and nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_database_delays_a_terminal_write_but_does_not_lose_it() {
    use crate::protocol::TaskStatus;
    let (dir, path) = scratch("busy");
    let store = SqliteTaskStore::open_shared(&path).expect("open");
    let engine = super::super::TaskEngine::new(super::super::TaskOptions::default());
    engine.set_store(std::sync::Arc::new(store.clone()));
    let mut done = record("t", None);
    store.put(done.clone()).await.expect("created");
    done.task.status = TaskStatus::Completed;
    done.outcome = Some(super::super::TaskOutcome::Result(
        serde_json::json!({"content": []}),
    ));

    let blocker = Connection::open(&path).expect("second connection");
    blocker
        .execute_batch("BEGIN IMMEDIATE;")
        .expect("take the write lock");
    match store.put(done.clone()).await {
        Err(TaskStoreError::Backend(message)) => {
            assert!(message.contains("locked"), "{message}")
        }
        other => panic!("a write under another's lock: {other:?}"),
    }
    let hold = std::time::Duration::from_millis(300);
    let release = std::thread::spawn(move || {
        std::thread::sleep(hold);
        blocker.execute_batch("COMMIT;").expect("release the lock");
    });
    let started = std::time::Instant::now();
    engine
        .write_durably(&done)
        .await
        .expect("written once the lock is free");
    assert!(started.elapsed() >= hold, "written under another's lock?");
    release.join().expect("blocker");
    assert_eq!(store.get("t").await.expect("get"), Some(done));
    std::fs::remove_dir_all(&dir).ok();
}
