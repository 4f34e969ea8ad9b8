//! tracksuit's client over `https://` against a TLS server nobody here wrote: HAProxy
//! terminating TLS on loopback in front of a tracksuit server, with certificates made by
//! `openssl` for each test (a test CA, a certificate for `localhost` / `127.0.0.1` signed by
//! it, one for another name signed by it, and a second CA that signed nothing the server
//! shows). Both eras go through; an unknown issuer, a hostname mismatch and a server that
//! does not speak TLS are each refused with their `ConnectError`; an OAuth client gets its
//! token for the `https://` resource and sends it there (and, not trusting the CA, asks for
//! none).
//!
//! Needs `haproxy` and `openssl` (Debian packages; `scripts/test.sh` installs them): without
//! them these tests fail, naming what is missing.

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tracksuit::client::oauth::{ClientRegistration, OAuthClient, Url};
use tracksuit::client::{Client, ConnectError, Era, HttpTransport};
use tracksuit::host::http::auth::{Algorithm, Jwk, JwkSet, JwtValidator, ResourceServer};
use tracksuit::host::http::{HttpOptions, StreamableHttp};
use tracksuit::protocol::*;
use tracksuit::{RequestError, Server, ServerHandle, ToolFn};
use tracksuit_tests::support::{obj, text, wait_for, within};

/// A tracksuit server whose tools tell how the request arrived and ask the client back.
fn server() -> ServerHandle {
    Server::new(Implementation::new("https-test", "1"))
        .tool(ToolFn::new(
            Tool::new("proto", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                // HAProxy's TLS frontends set this; a plain request would not carry it.
                let proto = ctx
                    .http_request()
                    .and_then(|head| head.headers.get("x-forwarded-proto"))
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none")
                    .to_owned();
                Ok(CallToolResult::text(proto))
            },
        ))
        .tool(ToolFn::new(
            Tool::new("ask", obj(json!({"type": "object"}))),
            |ctx, _| async move {
                let roots = ctx.list_roots().await?;
                Ok(CallToolResult::text(format!("{} roots", roots.roots.len())))
            },
        ))
        .build()
        .expect("distinct names")
}

/// A program the tests need: on `PATH`, or where Debian puts it.
fn program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/bin".into()])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "tests/client_https.rs needs `{name}` (Debian package `{name}`; \
                 scripts/test.sh installs it): not found on PATH, /usr/sbin or /usr/bin"
            )
        })
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the program runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The extensions the certificates are made with (no system `openssl.cnf` involved).
const OPENSSL_CNF: &str = "\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[localhost]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
[elsewhere]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:mcp.elsewhere.test
";

/// Makes `<name>.pem` / `<name>.key`: a CA (`ca_of` `None`) or a server certificate signed
/// by CA `ca_of`, with the extensions of section `ext`.
fn certificate(dir: &Path, openssl: &Path, name: &str, ext: &str, ca_of: Option<&str>) {
    let key = dir.join(format!("{name}.key"));
    let pem = dir.join(format!("{name}.pem"));
    let cnf = dir.join("openssl.cnf");
    let subject = format!("/CN=tracksuit test {name}");
    let mut req = Command::new(openssl);
    req.current_dir(dir)
        .args(["req", "-config"])
        .arg(&cnf)
        .args([
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ])
        .arg("-keyout")
        .arg(&key)
        .args(["-subj", &subject]);
    let Some(ca) = ca_of else {
        req.args(["-x509", "-days", "2", "-extensions", ext, "-out"])
            .arg(&pem);
        return run(&mut req);
    };
    let csr = dir.join(format!("{name}.csr"));
    run(req.arg("-new").arg("-out").arg(&csr));
    run(Command::new(openssl)
        .current_dir(dir)
        .args(["x509", "-req", "-days", "2", "-CAcreateserial", "-in"])
        .arg(&csr)
        .args(["-CA", &format!("{ca}.pem"), "-CAkey", &format!("{ca}.key")])
        .args(["-extfile"])
        .arg(&cnf)
        .args(["-extensions", ext, "-out"])
        .arg(&pem));
}

