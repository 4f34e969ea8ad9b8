//! RFC 6570 URI templates, as far as resource templates need them: parsing, and matching
//! a concrete URI back to its variables.
//!
//! The syntax (which expressions are supported) is in `syntax.rs`, shared with the macros.

mod syntax;

use std::collections::HashMap;
use syntax::Part;

/// A parsed URI template.
///
/// ```
/// use tracksuit::UriTemplate;
/// let t = UriTemplate::parse("file:///{dir}/{name}").unwrap();
/// let vars = t.matches("file:///docs/a.txt").unwrap();
/// assert_eq!(vars["dir"], "docs");
/// assert_eq!(vars["name"], "a.txt");
/// assert!(t.matches("http://x").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template, or says what is wrong with it.
    pub fn parse(source: &str) -> Result<Self, String> {
        Ok(UriTemplate {
            source: source.to_owned(),
            parts: syntax::parse(source)?,
        })
    }

    /// A template that matches exactly `uri` (no variables).
    pub fn literal(uri: &str) -> Self {
        UriTemplate {
            source: uri.to_owned(),
            parts: vec![Part::Literal(uri.to_owned())],
        }
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flat_map(|p| match p {
            Part::Expr { vars, .. } => vars.iter().map(String::as_str).collect::<Vec<_>>(),
            Part::Literal(_) => Vec::new(),
        })
    }

    /// Matches a concrete URI, returning the (percent-decoded) variable values.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let mut vars = HashMap::new();
        let mut rest = uri;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Part::Expr { op, vars: names } => {
                    let next_literal = self.parts[i + 1..].iter().find_map(|p| match p {
                        Part::Literal(l) => Some(l.as_str()),
                        Part::Expr { .. } => None,
                    });
                    match op {
                        Some('?') | Some('&') => {
                            let lead = if *op == Some('?') { '?' } else { '&' };
                            let Some(q) = rest.strip_prefix(lead) else {
                                continue;
                            };
                            let end = q.find('#').unwrap_or(q.len());
                            for pair in q[..end].split('&') {
                                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                                if names.iter().any(|n| n == k) {
                                    vars.insert(k.to_owned(), percent_decode(v));
                                }
                            }
                            rest = &q[end..];
                        }
                        _ => {
                            let reserved = matches!(op, Some('+') | Some('#'));
                            if let Some(prefix) = op.filter(|c| matches!(c, '#' | '/' | '.')) {
                                match rest.strip_prefix(prefix) {
                                    Some(r) => rest = r,
                                    None => continue,
                                }
                            }
                            let next_op = match self.parts.get(i + 1) {
                                Some(Part::Expr { op: Some(o), .. }) => Some(*o),
                                _ => None,
                            };
                            let stop = |c: char| {
                                if reserved {
                                    Some(c) == next_op
                                } else {
                                    matches!(c, '/' | '?' | '#' | '&')
                                        || (*op == Some('.') && c == '.')
                                }
                            };
                            let limit = match next_literal {
                                Some(l) if !l.is_empty() => rest.find(l).unwrap_or(rest.len()),
                                _ => rest.len(),
                            };
                            let end = rest[..limit].find(stop).unwrap_or(limit);
                            if end == 0 {
                                return None;
                            }
                            let value = &rest[..end];
                            if names.len() == 1 {
                                vars.insert(names[0].clone(), percent_decode(value));
                            } else {
                                for (n, v) in names.iter().zip(value.split(',')) {
                                    vars.insert(n.clone(), percent_decode(v));
                                }
                            }
                            rest = &rest[end..];
                        }
                    }
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_simple_and_rejects_others() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(t.matches("test://template/42/data").unwrap()["id"], "42");
        assert!(t.matches("test://template/42/other").is_none());
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://template/a/b/data").is_none());
        assert_eq!(t.variables().collect::<Vec<_>>(), ["id"]);
    }

    #[test]
    fn reserved_and_query() {
        let t = UriTemplate::parse("file:///{+path}{?rev}").unwrap();
        let v = t.matches("file:///a/b%20c.txt?rev=3").unwrap();
        assert_eq!(v["path"], "a/b c.txt");
        assert_eq!(v["rev"], "3");
        let v = t.matches("file:///x").unwrap();
        assert!(!v.contains_key("rev"));
    }

    #[test]
    fn rejects_bad_templates() {
        assert!(UriTemplate::parse("a/{").is_err());
        assert!(UriTemplate::parse("a/}").is_err());
        assert!(UriTemplate::parse("a/{}").is_err());
        assert!(UriTemplate::parse("a/{x y}").is_err());
        assert!(UriTemplate::parse("a/{x}{y}").is_err());
    }
}
