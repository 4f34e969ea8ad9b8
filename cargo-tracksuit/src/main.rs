//! `cargo tracksuit`: a dev loop for MCP servers and one-shot MCP client commands.
//!
//! ```text
//! cargo tracksuit dev [--bin NAME] [-- SERVER ARGS]       # rebuild, restart, list_changed
//! cargo tracksuit inspect [--profile openai-strict] -- ./target/debug/my-server
//! cargo tracksuit list --url http://127.0.0.1:8000/mcp
//! cargo tracksuit call add --args '{"a": 1, "b": 2}' -- ./target/debug/my-server
//! cargo tracksuit install --client vscode --name notes -- ./target/release/notes
//! ```
//!
//! Every MCP exchange goes through `tracksuit::client`; see `docs/dev-loop.md` in the
//! repository for what each command does.

mod cli;
mod connect;
mod dev;
mod inspect;
mod install;

use clap::Parser;
use std::process::ExitCode;

/// What the commands fail with: a message for the terminal.
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> ExitCode {
    // `cargo tracksuit ...` runs `cargo-tracksuit tracksuit ...`; run directly, the binary
    // takes the same commands without the extra word.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "tracksuit") {
        args.remove(1);
    }
    let cli = cli::Cli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cargo tracksuit: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cargo tracksuit: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: cli::Cli) -> Result<ExitCode, Error> {
    match cli.command {
        cli::Command::Dev(args) => dev::run(args).await.map(|()| ExitCode::SUCCESS),
        cli::Command::Inspect(args) => inspect::inspect(args).await,
        cli::Command::List(args) => inspect::list(args).await,
        cli::Command::Call(args) => inspect::call(args).await,
        cli::Command::Install(args) => install::run(args).map(|()| ExitCode::SUCCESS),
    }
}
