//! One JSON POST over HTTP/1.1 (hyper's connection API, a fresh connection per call: a model
//! call takes seconds, a handshake on loopback microseconds). `https://` needs the `https`
//! feature.

use crate::ProviderError;
use bytes::Bytes;
use http::{Request, Uri, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::time::Duration;
use tokio::net::TcpStream;

/// The largest answer body read (a model answer is kilobytes).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// POSTs `body` as JSON to `url` with `headers`; returns the decoded JSON answer of a 2xx
/// status, or [`ProviderError::Status`] with the provider's error message.
pub(crate) async fn post_json(
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
    timeout: Duration,
) -> Result<Value, ProviderError> {
    tokio::time::timeout(timeout, post(url, headers, body))
        .await
        .map_err(|_| ProviderError::Timeout(timeout))?
}

async fn post(url: &str, headers: &[(&str, String)], body: &Value) -> Result<Value, ProviderError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| ProviderError::Config(format!("bad URL {url:?}: {e}")))?;
    let host = uri
        .host()
        .ok_or_else(|| ProviderError::Config(format!("no host in {url:?}")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let tls = match uri.scheme_str() {
        Some("http") => false,
        Some("https") => true,
        _ => return Err(ProviderError::Config(format!("{url:?} is not http(s)"))),
    };
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let authority = uri
        .authority()
        .map(|a| a.as_str().to_owned())
        .unwrap_or_else(|| host.clone());
    let path = uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "/".into());
    let payload =
        serde_json::to_vec(body).map_err(|e| ProviderError::Decode(format!("request: {e}")))?;
    let mut request = Request::post(path)
        .header(header::HOST, authority)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(payload)))
        .map_err(|e| ProviderError::Config(format!("bad header: {e}")))?;
    let stream = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| ProviderError::Http(format!("connect {host}:{port}: {e}")))?;
    let (status, bytes) = if tls {
        send(tls::wrap(stream, &host).await?, request).await?
    } else {
        send(stream, request).await?
    };
    if !(200..300).contains(&status) {
        return Err(ProviderError::Status {
            status,
            message: error_message(&bytes),
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| ProviderError::Decode(format!("not JSON: {e}")))
}

async fn send<S>(stream: S, request: Request<Full<Bytes>>) -> Result<(u16, Bytes), ProviderError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| ProviderError::Http(format!("handshake: {e}")))?;
    let driver = tokio::spawn(connection);
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| ProviderError::Http(format!("request: {e}")))?;
    let status = response.status().as_u16();
    let bytes = Limited::new(response.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|e| ProviderError::Http(format!("body: {e}")))?
        .to_bytes();
    driver.abort();
    Ok((status, bytes))
}

/// The message of an error body: OpenAI's and Anthropic's `{"error": {"message"}}`, a bare
/// `{"message"}`, or the start of the text.
fn error_message(bytes: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
    let found = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    found.unwrap_or_else(|| String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned())
}

#[cfg(feature = "https")]
mod tls {
    use crate::ProviderError;
    use std::sync::{Arc, OnceLock};
    use tokio::net::TcpStream;
    use tokio_rustls::TlsConnector;
    use tokio_rustls::client::TlsStream;
    use tokio_rustls::rustls::{ClientConfig, RootCertStore, pki_types::ServerName};

    fn config() -> Arc<ClientConfig> {
        static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
        CONFIG
            .get_or_init(|| {
                let mut roots = RootCertStore::empty();
                for cert in rustls_native_certs::load_native_certs().certs {
                    let _ = roots.add(cert);
                }
                Arc::new(
                    ClientConfig::builder_with_provider(Arc::new(
                        tokio_rustls::rustls::crypto::ring::default_provider(),
                    ))
                    .with_safe_default_protocol_versions()
                    .map(|b| b.with_root_certificates(roots).with_no_client_auth())
                    .unwrap_or_else(|_| {
                        ClientConfig::builder()
                            .with_root_certificates(RootCertStore::empty())
                            .with_no_client_auth()
                    }),
                )
            })
            .clone()
    }

    pub(super) async fn wrap(
        stream: TcpStream,
        host: &str,
    ) -> Result<TlsStream<TcpStream>, ProviderError> {
        let name = ServerName::try_from(host.to_owned())
            .map_err(|e| ProviderError::Config(format!("bad TLS name {host:?}: {e}")))?;
        TlsConnector::from(config())
            .connect(name, stream)
            .await
            .map_err(|e| ProviderError::Http(format!("TLS with {host}: {e}")))
    }
}

#[cfg(not(feature = "https"))]
mod tls {
    use crate::ProviderError;
    use tokio::net::TcpStream;

    pub(super) async fn wrap(_stream: TcpStream, host: &str) -> Result<TcpStream, ProviderError> {
        Err(ProviderError::Config(format!(
            "https://{host} needs tracksuit-providers' `https` feature"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_of_both_providers_are_read() {
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(error_message(openai), "Incorrect API key provided");
        let anthropic =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(error_message(anthropic), "Overloaded");
        assert_eq!(error_message(b"bad gateway"), "bad gateway");
    }

    #[tokio::test]
    async fn a_refused_connection_is_an_http_error_not_a_panic() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let url = format!("http://127.0.0.1:{port}/v1/chat/completions");
        let err = post_json(&url, &[], &Value::Null, Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(matches!(err, ProviderError::Http(_)), "{err}");
        let err = post_json("ftp://x/", &[], &Value::Null, Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(matches!(err, ProviderError::Config(_)), "{err}");
    }
}
