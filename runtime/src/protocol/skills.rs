//! Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) wire types, and the parts of
//! the `SKILL.md` format both ends need: its YAML frontmatter and the `sha256:` digests.

use super::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use yaml_rust2::{Yaml, YamlLoader};

/// The extension's identifier, the key under `capabilities.extensions`.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// `skills/list`
pub(crate) const LIST: &str = "skills/list";
/// `skills/get`
pub(crate) const GET: &str = "skills/get";
/// The manifest every skill has at its root.
pub(crate) const MANIFEST: &str = "SKILL.md";
/// Files one skill may hold (the extension's per-skill limit).
pub(crate) const MAX_FILES: usize = 512;
/// Bytes one skill may hold in total (16 MiB, the extension's per-skill limit).
pub(crate) const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One skill, as `skills/list` and `skills/get` describe it: the URI of its `SKILL.md`, that
/// file's frontmatter as JSON, and its files with their digests and sizes.
///
/// ```
/// use tracksuit::protocol::{SkillEntry, SkillResources};
/// let entry: SkillEntry = serde_json::from_value(serde_json::json!({
///     "uri": "skill://pdf-processing/SKILL.md",
///     "frontmatter": { "name": "pdf-processing", "description": "Fill PDF forms" },
///     "resources": "dynamic"
/// }))?;
/// assert_eq!(entry.name(), Some("pdf-processing"));
/// assert_eq!(entry.description(), Some("Fill PDF forms"));
/// assert_eq!(entry.resources, SkillResources::Dynamic);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md` frontmatter, verbatim (`name` and `description` at least).
    pub frontmatter: JsonObject,
    /// Every file of the skill, or `"dynamic"`.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// The frontmatter's `name`.
    ///
    /// ```
    /// use tracksuit::protocol::{SkillEntry, SkillResources};
    /// let mut frontmatter = tracksuit::protocol::JsonObject::new();
    /// frontmatter.insert("name".into(), "greeter".into());
    /// let entry = SkillEntry { uri: "skill://greeter/SKILL.md".into(), frontmatter, resources: SkillResources::Dynamic };
    /// assert_eq!(entry.name(), Some("greeter"));
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The frontmatter's `description`.
    ///
    /// ```
    /// use tracksuit::protocol::{SkillEntry, SkillResources};
    /// let entry = SkillEntry { uri: "skill://greeter/SKILL.md".into(), frontmatter: Default::default(), resources: SkillResources::Dynamic };
    /// assert_eq!(entry.description(), None);
    /// ```
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }
}

/// A skill's files: all of them, each with its digest and size, or `"dynamic"` when the
/// server generates the content and cannot publish digests.
///
/// ```
/// use tracksuit::protocol::SkillResources;
/// let dynamic: SkillResources = serde_json::from_value(serde_json::json!("dynamic"))?;
/// assert_eq!(dynamic, SkillResources::Dynamic);
/// assert!(serde_json::from_value::<SkillResources>(serde_json::json!("static")).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillResources {
    /// Every file of the skill, `SKILL.md` included, each once.
    Listed(Vec<SkillResource>),
    /// The content is generated; nothing to verify it against.
    Dynamic,
}

impl Serialize for SkillResources {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Listed(files) => files.serialize(s),
            SkillResources::Dynamic => s.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(s) if s == "dynamic" => Ok(SkillResources::Dynamic),
            files @ Value::Array(_) => serde_json::from_value(files)
                .map(SkillResources::Listed)
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom(
                "`resources` must be an array of files or \"dynamic\"",
            )),
        }
    }
}

/// One file of a skill: its URI, the SHA-256 digest of its bytes (`sha256:` and 64 lowercase
/// hex digits) and its length in bytes.
///
/// ```
/// use tracksuit::protocol::SkillResource;
/// let file: SkillResource = serde_json::from_value(serde_json::json!({
///     "uri": "skill://pdf-processing/references/FORMS.md",
///     "digest": "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
///     "size": 3
/// }))?;
/// assert_eq!(file.size, 3);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:{hex}` of the file's raw bytes.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
}

/// `skills/list` result: one page of entries.
///
/// ```
/// use tracksuit::protocol::ListSkillsResult;
/// let page: ListSkillsResult = serde_json::from_value(serde_json::json!({ "skills": [], "nextCursor": "2" }))?;
/// assert!(page.skills.is_empty());
/// assert_eq!(page.next_cursor.as_deref(), Some("2"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The entries of this page.
    pub skills: Vec<SkillEntry>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `skills/get` result: one entry.
///
/// ```
/// use tracksuit::protocol::GetSkillResult;
/// let got: GetSkillResult = serde_json::from_value(serde_json::json!({ "skill": {
///     "uri": "skill://greeter/SKILL.md",
///     "frontmatter": { "name": "greeter", "description": "Greets" },
///     "resources": []
/// }}))?;
/// assert_eq!(got.skill.name(), Some("greeter"));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: SkillEntry,
}

/// The `sha256:{hex}` digest of `bytes`, as skill entries carry it.
pub(crate) fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in Sha256::digest(bytes) {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The Agent Skills naming rule: 1-64 of `a-z0-9-`, no leading, trailing or double hyphen.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The YAML frontmatter of a `SKILL.md` (between leading `---` lines) as a JSON object.
pub(crate) fn frontmatter(text: &str) -> Result<JsonObject, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err("SKILL.md must begin with `---` and YAML frontmatter".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("SKILL.md frontmatter has no closing `---`".into());
    }
    let docs = YamlLoader::load_from_str(&yaml).map_err(|e| format!("frontmatter: {e}"))?;
    match docs.into_iter().next().map(to_json) {
        Some(Ok(Value::Object(map))) => Ok(map),
        Some(Err(e)) => Err(e),
        _ => Err("frontmatter must be a YAML mapping".into()),
    }
}

fn to_json(y: Yaml) -> Result<Value, String> {
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => b.into(),
        Yaml::Integer(i) => i.into(),
        Yaml::String(s) => s.into(),
        Yaml::Real(r) => r
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("frontmatter: {r} is not a finite number"))?,
        Yaml::Array(items) => {
            Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        Yaml::Hash(map) => {
            let mut out = JsonObject::new();
            for (k, v) in map {
                let key = match k {
                    Yaml::String(s) => s,
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Real(r) => r,
                    _ => return Err("frontmatter keys must be scalars".into()),
                };
                out.insert(key, to_json(v)?);
            }
            Value::Object(out)
        }
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err("frontmatter aliases are not supported".into());
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_prefixed_lowercase_hex() {
        let d = digest(b"foo");
        assert_eq!(
            d,
            "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
        );
    }

    #[test]
    fn frontmatter_is_json() {
        let fm = frontmatter("---\nname: x\nmetadata:\n  v: 2\n---\nbody").unwrap();
        assert_eq!(fm["metadata"]["v"], 2);
        assert!(frontmatter("---\nname: [x\n---\n").is_err());
        assert!(frontmatter("---\nname: x\n").is_err());
        assert!(frontmatter("name: x\n---\n").is_err());
    }
}
