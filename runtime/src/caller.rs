//! Who made a request: the authenticated [`Principal`] (if the transport has one) and, on
//! HTTP, the request's head (method, URI, headers, extensions). A host builds a [`Caller`]
//! per request; handlers read it through [`Ctx`](crate::Ctx).

use serde_json::{Map, Value};
use std::sync::Arc;

/// The authenticated caller of a request: who the access token was issued to, what it
/// allows, and every claim it carried.
///
/// Made by a token validator (`host::http::auth`, feature `auth`) or by your own middleware,
/// which puts it into the HTTP request's extensions (as `Principal` or `Arc<Principal>`);
/// the Streamable HTTP host hands it to the handler as [`Ctx::principal`](crate::Ctx::principal).
///
/// ```
/// use tracksuit::Principal;
/// let p = Principal::new("alice").with_scopes(["files:read", "files:write"]);
/// assert!(p.has_scope("files:write"));
/// assert!(p.has_scopes(&["files:read"]));
/// assert!(!p.has_scope("admin"));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Principal {
    /// The subject (`sub` claim; the client id for a client-credentials token without one,
    /// then [`kind`](Self::kind) is [`PrincipalKind::Client`]).
    pub subject: String,
    /// Whether the subject is a user (or any `sub`) or an OAuth client acting for itself.
    pub kind: PrincipalKind,
    /// The issuer (`iss`), when known.
    pub issuer: Option<String>,
    /// The OAuth client the token was issued to (`client_id` / `azp`), when known.
    pub client_id: Option<String>,
    /// The granted scopes (`scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token (or of the introspection response).
    pub claims: Map<String, Value>,
}

/// What a [`Principal`]'s subject names.
///
/// A token without `sub` but with `client_id` / `azp` (a client-credentials grant) names
/// an OAuth client, not a user: a client called `alice` is not the user `alice`, so the two
/// never share tasks or sealed state ([`Principal::binding_key`] differs).
///
/// ```
/// use tracksuit::{Principal, PrincipalKind};
/// let user = Principal::new("alice");
/// let client = Principal::client("alice");
/// assert_eq!((user.kind, client.kind), (PrincipalKind::User, PrincipalKind::Client));
/// assert_ne!(user.binding_key(), client.binding_key());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PrincipalKind {
    /// A subject the issuer named (`sub`): usually a user.
    #[default]
    User,
    /// An OAuth client acting for itself (no `sub`; the subject is its client id).
    Client,
}

impl Principal {
    /// A principal for `subject` with no scopes and no claims.
    ///
    /// ```
    /// let p = tracksuit::Principal::new("alice");
    /// assert_eq!(p.subject, "alice");
    /// assert!(p.scopes.is_empty());
    /// ```
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
            ..Principal::default()
        }
    }

    /// A principal for the OAuth client `client_id` acting for itself
    /// ([`PrincipalKind::Client`]).
    ///
    /// ```
    /// let p = tracksuit::Principal::client("billing-service");
    /// assert_eq!(p.client_id.as_deref(), Some("billing-service"));
    /// ```
    pub fn client(client_id: impl Into<String>) -> Self {
        let client_id = client_id.into();
        Principal {
            subject: client_id.clone(),
            kind: PrincipalKind::Client,
            client_id: Some(client_id),
            ..Principal::default()
        }
    }

    /// Sets the granted scopes.
    ///
    /// ```
    /// let p = tracksuit::Principal::new("alice").with_scopes(["read", "write"]);
    /// assert_eq!(p.scopes, ["read", "write"]);
    /// ```
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the issuer.
    ///
    /// ```
    /// let p = tracksuit::Principal::new("alice").with_issuer("https://auth.example");
    /// assert_eq!(p.issuer.as_deref(), Some("https://auth.example"));
    /// ```
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the claims.
    ///
    /// ```
    /// let claims = serde_json::json!({"tenant": "acme"}).as_object().unwrap().clone();
    /// let p = tracksuit::Principal::new("alice").with_claims(claims);
    /// assert_eq!(p.claims["tenant"], "acme");
    /// ```
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// Whether `scope` was granted.
    ///
    /// ```
    /// let p = tracksuit::Principal::new("alice").with_scopes(["files:read"]);
    /// assert!(p.has_scope("files:read"));
    /// assert!(!p.has_scope("files:write"));
    /// ```
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Whether every scope of `required` was granted.
    ///
    /// ```
    /// let p = tracksuit::Principal::new("alice").with_scopes(["a", "b"]);
    /// assert!(p.has_scopes(&["a", "b"]));
    /// assert!(!p.has_scopes(&["a", "c"]));
    /// assert!(p.has_scopes::<&str>(&[])); // nothing required
    /// ```
    pub fn has_scopes<S: AsRef<str>>(&self, required: &[S]) -> bool {
        required.iter().all(|r| self.has_scope(r.as_ref()))
    }

    /// What tasks, sessions and sealed `requestState` are bound to: the issuer, the kind and
    /// the subject, so the same subject name from two issuers, or a user and a client of
    /// the same name, stay two callers.
    ///
    /// ```
    /// use tracksuit::Principal;
    /// let a = Principal::new("alice").with_issuer("https://a.example");
    /// let b = Principal::new("alice").with_issuer("https://b.example");
    /// assert_ne!(a.binding_key(), b.binding_key());
    /// ```
    pub fn binding_key(&self) -> String {
        let issuer = self.issuer.as_deref().unwrap_or_default();
        // The issuer's length says where it ends; the character after it, the kind.
        let kind = match self.kind {
            PrincipalKind::User => '|',
            PrincipalKind::Client => '#',
        };
        format!("{}:{issuer}{kind}{}", issuer.len(), self.subject)
    }
}

