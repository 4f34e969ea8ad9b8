//! Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension): folders of
//! instructions, scripts and references an agent loads on demand, each with a `SKILL.md`
//! manifest whose YAML frontmatter names and describes it.
//!
//! A [`Skills`] catalog is read from a directory ([`Skills::from_dir`]) or assembled in code
//! ([`Skill::new`] + [`Skill::file`]) and given to a server with
//! [`Server::skills`](crate::Server::skills). The server then
//! - declares `capabilities.extensions["io.modelcontextprotocol/skills"]` (with
//!   `directoryRead: true`) on both protocol eras,
//! - answers `skills/list` (one entry per skill: its `SKILL.md` URI, the frontmatter as
//!   JSON, and every file with its SHA-256 digest and size) and `skills/get`,
//! - serves every file as a `skill://<skill-path>/<file>` resource (`resources/list`,
//!   `resources/read`; `SKILL.md` as `text/markdown`, named and described by its
//!   frontmatter), and each directory through `resources/directory/read`.
//!
//! ```
//! use tracksuit::skills::{Skill, Skills};
//! let skill = Skill::new(
//!     "pdf-processing",
//!     "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n",
//! )?
//! .file("references/FORMS.md", "# Forms\n")?;
//! let skills = Skills::new().with(skill)?;
//! assert_eq!(skills.uris(), ["skill://pdf-processing/SKILL.md"]);
//! let server = tracksuit::Server::new(tracksuit::crate_info!()).skills(skills).build()?;
//! # let _ = server;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::protocol::skills::{self as wire, frontmatter, valid_name};
use crate::protocol::{
    BlobResourceContents, ErrorObject, JsonObject, Resource, ResourceContents, TextResourceContents,
};
use base64::Engine as _;
use serde_json::{Value, json};
use std::path::Path;

/// The extension's identifier, the key under `capabilities.extensions`.
///
/// ```
/// assert_eq!(tracksuit::skills::SKILLS_EXTENSION, "io.modelcontextprotocol/skills");
/// ```
pub const SKILLS_EXTENSION: &str = wire::EXTENSION;
/// `skills/list`
///
/// ```
/// assert_eq!(tracksuit::skills::SKILLS_LIST, "skills/list");
/// ```
pub const SKILLS_LIST: &str = wire::LIST;
/// `skills/get`
///
/// ```
/// assert_eq!(tracksuit::skills::SKILLS_GET, "skills/get");
/// ```
pub const SKILLS_GET: &str = wire::GET;
/// `resources/directory/read`
///
/// ```
/// assert_eq!(tracksuit::skills::DIRECTORY_READ, "resources/directory/read");
/// ```
pub const DIRECTORY_READ: &str = "resources/directory/read";
/// The MIME type of a directory in `resources/directory/read` results.
///
/// ```
/// assert_eq!(tracksuit::skills::DIRECTORY_MIME, "inode/directory");
/// ```
pub const DIRECTORY_MIME: &str = "inode/directory";
/// The manifest every skill has at its root.
///
/// ```
/// use tracksuit::skills::{MANIFEST, Skill};
/// let skill = Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
/// assert!(skill.uri().ends_with(MANIFEST));
/// # Ok::<(), tracksuit::skills::SkillError>(())
/// ```
pub const MANIFEST: &str = wire::MANIFEST;
/// Files one skill may hold (the extension's SHOULD NOT exceed, enforced).
///
/// ```
/// use tracksuit::skills::{MAX_FILES, Skill};
/// let mut skill = Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
/// let mut added = 0;
/// while let Ok(more) = skill.clone().file(format!("f{added}.txt"), "x") {
///     skill = more;
///     added += 1;
/// }
/// assert!(added + 1 >= MAX_FILES && added <= MAX_FILES); // counted with or without SKILL.md
/// # Ok::<(), tracksuit::skills::SkillError>(())
/// ```
pub const MAX_FILES: usize = wire::MAX_FILES;
/// Bytes one skill may hold in total (16 MiB; the extension's SHOULD NOT exceed, enforced).
///
/// ```
/// use tracksuit::skills::{MAX_BYTES, Skill};
/// let skill = Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
/// let too_big = vec![0u8; MAX_BYTES as usize + 1];
/// assert!(skill.file("big.bin", too_big).is_err());
/// # Ok::<(), tracksuit::skills::SkillError>(())
/// ```
pub const MAX_BYTES: u64 = wire::MAX_BYTES;

