//! Sealed, authenticated `requestState` for multi round-trip requests (MCP 2026-07-28).
//!
//! A server that needs more input answers `tools/call` (or `prompts/get`, `resources/read`)
//! with an `input_required` result carrying an opaque `requestState`, and the client echoes
//! that string back when it retries the call. The string passes through the client, so the
//! specification has servers treat it as attacker-controlled: protect its integrity, reject
//! state that fails verification, and bind it to the principal, a short expiry and the
//! originating request (`basic/patterns/mrtr`, "Server Requirements").
//!
//! [`StateKeys::seal`] does all of that with AES-256-GCM under a subkey of the ring key.
//! The token is
//!
//! ```text
//! base64url(version 2 ‖ key id (4) ‖ salt (16) ‖ nonce (12) ‖ AES-256-GCM(plaintext) ‖ tag (16))
//! plaintext = expiry (u64 big-endian, unix ms) ‖ SHA-256(binding) (32) ‖ payload
//! subkey = HKDF-SHA256-Expand(ring key's PRK, "tracksuit/requestState/subkey/v2" ‖ salt)
//! ```
//!
//! with the version byte, key id and salt as associated data, so none can be changed
//! without the tag failing. The nonce is 96 random bits (from the thread-local CSPRNG,
//! `rand::rng()`, seeded by the operating system). A process seals at most 2²⁴
//! tokens under one subkey before it draws a new 128-bit random salt, so AES-GCM's limit
//! of 2³² random nonces per key never applies to a long-lived shared secret (`subkey`).
//! Version 1 tokens (`version 1 ‖ key id ‖ nonce (12) ‖ …` under the ring key itself, as
//! sealed by earlier releases) still open, so a rolling upgrade keeps the states in
//! flight. The key id names the ring key that sealed the token: [`StateKeys::open`]
//! picks that key directly instead of trying each, and a token from another deployment or a
//! retired key is reported as such ([`OpenError::UnknownKey`]).
//!
//! The payload is encrypted as well as authenticated, so what the server keeps in it (the
//! client's earlier answers, a handoff tool's state) is not readable by the client either.
//! Sealing bounds replay to the TTL and to the same principal and request; it does not make
//! a state single-use (the specification leaves that to servers that need it).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::rand_core::RngCore;
use aes_gcm::aead::{AeadInPlace, KeyInit, OsRng};
use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use hkdf::Hkdf;
use sha2::{Digest, Sha256};

mod digest;
mod subkey;
use subkey::{SALT_LEN, Subkeys};

pub(crate) use digest::{digest_answers, digest_json, digest_request};

/// The longest `requestState` token, in characters, that is sealed or opened (512 KiB).
///
/// [`StateKeys`] refuses to seal a payload whose token would be longer, and refuses to
/// look at a longer token at all (before decoding it), so a client cannot make the server
/// decode and decrypt an arbitrarily large string.
///
/// ```
/// assert_eq!(tracksuit::MAX_STATE_LEN, 512 * 1024);
/// ```
pub const MAX_STATE_LEN: usize = 512 * 1024;

/// The environment variable [`StateKeys::from_env`] reads.
const ENV_VAR: &str = "TRACKSUIT_STATE_KEYS";
/// HKDF-SHA256 `info` for the AES key derived from a secret.
const HKDF_INFO: &[u8] = b"tracksuit/requestState/v1";
/// The shortest secret accepted, in bytes.
const MIN_SECRET_LEN: usize = 32;
/// Fewer distinct byte values than this is no random secret (32 random bytes have ~30).
const MIN_DISTINCT_BYTES: usize = 16;

