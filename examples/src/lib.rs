//! Runnable tracksuit example servers.

pub mod conformance;
