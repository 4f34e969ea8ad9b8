//! The Skills client (SEP-2640) end to end: against tracksuit's own server in memory and over
//! Streamable HTTP, in both eras; against a scripted server that lies (a wrong digest, size
//! or frontmatter, files outside the skill, a huge size claim, endless cursors), which must
//! give typed errors and read nothing it should not; against a server without the extension.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tracksuit::client::{Client, Era, HttpTransport, SkillClientError};
use tracksuit::host::connect_in_memory;
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::{Implementation, JsonRpcMessage, JsonRpcResponse};
use tracksuit::skills::{Skill, Skills};
use tracksuit::transport::{MessageSink as _, MessageStream as _, Transport as _, memory};
use tracksuit::{Server, ServerHandle, ServerOptions};

const ERAS: [Era; 2] = [Era::Session, Era::Stateless];

fn catalog() -> Skills {
    let greeter = Skill::new(
        "acme/greeter",
        "---\nname: greeter\ndescription: Greets people\nmetadata:\n  tone: warm\n  version: 2\n---\nRead references/PHRASES.md.\n",
    )
    .and_then(|s| s.file("references/PHRASES.md", "# Hello\n"))
    .and_then(|s| s.file("logo.png", vec![0x89, b'P', b'N', b'G', 0xff, 0x00]))
    .expect("a valid skill");
    let farewell = Skill::new(
        "farewell",
        "---\nname: farewell\ndescription: Says bye\n---\nBye.\n",
    )
    .expect("a valid skill");
    Skills::new()
        .with(greeter)
        .and_then(|s| s.with(farewell))
        .expect("two skills")
}

fn server() -> ServerHandle {
    // One skill a page, so that listing all of them follows a cursor.
    Server::with_options(
        Implementation::new("skills-client", "1.0.0"),
        ServerOptions::default().page_size(1),
    )
    .skills(catalog())
    .build()
    .expect("the server builds")
}

/// Lists, loads and reads every file of every skill, checking what comes back.
async fn round_trip(client: &Client, what: &str) {
    let skills = client.skills();
    assert!(skills.is_supported(), "{what}");
    let entries = skills.list_all().await.expect("listed");
    let uris: Vec<&str> = entries.iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["skill://acme/greeter/SKILL.md", "skill://farewell/SKILL.md"],
        "{what}"
    );
    assert_eq!(entries[0].frontmatter["metadata"]["version"], 2, "{what}");
    let greeter = skills.load(&entries[0]).await.expect("loaded");
    assert!(
        greeter
            .manifest()
            .ends_with("Read references/PHRASES.md.\n")
    );
    let paths: Vec<&str> = greeter.paths().collect();
    assert_eq!(paths, ["SKILL.md", "references/PHRASES.md", "logo.png"]);
    let phrases = greeter.file("references/PHRASES.md").await.expect("read");
    assert_eq!(phrases, b"# Hello\n", "{what}");
    let logo = greeter.file("logo.png").await.expect("a binary file");
    assert_eq!(logo, [0x89, b'P', b'N', b'G', 0xff, 0x00], "{what}");
    for path in ["../farewell/SKILL.md", "nope.md", "/etc/passwd", ""] {
        let err = greeter.file(path).await.expect_err(path);
        assert!(
            matches!(err, SkillClientError::Unlisted { .. }),
            "{what} {path}: {err}"
        );
    }
    let farewell = skills
        .fetch("skill://farewell/SKILL.md")
        .await
        .expect("fetched by URI");
    assert_eq!(farewell.entry().description(), Some("Says bye"));
    let missing = skills
        .get("skill://nope/SKILL.md")
        .await
        .expect_err("unknown");
    assert!(
        matches!(missing, SkillClientError::NotFound { ref uri } if uri == "skill://nope/SKILL.md"),
        "{what}: {missing}"
    );
}

#[tokio::test]
async fn skills_are_listed_loaded_and_verified_in_memory_in_both_eras() {
    for era in ERAS {
        let client = connect_in_memory(server(), Client::builder().era(era))
            .await
            .expect("connects");
        round_trip(&client, &format!("in memory, {era:?}")).await;
    }
}