/// Why a skill or catalog could not be assembled.
///
/// ```
/// use tracksuit::skills::Skill;
/// // The frontmatter's `name` must match the skill path's last segment.
/// let err = Skill::new("pdf-processing", "---\nname: other\ndescription: d\n---\n").unwrap_err();
/// assert_eq!(err.skill, "pdf-processing");
/// assert!(err.to_string().starts_with("skill `pdf-processing`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("skill `{skill}`: {reason}")]
pub struct SkillError {
    /// The skill path (or file path) concerned.
    pub skill: String,
    /// What is wrong.
    pub reason: String,
}

impl SkillError {
    fn new(skill: &str, reason: impl Into<String>) -> Self {
        SkillError {
            skill: skill.to_owned(),
            reason: reason.into(),
        }
    }
}

/// One file of a skill.
#[derive(Debug, Clone)]
struct SkillFile {
    /// Relative to the skill's root, `/`-separated (`SKILL.md`, `references/FORMS.md`).
    path: String,
    bytes: Vec<u8>,
    mime: &'static str,
    digest: String,
}

impl SkillFile {
    fn new(path: String, bytes: Vec<u8>) -> Self {
        SkillFile {
            mime: mime_of(&path),
            digest: wire::digest(&bytes),
            path,
            bytes,
        }
    }
}

/// One skill: a `SKILL.md` and the files beside it, served under
/// `skill://<skill-path>/`. The skill path's last segment is the skill's name and must equal
/// the frontmatter's `name`.
///
/// ```
/// use tracksuit::skills::Skill;
/// let skill = Skill::new("acme/pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
/// assert_eq!(skill.name(), "pdf-processing");
/// assert_eq!(skill.uri(), "skill://acme/pdf-processing/SKILL.md");
/// # Ok::<(), tracksuit::skills::SkillError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Skill {
    path: String,
    frontmatter: JsonObject,
    files: Vec<SkillFile>,
}