/// The token format version (first byte of the decoded token).
const VERSION: u8 = 2;
/// The format of earlier releases, still opened.
const VERSION_1: u8 = 1;
const KEY_ID_LEN: usize = 4;
/// The random nonce of either version.
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
/// Version 2's associated data: version, key id, salt.
const AAD_LEN: usize = 1 + KEY_ID_LEN + SALT_LEN;
/// Version 2's header: the associated data, then the nonce.
const HEADER_LEN: usize = AAD_LEN + NONCE_LEN;
/// Version 1's header: version and key id (associated data), nonce.
const HEADER_LEN_1: usize = 1 + KEY_ID_LEN + NONCE_LEN;
/// Expiry and binding digest, before the payload.
const PREFIX_LEN: usize = 8 + 32;
/// The shortest well-formed token (empty payload) of either version.
const MIN_TOKEN_BYTES: usize = HEADER_LEN + PREFIX_LEN + TAG_LEN;
/// The shortest well-formed version 1 token.
const MIN_TOKEN_BYTES_1: usize = HEADER_LEN_1 + PREFIX_LEN + TAG_LEN;
/// Domain separation for the binding digest.
const BINDING_TAG: &[u8] = b"tracksuit/requestState/binding/v1";

/// Standard or URL-safe base64, padded or not: what [`StateKeys::from_env`] accepts.
const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const URL_SAFE_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

/// The keys that seal and open `requestState` tokens: a key ring, newest first.
///
/// The newest key seals; every key in the ring opens, so keys can be rotated without
/// invalidating states in flight: put the new secret first and keep the old one after it
/// for at least the longest state TTL, then drop it. Each secret (at least 32 random
/// bytes: a repeated byte or a short pattern is refused as [`KeyError::Weak`]) is turned
/// into an HKDF-SHA256 key from which AES-256 subkeys are expanded, each sealing at most
/// 2²⁴ tokens, so a secret's use is not bounded by AES-GCM's nonce limits; rotate on your
/// own schedule (when a secret may have leaked, when someone who knew it leaves; yearly
/// otherwise).
///
/// A server that runs as several processes behind one endpoint needs the same secrets in
/// each ([`StateKeys::from_env`]); a single process can use [`StateKeys::random`].
///
/// Cloning is cheap (the ring is shared). `Debug` shows only the public key ids.
///
/// ```
/// use tracksuit::StateKeys;
/// let (old, new) = (*b"an old secret of 32 random bytes", *b"the newest secret, 32 bytes long");
/// let rotated = StateKeys::from_secrets([new, old])?;
/// assert_eq!(rotated.clone().len(), 2);
/// assert!(!format!("{rotated:?}").contains("newest"));
/// assert!(matches!(StateKeys::from_secret(&[7u8; 32]), Err(tracksuit::KeyError::Weak { .. })));
/// # Ok::<(), tracksuit::KeyError>(())
/// ```
#[derive(Clone)]
pub struct StateKeys {
    /// Newest first; never empty; key ids distinct.
    ring: Arc<[RingKey]>,
}

/// One key of the ring.
struct RingKey {
    id: [u8; KEY_ID_LEN],
    /// Version 1 tokens' key (the ring key itself).
    cipher: Aes256Gcm,
    /// The subkeys version 2 tokens are sealed under.
    subkeys: Subkeys,
}

/// Why a set of state keys could not be made. No message contains key material.
///
/// ```
/// use tracksuit::{KeyError, StateKeys};
/// let err = StateKeys::from_secret(b"too short").unwrap_err();
/// assert!(matches!(err, KeyError::TooShort { index: 0, len: 9 }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// No secret was given.
    #[error("no requestState secret given")]
    Empty,
    /// A secret is shorter than 32 bytes.
    #[error(
        "requestState secret {index} (0 is the newest) is {len} bytes; at least {MIN_SECRET_LEN} are required"
    )]
    TooShort {
        /// Its position in the ring, 0 being the newest.
        index: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// A secret in `TRACKSUIT_STATE_KEYS` is not base64 (standard or URL-safe).
    #[error("requestState secret {index} (0 is the newest) in {ENV_VAR} is not valid base64")]
    Base64 {
        /// Its position in the list, 0 being the newest.
        index: usize,
    },
    /// `TRACKSUIT_STATE_KEYS` is set but not valid Unicode.
    #[error("{ENV_VAR} is not valid Unicode")]
    NotUnicode,
    /// A secret has fewer than 16 distinct byte values (a repeated byte, a short pattern):
    /// not a random secret. Draw one with `head -c 32 /dev/urandom | base64`.
    #[error(
        "requestState secret {index} (0 is the newest) has only {distinct} distinct byte values; use at least {MIN_SECRET_LEN} random bytes"
    )]
    Weak {
        /// Its position in the ring, 0 being the newest.
        index: usize,
        /// How many distinct byte values it has.
        distinct: usize,
    },
    /// Two different secrets gave keys with the same key id (a 1 in 2³² chance): replace one.
    #[error(
        "requestState secrets {first} and {second} (0 is the newest) have the same key id; replace one of them"
    )]
    KeyIdCollision {
        /// The newer secret's position.
        first: usize,
        /// The older secret's position.
        second: usize,
    },
}

