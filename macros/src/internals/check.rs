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

/// The variables of an RFC 6570 URI template, or what is wrong with it.
pub fn uri_template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("unmatched `}}` in URI template {template:?}"));
        }
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("unclosed `{{` in URI template {template:?}"));
        };
        let body = &rest[open + 1..open + close];
        let names = body
            .strip_prefix(['+', '#', '.', '/', '?', '&'])
            .unwrap_or(body);
        if names.is_empty() {
            return Err(format!(
                "empty expression `{{}}` in URI template {template:?}"
            ));
        }
        for name in names.split(',') {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "invalid variable name {name:?} in URI template {template:?}"
                ));
            }
            vars.push(name.to_owned());
        }
        rest = &rest[open + close + 1..];
    }
    Ok(vars)
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
