//! `cargo tracksuit dev`: the client starts `cargo tracksuit dev` as its stdio server; this
//! builds the package, runs the server as a child, and relays every message between the
//! two. When a source file changes it rebuilds; a good build is started, brought to the
//! client's session state, and swapped in, and the client gets `list_changed`. A failed
//! build is shown on stderr and the running server goes on serving.
//!
//! Progress lines on stderr start with `[tracksuit dev]`; stdout carries only protocol
//! messages.

mod build;
mod http;
mod relay;
mod restart;

use crate::Error;
use crate::cli::DevArgs;
use build::Package;
use relay::{Launch, Relay};
use std::time::Duration;
use tokio::sync::watch;
use tracksuit::transport::Transport;

/// `dev`.
pub async fn run(args: DevArgs) -> Result<(), Error> {
    let package = Package::locate(&args).await?;
    let (_watcher, mut changes) = build::watch(&package, &args.watch)?;
    let quiet = Duration::from_millis(args.debounce_ms);
    eprintln!(
        "[tracksuit dev] watching {} (not {})",
        package.root.display(),
        package.target.display()
    );
    // Nothing is served before a first good build: the client's `initialize` waits.
    let first = loop {
        match package.build().await {
            Ok(built) => break built,
            Err(e) => {
                eprintln!("[tracksuit dev] {e}; fix it and save: waiting for a change");
                build::next_change(&mut changes, quiet)
                    .await
                    .ok_or("the file watcher stopped")?;
            }
        }
    };
    eprintln!("[tracksuit dev] built {}", first.executable.display());
    let (builds_tx, builds_rx) = watch::channel(first.executable);
    let builder = package.clone();
    tokio::spawn(async move {
        while build::next_change(&mut changes, quiet).await.is_some() {
            eprintln!("[tracksuit dev] change detected: rebuilding");
            match builder.build().await {
                Ok(built) if built.fresh => {
                    eprintln!("[tracksuit dev] the binary is up to date: nothing to restart");
                }
                Ok(built) => {
                    if builds_tx.send(built.executable).is_err() {
                        return;
                    }
                }
                Err(e) => eprintln!("[tracksuit dev] {e}: the last good build keeps serving"),
            }
        }
    });
    let launch = Launch {
        package,
        args: args.server_args,
        env: args.env,
        init_timeout: Duration::from_secs(args.init_timeout),
    };
    let serving = async {
        match args.port {
            Some(port) => http::serve(port, launch, builds_rx).await,
            None => {
                let (from_client, to_client) = tracksuit::transport::stdio::stdio().split();
                Relay::new(to_client, launch)
                    .run(from_client, builds_rx)
                    .await
            }
        }
    };
    // On a signal the relays are dropped (here, or with the runtime for HTTP sessions'
    // tasks): their servers are killed and their copies of the build removed.
    tokio::select! {
        result = serving => result,
        () = stopped() => Ok(()),
    }
}

/// Ctrl-C, or (Unix) SIGTERM / SIGHUP: how a client or a closing terminal stops us.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
            _ = hup.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