impl Skill {
    /// A skill at `skill_path` (e.g. `pdf-processing` or `acme/pdf-processing`) whose
    /// `SKILL.md` is `manifest`. Fails unless the manifest starts with YAML frontmatter
    /// holding a `name` (equal to the path's last segment, 1-64 lowercase letters, digits and
    /// single hyphens) and a `description`.
    ///
    /// ```
    /// use tracksuit::skills::Skill;
    /// let manifest = "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nSteps.\n";
    /// assert!(Skill::new("pdf-processing", manifest).is_ok());
    /// assert!(Skill::new("pdf-processing", "no frontmatter").is_err());
    /// assert!(Skill::new("Bad_Name", manifest).is_err());
    /// ```
    pub fn new(
        skill_path: impl Into<String>,
        manifest: impl Into<String>,
    ) -> Result<Self, SkillError> {
        let path: String = skill_path.into();
        let manifest: String = manifest.into();
        let segments: Vec<&str> = path.split('/').collect();
        if segments.iter().any(|s| !valid_segment(s)) {
            return Err(SkillError::new(
                &path,
                "the skill path must be non-empty `/`-separated segments of URI-safe characters",
            ));
        }
        let frontmatter = frontmatter(&manifest).map_err(|e| SkillError::new(&path, e))?;
        let name = frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !valid_name(name) {
            return Err(SkillError::new(
                &path,
                format!(
                    "frontmatter `name` {name:?} must be 1-64 lowercase letters, digits and single hyphens"
                ),
            ));
        }
        if segments.last() != Some(&name) {
            return Err(SkillError::new(
                &path,
                format!(
                    "the last segment of the skill path must equal the frontmatter name {name:?}"
                ),
            ));
        }
        match frontmatter.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => {}
            _ => {
                return Err(SkillError::new(
                    &path,
                    "frontmatter `description` is required",
                ));
            }
        }
        Ok(Skill {
            frontmatter,
            files: vec![SkillFile::new(MANIFEST.into(), manifest.into_bytes())],
            path,
        })
    }

    /// Adds a file at `relative` (`/`-separated, below the skill's root), e.g. a reference
    /// or a script. Fails on a path that leaves the skill, a second file at one path, or a
    /// skill over [`MAX_FILES`] files or [`MAX_BYTES`] bytes.
    ///
    /// ```
    /// use tracksuit::skills::Skill;
    /// let skill = Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?
    ///     .file("references/FORMS.md", "# Forms\n")?;
    /// // A path may not leave the skill.
    /// assert!(skill.file("../secret", "x").is_err());
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn file(
        mut self,
        relative: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Result<Self, SkillError> {
        let relative: String = relative.into();
        if relative
            .split('/')
            .any(|s| !valid_segment(s) || s == "." || s == "..")
        {
            return Err(SkillError::new(
                &self.path,
                format!("file path {relative:?} must stay inside the skill"),
            ));
        }
        if self.files.iter().any(|f| {
            f.path == relative
                || relative.starts_with(&format!("{}/", f.path))
                || f.path.starts_with(&format!("{relative}/"))
        }) {
            return Err(SkillError::new(
                &self.path,
                format!("file path {relative:?} is taken"),
            ));
        }
        let file = SkillFile::new(relative, bytes.into());
        let total: u64 =
            self.files.iter().map(|f| f.bytes.len() as u64).sum::<u64>() + file.bytes.len() as u64;
        if self.files.len() + 1 > MAX_FILES || total > MAX_BYTES {
            return Err(SkillError::new(
                &self.path,
                format!("a skill holds at most {MAX_FILES} files and {MAX_BYTES} bytes"),
            ));
        }
        self.files.push(file);
        Ok(self)
    }

    /// Reads the skill in directory `dir` (its `SKILL.md` and every file below it), served
    /// at `skill_path`.
    pub fn from_dir(
        skill_path: impl Into<String>,
        dir: impl AsRef<Path>,
    ) -> Result<Self, SkillError> {
        let path: String = skill_path.into();
        let dir = dir.as_ref();
        let io =
            |e: std::io::Error, p: &Path| SkillError::new(&path, format!("{}: {e}", p.display()));
        let manifest_path = dir.join(MANIFEST);
        let manifest =
            std::fs::read_to_string(&manifest_path).map_err(|e| io(e, &manifest_path))?;
        let mut skill = Skill::new(path.clone(), manifest)?;
        let mut files = Vec::new();
        walk(dir, "", &mut files).map_err(|(e, p)| io(e, &p))?;
        files.sort();
        for relative in files {
            if relative == MANIFEST {
                continue;
            }
            let full = dir.join(&relative);
            let bytes = std::fs::read(&full).map_err(|e| io(e, &full))?;
            skill = skill.file(relative, bytes)?;
        }
        Ok(skill)
    }

    /// The skill's name (its frontmatter `name`).
    ///
    /// ```
    /// let skill = tracksuit::skills::Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
    /// assert_eq!(skill.name(), "pdf-processing");
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn name(&self) -> &str {
        self.frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The skill path (`skill://<skill-path>/SKILL.md`).
    ///
    /// ```
    /// let skill = tracksuit::skills::Skill::new("acme/pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
    /// assert_eq!(skill.path(), "acme/pdf-processing");
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The URI of its `SKILL.md`, which identifies the skill.
    ///
    /// ```
    /// let skill = tracksuit::skills::Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
    /// assert_eq!(skill.uri(), "skill://pdf-processing/SKILL.md");
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn uri(&self) -> String {
        format!("skill://{}/{MANIFEST}", self.path)
    }

    /// The frontmatter of its `SKILL.md`, as JSON.
    ///
    /// ```
    /// let skill = tracksuit::skills::Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
    /// assert_eq!(skill.frontmatter()["description"], "Fill PDF forms");
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn frontmatter(&self) -> &JsonObject {
        &self.frontmatter
    }

    fn file_uri(&self, file: &SkillFile) -> String {
        format!("skill://{}/{}", self.path, file.path)
    }

    /// The `skills/list` entry.
    fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| json!({ "uri": self.file_uri(f), "digest": f.digest, "size": f.bytes.len() }))
            .collect();
        json!({ "uri": self.uri(), "frontmatter": self.frontmatter, "resources": resources })
    }

    /// Every file as a resource: its descriptor and its contents.
    fn resources(&self) -> Vec<(Resource, ResourceContents)> {
        self.files
            .iter()
            .map(|f| {
                let uri = self.file_uri(f);
                let mut descriptor = Resource::new(uri.clone(), f.path.clone());
                descriptor.mime_type = Some(f.mime.into());
                descriptor.size = Some(f.bytes.len() as u64);
                if f.path == MANIFEST {
                    descriptor.name = self.name().to_owned();
                    descriptor.description = self
                        .frontmatter
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
                let contents = match std::str::from_utf8(&f.bytes) {
                    Ok(text) => ResourceContents::Text(TextResourceContents {
                        uri,
                        mime_type: Some(f.mime.into()),
                        text: text.to_owned(),
                        meta: None,
                    }),
                    Err(_) => ResourceContents::Blob(BlobResourceContents {
                        uri,
                        mime_type: Some(f.mime.into()),
                        blob: base64::engine::general_purpose::STANDARD.encode(&f.bytes),
                        meta: None,
                    }),
                };
                (descriptor, contents)
            })
            .collect()
    }

    /// The direct children of directory `dir` (`""` is the skill's root), if it is one.
    fn children(&self, dir: &str) -> Option<Vec<Value>> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut out: Vec<Value> = Vec::new();
        let mut seen_dirs: Vec<&str> = Vec::new();
        let mut any = false;
        for f in &self.files {
            let Some(rest) = f.path.strip_prefix(&prefix) else {
                continue;
            };
            any = true;
            match rest.split_once('/') {
                None => out.push(json!({
                    "uri": self.file_uri(f),
                    "name": rest,
                    "mimeType": f.mime,
                    "size": f.bytes.len(),
                })),
                Some((sub, _)) if !seen_dirs.contains(&sub) => {
                    seen_dirs.push(sub);
                    out.push(json!({
                        "uri": format!("skill://{}/{prefix}{sub}", self.path),
                        "name": sub,
                        "mimeType": DIRECTORY_MIME,
                    }));
                }
                Some(_) => {}
            }
        }
        any.then_some(out)
    }
}

