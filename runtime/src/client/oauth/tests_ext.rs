//! The extension grants against the loopback authorization server of `tests.rs`: DPoP
//! proofs and nonces (bounded), enterprise-managed authorization (token exchange, then the
//! JWT bearer grant), workload identity federation; each refusal a typed error, sent
//! nowhere it should not go.

use super::tests::{Mock, approving_agent};
use super::*;
use crate::client::{Client, HttpTransport};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{DecodingKey, Validation};
use oauth2::url::form_urlencoded;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

const JAG: &str = "eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0In0.eyJzdWIiOiJ1In0.sig";

fn json_answer(status: u16, body: Value) -> tests::Canned {
    let headers = vec![("content-type", "application/json".to_owned())];
    (status, headers, body.to_string())
}

fn form(data: &str) -> HashMap<String, String> {
    form_urlencoded::parse(data.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A proof's header and claims, after checking its signature with the key it carries.
fn verified(proof: &str) -> (Value, Value) {
    let part = |i: usize| -> Value {
        let bytes = URL_SAFE_NO_PAD
            .decode(proof.split('.').nth(i).unwrap())
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    };
    let header = part(0);
    let jwk: Jwk = serde_json::from_value(header["jwk"].clone()).unwrap();
    let mut validation = Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    let key = DecodingKey::from_jwk(&jwk).unwrap();
    jsonwebtoken::decode::<Value>(proof, &key, &validation).unwrap();
    (header, part(1))
}

fn dpop_client(key: &DpopKey) -> OAuthClient {
    OAuthClient::builder()
        .user_agent(approving_agent())
        .dpop(key.clone())
        .build()
        .unwrap()
}

#[tokio::test]
async fn dpop_proofs_go_on_the_token_request_and_every_mcp_request() {
    let mock = Mock::start().await;
    mock.metadata(|m| {
        m.insert("dpop_signing_alg_values_supported".into(), json!(["ES256"]));
    });
    let token = json!({"access_token": "token-1", "token_type": "DPoP", "expires_in": 3600});
    mock.can_with("/token", json_answer(200, token));
    let key = DpopKey::generate().unwrap();
    let oauth = dpop_client(&key);
    let transport = HttpTransport::new(&mock.mcp())
        .unwrap()
        .oauth(oauth.clone());
    let client = Client::builder().connect(transport).await.unwrap();
    client.list_tools(None).await.unwrap();
    let stored = oauth.store().token(&mock.mcp()).await.unwrap();
    assert_eq!(stored.dpop_jkt.as_deref(), Some(key.thumbprint()));
    // The token request: a proof for POST on the token endpoint, public key only, no `ath`.
    let proof = mock.proofs("/token")[0].clone().unwrap();
    let (header, claims) = verified(&proof);
    assert_eq!(header["typ"], "dpop+jwt");
    assert!(header["jwk"].get("d").is_none());
    assert_eq!(header["jwk"], key.public_jwk());
    assert_eq!(
        (&claims["htm"], &claims["htu"]),
        (&json!("POST"), &json!(format!("{}/token", mock.base)))
    );
    assert!(claims.get("ath").is_none());
    // Every authorized MCP request: the DPoP scheme and a fresh proof with `ath`.
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(b"token-1"));
    let authorized: Vec<_> = mock
        .seen("/mcp")
        .into_iter()
        .zip(mock.proofs("/mcp"))
        .filter(|((auth, _), _)| auth.is_some())
        .collect();
    assert!(authorized.len() >= 2);
    let mut jtis = Vec::new();
    for ((auth, _), proof) in authorized {
        assert_eq!(auth.as_deref(), Some("DPoP token-1"));
        let (_, claims) = verified(&proof.unwrap());
        assert_eq!(claims["ath"], json!(ath));
        assert_eq!(claims["htu"], json!(mock.mcp()));
        // A body (POST) is covered by the proof too.
        let digest = claims.get("content_digest").and_then(Value::as_str);
        assert_eq!(claims["htm"] == "POST", digest.is_some(), "{claims}");
        assert!(digest.is_none_or(|d| d.starts_with("sha-256=:")));
        jtis.push(claims["jti"].clone());
    }
    let distinct: std::collections::HashSet<_> = jtis.iter().map(Value::to_string).collect();
    assert_eq!(distinct.len(), jtis.len(), "a proof was reused");
}

#[tokio::test]
async fn a_token_endpoint_that_keeps_asking_for_a_nonce_gets_one_retry() {
    let mock = Mock::start().await;
    let mut answer = json_answer(400, json!({"error": "use_dpop_nonce"}));
    answer.1.push(("dpop-nonce", "n-1".into()));
    mock.can_with("/token", answer);
    let oauth = OAuthClient::builder()
        .client_credentials(ClientRegistration::confidential("svc", "secret"))
        .dpop(DpopKey::generate().unwrap())
        .build()
        .unwrap();
    let err = oauth
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(&err, Err(OAuthError::TokenEndpoint { error, .. }) if error == "use_dpop_nonce"),
        "{err:?}"
    );
    let proofs = mock.proofs("/token");
    assert_eq!(proofs.len(), 2);
    let (_, first) = verified(proofs[0].as_deref().unwrap());
    let (_, second) = verified(proofs[1].as_deref().unwrap());
    assert!(first.get("nonce").is_none());
    assert_eq!(second["nonce"], "n-1");
}

