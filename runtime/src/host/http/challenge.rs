//! `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1) and where the
//! request says its protected resource metadata is.

use axum::http::HeaderValue;

/// The URL of the protected resource metadata (RFC 9728) of the resource a request reached,
/// put into the request's extensions by the bearer-token layer so that a refusal further in
/// (a missing scope on one tool) points the client at it too.
#[derive(Debug, Clone)]
pub(crate) struct ResourceMetadataUrl(pub(crate) String);

/// A `Bearer` challenge: `error`, `scope`, `resource_metadata` and `error_description`
/// parameters, each only when given. Values are quoted strings; characters a quoted string
/// cannot hold (`"`, `\`, controls) are dropped from them.
pub(crate) fn bearer_challenge(
    error: Option<&str>,
    scope: Option<&str>,
    resource_metadata: Option<&str>,
    description: Option<&str>,
) -> HeaderValue {
    let mut params = Vec::new();
    for (name, value) in [
        ("error", error),
        ("scope", scope),
        ("resource_metadata", resource_metadata),
        ("error_description", description),
    ] {
        if let Some(value) = value {
            let clean: String = value
                .chars()
                .filter(|c| *c != '"' && *c != '\\' && (' '..='~').contains(c))
                .collect();
            params.push(format!("{name}=\"{clean}\""));
        }
    }
    let text = if params.is_empty() {
        "Bearer".to_owned()
    } else {
        format!("Bearer {}", params.join(", "))
    };
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// The `scope` of an `insufficient_scope` challenge: what the caller holds, then what the
/// request needs besides (so a client re-authorising does not lose what it had).
pub(crate) fn step_up_scope(granted: &[String], required: &[String]) -> String {
    let mut scopes: Vec<&str> = granted.iter().map(String::as_str).collect();
    for r in required {
        if !scopes.contains(&r.as_str()) {
            scopes.push(r);
        }
    }
    scopes.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_quote_and_clean_their_values() {
        let h = bearer_challenge(
            Some("insufficient_scope"),
            Some("a b"),
            Some("https://x/.well-known/oauth-protected-resource"),
            Some("needs \"b\"\n"),
        );
        assert_eq!(
            h.to_str().unwrap(),
            "Bearer error=\"insufficient_scope\", scope=\"a b\", resource_metadata=\"https://x/.well-known/oauth-protected-resource\", error_description=\"needs b\""
        );
        assert_eq!(bearer_challenge(None, None, None, None), "Bearer");
    }

    #[test]
    fn step_up_keeps_what_was_granted() {
        let granted = vec!["files:read".to_owned()];
        let required = vec!["files:read".to_owned(), "files:write".to_owned()];
        assert_eq!(step_up_scope(&granted, &required), "files:read files:write");
    }
}
