//! The transport's side: every request to the MCP endpoint carries the stored token; a
//! `401` (or an `insufficient_scope` `403`) runs the flow once per request at a time and
//! the request is sent again.

use super::discovery::split_scopes;
use super::{Challenge, MAX_AUTHORIZATIONS, OAuthClient, OAuthError, StoredToken};
use crate::client::connect::{Http, SendError};
use bytes::Bytes;
use http::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;

/// An [`OAuthClient`] bound to one MCP endpoint.
#[derive(Debug)]
pub(crate) struct Session {
    oauth: OAuthClient,
    server: String,
}

impl Session {
    pub(crate) fn new(oauth: OAuthClient, server: String) -> Self {
        Session { oauth, server }
    }

    /// Sends `request` with the token, authorizing and resending on a challenge (at most
    /// [`MAX_AUTHORIZATIONS`] times; then the refusal is the answer).
    pub(crate) async fn send(
        &self,
        http: &Http,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, SendError> {
        let mut authorizations = 0;
        loop {
            let token = self.oauth.token(&self.server).await;
            let mut attempt = copy(&request);
            if let Some(token) = &token
                && let Ok(value) = HeaderValue::try_from(format!("Bearer {}", token.access_token))
            {
                attempt.headers_mut().insert(AUTHORIZATION, value);
            }
            let response = http.request(attempt).await.map_err(SendError::from)?;
            let challenge = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(Challenge::parse)
                .unwrap_or_default();
            let refused = match response.status() {
                StatusCode::UNAUTHORIZED => true,
                StatusCode::FORBIDDEN => challenge.error.as_deref() == Some("insufficient_scope"),
                _ => false,
            };
            if !refused || authorizations == MAX_AUTHORIZATIONS {
                return Ok(response);
            }
            authorizations += 1;
            // A refresh may answer the first refusal only; after it, a new grant.
            self.recover(&challenge, token.as_ref(), authorizations == 1)
                .await
                .map_err(|e| format!("authorization failed: {e}"))?;
        }
    }

    /// A fresh token after `challenge` refused `used`.
    async fn recover(
        &self,
        challenge: &Challenge,
        used: Option<&StoredToken>,
        refresh: bool,
    ) -> Result<(), OAuthError> {
        let _gate = self.oauth.gate().await;
        let current = self.oauth.store().token(&self.server).await;
        let step_up = challenge.error.as_deref() == Some("insufficient_scope");
        let replaced = current.as_ref().map(|t| &t.access_token) != used.map(|t| &t.access_token);
        if replaced && current.is_some() && !step_up {
            // Another request already authorized while this one waited.
            return Ok(());
        }
        if step_up && let Some(current) = &current {
            let wanted = split_scopes(challenge.scope.as_deref());
            if wanted.is_empty() || wanted.iter().all(|s| current.scopes.contains(s)) {
                return Err(OAuthError::InsufficientScope(
                    challenge.scope.clone().unwrap_or_default(),
                ));
            }
        }
        self.oauth
            .grant(&self.server, challenge, current.as_ref(), refresh)
            .await
            .map(drop)
    }
}

/// `request` again (a `Full` body clones cheaply).
fn copy(request: &Request<Full<Bytes>>) -> Request<Full<Bytes>> {
    let mut copy = Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    copy
}