#[tokio::test]
async fn skills_are_listed_loaded_and_verified_over_http_in_both_eras() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = StreamableHttp::new(server(), HttpOptions::default()).router("/mcp");
    tokio::spawn(tracksuit::host::http::serve(listener, app));
    for era in ERAS {
        let transport = HttpTransport::new(&format!("http://{addr}/mcp")).expect("a URL");
        let client = Client::builder()
            .era(era)
            .connect(transport)
            .await
            .expect("connects");
        round_trip(&client, &format!("over HTTP, {era:?}")).await;
    }
}

#[tokio::test]
async fn a_server_without_the_extension_is_not_supported() {
    for era in ERAS {
        let plain = Server::new(Implementation::new("plain", "1.0.0"))
            .build()
            .expect("builds");
        let client = connect_in_memory(plain, Client::builder().era(era))
            .await
            .expect("connects");
        let skills = client.skills();
        assert!(!skills.is_supported());
        let listed = skills.list_all().await;
        assert!(
            matches!(listed, Err(SkillClientError::NotSupported)),
            "{era:?}"
        );
        let fetched = skills.fetch("skill://greeter/SKILL.md").await;
        assert!(
            matches!(fetched, Err(SkillClientError::NotSupported)),
            "{era:?}"
        );
    }
}

// ---- A scripted server that says whatever the test wants. ----

const SKILL_URI: &str = "skill://pdf-processing/SKILL.md";
const FORMS_URI: &str = "skill://pdf-processing/references/FORMS.md";
const MANIFEST: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const FORMS: &str = "Supporting content.\n";

fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

fn file(uri: &str, content: &str) -> Value {
    json!({ "uri": uri, "digest": digest(content.as_bytes()), "size": content.len() })
}

/// The entry of the honest skill: `SKILL.md` and `references/FORMS.md`.
fn entry() -> Value {
    json!({
        "uri": SKILL_URI,
        "frontmatter": { "name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents" },
        "resources": [file(SKILL_URI, MANIFEST), file(FORMS_URI, FORMS)],
    })
}

/// What the scripted server answers, and the URIs it was asked to read.
#[derive(Clone)]
struct Script {
    /// `skills/list` pages, by cursor (`""` for the first).
    pages: HashMap<String, Value>,
    /// `resources/read` answers, by URI.
    contents: HashMap<String, Value>,
    reads: Arc<Mutex<Vec<String>>>,
}

impl Script {
    /// One page holding `entry`, and the honest files.
    fn serving(entry: Value) -> Self {
        let mut script = Script {
            pages: HashMap::new(),
            contents: HashMap::new(),
            reads: Arc::default(),
        };
        script
            .pages
            .insert(String::new(), json!({ "skills": [entry] }));
        script.text(SKILL_URI, MANIFEST).text(FORMS_URI, FORMS)
    }

    fn text(mut self, uri: &str, text: &str) -> Self {
        let contents =
            json!({ "contents": [{ "uri": uri, "mimeType": "text/markdown", "text": text }] });
        self.contents.insert(uri.to_owned(), contents);
        self
    }

    fn reads(&self) -> Vec<String> {
        self.reads.lock().expect("not poisoned").clone()
    }

    fn answer(&self, method: &str, params: &Value) -> Value {
        let capabilities =
            json!({ "resources": {}, "extensions": { "io.modelcontextprotocol/skills": {} } });
        let info = json!({ "name": "scripted", "version": "1.0.0" });
        match method {
            "initialize" => {
                json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": info })
            }
            "server/discover" => {
                json!({ "supportedVersions": ["2026-07-28"], "capabilities": capabilities, "serverInfo": info })
            }
            "skills/list" => {
                let cursor = params["cursor"].as_str().unwrap_or_default();
                self.pages
                    .get(cursor)
                    .cloned()
                    .unwrap_or(json!({ "skills": [] }))
            }
            "skills/get" => json!({ "skill": self.pages[""]["skills"][0] }),
            "resources/read" => {
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                self.reads.lock().expect("not poisoned").push(uri.clone());
                self.contents
                    .get(&uri)
                    .cloned()
                    .unwrap_or(json!({ "contents": [] }))
            }
            _ => json!({}),
        }
    }

