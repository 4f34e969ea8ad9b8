//! `Self::` in a free item's `complete = ..` names nothing: one error at the path, saying
//! what to write instead (not an error naming a generated type).
use tracksuit::mcp_resource;

/// A month's entries.
#[mcp_resource(uri = "ledger://{month}", complete = Self::month_names)]
async fn month_csv(month: String) -> String {
    month
}

fn main() {}
