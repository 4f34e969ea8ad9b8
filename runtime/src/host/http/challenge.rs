//! `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1) and where the
//! request says its protected resource metadata is.

use axum::http::HeaderValue;

/// What a refusal further in (a missing scope on one tool) says of the resource a request
/// reached, put into the request's extensions by the bearer-token layer: the URL of its
/// protected resource metadata (RFC 9728), and the scopes every request to it needs.
#[derive(Debug, Clone)]
pub(crate) struct ResourceChallenge {
    pub(crate) metadata_url: String,
    pub(crate) endpoint_scopes: Vec<String>,
}

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

/// The `scope` of an `insufficient_scope` challenge: every scope the operation needs, and
/// only those (MCP authorization, "Runtime Insufficient Scope Errors"; what the caller was
/// granted besides is not repeated), each once, in order.
pub(crate) fn operation_scope<'a>(scopes: impl IntoIterator<Item = &'a String>) -> String {
    let mut out: Vec<&str> = Vec::new();
    for scope in scopes {
        if !out.contains(&scope.as_str()) {
            out.push(scope);
        }
    }
    out.join(" ")
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
    fn the_operation_scope_names_each_needed_scope_once() {
        let endpoint = ["mcp".to_owned()];
        let item = vec!["files:write".to_owned(), "mcp".to_owned()];
        assert_eq!(
            operation_scope(endpoint.iter().chain(&item)),
            "mcp files:write"
        );
    }
}