impl Principal {
    /// The principal as a task's replay record keeps it (sealed with the record): another
    /// process that resumes the task runs it as the same principal.
    pub(crate) fn to_record(&self) -> Value {
        serde_json::json!({
            "subject": self.subject,
            "client": self.kind == PrincipalKind::Client,
            "issuer": self.issuer,
            "clientId": self.client_id,
            "scopes": self.scopes,
            "claims": self.claims,
        })
    }

    /// The principal a replay record kept ([`to_record`](Self::to_record)); `None` for a
    /// record without one (or written by an older version).
    pub(crate) fn from_record(record: &Value) -> Option<Principal> {
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let strings = |key: &str| -> Vec<String> {
            let items = record
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            items
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        };
        let client = record.get("client").and_then(Value::as_bool) == Some(true);
        Some(Principal {
            subject: text("subject")?,
            kind: if client {
                PrincipalKind::Client
            } else {
                PrincipalKind::User
            },
            issuer: text("issuer"),
            client_id: text("clientId"),
            scopes: strings("scopes"),
            claims: record
                .get("claims")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        })
    }
}

/// Who made one request: what a host knows about it beyond its JSON-RPC message.
#[derive(Debug, Clone, Default)]
pub(crate) struct Caller {
    /// The authenticated principal, if the transport has one.
    pub(crate) principal: Option<Arc<Principal>>,
    /// The HTTP request's head (its body is the message), on Streamable HTTP.
    #[cfg(feature = "http")]
    pub(crate) http: Option<Arc<http::request::Parts>>,
    /// What the server's layers attached to the request (`McpRequest::extensions_mut`);
    /// `None` when they attached nothing.
    pub(crate) extensions: Option<Arc<http::Extensions>>,
}

impl Caller {
    /// A caller known only as `principal` (a line connection's local user, a test).
    pub(crate) fn of(principal: Principal) -> Self {
        Caller {
            principal: Some(Arc::new(principal)),
            #[cfg(feature = "http")]
            http: None,
            extensions: None,
        }
    }

    /// What tasks and sealed state are bound to: the principal's [`Principal::binding_key`].
    pub(crate) fn owner(&self) -> Option<String> {
        self.principal.as_deref().map(Principal::binding_key)
    }

    /// The required scopes this caller lacks (all of them when there is no principal).
    pub(crate) fn missing_scopes<'a>(&self, required: &'a [String]) -> Vec<&'a str> {
        required
            .iter()
            .filter(|r| !self.principal.as_ref().is_some_and(|p| p.has_scope(r)))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_principal_survives_its_replay_record() {
        let mut claims = Map::new();
        claims.insert("email".into(), "a@example.com".into());
        let user = Principal::new("alice")
            .with_issuer("https://issuer.example")
            .with_scopes(["travel", "files:read"])
            .with_claims(claims);
        let back = Principal::from_record(&user.to_record());
        assert_eq!(back.as_ref(), Some(&user));
        let client = Principal::client("robot");
        assert_eq!(Principal::from_record(&client.to_record()), Some(client));
        assert_eq!(
            Principal::from_record(&serde_json::json!({"scopes": []})),
            None
        );
    }

    #[test]
    fn binding_keys_do_not_run_together() {
        let a = Principal::new("b|c").with_issuer("a");
        let b = Principal::new("c").with_issuer("a|b");
        assert_ne!(a.binding_key(), b.binding_key());
    }

    #[test]
    // The update fills the fields other features add (`http`: the request head).
    #[allow(clippy::needless_update)]
    fn missing_scopes_without_a_principal_are_all_of_them() {
        let required = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(Caller::default().missing_scopes(&required), ["a", "b"]);
        let caller = Caller {
            principal: Some(Arc::new(Principal::new("p").with_scopes(["a"]))),
            ..Caller::default()
        };
        assert_eq!(caller.missing_scopes(&required), ["b"]);
        assert!(caller.missing_scopes(&[]).is_empty());
    }
}
