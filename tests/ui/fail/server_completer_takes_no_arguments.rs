//! A completer of the block with the wrong parameters: one error at `complete = ..`'s
//! path, saying what a completer may be.
use tracksuit::mcp_server;

struct Ledger;

#[mcp_server]
impl Ledger {
    /// A month's entries.
    #[mcp_resource(uri = "ledger://{month}", complete = Self::month_names)]
    async fn month_csv(&self, month: String) -> String {
        month
    }

    async fn month_names(&self) -> Vec<String> {
        Vec::new()
    }
}

fn main() {}