/// Makes the test's certificates in a new directory `dir`: two CAs (`ca`, `other-ca`), and
/// signed by `ca` one for `localhost` / `127.0.0.1` and one for `mcp.elsewhere.test`, each
/// also as `<name>.both.pem` with its key (as HAProxy reads them).
fn certificates(dir: &Path) {
    let openssl = program("openssl");
    std::fs::create_dir_all(dir).expect("temp dir");
    std::fs::write(dir.join("openssl.cnf"), OPENSSL_CNF).expect("openssl.cnf");
    certificate(dir, &openssl, "ca", "ca", None);
    certificate(dir, &openssl, "other-ca", "ca", None);
    certificate(dir, &openssl, "localhost", "localhost", Some("ca"));
    certificate(dir, &openssl, "elsewhere", "elsewhere", Some("ca"));
    for name in ["localhost", "elsewhere"] {
        let mut both = std::fs::read(dir.join(format!("{name}.pem"))).expect("pem");
        both.extend(std::fs::read(dir.join(format!("{name}.key"))).expect("key"));
        std::fs::write(dir.join(format!("{name}.both.pem")), both).expect("write");
    }
}

/// HAProxy terminating TLS for a tracksuit server; stopped (and its files removed) on drop.
struct Tls {
    dir: PathBuf,
    haproxy: Child,
    /// The frontend with the `localhost` / `127.0.0.1` certificate.
    trusted: u16,
    /// The frontend with a certificate for `mcp.elsewhere.test` (same CA).
    elsewhere: u16,
    /// The tracksuit server itself, plain HTTP.
    backend: u16,
    /// The CA that signed both server certificates, PEM.
    ca: Vec<u8>,
    /// A CA that signed nothing the server shows, PEM.
    other_ca: Vec<u8>,
}