/// Why a state could not be sealed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SealError {
    /// The token would be longer than [`MAX_STATE_LEN`].
    #[error("requestState would be {len} characters, over the limit of {max}")]
    TooLarge {
        /// The length the token would have.
        len: usize,
        /// [`MAX_STATE_LEN`].
        max: usize,
    },
    /// The operating system's random number generator failed.
    #[error("no random nonce for requestState: {0}")]
    Random(String),
    /// The cipher refused (it only does for plaintexts far over the size limit).
    #[error("requestState could not be encrypted")]
    Encrypt,
}

/// Why a `requestState` token was refused. No message contains secret data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OpenError {
    /// The token is longer than [`MAX_STATE_LEN`]; it was not decoded.
    #[error("requestState is {len} characters, over the limit of {max}")]
    TooLarge {
        /// The token's length in bytes.
        len: usize,
        /// [`MAX_STATE_LEN`].
        max: usize,
    },
    /// Not base64url, too short, or of an unknown format version.
    #[error("requestState is malformed")]
    Malformed,
    /// Sealed with a key this server does not have (another deployment, or a retired key).
    #[error("requestState was sealed with a key this server does not have")]
    UnknownKey,
    /// Failed authentication: modified, or not made by this server.
    #[error("requestState failed verification")]
    Tampered,
    /// Authentic, but issued for another method, tool, arguments or principal.
    #[error("requestState was issued for a different request or principal")]
    Foreign,
    /// Authentic, but its time to live has passed.
    #[error("requestState expired at {expired_at_ms} ms after the Unix epoch")]
    Expired {
        /// When it expired, in milliseconds since the Unix epoch.
        expired_at_ms: u64,
    },
}

/// What a sealed state is bound to: it opens only for the same values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binding<'a> {
    /// The request method (`tools/call`, `prompts/get`, `resources/read`).
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub name: &'a str,
    /// [`digest_json`] of the request's salient parameters (the arguments).
    pub params_digest: [u8; 32],
    /// The authenticated principal, if the transport has one.
    pub principal: Option<&'a str>,
}

/// The digest of a [`Binding`], for a request that both opens and seals a state: taken
/// once ([`Binding::bound`]) rather than by each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bound([u8; 32]);

impl Binding<'_> {
    /// This binding's digest, to open and seal with ([`StateKeys::open_bound`],
    /// [`StateKeys::seal_bound`]).
    pub(crate) fn bound(&self) -> Bound {
        Bound(self.digest())
    }

    /// SHA-256 over every field, each length-prefixed so that fields cannot run together,
    /// and the principal's presence marked so that `None` differs from `Some("")`.
    fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(BINDING_TAG);
        for field in [self.method, self.name] {
            h.update((field.len() as u64).to_be_bytes());
            h.update(field.as_bytes());
        }
        h.update(self.params_digest);
        match self.principal {
            None => h.update([0]),
            Some(p) => {
                h.update([1]);
                h.update((p.len() as u64).to_be_bytes());
                h.update(p.as_bytes());
            }
        }
        h.finalize().into()
    }
}

