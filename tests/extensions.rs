//! The Skills (SEP-2640) and MCP Apps (SEP-1865) extensions, end to end through tracksuit's
//! client, on both protocol eras.

use serde_json::{Value, json};
use tracksuit::apps::{APP_MIME, Csp, Permissions, UiResource};
use tracksuit::client::{Client, Era};
use tracksuit::host::connect_in_memory;
use tracksuit::protocol::{CallToolResult, Implementation, ResourceContents, Tool};
use tracksuit::skills::{Skill, Skills};
use tracksuit::{RequestError, Server, ServerError, ToolFn};

fn skills() -> Skills {
    let manifest = "---\nname: greeter\ndescription: Greets people warmly\nmetadata:\n  tone: warm\n---\nSay hello.\n";
    let skill = Skill::new("acme/greeter", manifest)
        .and_then(|s| s.file("references/PHRASES.md", "# Hello\n"))
        .expect("a valid skill");
    Skills::new().with(skill).expect("one skill")
}

fn hello() -> impl tracksuit::ToolHandler {
    ToolFn::new(Tool::new("hello", Default::default()), |_ctx, _args| {
        std::future::ready(Ok(CallToolResult::text("hello")))
    })
}

fn server() -> Server {
    let app = UiResource::new("ui://hello/card.html", "hello-card", "<p>hello</p>")
        .csp(Csp::new().connect_domain("https://api.example"))
        .permissions(Permissions::new().clipboard_write());
    Server::new(Implementation::new("extensions", "1.0.0"))
        .skills(skills())
        .ui_resource(app)
        .app_tool(hello(), "ui://hello/card.html")
}

fn code(e: RequestError) -> i64 {
    match e {
        RequestError::Peer(e) => e.code,
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

async fn client(era: Era) -> Client {
    let handle = server().build().expect("the server builds");
    connect_in_memory(handle, Client::builder().era(era))
        .await
        .expect("connects")
}

#[tokio::test]
async fn skills_are_declared_listed_fetched_and_read_on_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let c = client(era).await;
        let capabilities = match era {
            Era::Session => {
                serde_json::to_value(&c.server_init().expect("initialized").capabilities)
            }
            _ => serde_json::to_value(&c.discovered().expect("discovered").capabilities),
        }
        .unwrap();
        assert_eq!(
            capabilities["extensions"]["io.modelcontextprotocol/skills"],
            json!({ "directoryRead": true }),
            "{era:?}"
        );
        let list: Value = c.request("skills/list", json!({})).await.unwrap();
        let entry = &list["skills"][0];
        assert_eq!(entry["uri"], "skill://acme/greeter/SKILL.md");
        assert_eq!(entry["frontmatter"]["metadata"]["tone"], "warm");
        assert_eq!(entry["resources"].as_array().unwrap().len(), 2);
        if era == Era::Stateless {
            assert!(list.get("ttlMs").is_some() && list.get("cacheScope").is_some());
        }
        let got: Value = c
            .request(
                "skills/get",
                json!({ "uri": "skill://acme/greeter/SKILL.md" }),
            )
            .await
            .unwrap();
        assert_eq!(got["skill"], *entry);
        let unknown = c
            .request::<_, Value>("skills/get", json!({ "uri": "skill://nope/SKILL.md" }))
            .await
            .unwrap_err();
        assert_eq!(code(unknown), -32602);

        let read = c
            .read_resource("skill://acme/greeter/references/PHRASES.md")
            .await
            .unwrap();
        let ResourceContents::Text(text) = &read.contents[0] else {
            panic!("text contents");
        };
        assert_eq!(text.text, "# Hello\n");
        assert_eq!(text.mime_type.as_deref(), Some("text/markdown"));
        let dir: Value = c
            .request(
                "resources/directory/read",
                json!({ "uri": "skill://acme/greeter" }),
            )
            .await
            .unwrap();
        assert_eq!(dir["resources"][1]["mimeType"], "inode/directory");
        let not_a_dir = c
            .request::<_, Value>(
                "resources/directory/read",
                json!({ "uri": "skill://acme/greeter/SKILL.md" }),
            )
            .await
            .unwrap_err();
        assert_eq!(code(not_a_dir), -32602);
    }
}