/// The skills a server serves.
///
/// ```
/// use tracksuit::skills::{Skill, Skills};
/// let skills = Skills::new().with(Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?)?;
/// assert_eq!(skills.iter().count(), 1);
/// # Ok::<(), tracksuit::skills::SkillError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Skills {
    skills: Vec<Skill>,
}

impl Skills {
    /// An empty catalog.
    pub fn new() -> Self {
        Skills::default()
    }

    /// Adds `skill`; two skills at one path are an error.
    ///
    /// ```
    /// use tracksuit::skills::{Skill, Skills};
    /// let skill = Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?;
    /// let skills = Skills::new().with(skill.clone())?;
    /// assert!(skills.with(skill).is_err()); // the same path twice
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn with(mut self, skill: Skill) -> Result<Self, SkillError> {
        if self.skills.iter().any(|s| s.path == skill.path) {
            return Err(SkillError::new(&skill.path, "served twice"));
        }
        self.skills.push(skill);
        Ok(self)
    }

    /// Every skill below `root`: each directory holding a `SKILL.md` is a skill whose path is
    /// the directory's path relative to `root` (`root/pdf-processing/SKILL.md` is
    /// `skill://pdf-processing/SKILL.md`); its files are everything below it. Skills are
    /// listed in path order.
    ///
    /// ```
    /// use tracksuit::skills::Skills;
    /// let root = std::env::temp_dir().join(format!("tracksuit-skills-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(root.join("pdf-processing/references")).unwrap();
    /// std::fs::write(root.join("pdf-processing/SKILL.md"), "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n").unwrap();
    /// std::fs::write(root.join("pdf-processing/references/FORMS.md"), "# Forms\n").unwrap();
    /// let skills = Skills::from_dir(&root)?;
    /// assert_eq!(skills.uris(), ["skill://pdf-processing/SKILL.md"]);
    /// std::fs::remove_dir_all(&root).unwrap();
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Self, SkillError> {
        let root = root.as_ref();
        let mut dirs = Vec::new();
        find_skills(root, "", &mut dirs).map_err(|(e, p)| {
            SkillError::new(&root.display().to_string(), format!("{}: {e}", p.display()))
        })?;
        dirs.sort();
        let mut skills = Skills::new();
        for relative in dirs {
            let skill = Skill::from_dir(relative.clone(), root.join(&relative))?;
            skills = skills.with(skill)?;
        }
        Ok(skills)
    }

    /// The URIs of the skills' `SKILL.md`, in listing order.
    ///
    /// ```
    /// use tracksuit::skills::{Skill, Skills};
    /// let skills = Skills::new().with(Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?)?;
    /// assert_eq!(skills.uris(), ["skill://pdf-processing/SKILL.md"]);
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn uris(&self) -> Vec<String> {
        self.skills.iter().map(Skill::uri).collect()
    }

