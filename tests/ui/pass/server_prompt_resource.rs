//! A server impl block, a prompt and both kinds of resource.
use tracksuit::{Ctx, Server, mcp_prompt, mcp_resource, mcp_server};

struct Notes {
    prefix: String,
}

#[mcp_server]
impl Notes {
    /// Writes a note.
    #[mcp_tool]
    async fn write(&self, text: String) -> String {
        format!("{}{text}", self.prefix)
    }

    /// Reads notes.
    #[mcp_tool(read_only)]
    async fn read(&self, ctx: Ctx) -> Vec<tracksuit::protocol::ContentBlock> {
        let _ = ctx;
        vec![tracksuit::protocol::ContentBlock::text(self.prefix.clone())]
    }
}

/// Summarises a topic.
#[mcp_prompt]
async fn summarise(topic: String, tone: Option<String>, ctx: &Ctx) -> String {
    let _ = ctx;
    format!("Summarise {topic} {}", tone.unwrap_or_default())
}

#[mcp_resource(uri = "notes://all", mime_type = "text/plain")]
async fn all_notes() -> String {
    String::new()
}

#[mcp_resource(uri = "notes://{id}")]
async fn note(id: u64) -> Vec<u8> {
    id.to_le_bytes().to_vec()
}

fn main() {
    let _ = Server::new(tracksuit::crate_info!())
        .tools(Notes { prefix: "> ".into() })
        .prompt(summarise)
        .resource(all_notes)
        .resource_template(note);
}
