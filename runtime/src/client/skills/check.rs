//! What the skills client checks, as pure functions over what the server sent: an entry's
//! shape (its URIs stay inside the skill, digests are well formed, `SKILL.md` is listed), the
//! per-skill limits, a file's bytes against its entry, and `SKILL.md`'s frontmatter against
//! the entry's.

use super::SkillClientError;
use crate::protocol::skills::{MANIFEST, MAX_BYTES, MAX_FILES, frontmatter, valid_name};
use crate::protocol::{JsonObject, ResourceContents, SkillEntry, SkillResource, SkillResources};
use base64::Engine as _;
use serde_json::Value;

/// The skill's root (`skill://acme/pdf-processing`, the `SKILL.md` URI without
/// `/SKILL.md`), once the entry's shape is checked: its URI, name and description, and every
/// listed file's URI (inside the root, no `.`/`..` segment, listed once) and digest.
pub(super) fn entry_root(entry: &SkillEntry) -> Result<String, SkillClientError> {
    let bad = |reason: String| SkillClientError::InvalidEntry {
        uri: entry.uri.clone(),
        reason,
    };
    let root = entry
        .uri
        .strip_suffix(MANIFEST)
        .and_then(|r| r.strip_suffix('/'))
        .ok_or_else(|| bad(format!("the URI must end in `/{MANIFEST}`")))?;
    let (scheme, path) = root
        .split_once("://")
        .ok_or_else(|| bad("the URI must be `<scheme>://<skill-path>/SKILL.md`".into()))?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || !relative_ok(path) {
        return Err(bad(format!("{path:?} is not a skill path")));
    }
    let name = entry.name().unwrap_or_default();
    if !valid_name(name) || path.rsplit('/').next() != Some(name) {
        return Err(bad(format!(
            "the frontmatter name {name:?} must be a valid skill name equal to the skill path's last segment"
        )));
    }
    if entry.description().is_none_or(str::is_empty) {
        return Err(bad("the frontmatter has no `description`".into()));
    }
    if let SkillResources::Listed(files) = &entry.resources {
        check_files(root, &entry.uri, files).map_err(bad)?;
    }
    Ok(root.to_owned())
}

fn check_files(root: &str, manifest: &str, files: &[SkillResource]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for file in files {
        let inside = file
            .uri
            .strip_prefix(root)
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(relative_ok);
        if !inside {
            return Err(format!("{:?} is not a file inside the skill", file.uri));
        }
        if !seen.insert(file.uri.as_str()) {
            return Err(format!("{:?} is listed twice", file.uri));
        }
        let hex = file.digest.strip_prefix("sha256:").unwrap_or_default();
        if hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(format!("{:?} has a malformed digest", file.uri));
        }
    }
    if !seen.contains(manifest) {
        return Err(format!("`resources` does not list {MANIFEST}"));
    }
    Ok(())
}

/// A `/`-separated path that cannot leave where it is resolved: non-empty segments, none of
/// them `.` or `..` (also percent-encoded), no `\`, `?` or `#`.
pub(super) fn relative_ok(path: &str) -> bool {
    path.split('/').all(|segment| {
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        !segment.is_empty()
            && decoded != "."
            && decoded != ".."
            && !segment.contains(['\\', '?', '#'])
            && !decoded.contains("%2f")
            && !decoded.contains("%5c")
    })
}

/// The per-skill limits, from the entry alone: at most [`MAX_FILES`] files and
/// [`MAX_BYTES`] bytes in total.
pub(super) fn within_limits(entry: &SkillEntry) -> Result<(), SkillClientError> {
    let SkillResources::Listed(files) = &entry.resources else {
        return Ok(());
    };
    let bytes = files
        .iter()
        .try_fold(0u64, |sum, f| sum.checked_add(f.size))
        .unwrap_or(u64::MAX);
    if files.len() > MAX_FILES || bytes > MAX_BYTES {
        return Err(SkillClientError::TooLarge {
            uri: entry.uri.clone(),
            files: files.len(),
            bytes,
        });
    }
    Ok(())
}