/// Milliseconds since the Unix epoch (0 before it, `u64::MAX` past what fits).
fn unix_ms(t: SystemTime) -> u64 {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

impl StateKeys {
    /// A ring of one fresh random 32-byte secret: the per-process default.
    ///
    /// States sealed with it open only in this process, and only until it exits.
    ///
    /// # Panics
    ///
    /// If the operating system's random number generator fails.
    ///
    /// ```
    /// let keys = tracksuit::StateKeys::random();
    /// assert_eq!(keys.len(), 1);
    /// ```
    pub fn random() -> Self {
        let mut secret = [0u8; 32];
        OsRng.fill_bytes(&mut secret);
        Self {
            ring: Arc::new([RingKey::derive(&secret)]),
        }
    }

    /// A ring of one secret (at least 32 bytes, e.g. 32 random bytes).
    ///
    /// The AES-256 key is derived with HKDF-SHA256 (no salt, info
    /// `tracksuit/requestState/v1`), so the same secret gives the same key everywhere.
    ///
    /// ```
    /// use tracksuit::StateKeys;
    /// let keys = StateKeys::from_secret(b"0123456789abcdef0123456789abcdef")?;
    /// assert_eq!(keys.len(), 1);
    /// assert!(StateKeys::from_secret(b"short").is_err());
    /// # Ok::<(), tracksuit::KeyError>(())
    /// ```
    pub fn from_secret(secret: &[u8]) -> Result<Self, KeyError> {
        Self::from_secrets([secret])
    }

    /// A ring of several secrets, newest first: the first seals, all of them open.
    ///
    /// Fails if there is none, if one is shorter than 32 bytes or has fewer than 16
    /// distinct byte values ([`KeyError::Weak`]), or (1 in 2³²) if two
    /// different secrets give the same key id. A secret given twice is kept once.
    ///
    /// ```
    /// use tracksuit::StateKeys;
    /// let new = *b"the newest secret, 32 bytes long";
    /// let old = *b"an old secret of 32 random bytes";
    /// let keys = StateKeys::from_secrets([new, old])?;
    /// assert_eq!(keys.len(), 2);
    /// assert!(StateKeys::from_secrets(Vec::<Vec<u8>>::new()).is_err());
    /// # Ok::<(), tracksuit::KeyError>(())
    /// ```
    pub fn from_secrets<I>(secrets: I) -> Result<Self, KeyError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        // Keys are compared by a digest of the derived key, never kept beyond this call.
        let mut ring: Vec<(RingKey, [u8; 32], usize)> = Vec::new();
        for (index, secret) in secrets.into_iter().enumerate() {
            let secret = secret.as_ref();
            if secret.len() < MIN_SECRET_LEN {
                return Err(KeyError::TooShort {
                    index,
                    len: secret.len(),
                });
            }
            let distinct = distinct_bytes(secret);
            if distinct < MIN_DISTINCT_BYTES {
                return Err(KeyError::Weak { index, distinct });
            }
            let (key, fingerprint) = RingKey::derive_with_fingerprint(secret);
            match ring.iter().find(|(k, _, _)| k.id == key.id) {
                Some((_, f, _)) if *f == fingerprint => {} // the same secret again
                Some((_, _, first)) => {
                    return Err(KeyError::KeyIdCollision {
                        first: *first,
                        second: index,
                    });
                }
                None => ring.push((key, fingerprint, index)),
            }
        }
        if ring.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Self {
            ring: ring.into_iter().map(|(k, _, _)| k).collect(),
        })
    }

    /// The ring from the `TRACKSUIT_STATE_KEYS` environment variable, or `None` if it is
    /// not set.
    ///
    /// The variable holds comma-separated base64 secrets (standard or URL-safe alphabet,
    /// padded or not; spaces around each are ignored), newest first, each decoding to at
    /// least 32 bytes, e.g. the output of `openssl rand -base64 32`. Set but empty, or
    /// with an entry that does not decode, is an error, not `None`: a deployment that
    /// meant to share keys should not silently fall back to per-process ones.
    ///
    /// ```
    /// use tracksuit::StateKeys;
    /// let keys = match StateKeys::from_env()? {
    ///     Some(keys) => keys,
    ///     None => StateKeys::random(),
    /// };
    /// # let _ = keys;
    /// # Ok::<(), tracksuit::KeyError>(())
    /// ```
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        Self::from_env_value(std::env::var_os(ENV_VAR).as_deref())
    }

    /// [`StateKeys::from_env`] on the variable's value (`None`: unset).
    fn from_env_value(value: Option<&std::ffi::OsStr>) -> Result<Option<Self>, KeyError> {
        let Some(value) = value else {
            return Ok(None);
        };
        let value = value.to_str().ok_or(KeyError::NotUnicode)?;
        Self::parse_secrets(value).map(Some)
    }

    /// Parses the comma-separated base64 list of `TRACKSUIT_STATE_KEYS`.
    fn parse_secrets(value: &str) -> Result<Self, KeyError> {
        if value.trim().is_empty() {
            return Err(KeyError::Empty);
        }
        let secrets = value
            .split(',')
            .enumerate()
            .map(|(index, s)| {
                let s = s.trim();
                let decoded = if s.is_empty() {
                    None
                } else {
                    STANDARD_LENIENT
                        .decode(s)
                        .or_else(|_| URL_SAFE_LENIENT.decode(s))
                        .ok()
                };
                decoded.ok_or(KeyError::Base64 { index })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_secrets(&secrets)
    }

    /// How many keys the ring holds (distinct secrets).
    ///
    /// ```
    /// assert_eq!(tracksuit::StateKeys::random().len(), 1);
    /// ```
    #[allow(clippy::len_without_is_empty, reason = "a ring is never empty")]
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    /// Seals `payload` into a `requestState` token bound to `binding`, valid for `ttl`
    /// from `now`, with the newest key and a fresh random nonce.
    pub(crate) fn seal(
        &self,
        binding: &Binding<'_>,
        ttl: Duration,
        now: SystemTime,
        payload: &[u8],
    ) -> Result<String, SealError> {
        self.seal_bound(&binding.bound(), ttl, now, payload)
    }

    /// [`StateKeys::seal`] with the binding's digest taken already.
    pub(crate) fn seal_bound(
        &self,
        bound: &Bound,
        ttl: Duration,
        now: SystemTime,
        payload: &[u8],
    ) -> Result<String, SealError> {
        let bytes = MIN_TOKEN_BYTES.saturating_add(payload.len());
        let len = base64::encoded_len(bytes, false).unwrap_or(usize::MAX);
        if len > MAX_STATE_LEN {
            return Err(SealError::TooLarge {
                len,
                max: MAX_STATE_LEN,
            });
        }
        let key = &self.ring[0]; // never empty
        let subkey = key.subkeys.for_sealing()?;
        // From the thread's CSPRNG (ChaCha, seeded and reseeded by the operating system):
        // a system call per token cost more than the rest of sealing it.
        let mut nonce = [0u8; NONCE_LEN];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut nonce);
        let expires_at =
            unix_ms(now).saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));

        let mut token = Vec::with_capacity(bytes);
        token.push(VERSION);
        token.extend_from_slice(&key.id);
        token.extend_from_slice(&subkey.salt);
        token.extend_from_slice(&nonce);
        token.extend_from_slice(&expires_at.to_be_bytes());
        token.extend_from_slice(&bound.0);
        token.extend_from_slice(payload);
        let (header, plaintext) = token.split_at_mut(HEADER_LEN);
        let tag = subkey
            .cipher
            .encrypt_in_place_detached(&nonce.into(), &header[..AAD_LEN], plaintext)
            .map_err(|_| SealError::Encrypt)?;
        token.extend_from_slice(&tag);
        Ok(URL_SAFE_NO_PAD.encode(token))
    }

    /// Opens a token made by [`StateKeys::seal`] with a key of this ring, checks that it
    /// was bound to `binding` and has not expired at `now`, and returns its payload.
    pub(crate) fn open(
        &self,
        binding: &Binding<'_>,
        token: &str,
        now: SystemTime,
    ) -> Result<Vec<u8>, OpenError> {
        self.open_bound(&binding.bound(), token, now)
            .map(|opened| opened.payload)
    }

    /// [`StateKeys::open`] with the binding's digest taken already.
    pub(crate) fn open_bound(
        &self,
        bound: &Bound,
        token: &str,
        now: SystemTime,
    ) -> Result<Opened, OpenError> {
        if token.len() > MAX_STATE_LEN {
            return Err(OpenError::TooLarge {
                len: token.len(),
                max: MAX_STATE_LEN,
            });
        }
        let mut bytes = URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| OpenError::Malformed)?;
        let (header_len, min_len) = match bytes.first() {
            Some(&VERSION) => (HEADER_LEN, MIN_TOKEN_BYTES),
            Some(&VERSION_1) => (HEADER_LEN_1, MIN_TOKEN_BYTES_1),
            _ => return Err(OpenError::Malformed),
        };
        if bytes.len() < min_len {
            return Err(OpenError::Malformed);
        }
        let (header, rest) = bytes.split_at_mut(header_len);
        let key = self
            .ring
            .iter()
            .find(|k| k.id[..] == header[1..1 + KEY_ID_LEN])
            .ok_or(OpenError::UnknownKey)?;
        let (ciphertext, tag) = rest.split_at_mut(rest.len() - TAG_LEN);
        let tag = GenericArray::from_slice(tag);
        let opened = if header[0] == VERSION {
            let (aad, nonce) = header.split_at(AAD_LEN);
            let (subkey, known) = key.subkeys.for_opening(&aad[1 + KEY_ID_LEN..]);
            let opened = subkey.cipher.decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                aad,
                ciphertext,
                tag,
            );
            if opened.is_ok() && !known {
                key.subkeys.remember(subkey);
            }
            opened
        } else {
            let (aad, nonce) = header.split_at(1 + KEY_ID_LEN);
            key.cipher.decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                aad,
                ciphertext,
                tag,
            )
        };
        opened.map_err(|_| OpenError::Tampered)?;
        // Authentic from here on: the layout is the one `seal` wrote.
        let (expiry, rest) = ciphertext.split_at(8);
        let (digest, _payload) = rest.split_at(32);
        if digest != bound.0 {
            return Err(OpenError::Foreign);
        }
        let mut expires_at = [0u8; 8];
        expires_at.copy_from_slice(expiry);
        let expires_at = u64::from_be_bytes(expires_at);
        if unix_ms(now) >= expires_at {
            return Err(OpenError::Expired {
                expired_at_ms: expires_at,
            });
        }
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&bytes[bytes.len() - TAG_LEN..]);
        bytes.truncate(bytes.len() - TAG_LEN);
        bytes.drain(..header_len + PREFIX_LEN);
        Ok(Opened {
            payload: bytes,
            tag,
        })
    }
}

