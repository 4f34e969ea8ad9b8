//! The benchmark server on the official Rust SDK (rmcp 3.x): the same `echo` and `add`,
//! `--stdio` or Streamable HTTP on `--port` with rmcp's default configuration, except that
//! accepted sockets get TCP_NODELAY (without it every call stalls ~40 ms on delayed ACKs).

use clap::Parser;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Parser)]
struct Args {
    #[arg(long)]
    stdio: bool,
    #[arg(long, default_value_t = 9102)]
    port: u16,
    /// Leave TCP_NODELAY off (rmcp's out-of-the-box behaviour).
    #[arg(long)]
    no_nodelay: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Debug, Clone)]
struct Twin {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Twin {
    fn new() -> Self {
        Twin {
            tool_router: Self::tool_router(),
        }
    }

    /// Echoes the text.
    #[tool]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Adds two integers.
    #[tool]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Twin {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        if args.stdio {
            let service = Twin::new().serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            return Ok(());
        }
        let service: StreamableHttpService<Twin, LocalSessionManager> = StreamableHttpService::new(
            || Ok(Twin::new()),
            Default::default(),
            StreamableHttpServerConfig::default(),
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        let nodelay = !args.no_nodelay;
        let listener = axum::serve::ListenerExt::tap_io(listener, move |tcp| {
            if nodelay {
                let _ = tcp.set_nodelay(true);
            }
        });
        axum::serve(listener, app).await?;
        Ok(())
    })
}