#[tokio::test]
async fn a_server_without_skills_does_not_know_their_methods() {
    let handle = Server::new(Implementation::new("bare", "1.0.0"))
        .build()
        .unwrap();
    let c = connect_in_memory(handle, Client::builder()).await.unwrap();
    let caps = serde_json::to_value(&c.server_init().unwrap().capabilities).unwrap();
    assert!(caps.get("extensions").is_none(), "{caps}");
    let e = c
        .request::<_, Value>("skills/list", json!({}))
        .await
        .unwrap_err();
    assert_eq!(code(e), -32601);
}

#[tokio::test]
async fn an_app_tool_links_to_its_ui_resource_with_csp_and_permissions() {
    for era in [Era::Session, Era::Stateless] {
        let c = client(era).await;
        let tools = c.list_tools(None).await.unwrap().tools;
        let tool = tools.iter().find(|t| t.name == "hello").unwrap();
        assert_eq!(
            tracksuit::apps::linked_uri(tool),
            Some("ui://hello/card.html"),
            "{era:?}"
        );
        let read = c.read_resource("ui://hello/card.html").await.unwrap();
        let ResourceContents::Text(html) = &read.contents[0] else {
            panic!("text contents");
        };
        assert_eq!(html.mime_type.as_deref(), Some(APP_MIME));
        let ui = &html.meta.as_ref().unwrap()["ui"];
        assert_eq!(ui["csp"]["connectDomains"], json!(["https://api.example"]));
        assert_eq!(ui["permissions"], json!({ "clipboardWrite": {} }));
        let called = c.call_tool("hello", json!({})).await.unwrap();
        assert_eq!(called.is_error, None);
    }
}

#[test]
fn a_tool_linking_to_an_undeclared_ui_resource_fails_the_build() {
    let dangling = Server::new(Implementation::new("x", "1")).app_tool(hello(), "ui://hello/none");
    assert_eq!(
        dangling.build().unwrap_err(),
        ServerError::UnknownUiResource {
            tool: "hello".into(),
            uri: "ui://hello/none".into()
        }
    );
    // A plain resource at that URI is not an app.
    let plain = tracksuit::ResourceFn::new(
        tracksuit::protocol::Resource::new("ui://hello/plain", "plain"),
        |_ctx| async { Ok(tracksuit::protocol::ReadResourceResult::default()) },
    );
    let not_an_app = Server::new(Implementation::new("x", "1"))
        .resource(plain)
        .app_tool(hello(), "ui://hello/plain");
    assert!(matches!(
        not_an_app.build(),
        Err(ServerError::UnknownUiResource { .. })
    ));
    let wrong_scheme = Server::new(Implementation::new("x", "1")).ui_resource(UiResource::new(
        "https://example/app",
        "app",
        "<p></p>",
    ));
    assert!(matches!(
        wrong_scheme.build(),
        Err(ServerError::UnknownUiResource { .. })
    ));
}

/// Shown next to the board.
#[tracksuit::mcp_tool(meta = r#"{"ui": {"resourceUri": "ui://macro/view.html"}}"#)]
async fn macro_linked() -> String {
    "linked".into()
}

#[test]
fn a_macro_tool_linked_through_meta_is_checked_too() {
    let dangling = Server::new(Implementation::new("x", "1")).tool(macro_linked);
    assert_eq!(
        dangling.build().unwrap_err(),
        ServerError::UnknownUiResource {
            tool: "macro_linked".into(),
            uri: "ui://macro/view.html".into()
        }
    );
    let served = Server::new(Implementation::new("x", "1"))
        .tool(macro_linked)
        .ui_resource(UiResource::new("ui://macro/view.html", "view", "<p></p>"));
    assert!(
        served.build().is_ok(),
        "declaring the app after the tool is fine"
    );
}