#[tokio::test]
async fn an_mcp_server_that_keeps_asking_for_a_nonce_gets_one_retry() {
    let mock = Mock::start().await;
    let token = json!({"access_token": "token-1", "token_type": "DPoP"});
    mock.can_with("/token", json_answer(200, token));
    let challenge = r#"DPoP error="use_dpop_nonce""#.to_owned();
    let refusal = (
        401,
        vec![
            ("www-authenticate", challenge),
            ("dpop-nonce", "r-1".into()),
        ],
        String::new(),
    );
    mock.can_with("/mcp", refusal);
    let transport = HttpTransport::new(&mock.mcp())
        .unwrap()
        .oauth(dpop_client(&DpopKey::generate().unwrap()));
    assert!(Client::builder().connect(transport).await.is_err());
    // Unauthorized, then with the token, then once more with the nonce: no further grant.
    let proofs = mock.proofs("/mcp");
    assert_eq!(proofs.len(), 3, "{proofs:?}");
    assert_eq!(mock.seen("/token").len(), 1);
    let (_, last) = verified(proofs[2].as_deref().unwrap());
    assert_eq!(last["nonce"], "r-1");
}

#[tokio::test]
async fn token_types_that_cannot_be_used_are_refused() {
    let mock = Mock::start().await;
    let credentials = ClientRegistration::confidential("svc", "secret");
    let plain = OAuthClient::builder()
        .client_credentials(credentials.clone())
        .build()
        .unwrap();
    // DPoP without a proof sent.
    mock.can_with(
        "/token",
        json_answer(200, json!({"access_token": "t", "token_type": "DPoP"})),
    );
    let err = plain
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(err, Err(OAuthError::InvalidTokenResponse(_))),
        "{err:?}"
    );
    // Neither Bearer nor DPoP.
    mock.can_with(
        "/token",
        json_answer(200, json!({"access_token": "t", "token_type": "mac"})),
    );
    let bound = OAuthClient::builder()
        .client_credentials(credentials)
        .dpop(DpopKey::generate().unwrap())
        .build()
        .unwrap();
    let err = bound
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(err, Err(OAuthError::InvalidTokenResponse(_))),
        "{err:?}"
    );
    // An authorization server that takes no ES256 proof is refused before its token endpoint.
    mock.metadata(|m| {
        m.insert("dpop_signing_alg_values_supported".into(), json!(["RS256"]));
    });
    let before = mock.seen("/token").len();
    let err = bound
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(err, Err(OAuthError::DpopUnsupported(_))),
        "{err:?}"
    );
    assert_eq!(mock.seen("/token").len(), before);
}

#[tokio::test]
async fn a_token_bound_to_another_key_is_not_presented() {
    let mock = Mock::start().await;
    let token: StoredToken = serde_json::from_value(json!({
        "access_token": "at", "resource": mock.mcp(), "issuer": mock.base,
        "token_endpoint": format!("{}/token", mock.base), "client": {"client_id": "c"},
        "dpop_jkt": "another-key"
    }))
    .unwrap();
    for oauth in [dpop_client(&DpopKey::generate().unwrap()), tests_oauth()] {
        oauth.store().save_token(&mock.mcp(), token.clone()).await;
        assert!(oauth.token(&mock.mcp()).await.is_none());
    }
    let key = DpopKey::generate().unwrap();
    let oauth = dpop_client(&key);
    let mine = StoredToken {
        dpop_jkt: Some(key.thumbprint().to_owned()),
        ..token
    };
    oauth.store().save_token(&mock.mcp(), mine).await;
    assert!(oauth.token(&mock.mcp()).await.is_some());
}

fn tests_oauth() -> OAuthClient {
    OAuthClient::builder()
        .user_agent(approving_agent())
        .build()
        .unwrap()
}

#[test]
fn dpop_keys_are_checked_when_loaded() {
    let rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n";
    assert!(matches!(DpopKey::from_pem(rsa), Err(OAuthError::Config(_))));
    let junk = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    assert!(matches!(
        DpopKey::from_pem(junk),
        Err(OAuthError::Config(_))
    ));
}

fn enterprise(mock: &Mock) -> OAuthClient {
    let id_token = JwtSource::fixed("id.token.sig");
    let idp = EnterpriseAuthorization::new(format!("{}/idp/token", mock.base), id_token).unwrap();
    OAuthClient::builder()
        .enterprise(idp.idp_client(ClientRegistration::public("at-idp")))
        .pre_registered(ClientRegistration::confidential("mcp-client", "s3cret"))
        .build()
        .unwrap()
}