impl Drop for Tls {
    fn drop(&mut self) {
        let _ = self.haproxy.kill();
        let _ = self.haproxy.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

impl Tls {
    /// HAProxy in front of [`server`].
    async fn start() -> Tls {
        Tls::start_with(|_| StreamableHttp::new(server(), HttpOptions::default()).router("/mcp"))
            .await
    }

    /// HAProxy in front of the app `app` makes, given the port of the trusted frontend.
    async fn start_with(app: impl FnOnce(u16) -> axum::Router) -> Tls {
        let haproxy = program("haproxy");
        let dir = std::env::temp_dir().join(format!(
            "tracksuit-https-{}-{}",
            std::process::id(),
            free_port()
        ));
        certificates(&dir);

        let (trusted, elsewhere) = (free_port(), free_port());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let backend = listener.local_addr().expect("address").port();
        tokio::spawn(tracksuit::host::http::serve(listener, app(trusted)));

        let d = dir.display();
        let cfg = format!(
            "global\n    maxconn 64\n\
             defaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    \
             timeout server 30s\n    option http-no-delay\n\
             frontend trusted\n    bind 127.0.0.1:{trusted} ssl crt {d}/localhost.both.pem\n    \
             http-request set-header X-Forwarded-Proto https\n    default_backend mcp\n\
             frontend elsewhere\n    bind 127.0.0.1:{elsewhere} ssl crt {d}/elsewhere.both.pem\n    \
             http-request set-header X-Forwarded-Proto https\n    default_backend mcp\n\
             backend mcp\n    server tracksuit 127.0.0.1:{backend}\n"
        );
        let cfg_path = dir.join("haproxy.cfg");
        std::fs::write(&cfg_path, cfg).expect("haproxy.cfg");
        run(Command::new(&haproxy)
            .arg("-c")
            .arg("-q")
            .arg("-f")
            .arg(&cfg_path));
        let log = std::fs::File::create(dir.join("haproxy.log")).expect("log");
        let child = Command::new(&haproxy)
            .arg("-db")
            .arg("-f")
            .arg(&cfg_path)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("haproxy starts");
        let mut tls = Tls {
            ca: std::fs::read(dir.join("ca.pem")).expect("ca"),
            other_ca: std::fs::read(dir.join("other-ca.pem")).expect("other ca"),
            dir,
            haproxy: child,
            trusted,
            elsewhere,
            backend,
        };
        for port in [trusted, elsewhere] {
            wait_for(&format!("haproxy listens on {port}"), || {
                if let Ok(Some(status)) = tls.haproxy.try_wait() {
                    let log = std::fs::read_to_string(tls.dir.join("haproxy.log"));
                    panic!("haproxy exited ({status}): {}", log.unwrap_or_default());
                }
                async move {
                    tokio::net::TcpStream::connect(("127.0.0.1", port))
                        .await
                        .ok()
                        .map(drop)
                }
            })
            .await;
        }
        tls
    }
}

async fn connect(transport: HttpTransport, era: Era) -> Result<Client, RequestError> {
    let builder = Client::builder().era(era).roots(vec![Root {
        uri: "file:///work".into(),
        name: None,
        meta: None,
    }]);
    within("connect", builder.connect(transport)).await
}

fn https(host: &str, port: u16) -> HttpTransport {
    HttpTransport::new(&format!("https://{host}:{port}/mcp")).expect("an https URL")
}

/// The `ConnectError` a refused connection gave, in both eras.
async fn refusal(transport: HttpTransport) -> [ConnectError; 2] {
    let mut refusals = Vec::new();
    for era in [Era::Session, Era::Stateless] {
        let err = connect(transport.clone(), era)
            .await
            .err()
            .unwrap_or_else(|| panic!("{era:?}: the connection was accepted"));
        let why = ConnectError::of(&err).unwrap_or_else(|| panic!("{era:?}: {err}"));
        refusals.push(why);
    }
    refusals.try_into().expect("two eras")
}

#[tokio::test]
async fn a_tool_call_over_https_works_in_both_eras() {
    let tls = Tls::start().await;
    for era in [Era::Session, Era::Stateless] {
        for host in ["localhost", "127.0.0.1"] {
            let transport = https(host, tls.trusted)
                .root_certificate(&tls.ca)
                .expect("a CA certificate");
            let client = connect(transport, era).await.expect("connected over TLS");
            assert_eq!(client.era(), era);
            let proto = client.call_tool("proto", json!({})).await.expect("proto");
            assert_eq!(text(&proto), "https", "{era:?} via {host}");
            // A server request: on the POST's SSE stream (2025), as a round (2026).
            let asked = within("ask", client.call_tool("ask", json!({}))).await;
            assert_eq!(text(&asked.expect("ask")), "1 roots", "{era:?} via {host}");
        }
    }
    // Trusting only the given root (no system roots) works the same.
    let pinned = https("localhost", tls.trusted)
        .system_roots(false)
        .root_certificate(&tls.ca)
        .expect("a CA certificate");
    let client = connect(pinned, Era::Stateless).await.expect("connected");
    let proto = client.call_tool("proto", json!({})).await.expect("proto");
    assert_eq!(text(&proto), "https");
}

#[tokio::test]
async fn a_certificate_not_signed_by_the_given_root_is_refused() {
    let tls = Tls::start().await;
    let other_root = https("localhost", tls.trusted)
        .root_certificate(&tls.other_ca)
        .expect("a CA certificate");
    for why in refusal(other_root).await {
        assert!(
            matches!(&why, ConnectError::UntrustedCertificate(d) if d.contains("UnknownIssuer")),
            "{why:?}"
        );
    }
    // The system's roots alone do not know the test CA either.
    for why in refusal(https("localhost", tls.trusted)).await {
        assert!(
            matches!(why, ConnectError::UntrustedCertificate(_)),
            "{why:?}"
        );
    }
    // Nor does an empty set of roots.
    let none = https("localhost", tls.trusted).system_roots(false);
    for why in refusal(none).await {
        assert!(
            matches!(why, ConnectError::UntrustedCertificate(_)),
            "{why:?}"
        );
    }
}

#[tokio::test]
async fn a_certificate_for_another_host_is_refused() {
    let tls = Tls::start().await;
    let transport = https("localhost", tls.elsewhere)
        .root_certificate(&tls.ca)
        .expect("a CA certificate");
    for why in refusal(transport).await {
        assert!(
            matches!(&why, ConnectError::HostnameMismatch(d) if d.contains("mcp.elsewhere.test")),
            "{why:?}"
        );
    }
}

#[tokio::test]
async fn plain_http_behind_an_https_url_and_a_closed_port_are_typed_failures() {
    let tls = Tls::start().await;
    // The tracksuit server itself answers plain HTTP, not a TLS handshake.
    let plain = https("127.0.0.1", tls.backend)
        .root_certificate(&tls.ca)
        .expect("a CA certificate");
    for why in refusal(plain).await {
        assert!(matches!(why, ConnectError::Tls(_)), "{why:?}");
    }
    let closed = https("127.0.0.1", free_port());
    for why in refusal(closed).await {
        assert!(matches!(why, ConnectError::Unreachable(_)), "{why:?}");
    }
}

#[test]
fn root_certificates_must_be_pem_certificates() {
    use tracksuit::client::InvalidUrl;
    let transport = || https("localhost", 1);
    for bad in [
        &b""[..],
        b"not PEM",
        b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    ] {
        let refused = transport().root_certificate(bad);
        assert!(
            matches!(refused, Err(InvalidUrl::Certificate(_))),
            "{bad:?}"
        );
    }
    let garbage = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert!(matches!(
        transport().root_certificate(garbage),
        Err(InvalidUrl::Certificate(_))
    ));
}

/// An authorization server on loopback HTTP (allowed: loopback) issuing ES256 tokens with
/// the client credentials grant; records the `resource` of each token request.
struct AuthServer {
    url: String,
    key: jsonwebtoken::EncodingKey,
    jwk: Jwk,
    resources: Arc<Mutex<Vec<String>>>,
}

impl AuthServer {
    async fn start() -> Arc<AuthServer> {
        use aws_lc_rs::rand::SystemRandom;
        use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .expect("key generation");
        let key = jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref());
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).expect("jwk");
        jwk.common.key_id = Some("k1".into());
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let server = Arc::new(AuthServer {
            url,
            key,
            jwk,
            resources: Arc::default(),
        });
        let (meta, token) = (server.clone(), server.clone());
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move {
                    axum::Json(json!({
                        "issuer": meta.url,
                        "token_endpoint": format!("{}/token", meta.url),
                        "response_types_supported": ["code"],
                        "grant_types_supported": ["client_credentials"],
                        "code_challenge_methods_supported": ["S256"],
                    }))
                }),
            )
            .route(
                "/token",
                axum::routing::post(move |form: String| async move { token.token(&form) }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        server
    }

    /// Answers a token request: a JWT for the requested `resource`.
    fn token(&self, form: &str) -> axum::Json<serde_json::Value> {
        let form = Url::parse(&format!("http://form.invalid/?{form}")).expect("a form body");
        let params: Vec<(String, String)> = form.query_pairs().into_owned().collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(param("grant_type").as_deref(), Some("client_credentials"));
        let resource = param("resource").unwrap_or_default();
        self.resources.lock().expect("lock").push(resource.clone());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let claims = json!({"iss": self.url, "aud": resource, "sub": "svc",
            "exp": now + 300, "iat": now});
        let jwt = jsonwebtoken::encode(&header, &claims, &self.key).expect("sign");
        axum::Json(json!({"access_token": jwt, "token_type": "Bearer", "expires_in": 300}))
    }
}

