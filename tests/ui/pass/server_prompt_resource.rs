//! A server impl block (tools, a prompt and both kinds of resource sharing its state), a
//! free prompt and both kinds of free resource.
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

    /// Suggests a note, from the server's own prefix.
    #[mcp_prompt]
    async fn suggest(&self, topic: String) -> String {
        format!("{}{topic}", self.prefix)
    }

    /// The prefix, as a resource.
    #[mcp_resource(uri = "notes://prefix")]
    async fn prefix(&self) -> String {
        self.prefix.clone()
    }

    /// A note by id, prefixed.
    #[mcp_resource(uri = "notes://by-id/{id}")]
    async fn by_id(&self, id: u64) -> String {
        format!("{}{id}", self.prefix)
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