fn id_jag_answer() -> tests::Canned {
    json_answer(
        200,
        json!({"access_token": JAG, "token_type": "N_A",
        "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"}),
    )
}

#[tokio::test]
async fn enterprise_authorization_exchanges_the_id_token_then_presents_the_id_jag() {
    let mock = Mock::start().await;
    mock.can_with("/idp/token", id_jag_answer());
    let token = enterprise(&mock)
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    assert_eq!(token.access_token, "token-1");
    let (_, exchange) = mock.seen("/idp/token").pop().unwrap();
    let exchange = form(&exchange);
    assert_eq!(
        exchange["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(
        exchange["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(exchange["subject_token"], "id.token.sig");
    assert_eq!(
        exchange["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(
        (&exchange["audience"], &exchange["resource"]),
        (&mock.base, &mock.mcp())
    );
    assert_eq!(exchange["client_id"], "at-idp");
    let (auth, grant) = mock.seen("/token").pop().unwrap();
    let grant = form(&grant);
    assert_eq!(
        grant["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(grant["assertion"], JAG);
    let basic = base64::engine::general_purpose::STANDARD.encode("mcp-client:s3cret");
    assert_eq!(auth, Some(format!("Basic {basic}")));
}

#[tokio::test]
async fn a_failed_token_exchange_sends_nothing_to_the_authorization_server() {
    let mock = Mock::start().await;
    let refusal = json!({"error": "invalid_grant", "error_description": "audience"});
    mock.can_with("/idp/token", json_answer(400, refusal));
    let err = enterprise(&mock)
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(&err, Err(OAuthError::TokenExchange { error, .. }) if error == "invalid_grant"),
        "{err:?}"
    );
    // An answer that is not an ID-JAG.
    let wrong = json!({"access_token": JAG, "token_type": "Bearer",
        "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"});
    mock.can_with("/idp/token", json_answer(200, wrong));
    let err = enterprise(&mock)
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(err, Err(OAuthError::InvalidTokenResponse(_))),
        "{err:?}"
    );
    assert!(mock.seen("/token").is_empty());
    // Without a registration at the authorization server, the ID token stays home.
    let idp = EnterpriseAuthorization::new(
        format!("{}/idp/token", mock.base),
        JwtSource::fixed("a.b.c"),
    );
    let unregistered = OAuthClient::builder()
        .enterprise(idp.unwrap())
        .build()
        .unwrap();
    let before = mock.seen("/idp/token").len();
    let err = unregistered
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(err, Err(OAuthError::NoClientRegistration(_))),
        "{err:?}"
    );
    assert_eq!(mock.seen("/idp/token").len(), before);
}

fn workload(jwt: JwtSource) -> OAuthClient {
    OAuthClient::builder()
        .workload_identity(WorkloadIdentity::new(jwt))
        .build()
        .unwrap()
}

#[tokio::test]
async fn workload_identity_presents_its_jwt_once_and_surfaces_refusals() {
    let mock = Mock::start().await;
    workload(JwtSource::fixed("work.load.jwt"))
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await
        .unwrap();
    let (auth, grant) = mock.seen("/token").pop().unwrap();
    let grant = form(&grant);
    assert_eq!(
        grant["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(
        (grant["assertion"].as_str(), grant["resource"].as_str()),
        ("work.load.jwt", mock.mcp().as_str())
    );
    assert!(auth.is_none() && !grant.contains_key("client_id"));
    // A refusal is the answer: no retry, no other grant.
    mock.can_with(
        "/token",
        json_answer(400, json!({"error": "invalid_grant"})),
    );
    let before = mock.seen("/token").len();
    let err = workload(JwtSource::fixed("work.load.jwt"))
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(
        matches!(&err, Err(OAuthError::TokenEndpoint { error, .. }) if error == "invalid_grant"),
        "{err:?}"
    );
    assert_eq!(mock.seen("/token").len(), before + 1);
    // Not a JWT, or unreadable: nothing sent.
    for source in [JwtSource::fixed(""), JwtSource::file("/nonexistent/token")] {
        let err = workload(source)
            .authorize(&mock.mcp(), &Challenge::default(), None)
            .await;
        assert!(matches!(err, Err(OAuthError::Assertion(_))), "{err:?}");
    }
    // An authorization server that lists its grants without the JWT bearer one.
    mock.metadata(|m| {
        m.insert(
            "grant_types_supported".into(),
            json!(["authorization_code"]),
        );
    });
    let err = workload(JwtSource::fixed("work.load.jwt"))
        .authorize(&mock.mcp(), &Challenge::default(), None)
        .await;
    assert!(matches!(err, Err(OAuthError::Config(_))), "{err:?}");
    assert_eq!(mock.seen("/token").len(), before + 1);
}
