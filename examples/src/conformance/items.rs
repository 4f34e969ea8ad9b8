//! The suite's resources, resource template and prompts.

use super::basics::RED_PIXEL_PNG;
use serde_json::json;
use tracksuit::protocol::*;
use tracksuit::{mcp_prompt, mcp_resource};

/// A static text resource
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
pub(super) async fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A static binary resource (PNG)
#[mcp_resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
pub(super) async fn static_binary() -> ResourceContents {
    ResourceContents::blob_with_mime("test://static-binary", "image/png", RED_PIXEL_PNG)
}

/// A resource clients can subscribe to
#[mcp_resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
pub(super) async fn watched_resource() -> String {
    "Watched resource content".into()
}

/// A resource template with an id variable
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
pub(super) async fn template_data(id: String) -> String {
    json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
}

/// A simple prompt without arguments
#[mcp_prompt]
pub(super) async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with required arguments
#[mcp_prompt(complete = complete_words)]
pub(super) async fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Completion for `test_prompt_with_arguments`: words starting with what was typed.
pub(super) async fn complete_words(_argument: &str, value: &str) -> Vec<String> {
    ["paris", "park", "party", "hello", "world"]
        .iter()
        .filter(|w| w.starts_with(value))
        .map(|w| (*w).to_owned())
        .collect()
}

/// A prompt with an embedded resource
#[mcp_prompt]
pub(super) async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::embedded(ResourceContents::text_with_mime(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        ))),
        PromptMessage::user_text("Please process the embedded resource above."),
    ]
}

/// A prompt with an image
#[mcp_prompt]
pub(super) async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user_text("Please analyze the image above."),
    ]
}