/// A game whose tool and App are declared together, so the macro checks the link.
struct Game;

#[tracksuit::mcp_server]
impl Game {
    /// The board.
    #[mcp_resource(uri = "ui://game/board.html", app)]
    async fn board(&self) -> String {
        "<p>board</p>".into()
    }

    /// Plays a move.
    #[mcp_tool(
        ui = "ui://game/board.html",
        meta = r#"{"ui": {"visibility": ["app"]}}"#
    )]
    async fn play(&self) -> String {
        "played".into()
    }
}

#[tokio::test]
async fn a_macro_tool_linked_with_ui_reaches_its_app_resource() {
    let handle = Server::new(Implementation::new("x", "1"))
        .tools(Game)
        .build()
        .expect("the link is served by the same block");
    let c = connect_in_memory(handle, Client::builder()).await.unwrap();
    let tools = c.list_tools(None).await.unwrap().tools;
    let play = tools.iter().find(|t| t.name == "play").unwrap();
    assert_eq!(
        play.meta.as_ref().unwrap()["ui"],
        json!({ "visibility": ["app"], "resourceUri": "ui://game/board.html" }),
        "`ui` is merged into `meta`"
    );
    let listed = c.list_resources(None).await.unwrap().resources;
    let board = listed
        .iter()
        .find(|r| r.uri == "ui://game/board.html")
        .unwrap();
    assert_eq!(board.mime_type.as_deref(), Some(APP_MIME));
    let read = c.read_resource("ui://game/board.html").await.unwrap();
    let ResourceContents::Text(html) = &read.contents[0] else {
        panic!("text contents");
    };
    assert_eq!(html.mime_type.as_deref(), Some(APP_MIME));
    assert_eq!(html.text, "<p>board</p>");
}

/// Linked with `ui`, to an App registered elsewhere.
#[tracksuit::mcp_tool(ui = "ui://macro/other.html")]
async fn ui_linked() -> String {
    "linked".into()
}

#[test]
fn a_macro_tool_linked_with_ui_is_checked_at_build() {
    let dangling = Server::new(Implementation::new("x", "1")).tool(ui_linked);
    assert_eq!(
        dangling.build().unwrap_err(),
        ServerError::UnknownUiResource {
            tool: "ui_linked".into(),
            uri: "ui://macro/other.html".into()
        }
    );
    let served = Server::new(Implementation::new("x", "1"))
        .tool(ui_linked)
        .ui_resource(UiResource::new("ui://macro/other.html", "other", "<p></p>"));
    assert!(served.build().is_ok());
}

#[tokio::test]
async fn an_app_tool_keeps_its_scope_rule() {
    let project = ToolFn::new(
        Tool::new("project", Default::default()),
        |_ctx, _args| async { Ok(CallToolResult::text("opened")) },
    )
    .scopes_with(tracksuit::ScopeRule::template(["projects:{id}"]));
    let card = UiResource::new("ui://project/card.html", "project-card", "<p>project</p>");
    let server = Server::new(Implementation::new("extensions", "1.0.0"))
        .ui_resource(card)
        .app_tool(project, "ui://project/card.html")
        .build()
        .expect("the server builds");
    for era in [Era::Session, Era::Stateless] {
        let reader = tracksuit::Principal::new("reader").with_scopes(["projects:7"]);
        let c = tracksuit::host::connect_in_memory_as(
            server.clone(),
            Client::builder().era(era),
            reader,
        )
        .await
        .expect("connects");
        let opened = c
            .call_tool("project", json!({"id": 7}))
            .await
            .expect("its project");
        assert_eq!(opened.content[0].as_text(), Some("opened"), "{era:?}");
        // The rule's scope for another project is missing: refused before the tool runs.
        let refused = c.call_tool("project", json!({"id": 8})).await;
        assert!(refused.is_err(), "{era:?}: {refused:?}");
    }
}
