//! One broken item of an `#[mcp_server]` block leaves the others generated and checked, and
//! the type usable with `Server::tools`: the misspelled attribute, the argument without a
//! schema and the non-async completer are all reported, and nothing else.
use tracksuit::{Server, mcp_server};

struct Ledger;

struct NotSchema;

#[mcp_server]
impl Ledger {
    /// Balances.
    #[mcp_tool(readonly)]
    async fn balances(&self) -> String {
        String::new()
    }

    /// Files an entry.
    #[mcp_tool]
    async fn file(&self, entry: NotSchema) -> String {
        let _ = entry;
        String::new()
    }

    /// A month's entries.
    #[mcp_resource(uri = "ledger://{month}", complete = Self::month_names)]
    async fn month_csv(&self, month: String) -> String {
        month
    }

    fn month_names(_argument: &str, _value: &str) -> Vec<String> {
        Vec::new()
    }

    /// Counts entries.
    #[mcp_tool]
    async fn count(&self) -> String {
        String::new()
    }
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).tools(Ledger);
}