/// The bytes of `uri` in a `resources/read` result; a blob longer than `limit` bytes is a
/// size mismatch found before it is decoded.
pub(super) fn content_bytes(
    uri: &str,
    contents: Vec<ResourceContents>,
    limit: u64,
) -> Result<Vec<u8>, SkillClientError> {
    let content = contents.into_iter().find(|c| match c {
        ResourceContents::Text(t) => t.uri == uri,
        ResourceContents::Blob(b) => b.uri == uri,
    });
    match content {
        Some(ResourceContents::Text(t)) => Ok(t.text.into_bytes()),
        Some(ResourceContents::Blob(b)) => {
            let at_least = (b.blob.trim_end_matches('=').len() as u64).saturating_mul(3) / 4;
            if at_least > limit {
                return Err(SkillClientError::SizeMismatch {
                    uri: uri.to_owned(),
                    expected: limit,
                    actual: at_least,
                });
            }
            base64::engine::general_purpose::STANDARD
                .decode(b.blob.as_bytes())
                .map_err(|e| SkillClientError::BadContent {
                    uri: uri.to_owned(),
                    reason: format!("the blob is not base64: {e}"),
                })
        }
        None => Err(SkillClientError::BadContent {
            uri: uri.to_owned(),
            reason: "the server's answer holds no content for this URI".into(),
        }),
    }
}

/// `bytes` against the file's entry: its size, then its digest.
pub(super) fn verify(file: &SkillResource, bytes: &[u8]) -> Result<(), SkillClientError> {
    if bytes.len() as u64 != file.size {
        return Err(SkillClientError::SizeMismatch {
            uri: file.uri.clone(),
            expected: file.size,
            actual: bytes.len() as u64,
        });
    }
    let actual = crate::protocol::skills::digest(bytes);
    if actual != file.digest {
        return Err(SkillClientError::DigestMismatch {
            uri: file.uri.clone(),
            expected: file.digest.clone(),
            actual,
        });
    }
    Ok(())
}

/// `SKILL.md`'s text, once its frontmatter parses and equals the entry's field by field.
pub(super) fn manifest_text(
    entry: &SkillEntry,
    bytes: Vec<u8>,
) -> Result<String, SkillClientError> {
    let bad = |reason: String| SkillClientError::BadFrontmatter {
        uri: entry.uri.clone(),
        reason,
    };
    let text = String::from_utf8(bytes).map_err(|_| bad("SKILL.md is not UTF-8".into()))?;
    let parsed = frontmatter(&text).map_err(bad)?;
    if let Some(field) = first_difference(&parsed, &entry.frontmatter) {
        return Err(bad(format!(
            "field `{field}` differs between SKILL.md and the skill's entry"
        )));
    }
    Ok(text)
}

/// The first key whose values differ between the two objects (numbers compared by value).
fn first_difference(a: &JsonObject, b: &JsonObject) -> Option<String> {
    a.keys()
        .chain(b.keys())
        .find(|k| !same(a.get(*k), b.get(*k)))
        .cloned()
}

fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x == y || x.as_f64() == y.as_f64(),
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(Some(x), Some(y)))
        }
        (Some(Value::Object(x)), Some(Value::Object(y))) => first_difference(x, y).is_none(),
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BODY: &str = "---\nname: pdf\ndescription: Fill forms\nmetadata:\n  v: 2\n---\nBody\n";

    fn entry(files: Value) -> SkillEntry {
        serde_json::from_value(json!({
            "uri": "skill://acme/pdf/SKILL.md",
            "frontmatter": { "name": "pdf", "description": "Fill forms", "metadata": { "v": 2.0 } },
            "resources": files,
        }))
        .unwrap()
    }

    fn file(uri: &str, bytes: &[u8]) -> Value {
        let digest = crate::protocol::skills::digest(bytes);
        json!({ "uri": uri, "digest": digest, "size": bytes.len() })
    }

    fn invalid(e: &SkillEntry) -> String {
        match entry_root(e) {
            Err(SkillClientError::InvalidEntry { reason, .. }) => reason,
            other => panic!("expected an invalid entry, got {other:?}"),
        }
    }

    #[test]
    fn a_good_entry_has_its_root() {
        let manifest = file("skill://acme/pdf/SKILL.md", BODY.as_bytes());
        let forms = file("skill://acme/pdf/references/FORMS.md", b"x");
        let e = entry(json!([manifest, forms]));
        assert_eq!(entry_root(&e).unwrap(), "skill://acme/pdf");
        assert_eq!(
            entry_root(&entry(json!("dynamic"))).unwrap(),
            "skill://acme/pdf"
        );
        within_limits(&e).unwrap();
    }

    #[test]
    fn files_outside_the_skill_are_refused() {
        let manifest = file("skill://acme/pdf/SKILL.md", b"");
        for uri in [
            "skill://acme/pdf/../other/SKILL.md",
            "skill://acme/pdf/%2E%2E/secret",
            "skill://acme/pdfx/a.md",
            "file:///etc/passwd",
            "skill://acme/pdf//a.md",
            "skill://acme/pdf/a.md?x=1",
        ] {
            let e = entry(json!([manifest.clone(), file(uri, b"")]));
            assert!(invalid(&e).contains("inside the skill"), "{uri}");
        }
        let twice = entry(json!([manifest.clone(), manifest.clone()]));
        assert!(invalid(&twice).contains("twice"));
        assert!(invalid(&entry(json!([]))).contains("does not list"));
        let mut bad_digest = manifest.clone();
        bad_digest["digest"] = json!("sha256:ABC");
        assert!(invalid(&entry(json!([bad_digest]))).contains("digest"));
    }

    #[test]
    fn the_uri_names_the_skill() {
        let mut e = entry(json!("dynamic"));
        e.uri = "skill://acme/other/SKILL.md".into();
        assert!(invalid(&e).contains("last segment"));
        e.uri = "skill://acme/pdf/README.md".into();
        assert!(invalid(&e).contains("must end"));
        e.uri = "pdf/SKILL.md".into();
        assert!(invalid(&e).contains("<scheme>"));
        e.uri = "skill://acme/../pdf/SKILL.md".into();
        assert!(invalid(&e).contains("skill path"));
        e.uri = "skill://acme/pdf/SKILL.md".into();
        e.frontmatter.remove("description");
        assert!(invalid(&e).contains("description"));
    }

    #[test]
    fn limits_count_files_and_claimed_bytes() {
        let mut huge = file("skill://acme/pdf/SKILL.md", b"");
        huge["size"] = json!(u64::MAX);
        let e = entry(json!([huge, file("skill://acme/pdf/a", b"")]));
        assert!(matches!(
            within_limits(&e),
            Err(SkillClientError::TooLarge {
                bytes: u64::MAX,
                ..
            })
        ));
    }

    #[test]
    fn bytes_are_checked_by_size_then_digest() {
        let f: SkillResource = serde_json::from_value(file("skill://acme/pdf/a", b"abc")).unwrap();
        verify(&f, b"abc").unwrap();
        assert!(matches!(
            verify(&f, b"abcd"),
            Err(SkillClientError::SizeMismatch {
                expected: 3,
                actual: 4,
                ..
            })
        ));
        assert!(matches!(
            verify(&f, b"abd"),
            Err(SkillClientError::DigestMismatch { .. })
        ));
    }

    #[test]
    fn contents_are_found_by_uri_and_blobs_bounded() {
        let blob = ResourceContents::Blob(crate::protocol::BlobResourceContents {
            uri: "u".into(),
            mime_type: None,
            blob: "AAAAAAAA".into(),
            meta: None,
        });
        assert_eq!(content_bytes("u", vec![blob.clone()], 6).unwrap(), [0; 6]);
        assert!(matches!(
            content_bytes("u", vec![blob.clone()], 5),
            Err(SkillClientError::SizeMismatch { .. })
        ));
        assert!(matches!(
            content_bytes("v", vec![blob], 6),
            Err(SkillClientError::BadContent { .. })
        ));
        let text = ResourceContents::text("u", "hé");
        assert_eq!(content_bytes("u", vec![text], 0).unwrap(), "hé".as_bytes());
    }

    #[test]
    fn the_manifest_frontmatter_must_equal_the_entry() {
        let e = entry(json!("dynamic"));
        assert_eq!(manifest_text(&e, BODY.into()).unwrap(), BODY);
        let changed = BODY.replace("Fill forms", "Exfiltrate");
        let Err(SkillClientError::BadFrontmatter { reason, .. }) =
            manifest_text(&e, changed.into())
        else {
            panic!("a changed description passed");
        };
        assert!(reason.contains("`description`"), "{reason}");
        let extra = BODY.replace("name: pdf\n", "name: pdf\nlicense: MIT\n");
        assert!(manifest_text(&e, extra.into()).is_err());
        assert!(manifest_text(&e, b"no frontmatter".to_vec()).is_err());
        assert!(manifest_text(&e, vec![0xff, 0xfe]).is_err());
    }
}
