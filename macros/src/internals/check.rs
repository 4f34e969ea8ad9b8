//! Compile-time checks of names and URI templates.

/// SEP-986: a tool name is 1–128 characters of `[A-Za-z0-9_.-]`.
pub fn tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err(format!(
            "tool name {name:?} must be 1 to 128 characters long (SEP-986)"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "tool name {name:?} contains {c:?}; tool names may only use A-Z, a-z, 0-9, `_`, `-` and `.` (SEP-986)"
        ));
    }
    Ok(())
}

/// An OAuth scope is a `scope-token` (RFC 6749 §3.3): one or more printable ASCII
/// characters other than space, `"` and `\`.
pub fn scope_token(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("a scope cannot be empty".into());
    }
    if let Some(c) = scope
        .chars()
        .find(|c| !(c.is_ascii_graphic() && *c != '"' && *c != '\\'))
    {
        return Err(format!(
            "scope {scope:?} contains {c:?}; a scope is printable ASCII without spaces, `\"` or `\\` (RFC 6749 §3.3): list several scopes as separate strings"
        ));
    }
    Ok(())
}

/// The runtime's URI template parser, the same file (as serde_derive shares
/// `serde_derive_internals`): what the macro accepts is exactly what the runtime parses.
/// `uri_syntax.rs` is a symlink to `runtime/src/server/uri_template/syntax.rs`, so the file
/// lies inside this crate and `cargo package` includes it (serde_derive_internals' `src`
/// is such a symlink too).
#[path = "uri_syntax.rs"]
#[allow(dead_code)]
mod uri_syntax;

/// The variables of an RFC 6570 URI template, or what is wrong with it.
pub fn uri_template_variables(template: &str) -> Result<Vec<String>, String> {
    Ok(uri_syntax::parse(template)?
        .into_iter()
        .flat_map(|part| match part {
            uri_syntax::Part::Expr { vars, .. } => vars,
            uri_syntax::Part::Literal(_) => Vec::new(),
        })
        .collect())
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (distance(word, c), *c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    /// The macro and the runtime accept and reject the same templates.
    #[test]
    fn macro_and_runtime_agree_on_uri_templates() {
        let templates = [
            "mem://motto",
            "mem://users/{id}",
            "file:///{+path}{?rev}",
            "a/{x}{/y}",
            "a/{x}{.ext}",
            "a/{?q,page}{&sort}",
            "a/{#frag}",
            "a/{x.y}",
            "a/{%41}",
            "a/{",
            "a/}",
            "a/{}",
            "a/{x y}",
            "a/{x}{y}",
            "a/{;p}",
            "a/{x,}",
            "a/{+}",
        ];
        for t in templates {
            let by_macro = super::uri_template_variables(t);
            let by_runtime = tracksuit::UriTemplate::parse(t);
            assert_eq!(by_macro.is_ok(), by_runtime.is_ok(), "{t}: {by_macro:?}");
            if let (Ok(vars), Ok(parsed)) = (&by_macro, &by_runtime) {
                assert_eq!(vars, &parsed.variables().collect::<Vec<_>>(), "{t}");
            }
            if let (Err(a), Err(b)) = (&by_macro, &by_runtime) {
                assert_eq!(a, b, "{t}");
            }
        }
    }
}
