//! A throwaway schema on the PostgreSQL server `scripts/postgres.sh` starts (shared by the
//! PostgreSQL tests that include this file).
#![allow(dead_code)]

const URL_VAR: &str = "TRACKSUIT_TEST_DATABASE_URL";

/// The server's URL; a missing variable fails the test (it must not pass by skipping).
pub fn base_url() -> String {
    std::env::var(URL_VAR).unwrap_or_else(|_| {
        panic!("{URL_VAR} is not set: run scripts/postgres.sh, which starts PostgreSQL")
    })
}

/// A fresh schema; returns its name and a URL whose connections use it.
pub async fn schema() -> (String, String) {
    let name = format!("t_{}", uuid_like());
    let (client, conn) = tokio_postgres::connect(&base_url(), tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    client
        .batch_execute(&format!("CREATE SCHEMA {name}"))
        .await
        .expect("create schema");
    let url = format!("{}?options=-csearch_path%3D{name}", base_url());
    (name, url)
}

/// A name no other test of this run uses.
pub fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0)
    )
}