    /// A client connected to this script in `era`.
    async fn client(&self, era: Era) -> Client {
        let (server_end, client_end) = memory::pair();
        let (mut incoming, mut outgoing) = server_end.split();
        let script = self.clone();
        tokio::spawn(async move {
            while let Some(Ok(message)) = incoming.next().await {
                let JsonRpcMessage::Request(request) = message else {
                    continue;
                };
                let params = request.params.unwrap_or(Value::Null);
                let result = script.answer(&request.method, &params);
                let response = JsonRpcResponse::new(request.id, &result).expect("serialisable");
                if outgoing
                    .send(JsonRpcMessage::Response(response))
                    .await
                    .is_err()
                {
                    break;
                }
                let _ = outgoing.flush().await;
            }
        });
        Client::builder()
            .era(era)
            .connect(client_end)
            .await
            .expect("connects")
    }
}

#[tokio::test]
async fn nothing_is_read_before_it_is_asked_for() {
    for era in ERAS {
        let script = Script::serving(entry());
        let client = script.client(era).await;
        let entries = client.skills().list_all().await.expect("listed");
        assert!(
            script.reads().is_empty(),
            "listing read {:?}",
            script.reads()
        );
        let skill = client.skills().load(&entries[0]).await.expect("loaded");
        assert_eq!(script.reads(), [SKILL_URI], "{era:?}");
        assert_eq!(
            skill.file("references/FORMS.md").await.expect("read"),
            FORMS.as_bytes()
        );
        assert_eq!(script.reads(), [SKILL_URI, FORMS_URI], "{era:?}");
    }
}

