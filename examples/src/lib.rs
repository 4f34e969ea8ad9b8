//! Runnable tracksuit example servers.