    /// The skills, in listing order.
    ///
    /// ```
    /// use tracksuit::skills::{Skill, Skills};
    /// let skills = Skills::new().with(Skill::new("pdf-processing", "---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nUse references/FORMS.md.\n")?)?;
    /// let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
    /// assert_eq!(names, ["pdf-processing"]);
    /// # Ok::<(), tracksuit::skills::SkillError>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter()
    }

    /// Every file of every skill as a resource (descriptor and contents).
    pub(crate) fn resources(&self) -> Vec<(Resource, ResourceContents)> {
        self.skills.iter().flat_map(Skill::resources).collect()
    }

    /// `skills/list`: a page of entries (`page_size` skills; an entry is never split).
    pub(crate) fn list(
        &self,
        params: Option<&Value>,
        page_size: usize,
    ) -> Result<Value, ErrorObject> {
        let offset = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .strip_prefix("skills:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= self.skills.len())
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "invalid cursor {:?}",
                        ErrorObject::quote(c)
                    ))
                })?,
            Some(_) => return Err(ErrorObject::invalid_params("`cursor` must be a string")),
        };
        let end = offset
            .saturating_add(page_size.max(1))
            .min(self.skills.len());
        let entries: Vec<Value> = self.skills[offset..end].iter().map(Skill::entry).collect();
        let mut result = json!({ "skills": entries });
        if end < self.skills.len()
            && let Value::Object(map) = &mut result
        {
            map.insert("nextCursor".into(), format!("skills:{end}").into());
        }
        Ok(result)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` URI is `params.uri`;
    /// `-32602` for any other URI.
    pub(crate) fn get(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let uri = uri_param(params)?;
        self.skills
            .iter()
            .find(|s| s.uri() == uri)
            .map(|s| json!({ "skill": s.entry() }))
            .ok_or_else(|| unknown(uri, "is not a skill this server serves"))
    }

    /// `resources/directory/read`: the direct children of a skill's directory (its root
    /// `skill://<skill-path>` or a folder below it); `-32602` for a file or unknown URI.
    pub(crate) fn read_directory(
        &self,
        params: Option<&Value>,
        page_size: usize,
    ) -> Result<Value, ErrorObject> {
        let uri = uri_param(params)?;
        let trimmed = uri.trim_end_matches('/');
        let rest = trimmed.strip_prefix("skill://").unwrap_or_default();
        let children = self.skills.iter().find_map(|s| {
            let dir = if rest == s.path {
                ""
            } else {
                rest.strip_prefix(s.path.as_str())?.strip_prefix('/')?
            };
            s.children(dir)
        });
        let Some(children) = children else {
            return Err(unknown(uri, "is not a directory this server serves"));
        };
        let offset = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= children.len())
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "invalid cursor {:?}",
                        ErrorObject::quote(c)
                    ))
                })?,
            Some(_) => return Err(ErrorObject::invalid_params("`cursor` must be a string")),
        };
        let end = offset.saturating_add(page_size.max(1)).min(children.len());
        let mut result = json!({ "resources": children[offset..end] });
        if end < children.len()
            && let Value::Object(map) = &mut result
        {
            map.insert("nextCursor".into(), end.to_string().into());
        }
        Ok(result)
    }
}

fn uri_param(params: Option<&Value>) -> Result<&str, ErrorObject> {
    params
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorObject::invalid_params("`uri` (a string) is required"))
}

fn unknown(uri: &str, what: &str) -> ErrorObject {
    let mut e = ErrorObject::invalid_params(format!("{} {what}", ErrorObject::quote(uri)));
    e.data = Some(json!({ "uri": uri }));
    e
}

/// A path segment of RFC 3986 unreserved characters.
fn valid_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

fn mime_of(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

type WalkError = (std::io::Error, std::path::PathBuf);

/// Every regular file below `dir`, relative, `/`-separated (hidden entries skipped).
fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), WalkError> {
    let entries = std::fs::read_dir(dir).map_err(|e| (e, dir.to_owned()))?;
    for entry in entries {
        let entry = entry.map_err(|e| (e, dir.to_owned()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|e| (e, entry.path()))?;
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() {
            walk(&entry.path(), &relative, out)?;
        } else if kind.is_file() {
            out.push(relative);
        }
    }
    Ok(())
}

/// The directories below `dir` holding a `SKILL.md` (not looking inside a skill).
fn find_skills(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), WalkError> {
    if !prefix.is_empty() && dir.join(MANIFEST).is_file() {
        out.push(prefix.to_owned());
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| (e, dir.to_owned()))?;
    for entry in entries {
        let entry = entry.map_err(|e| (e, dir.to_owned()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.file_type().map_err(|e| (e, entry.path()))?.is_dir() {
            continue;
        }
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        find_skills(&entry.path(), &relative, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
