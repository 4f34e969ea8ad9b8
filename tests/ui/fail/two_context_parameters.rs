use tracksuit::{Ctx, mcp_tool};

#[mcp_tool]
async fn twice(ctx: &Ctx, again: &Ctx) -> String {
    let _ = (ctx, again);
    String::new()
}

fn main() {}
