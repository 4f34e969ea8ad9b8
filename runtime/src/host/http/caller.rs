//! Who made a request (the principal an authentication layer put in its extensions) and
//! the refusal of a call whose scopes the caller lacks.

use super::{Shared, challenge, rpc_error};
use crate::caller::{Caller, Principal};
use crate::protocol::ErrorObject;
use axum::http::{StatusCode, header};
use axum::response::Response;
use std::sync::Arc;

/// Who made the request: the principal an authentication layer (or the application's own
/// middleware) put into its extensions, and its head.
pub(super) fn caller_of(parts: &Arc<axum::http::request::Parts>) -> Caller {
    Caller {
        principal: principal_of(parts),
        http: Some(parts.clone()),
        extensions: None,
    }
}

/// The principal an authentication layer (or the application's middleware) put into the
/// request's extensions.
pub(super) fn principal_of(parts: &axum::http::request::Parts) -> Option<Arc<Principal>> {
    parts
        .extensions
        .get::<Arc<Principal>>()
        .cloned()
        .or_else(|| parts.extensions.get::<Principal>().cloned().map(Arc::new))
}

/// What a session is bound to: the caller's [`Principal::binding_key`], if any.
pub(super) fn owner_of(parts: &axum::http::request::Parts) -> Option<String> {
    principal_of(parts).as_deref().map(Principal::binding_key)
}

/// The refusal of a call of a tool, prompt or resource whose scopes the caller lacks, made
/// before anything runs: `403` with an `insufficient_scope` challenge (MCP authorization,
/// "Scope Challenge Handling") and a JSON-RPC error carrying the request's id.
pub(super) fn scope_refusal(
    shared: &Shared,
    parts: &axum::http::request::Parts,
    caller: &Caller,
    request: &crate::protocol::JsonRpcRequest,
) -> Option<Response> {
    let required = shared
        .server
        .required_scopes(&request.method, request.params.as_ref(), caller);
    let missing = caller.missing_scopes(&required);
    if missing.is_empty() {
        return None;
    }
    let description = format!("this request needs the scope(s) {}", missing.join(" "));
    let resource = parts.extensions.get::<challenge::ResourceChallenge>();
    let endpoint = resource
        .map(|r| r.endpoint_scopes.as_slice())
        .unwrap_or_default();
    let header = challenge::bearer_challenge(
        Some("insufficient_scope"),
        Some(&challenge::operation_scope(
            endpoint.iter().chain(&required),
        )),
        resource.map(|r| r.metadata_url.as_str()),
        Some(&description),
    );
    let error = ErrorObject::invalid_request(format!("Forbidden: {description}"))
        .with_data(serde_json::json!({ "requiredScopes": required, "missingScopes": missing }));
    let mut response = rpc_error(StatusCode::FORBIDDEN, Some(request.id.clone()), error);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, header);
    Some(response)
}
