//! The syntax of RFC 6570 URI templates as tracksuit supports them: one parser, shared by
//! the runtime (`UriTemplate::parse`) and by `#[mcp_resource]`, which includes this file
//! with `#[path]` (so it uses nothing but `std`), so a template the macro accepts is
//! exactly one the runtime accepts.
//!
//! Supported expressions: `{var}` (simple), `{+var}` (reserved), `{#var}` (fragment),
//! `{/var}`, `{.var}`, `{?a,b}` and `{&a,b}` (query). Each variable is a single value
//! (no explode or prefix modifiers).

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text matched as is.
    Literal(String),
    /// `{op vars}`.
    Expr {
        /// The operator (`+`, `#`, `.`, `/`, `?`, `&`), if any.
        op: Option<char>,
        /// The variable names.
        vars: Vec<String>,
    },
}

/// Parses a template into its parts, or says what is wrong with it.
pub fn parse(source: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut rest = source;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            None => {
                parts.push(Part::Literal(rest.to_owned()));
                break;
            }
            Some(i) if rest.as_bytes()[i] == b'}' => {
                return Err(format!("unmatched '}}' in URI template {source:?}"));
            }
            Some(i) => {
                if i > 0 {
                    parts.push(Part::Literal(rest[..i].to_owned()));
                }
                let close = rest[i..]
                    .find('}')
                    .ok_or_else(|| format!("unclosed '{{' in URI template {source:?}"))?;
                let body = &rest[i + 1..i + close];
                parts.push(parse_expr(body, source)?);
                rest = &rest[i + close + 1..];
            }
        }
    }
    for pair in parts.windows(2) {
        if let [Part::Expr { op: a, .. }, Part::Expr { op: b, .. }] = pair
            && !matches!(b, Some('?' | '&' | '/' | '.' | '#'))
            && !matches!(a, Some('?' | '&'))
        {
            return Err(format!(
                "adjacent expressions in URI template {source:?} cannot be matched unambiguously"
            ));
        }
    }
    Ok(parts)
}

fn parse_expr(body: &str, source: &str) -> Result<Part, String> {
    let (op, names) = match body.chars().next() {
        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &body[1..]),
        Some(_) => (None, body),
        None => {
            return Err(format!(
                "empty expression '{{}}' in URI template {source:?}"
            ));
        }
    };
    if op == Some(';') {
        return Err(format!(
            "path-style ';' expressions are not supported in {source:?}"
        ));
    }
    let mut vars = Vec::new();
    for name in names.split(',') {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%');
        if !valid {
            return Err(format!(
                "invalid variable name {name:?} in URI template {source:?}"
            ));
        }
        vars.push(name.to_owned());
    }
    Ok(Part::Expr { op, vars })
}
