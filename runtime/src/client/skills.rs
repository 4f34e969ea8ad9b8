//! The Skills extension (SEP-2640) from the client's side: list a server's skills, load one
//! and read its files, each verified against the skill's entry (size, SHA-256 digest, and
//! for `SKILL.md` its frontmatter). Nothing is read ahead of need: listing reads no file,
//! loading reads `SKILL.md` only, and each other file is read when asked for.
//!
//! ```
//! use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let manifest = "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nSee references/FORMS.md.\n";
//! let skill = Skill::new("pdf-processing", manifest)?.file("references/FORMS.md", "# Forms\n")?;
//! let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
//! let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
//!
//! let entries = client.skills().list_all().await?; // reads no file
//! let skill = client.skills().load(&entries[0]).await?; // reads and verifies SKILL.md
//! assert!(skill.manifest().contains("references/FORMS.md"));
//! let forms = skill.file("references/FORMS.md").await?; // reads and verifies one file
//! assert_eq!(forms, b"# Forms\n");
//! # Ok(())
//! # }
//! ```

mod check;

use super::Client;
use crate::peer::RequestError;
use crate::protocol::skills::{EXTENSION, GET, LIST, MAX_BYTES};
use crate::protocol::{
    GetSkillResult, ListSkillsResult, PaginatedRequestParams, SkillEntry, SkillResource,
    SkillResources,
};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// Pages [`SkillsClient::list_all`] follows before it gives up on a server whose cursors
/// never end.
const MAX_PAGES: usize = 1000;

