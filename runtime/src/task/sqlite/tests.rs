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
/// Env var naming the table a child opens with [`SqliteTaskStore::shared`] (unset: `open`).
const CHILD_TABLE: &str = "TRACKSUIT_SQLITE_LOCK_CHILD_TABLE";

/// Run in a child process by the tests below: opens the database named in the
/// environment and prints the outcome (a no-op when run directly).
#[test]
fn lock_probe_child() {
    if let Ok(path) = std::env::var(CHILD_DB) {
        let opened = match std::env::var(CHILD_TABLE) {
            Ok(table) => SqliteTaskStore::shared(&path).table(table).open(),
            Err(_) => SqliteTaskStore::open(&path),
        };
        match opened {
            Ok(_) => println!("PROBE: opened"),
            Err(TaskStoreError::InUse(m)) => println!("PROBE: in use: {m}"),
            Err(e) => println!("PROBE: other error: {e}"),
        }
    }
}

/// Runs [`lock_probe_child`] in a child process on `path` (`table`: a shared store) and
/// returns what it printed.
fn probe(path: &std::path::Path, table: Option<&str>) -> String {
    let mut child = std::process::Command::new(std::env::current_exe().expect("test binary"));
    child
        .args([
            "--exact",
            "task::sqlite::tests::lock_probe_child",
            "--nocapture",
        ])
        .env(CHILD_DB, path)
        .env_remove(CHILD_TABLE);
    if let Some(table) = table {
        child.env(CHILD_TABLE, table);
    }
    let out = child.output().expect("run the child");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn another_process_cannot_open_a_held_file() {
    let (dir, path) = scratch("process");
    let held = SqliteTaskStore::open(&path).expect("open");
    let refused = probe(&path, None);
    assert!(
        refused.contains("PROBE: in use") && refused.contains("one server process"),
        "the child was not refused: {refused}"
    );
    drop(held);
    let opened = probe(&path, None);
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
    let store = SqliteTaskStore::shared(&path)
        .busy_timeout(std::time::Duration::ZERO)
        .open()
        .expect("open");
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

/// The application's own connection, through the re-exported rusqlite.
fn app_connection(path: &std::path::Path) -> crate::task::rusqlite::Connection {
    let app = crate::task::rusqlite::Connection::open(path).expect("the app's connection");
    app.execute_batch("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT);")
        .expect("the app's table");
    app
}

fn notes(app: &crate::task::rusqlite::Connection) -> Vec<String> {
    let mut stmt = app
        .prepare("SELECT body FROM notes ORDER BY id")
        .expect("prepare");
    stmt.query_map([], |row| row.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[tokio::test]
async fn the_app_uses_its_tables_in_the_file_while_a_shared_store_works() {
    let (dir, path) = scratch("app");
    let store = SqliteTaskStore::shared(&path).open().expect("open");
    let app = app_connection(&path);
    app.execute("INSERT INTO notes (body) VALUES ('one')", [])
        .expect("the app writes while the store is open");
    store.put(record("t1", None)).await.expect("put");
    app.execute("INSERT INTO notes (body) VALUES ('two')", [])
        .expect("the app writes after the store did");
    store.put(record("t2", None)).await.expect("put");
    assert_eq!(notes(&app), ["one", "two"]);
    assert_eq!(
        store.get("t1").await.expect("get"),
        Some(record("t1", None))
    );
    let page = store.list(None, 10).await.expect("list");
    assert_eq!(page.records, [record("t1", None), record("t2", None)]);
    // The store's table is plain SQL to the app (for its own reports, say).
    let n: i64 = app
        .query_row("SELECT count(*) FROM tracksuit_tasks", [], |row| row.get(0))
        .expect("count the store's rows");
    assert_eq!(n, 2);
    drop((store, app));
    std::fs::remove_dir_all(&dir).ok();
}

/// A store's write that meets the app's open write transaction waits for it (the busy
/// timeout) instead of failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_store_waits_for_the_apps_write_transaction() {
    let (dir, path) = scratch("wait");
    let store = SqliteTaskStore::shared(&path).open().expect("open");
    let app = app_connection(&path);
    app.execute_batch("BEGIN IMMEDIATE; INSERT INTO notes (body) VALUES ('pending');")
        .expect("the app's write transaction");
    let hold = std::time::Duration::from_millis(300);
    let release = std::thread::spawn(move || {
        std::thread::sleep(hold);
        app.execute_batch("COMMIT;").expect("the app commits");
        app
    });
    let started = std::time::Instant::now();
    store
        .put(record("t", None))
        .await
        .expect("written once the app committed");
    assert!(started.elapsed() >= hold, "written under the app's lock?");
    let app = release.join().expect("the app's thread");
    assert_eq!(notes(&app), ["pending"]);
    assert!(store.get("t").await.expect("get").is_some());
    drop((store, app));
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn stores_on_two_tables_of_one_file_do_not_see_each_others_tasks() {
    let (dir, path) = scratch("tables");
    let jobs = SqliteTaskStore::shared(&path)
        .table("jobs_tasks")
        .open()
        .expect("open jobs");
    let other = SqliteTaskStore::shared(&path).open().expect("open default");
    jobs.put(record("j", Some(1_000))).await.expect("put");
    other.put(record("o", Some(1_000))).await.expect("put");
    assert!(jobs.get("o").await.expect("get").is_none());
    assert!(other.get("j").await.expect("get").is_none());
    let listed = |page: TaskPage| page.records.into_iter().map(|r| r.task.task_id);
    assert!(listed(jobs.list(None, 10).await.expect("list")).eq(["j"]));
    assert!(listed(other.list(None, 10).await.expect("list")).eq(["o"]));
    // A cursor from the other table is unknown here.
    assert!(matches!(
        jobs.list(Some("o"), 10).await,
        Err(TaskStoreError::UnknownCursor)
    ));
    // Expiring one table's records leaves the other's alone.
    assert_eq!(jobs.remove_expired(u64::MAX / 2).await.expect("expire"), 1);
    assert!(other.get("o").await.expect("get").is_some());
    drop((jobs, other));
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_bad_table_name_is_refused_before_the_file_is_touched() {
    let (dir, path) = scratch("badname");
    for bad in ["tasks; DROP TABLE notes", "9lives", "sqlite_master", ""] {
        match SqliteTaskStore::shared(&path).table(bad).open() {
            Err(TaskStoreError::Invalid(message)) => assert!(
                message.contains("is not a usable task table name"),
                "{message}"
            ),
            other => panic!("{bad:?} was not refused as invalid: {other:?}"),
        }
    }
    assert!(!path.exists(), "a refused store created the database");
    std::fs::remove_dir_all(&dir).ok();
}

/// `InUse` with the shared store's message, or a panic naming what happened instead.
fn assert_table_in_use(opened: Result<SqliteTaskStore, TaskStoreError>) {
    match opened {
        Err(TaskStoreError::InUse(message)) => {
            assert!(message.contains("one live store per table"), "{message}")
        }
        other => panic!("a second store on a held table: {other:?}"),
    }
}

#[tokio::test]
async fn a_second_store_on_a_held_table_is_refused_until_the_first_is_dropped() {
    let (dir, path) = scratch("sametable");
    let first = SqliteTaskStore::shared(&path)
        .table("Jobs")
        .open()
        .expect("open");
    first.put(record("a", None)).await.expect("put");
    let started = std::time::Instant::now();
    assert_table_in_use(SqliteTaskStore::shared(&path).table("Jobs").open());
    // SQLite's names are case-insensitive, and the path is resolved: the same table.
    assert_table_in_use(SqliteTaskStore::shared(&path).table("jobs").open());
    let spelled = dir.join(".").join("tasks.db");
    assert_table_in_use(SqliteTaskStore::shared(&spelled).table("JOBS").open());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "the refusal should not wait for a timeout"
    );
    first
        .put(record("b", None))
        .await
        .expect("put after refusal");
    drop(first);
    let again = SqliteTaskStore::shared(&path)
        .table("jobs")
        .open()
        .expect("reopen after drop");
    assert!(again.get("a").await.expect("get").is_some());
    assert!(again.get("b").await.expect("get").is_some());
    drop(again);
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[tokio::test]
async fn a_symbolic_link_to_the_file_finds_the_same_lock() {
    let (dir, path) = scratch("symlink");
    let first = SqliteTaskStore::shared(&path).open().expect("open");
    let link = dir.join("link.db");
    std::os::unix::fs::symlink(&path, &link).expect("symlink");
    assert_table_in_use(SqliteTaskStore::shared(&link).open());
    drop(first);
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn another_process_cannot_open_a_held_table_but_can_open_another() {
    let (dir, path) = scratch("sharedprocess");
    let held = SqliteTaskStore::shared(&path)
        .table("jobs")
        .open()
        .expect("open");
    let refused = probe(&path, Some("jobs"));
    assert!(
        refused.contains("PROBE: in use") && refused.contains("one live store per table"),
        "the child was not refused: {refused}"
    );
    let other = probe(&path, Some("mail"));
    assert!(
        other.contains("PROBE: opened"),
        "the child could not open another table: {other}"
    );
    drop(held);
    let opened = probe(&path, Some("jobs"));
    assert!(
        opened.contains("PROBE: opened"),
        "the child could not open a free table: {opened}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `open` takes the whole file: it is refused while a shared store holds any table of it
/// (the file idle in rollback-journal mode, where nothing else would stop it), and a
/// shared store cannot start while `open` holds the file.
#[tokio::test]
async fn open_and_shared_do_not_mix_on_one_file() {
    let (dir, path) = scratch("mix");
    let shared = SqliteTaskStore::shared(&path)
        .table("jobs")
        .open()
        .expect("open shared");
    shared.put(record("a", None)).await.expect("put");
    match SqliteTaskStore::open(&path) {
        Err(TaskStoreError::InUse(message)) => assert!(
            message.contains("one live store per table")
                && message.contains("takes the whole file"),
            "{message}"
        ),
        other => panic!("open beside a live shared store: {:?}", other.map(|_| ())),
    }
    // The refused open let go of the file: the shared store still writes.
    shared
        .put(record("b", None))
        .await
        .expect("put after the refusal");
    drop(shared);
    // Its lock file is left behind, free: `open` now succeeds.
    let whole = SqliteTaskStore::open(&path).expect("open once the shared store is gone");
    match SqliteTaskStore::shared(&path)
        .table("mail")
        .busy_timeout(std::time::Duration::ZERO)
        .open()
    {
        Err(TaskStoreError::Backend(message)) => assert!(message.contains("locked"), "{message}"),
        other => panic!("a shared store beside open: {:?}", other.map(|_| ())),
    }
    drop(whole);
    std::fs::remove_dir_all(&dir).ok();
}