#[tokio::test]
async fn oauth_tokens_go_to_an_https_endpoint() {
    let auth = AuthServer::start().await;
    let issuer = auth.clone();
    let tls = Tls::start_with(move |trusted| {
        let resource = format!("https://localhost:{trusted}/mcp");
        let keys = JwkSet {
            keys: vec![issuer.jwk.clone()],
        };
        let validator = JwtValidator::with_keys(&issuer.url, &resource, keys);
        let rs = ResourceServer::new(&resource, validator).authorization_server(&issuer.url);
        StreamableHttp::new(server(), HttpOptions::default().auth(rs)).router("/mcp")
    })
    .await;
    let resource = format!("https://localhost:{}/mcp", tls.trusted);
    let oauth = |roots: bool| {
        let builder = OAuthClient::builder()
            .client_credentials(ClientRegistration::confidential("svc", "s3cret"));
        let builder = if roots {
            builder.root_certificate(&tls.ca)
        } else {
            builder
        };
        builder.build().expect("an OAuth client")
    };
    for era in [Era::Session, Era::Stateless] {
        let client = oauth(true);
        let transport = https("localhost", tls.trusted)
            .root_certificate(&tls.ca)
            .expect("a CA certificate")
            .oauth(client.clone());
        let connected = connect(transport, era).await.expect("authorized over TLS");
        let proto = connected
            .call_tool("proto", json!({}))
            .await
            .expect("proto");
        assert_eq!(text(&proto), "https", "{era:?}");
        let stored = client.store().token(&resource).await.expect("a token");
        assert_eq!(stored.resource, resource);
    }
    assert_eq!(
        *auth.resources.lock().expect("lock"),
        [resource.clone(), resource.clone()]
    );
    // An OAuth client that does not trust the CA cannot read the server's metadata: no
    // token is asked for.
    let transport = https("localhost", tls.trusted)
        .root_certificate(&tls.ca)
        .expect("a CA certificate")
        .oauth(oauth(false));
    let Err(refused) = connect(transport, Era::Session).await else {
        panic!("an OAuth client that does not trust the CA got through");
    };
    let text = refused.to_string();
    assert!(
        text.contains("authorization failed") && text.contains("UnknownIssuer"),
        "{text}"
    );
    assert_eq!(auth.resources.lock().expect("lock").len(), 2);
}