/// Why skills could not be listed, or a skill or one of its files could not be loaded.
/// Every verification failure is its own variant; none of them hands out the content.
///
/// ```
/// use tracksuit::{Server, client::{Client, SkillClientError}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::new(tracksuit::crate_info!()).build()?; // serves no skills
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let err = client.skills().list_all().await.unwrap_err();
/// assert!(matches!(err, SkillClientError::NotSupported));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillClientError {
    /// The server did not declare `io.modelcontextprotocol/skills` in its capabilities.
    #[error("the server does not declare the skills extension")]
    NotSupported,
    /// `skills/get` answered that no skill is served at `uri`.
    #[error("no skill is served at {uri}")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// The entry is malformed: its URI, name or description, a file outside the skill, a
    /// file listed twice or without a well-formed digest, `SKILL.md` not listed.
    #[error("skill entry {uri}: {reason}")]
    InvalidEntry {
        /// The entry's URI.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The entry lists more than 512 files or 16 MiB (the extension's per-skill limits).
    #[error("skill {uri} is over the limits: {files} files, {bytes} bytes")]
    TooLarge {
        /// The entry's URI.
        uri: String,
        /// The files it lists.
        files: usize,
        /// The sum of their sizes.
        bytes: u64,
    },
    /// The path is not a file the skill's entry lists (or would leave the skill).
    #[error("{path} is not a file of skill {skill}")]
    Unlisted {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The path asked for.
        path: String,
    },
    /// The file's SHA-256 digest is not the one its entry lists.
    #[error("{uri}: digest {actual}, the entry lists {expected}")]
    DigestMismatch {
        /// The file's URI.
        uri: String,
        /// The entry's digest.
        expected: String,
        /// The digest of what the server sent.
        actual: String,
    },
    /// The file's length is not the size its entry lists.
    #[error("{uri}: {actual} bytes, the entry lists {expected}")]
    SizeMismatch {
        /// The file's URI.
        uri: String,
        /// The entry's size.
        expected: u64,
        /// The length of what the server sent.
        actual: u64,
    },
    /// `SKILL.md` has no parseable frontmatter, or it differs from the entry's.
    #[error("{uri}: {reason}")]
    BadFrontmatter {
        /// The `SKILL.md` URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// `resources/read` answered without this file's content, or with a blob that is not
    /// base64.
    #[error("{uri}: {reason}")]
    BadContent {
        /// The file's URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// The request itself failed.
    #[error(transparent)]
    Request(#[from] RequestError),
}

impl Client {
    /// The skills the server serves (SEP-2640): see [`SkillsClient`].
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// assert!(client.skills().is_supported());
    /// # Ok(())
    /// # }
    /// ```
    pub fn skills(&self) -> SkillsClient<'_> {
        SkillsClient { client: self }
    }
}

/// Lists, gets and loads a server's skills; from [`Client::skills`]. Every call checks
/// first that the server declared the extension ([`SkillClientError::NotSupported`]).
///
/// ```
/// use tracksuit::{Server, client::{Client, Era}, skills::{Skill, Skills}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
/// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
/// let builder = Client::builder().era(Era::Stateless); // the same in both eras
/// let client = tracksuit::host::connect_in_memory(server, builder).await?;
/// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
/// assert!(skill.manifest().ends_with("Say hi.\n"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SkillsClient<'a> {
    client: &'a Client,
}

impl<'a> SkillsClient<'a> {
    /// Whether the server declared the skills extension (in its `initialize` or
    /// `server/discover` capabilities).
    ///
    /// ```
    /// use tracksuit::{Server, client::Client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = Server::new(tracksuit::crate_info!()).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// assert!(!client.skills().is_supported());
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_supported(&self) -> bool {
        let capabilities = match (self.client.server_init(), self.client.discovered()) {
            (Some(init), _) => &init.capabilities,
            (None, Some(discovered)) => &discovered.capabilities,
            (None, None) => return false,
        };
        capabilities
            .extra
            .get("extensions")
            .and_then(|e| e.get(EXTENSION))
            .is_some_and(Value::is_object)
    }

    fn supported(&self) -> Result<(), SkillClientError> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(SkillClientError::NotSupported)
        }
    }

    /// `skills/list`, one page: its entries (each checked as [`SkillsClient::get`] checks
    /// one) and the cursor of the next page. Reads no file.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let page = client.skills().list(None).await?;
    /// assert_eq!(page.skills[0].description(), Some("Greets"));
    /// assert!(page.next_cursor.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list(&self, cursor: Option<String>) -> Result<ListSkillsResult, SkillClientError> {
        self.supported()?;
        let params = PaginatedRequestParams {
            cursor,
            ..Default::default()
        };
        let page: Value = self.client.request(LIST, params).await?;
        let entries = match page.get("skills") {
            Some(Value::Array(entries)) => entries.clone(),
            _ => return Err(invalid(LIST, "the result has no `skills` array")),
        };
        let skills = entries
            .into_iter()
            .map(decode_entry)
            .collect::<Result<Vec<_>, _>>()?;
        let next_cursor = match page.get("nextCursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.clone()),
            Some(_) => return Err(invalid(LIST, "`nextCursor` is not a string")),
        };
        Ok(ListSkillsResult {
            skills,
            next_cursor,
        })
    }

    /// Every page of `skills/list`, in order (at most 1000 pages: a server whose cursors
    /// never end gets [`SkillClientError::InvalidEntry`]). Reads no file.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let names: Vec<_> = client.skills().list_all().await?.iter().filter_map(|e| e.name().map(str::to_owned)).collect();
    /// assert_eq!(names, ["greeter"]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn list_all(&self) -> Result<Vec<SkillEntry>, SkillClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let page = self.list(cursor).await?;
            all.extend(page.skills);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
        Err(invalid(
            LIST,
            &format!("still paging after {MAX_PAGES} pages"),
        ))
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`, checked (its URI
    /// names the skill, every file is inside it and listed once with a well-formed digest).
    /// An unknown URI is [`SkillClientError::NotFound`]. Reads no file.
    ///
    /// ```
    /// use tracksuit::{Server, client::{Client, SkillClientError}, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let entry = client.skills().get("skill://greeter/SKILL.md").await?;
    /// assert_eq!(entry.name(), Some("greeter"));
    /// let missing = client.skills().get("skill://nope/SKILL.md").await.unwrap_err();
    /// assert!(matches!(missing, SkillClientError::NotFound { .. }));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get(&self, uri: &str) -> Result<SkillEntry, SkillClientError> {
        self.supported()?;
        let got: Result<Value, _> = self.client.request(GET, json!({ "uri": uri })).await;
        let got = match got {
            Err(RequestError::Peer(e)) if e.code == -32602 => {
                return Err(SkillClientError::NotFound {
                    uri: uri.to_owned(),
                });
            }
            other => other?,
        };
        let entry = serde_json::from_value::<GetSkillResult>(got)
            .map_err(|e| invalid(uri, &e.to_string()))?
            .skill;
        check::entry_root(&entry)?;
        Ok(entry)
    }

    /// Loads the skill of `entry` (from [`list`](SkillsClient::list) or
    /// [`get`](SkillsClient::get)): checks the entry and its limits (512 files, 16 MiB),
    /// reads `SKILL.md` and verifies its size and digest against the entry (unless its
    /// `resources` is `"dynamic"`) and its frontmatter, field by field. Reads no other file.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let entries = client.skills().list_all().await?;
    /// let skill = client.skills().load(&entries[0]).await?;
    /// assert_eq!(skill.entry().uri, "skill://greeter/SKILL.md");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn load(&self, entry: &SkillEntry) -> Result<SkillHandle<'a>, SkillClientError> {
        self.supported()?;
        let root = check::entry_root(entry)?;
        check::within_limits(entry)?;
        let handle = SkillHandle {
            client: self.client,
            entry: entry.clone(),
            root,
            manifest: String::new(),
            retrieved: AtomicU64::new(0),
        };
        let bytes = handle.read(&entry.uri).await?;
        Ok(SkillHandle {
            manifest: check::manifest_text(entry, bytes)?,
            ..handle
        })
    }

    /// [`get`](SkillsClient::get) then [`load`](SkillsClient::load): the skill whose
    /// `SKILL.md` is at `uri`, whether or not it is listed. Skills are fetched by URI, not by
    /// name: a name is a label two skills may share.
    ///
    /// ```
    /// use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let skill = Skill::new("acme/greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let skill = client.skills().fetch("skill://acme/greeter/SKILL.md").await?;
    /// assert_eq!(skill.entry().name(), Some("greeter"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn fetch(&self, uri: &str) -> Result<SkillHandle<'a>, SkillClientError> {
        let entry = self.get(uri).await?;
        self.load(&entry).await
    }
}