/// A token [`StateKeys::open_bound`] accepted.
#[derive(Debug)]
pub(crate) struct Opened {
    /// What was sealed.
    pub(crate) payload: Vec<u8>,
    /// Its AES-GCM tag: authentic, so it names this token among all the ring sealed (two
    /// tokens share one by chance with probability 2⁻¹²⁸), and no client can choose it.
    pub(crate) tag: [u8; TAG_LEN],
}

/// How many distinct byte values `secret` has.
fn distinct_bytes(secret: &[u8]) -> usize {
    let mut seen = [false; 256];
    for &b in secret {
        seen[usize::from(b)] = true;
    }
    seen.iter().filter(|s| **s).count()
}

impl RingKey {
    fn derive(secret: &[u8]) -> Self {
        Self::derive_with_fingerprint(secret).0
    }

    /// The key for `secret`, and a digest of the derived key to compare keys by.
    fn derive_with_fingerprint(secret: &[u8]) -> (Self, [u8; 32]) {
        let prk = Hkdf::<Sha256>::new(None, secret);
        let mut key = [0u8; 32];
        // HKDF-SHA256 fails only for outputs over 255 × 32 bytes.
        let _ = prk.expand(HKDF_INFO, &mut key);
        let fingerprint: [u8; 32] = Sha256::digest(key).into();
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&fingerprint[..KEY_ID_LEN]);
        let cipher = Aes256Gcm::new(&GenericArray::from(key));
        let subkeys = Subkeys::new(prk);
        (
            Self {
                id,
                cipher,
                subkeys,
            },
            fingerprint,
        )
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Id([u8; KEY_ID_LEN]);
        impl fmt::Debug for Id {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
            }
        }
        f.debug_struct("StateKeys")
            .field(
                "key_ids",
                &self.ring.iter().map(|k| Id(k.id)).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests;