#[tokio::test]
async fn altered_content_is_a_digest_mismatch() {
    let evil = MANIFEST.replace("Skill body.", "Evil body!!"); // same length
    for era in ERAS {
        let script = Script::serving(entry()).text(SKILL_URI, &evil);
        let client = script.client(era).await;
        let err = client
            .skills()
            .fetch(SKILL_URI)
            .await
            .expect_err("tampered");
        let SkillClientError::DigestMismatch {
            uri,
            expected,
            actual,
        } = err
        else {
            panic!("{era:?}: expected a digest mismatch, got {err}");
        };
        assert_eq!(uri, SKILL_URI);
        assert_eq!(expected, digest(MANIFEST.as_bytes()));
        assert_eq!(actual, digest(evil.as_bytes()));
        assert_eq!(
            script.reads(),
            [SKILL_URI],
            "nothing read after the failure"
        );
    }
    // A supporting file too.
    let script = Script::serving(entry()).text(FORMS_URI, "Supporting CONTENT.\n");
    let client = script.client(Era::Session).await;
    let skill = client
        .skills()
        .fetch(SKILL_URI)
        .await
        .expect("SKILL.md is intact");
    let err = skill
        .file("references/FORMS.md")
        .await
        .expect_err("tampered");
    assert!(
        matches!(err, SkillClientError::DigestMismatch { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn extra_bytes_are_a_size_mismatch() {
    let longer = format!("{MANIFEST}extra bytes the entry did not account for\n");
    for era in ERAS {
        let script = Script::serving(entry()).text(SKILL_URI, &longer);
        let client = script.client(era).await;
        let err = client
            .skills()
            .fetch(SKILL_URI)
            .await
            .expect_err("too long");
        assert!(
            matches!(err, SkillClientError::SizeMismatch { expected, actual, .. }
                if expected == MANIFEST.len() as u64 && actual == longer.len() as u64),
            "{era:?}: {err}"
        );
    }
}

#[tokio::test]
async fn a_frontmatter_unlike_the_entry_is_refused() {
    // The digest and size match what is served; only the frontmatter gives it away.
    let changed = MANIFEST.replace(
        "description: Extract, fill, and assemble PDF documents",
        "description: Exfiltrate credentials",
    );
    let mut lying = entry();
    lying["resources"][0] = file(SKILL_URI, &changed);
    for era in ERAS {
        let script = Script::serving(lying.clone()).text(SKILL_URI, &changed);
        let client = script.client(era).await;
        let err = client
            .skills()
            .fetch(SKILL_URI)
            .await
            .expect_err("mismatch");
        let SkillClientError::BadFrontmatter { reason, .. } = err else {
            panic!("{era:?}: expected bad frontmatter, got {err}");
        };
        assert!(reason.contains("`description`"), "{reason}");
        assert_eq!(script.reads(), [SKILL_URI], "no file read after it");
    }
    // No frontmatter at all.
    let bare = "Just text.\n";
    let mut lying = entry();
    lying["resources"][0] = file(SKILL_URI, bare);
    let script = Script::serving(lying).text(SKILL_URI, bare);
    let client = script.client(Era::Session).await;
    let err = client
        .skills()
        .fetch(SKILL_URI)
        .await
        .expect_err("no frontmatter");
    assert!(
        matches!(err, SkillClientError::BadFrontmatter { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn hostile_entries_are_refused_before_anything_is_read() {
    let mut outside = entry();
    outside["resources"][1] = file("skill://pdf-processing/../secrets/KEY", "k");
    let mut other_scheme = entry();
    other_scheme["resources"][1] = file("file:///etc/passwd", "root");
    let mut misnamed = entry();
    misnamed["uri"] = json!("skill://other/SKILL.md");
    for (what, lying) in [
        ("a path out of the skill", outside),
        ("a file:// URI", other_scheme),
        ("a URI not naming the skill", misnamed),
    ] {
        let script = Script::serving(lying);
        let client = script.client(Era::Session).await;
        let err = client.skills().list_all().await.expect_err(what);
        assert!(
            matches!(err, SkillClientError::InvalidEntry { .. }),
            "{what}: {err}"
        );
        let err = client.skills().fetch(SKILL_URI).await.expect_err(what);
        assert!(
            matches!(err, SkillClientError::InvalidEntry { .. }),
            "{what}: {err}"
        );
        assert!(
            script.reads().is_empty(),
            "{what}: read {:?}",
            script.reads()
        );
    }

    let mut huge = entry();
    huge["resources"][1]["size"] = json!(u64::MAX);
    let script = Script::serving(huge);
    let client = script.client(Era::Session).await;
    let entries = client.skills().list_all().await.expect("listed as it is");
    let err = client
        .skills()
        .load(&entries[0])
        .await
        .expect_err("too large");
    assert!(matches!(err, SkillClientError::TooLarge { .. }), "{err}");
    assert!(script.reads().is_empty());
}

#[tokio::test]
async fn pages_are_followed_and_endless_cursors_stopped() {
    let mut script = Script::serving(entry());
    let mut second = entry();
    second["uri"] = json!("skill://acme/pdf-processing/SKILL.md");
    second["resources"] = json!("dynamic");
    script.pages.insert(
        String::new(),
        json!({ "skills": [entry()], "nextCursor": "2" }),
    );
    script
        .pages
        .insert("2".into(), json!({ "skills": [second] }));
    let client = script.client(Era::Stateless).await;
    let all = client.skills().list_all().await.expect("two pages");
    assert_eq!(all.len(), 2);

    let mut endless = Script::serving(entry());
    endless.pages.insert(
        String::new(),
        json!({ "skills": [], "nextCursor": "again" }),
    );
    endless.pages.insert(
        "again".into(),
        json!({ "skills": [], "nextCursor": "again" }),
    );
    let client = endless.client(Era::Session).await;
    let err = client.skills().list_all().await.expect_err("never ends");
    assert!(
        matches!(err, SkillClientError::InvalidEntry { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn a_dynamic_skill_is_read_unverified_but_inside_the_skill() {
    let mut dynamic = entry();
    dynamic["resources"] = json!("dynamic");
    let script = Script::serving(dynamic);
    let client = script.client(Era::Session).await;
    let skill = client.skills().fetch(SKILL_URI).await.expect("loaded");
    assert_eq!(skill.paths().count(), 0);
    assert_eq!(
        skill.file("references/FORMS.md").await.expect("read"),
        FORMS.as_bytes()
    );
    let err = skill.file("../x").await.expect_err("outside");
    assert!(matches!(err, SkillClientError::Unlisted { .. }));
    assert_eq!(script.reads(), [SKILL_URI, FORMS_URI]);
}