/// A loaded skill: its entry, its verified `SKILL.md`, and its other files on demand
/// ([`SkillHandle::file`]), each read when asked for and verified against the entry.
///
/// ```
/// use tracksuit::{Server, client::{Client, SkillClientError}, skills::{Skill, Skills}};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSee TONE.md.\n")?
///     .file("TONE.md", "warm")?;
/// let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
/// let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
/// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
/// assert_eq!(skill.paths().collect::<Vec<_>>(), ["SKILL.md", "TONE.md"]);
/// assert_eq!(skill.file("TONE.md").await?, b"warm");
/// // Only listed files are read; nothing outside the skill.
/// assert!(matches!(skill.file("../other/SKILL.md").await, Err(SkillClientError::Unlisted { .. })));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct SkillHandle<'a> {
    client: &'a Client,
    entry: SkillEntry,
    /// The `SKILL.md` URI without `/SKILL.md`.
    root: String,
    manifest: String,
    /// Bytes read so far (the total a `"dynamic"` skill may reach is 16 MiB).
    retrieved: AtomicU64,
}

impl SkillHandle<'_> {
    /// The entry the skill was loaded from, which every file is verified against.
    ///
    /// ```
    /// # use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// # let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// # let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
    /// assert_eq!(skill.entry().description(), Some("Greets"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// `SKILL.md`, verified: frontmatter and instructions.
    ///
    /// ```
    /// # use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?;
    /// # let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// # let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
    /// assert!(skill.manifest().starts_with("---\nname: greeter\n"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn manifest(&self) -> &str {
        &self.manifest
    }

    /// The paths of the skill's files, relative to its root (`SKILL.md`,
    /// `references/FORMS.md`), as the entry lists them; none for a `"dynamic"` skill.
    ///
    /// ```
    /// # use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?.file("a/b.txt", "b")?;
    /// # let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// # let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
    /// assert!(skill.paths().any(|p| p == "a/b.txt"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        let files = match &self.entry.resources {
            SkillResources::Listed(files) => files.as_slice(),
            SkillResources::Dynamic => &[],
        };
        files.iter().filter_map(|f| {
            f.uri
                .strip_prefix(self.root.as_str())
                .and_then(|r| r.strip_prefix('/'))
        })
    }

    /// Reads the file at `path` (relative to the skill's root, `/`-separated) and verifies
    /// its size and digest against the entry. A path the entry does not list, or one that
    /// would leave the skill, is [`SkillClientError::Unlisted`] and nothing is read. For a
    /// `"dynamic"` skill the file is read unverified, up to 16 MiB read in all.
    ///
    /// ```
    /// # use tracksuit::{Server, client::Client, skills::{Skill, Skills}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let skill = Skill::new("greeter", "---\nname: greeter\ndescription: Greets\n---\nSay hi.\n")?.file("scripts/hi.sh", "echo hi\n")?;
    /// # let server = Server::new(tracksuit::crate_info!()).skills(Skills::new().with(skill)?).build()?;
    /// # let client = tracksuit::host::connect_in_memory(server, Client::builder()).await?;
    /// let skill = client.skills().fetch("skill://greeter/SKILL.md").await?;
    /// assert_eq!(skill.file("scripts/hi.sh").await?, b"echo hi\n");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn file(&self, path: &str) -> Result<Vec<u8>, SkillClientError> {
        let unlisted = || SkillClientError::Unlisted {
            skill: self.entry.uri.clone(),
            path: path.to_owned(),
        };
        if !check::relative_ok(path) {
            return Err(unlisted());
        }
        let uri = format!("{}/{path}", self.root);
        if let SkillResources::Listed(files) = &self.entry.resources
            && !files.iter().any(|f| f.uri == uri)
        {
            return Err(unlisted());
        }
        self.read(&uri).await
    }

    /// Reads `uri` and verifies it against its entry (a listed skill), or counts it
    /// against the 16 MiB a `"dynamic"` skill may deliver.
    async fn read(&self, uri: &str) -> Result<Vec<u8>, SkillClientError> {
        let listed: Option<&SkillResource> = match &self.entry.resources {
            SkillResources::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillResources::Dynamic => None,
        };
        let retrieved = self.retrieved.load(Ordering::Relaxed);
        let limit = listed.map_or(MAX_BYTES.saturating_sub(retrieved), |f| f.size);
        let read = self
            .client
            .read_resource(uri)
            .await
            .map_err(SkillClientError::Request)?;
        let bytes = check::content_bytes(uri, read.contents, limit)?;
        match listed {
            Some(file) => check::verify(file, &bytes)?,
            None if bytes.len() as u64 > limit => {
                return Err(SkillClientError::TooLarge {
                    uri: self.entry.uri.clone(),
                    files: 0,
                    bytes: retrieved.saturating_add(bytes.len() as u64),
                });
            }
            None => {}
        }
        self.retrieved
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }
}

/// An entry of a `skills/list` page, checked.
fn decode_entry(raw: Value) -> Result<SkillEntry, SkillClientError> {
    let uri = raw
        .get("uri")
        .and_then(Value::as_str)
        .unwrap_or("(no uri)")
        .to_owned();
    let entry: SkillEntry =
        serde_json::from_value(raw).map_err(|e| invalid(&uri, &e.to_string()))?;
    check::entry_root(&entry)?;
    Ok(entry)
}

fn invalid(uri: &str, reason: &str) -> SkillClientError {
    SkillClientError::InvalidEntry {
        uri: uri.to_owned(),
        reason: reason.to_owned(),
    }
}
