//! The sealing's unit tests: round trips, tampering, binding, expiry, rotation, limits.

use super::*;
use serde_json::json;

const T0: Duration = Duration::from_secs(1_700_000_000);
const TTL: Duration = Duration::from_secs(300);

fn now() -> SystemTime {
    UNIX_EPOCH + T0
}

/// 32 distinct bytes, different for each `seed`.
fn secret(seed: u8) -> [u8; 32] {
    std::array::from_fn(|i| seed ^ (i as u8).wrapping_mul(37))
}

/// `len` bytes, distinct up to 256, different for each `seed`.
fn secret_len(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| seed ^ (i as u8).wrapping_mul(37))
        .collect()
}

fn keys(seed: u8) -> StateKeys {
    StateKeys::from_secret(&secret(seed)).unwrap()
}

fn binding<'a>(args: &serde_json::Value, principal: Option<&'a str>) -> Binding<'a> {
    Binding {
        method: "tools/call",
        name: "deploy",
        params_digest: digest_json(args),
        principal,
    }
}

fn base() -> Binding<'static> {
    binding(&json!({"env": "prod", "n": 3}), Some("alice"))
}

fn decode(token: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(token).unwrap()
}

fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn round_trip() {
    let keys = StateKeys::random();
    let payload = br#"{"answers":[1,2,3]}"#;
    let token = keys.seal(&base(), TTL, now(), payload).unwrap();
    assert!(token.len() <= MAX_STATE_LEN);
    assert!(
        token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    assert_eq!(keys.open(&base(), &token, now()).unwrap(), payload);
    // Still open just before expiry; an empty payload works too.
    let later = now() + TTL - Duration::from_millis(1);
    assert_eq!(keys.open(&base(), &token, later).unwrap(), payload);
    let empty = keys.seal(&base(), TTL, now(), b"").unwrap();
    assert_eq!(keys.open(&base(), &empty, now()).unwrap(), b"");
}

#[test]
fn a_digest_taken_once_opens_and_seals_as_the_binding_does() {
    let keys = keys(1);
    let bound = base().bound();
    assert_eq!(bound, base().bound());
    let token = keys.seal_bound(&bound, TTL, now(), b"p").unwrap();
    assert_eq!(keys.open(&base(), &token, now()).unwrap(), b"p");
    let token = keys.seal(&base(), TTL, now(), b"q").unwrap();
    assert_eq!(
        keys.open_bound(&bound, &token, now()).unwrap().payload,
        b"q"
    );
    let other = binding(&json!({"env": "dev", "n": 3}), Some("alice")).bound();
    assert_eq!(
        keys.open_bound(&other, &token, now()).map(|o| o.payload),
        Err(OpenError::Foreign)
    );
    let later = now() + TTL;
    assert!(matches!(
        keys.open_bound(&bound, &token, later),
        Err(OpenError::Expired { .. })
    ));
}

#[test]
fn an_opened_token_names_its_tag_and_two_seals_of_one_payload_differ_in_it() {
    let keys = keys(1);
    let bound = base().bound();
    let a = keys.seal_bound(&bound, TTL, now(), b"same").unwrap();
    let b = keys.seal_bound(&bound, TTL, now(), b"same").unwrap();
    let (ta, tb) = (
        keys.open_bound(&bound, &a, now()).unwrap().tag,
        keys.open_bound(&bound, &b, now()).unwrap().tag,
    );
    let raw = URL_SAFE_NO_PAD.decode(&a).unwrap();
    assert_eq!(ta[..], raw[raw.len() - TAG_LEN..]);
    assert_ne!(ta, tb);
    // The same token re-sent is the same round.
    assert_eq!(keys.open_bound(&bound, &a, now()).unwrap().tag, ta);
}

#[test]
fn nonce_is_fresh_per_seal() {
    let keys = keys(1);
    let a = keys.seal(&base(), TTL, now(), b"same").unwrap();
    let b = keys.seal(&base(), TTL, now(), b"same").unwrap();
    assert_ne!(a, b);
    assert_ne!(
        decode(&a)[HEADER_LEN - NONCE_LEN..HEADER_LEN],
        decode(&b)[HEADER_LEN - NONCE_LEN..HEADER_LEN]
    );
}

#[test]
fn payload_is_not_readable_in_the_token() {
    let keys = keys(1);
    let token = keys
        .seal(&base(), TTL, now(), b"secret-answer-secret-answer")
        .unwrap();
    let bytes = decode(&token);
    assert!(!bytes.windows(13).any(|w| w == b"secret-answer"));
}

#[test]
fn older_key_opens_after_rotation() {
    let old = StateKeys::from_secret(&secret(1)).unwrap();
    let token = old.seal(&base(), TTL, now(), b"in flight").unwrap();
    let rotated = StateKeys::from_secrets([secret(2), secret(1)]).unwrap();
    assert_eq!(rotated.open(&base(), &token, now()).unwrap(), b"in flight");
    // The rotated ring seals with the new key, which the old ring does not have.
    let fresh = rotated.seal(&base(), TTL, now(), b"new").unwrap();
    assert_eq!(old.open(&base(), &fresh, now()), Err(OpenError::UnknownKey));
    assert_eq!(keys(2).open(&base(), &fresh, now()).unwrap(), b"new");
}

#[test]
fn ring_without_the_sealing_key_is_unknown_key() {
    let token = keys(1).seal(&base(), TTL, now(), b"x").unwrap();
    let other = StateKeys::from_secrets([secret(2), secret(3)]).unwrap();
    assert_eq!(
        other.open(&base(), &token, now()),
        Err(OpenError::UnknownKey)
    );
    assert_eq!(
        StateKeys::random().open(&base(), &token, now()),
        Err(OpenError::UnknownKey)
    );
}

#[test]
fn every_byte_flip_is_refused() {
    let ring = StateKeys::from_secrets([secret(1), secret(2)]).unwrap();
    let token = ring.seal(&base(), TTL, now(), b"payload bytes").unwrap();
    let bytes = decode(&token);
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut flipped = bytes.clone();
            flipped[i] ^= mask;
            let got = ring.open(&base(), &encode(&flipped), now());
            assert!(
                matches!(
                    got,
                    Err(OpenError::Malformed | OpenError::UnknownKey | OpenError::Tampered)
                ),
                "byte {i} ^ {mask:#04x}: {got:?}"
            );
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    let keys = keys(1);
    let token = keys.seal(&base(), TTL, now(), b"payload bytes").unwrap();
    let bytes = decode(&token);
    for n in 0..bytes.len() {
        let got = keys.open(&base(), &encode(&bytes[..n]), now());
        assert!(
            matches!(got, Err(OpenError::Malformed | OpenError::Tampered)),
            "{n} bytes: {got:?}"
        );
    }
    for n in 0..token.len() {
        assert!(
            keys.open(&base(), &token[..n], now()).is_err(),
            "{n} characters"
        );
    }
    // Extended by a byte is refused too.
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        keys.open(&base(), &encode(&longer), now()),
        Err(OpenError::Tampered)
    );
}

#[test]
fn key_id_rewritten_to_another_ring_key_is_tampered() {
    let ring = StateKeys::from_secrets([secret(1), secret(2)]).unwrap();
    let token = ring.seal(&base(), TTL, now(), b"x").unwrap();
    let mut bytes = decode(&token);
    assert_eq!(bytes[1..1 + KEY_ID_LEN], ring.ring[0].id);
    bytes[1..1 + KEY_ID_LEN].copy_from_slice(&ring.ring[1].id);
    assert_eq!(
        ring.open(&base(), &encode(&bytes), now()),
        Err(OpenError::Tampered)
    );
}

#[test]
fn replay_on_another_request_or_principal_is_foreign() {
    let keys = keys(1);
    let args = json!({"env": "prod", "n": 3});
    let token = keys.seal(&base(), TTL, now(), b"x").unwrap();
    let other_tool = Binding {
        name: "destroy",
        ..base()
    };
    let other_args = binding(&json!({"env": "prod", "n": 4}), Some("alice"));
    let other_method = Binding {
        method: "prompts/get",
        ..base()
    };
    let other_principal = binding(&args, Some("mallory"));
    let no_principal = binding(&args, None);
    let empty_principal = binding(&args, Some(""));
    for (what, b) in [
        ("tool", other_tool),
        ("arguments", other_args),
        ("method", other_method),
        ("principal", other_principal),
        ("no principal", no_principal),
        ("empty principal", empty_principal),
    ] {
        assert_eq!(
            keys.open(&b, &token, now()),
            Err(OpenError::Foreign),
            "{what}"
        );
    }
    // The same arguments in another key order are the same request.
    let reordered = binding(&json!({"n": 3, "env": "prod"}), Some("alice"));
    assert_eq!(keys.open(&reordered, &token, now()).unwrap(), b"x");
}

#[test]
fn binding_fields_do_not_run_together() {
    let keys = keys(1);
    let ab_c = Binding {
        method: "ab",
        name: "c",
        ..base()
    };
    let a_bc = Binding {
        method: "a",
        name: "bc",
        ..base()
    };
    let token = keys.seal(&ab_c, TTL, now(), b"x").unwrap();
    assert_eq!(keys.open(&a_bc, &token, now()), Err(OpenError::Foreign));
    let unauthenticated = Binding {
        principal: None,
        ..base()
    };
    let token = keys.seal(&unauthenticated, TTL, now(), b"x").unwrap();
    let empty = Binding {
        principal: Some(""),
        ..base()
    };
    assert_eq!(keys.open(&empty, &token, now()), Err(OpenError::Foreign));
}

#[test]
fn expired_state_is_refused() {
    let keys = keys(1);
    let token = keys.seal(&base(), TTL, now(), b"x").unwrap();
    let expiry = now() + TTL;
    let expected = Err(OpenError::Expired {
        expired_at_ms: unix_ms(expiry),
    });
    assert_eq!(keys.open(&base(), &token, expiry), expected);
    assert_eq!(
        keys.open(&base(), &token, expiry + Duration::from_secs(3600)),
        expected
    );
    let zero = keys.seal(&base(), Duration::ZERO, now(), b"x").unwrap();
    assert!(matches!(
        keys.open(&base(), &zero, now()),
        Err(OpenError::Expired { .. })
    ));
    // An absurd TTL saturates instead of overflowing.
    let forever = keys.seal(&base(), Duration::MAX, now(), b"x").unwrap();
    assert_eq!(keys.open(&base(), &forever, now()).unwrap(), b"x");
}

#[test]
fn oversized_input_is_refused_before_decoding() {
    let keys = keys(1);
    // Not base64 at all: had it been decoded first, this would be `Malformed`.
    let garbage = "!".repeat(10 * 1024 * 1024);
    assert_eq!(
        keys.open(&base(), &garbage, now()),
        Err(OpenError::TooLarge {
            len: garbage.len(),
            max: MAX_STATE_LEN
        })
    );
    let just_over = "A".repeat(MAX_STATE_LEN + 1);
    assert!(matches!(
        keys.open(&base(), &just_over, now()),
        Err(OpenError::TooLarge { .. })
    ));
}

#[test]
fn non_base64_garbage_is_malformed() {
    let keys = keys(1);
    for garbage in [
        "!".repeat(MAX_STATE_LEN),
        "not base64 at all".to_owned(),
        "AAAA====".to_owned(),           // padding is not accepted
        "A".to_owned(),                  // not a whole byte
        "é".repeat(100),                 // not ASCII
        format!("{}+/", "A".repeat(98)), // standard alphabet, not URL-safe
        String::new(),
    ] {
        assert_eq!(
            keys.open(&base(), &garbage, now()),
            Err(OpenError::Malformed)
        );
    }
    // Decodes, but too short, or the wrong version.
    assert_eq!(
        keys.open(&base(), &"A".repeat(96), now()),
        Err(OpenError::Malformed)
    );
    let token = keys.seal(&base(), TTL, now(), b"x").unwrap();
    let mut bytes = decode(&token);
    bytes[0] = 3;
    assert_eq!(
        keys.open(&base(), &encode(&bytes), now()),
        Err(OpenError::Malformed)
    );
}

/// A token in the version 1 format (earlier releases): the ring key itself, a random nonce.
fn seal_v1(keys: &StateKeys, bound: &Bound, expires_at: u64, payload: &[u8]) -> String {
    let key = &keys.ring[0];
    let nonce = [9u8; NONCE_LEN];
    let mut token = vec![VERSION_1];
    token.extend_from_slice(&key.id);
    token.extend_from_slice(&nonce);
    token.extend_from_slice(&expires_at.to_be_bytes());
    token.extend_from_slice(&bound.0);
    token.extend_from_slice(payload);
    let (header, rest) = token.split_at_mut(HEADER_LEN_1);
    let tag = key
        .cipher
        .encrypt_in_place_detached(
            GenericArray::from_slice(&nonce),
            &header[..1 + KEY_ID_LEN],
            rest,
        )
        .unwrap();
    token.extend_from_slice(&tag);
    encode(&token)
}

#[test]
fn a_version_1_token_from_an_earlier_release_still_opens() {
    let keys = keys(4);
    let expires = unix_ms(now()) + 60_000;
    let token = seal_v1(&keys, &base().bound(), expires, b"kept");
    assert_eq!(keys.open(&base(), &token, now()).unwrap(), b"kept");
    assert_eq!(
        keys.open(&binding(&json!({}), Some("alice")), &token, now()),
        Err(OpenError::Foreign)
    );
    let mut bytes = decode(&token);
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    assert_eq!(
        keys.open(&base(), &encode(&bytes), now()),
        Err(OpenError::Tampered)
    );
}

#[test]
fn a_process_seals_under_one_subkey_until_it_sealed_its_share() {
    // One salt for the tokens of one subkey, a fresh nonce each; a salt moved to another
    // token breaks it.
    let keys = keys(5);
    let a = decode(&keys.seal(&base(), TTL, now(), b"same").unwrap());
    let b = decode(&keys.seal(&base(), TTL, now(), b"same").unwrap());
    assert_eq!(a[0], VERSION);
    let salt = 1 + KEY_ID_LEN..AAD_LEN;
    assert_eq!(a[salt.clone()], b[salt.clone()]);
    assert_ne!(a[AAD_LEN..HEADER_LEN], b[AAD_LEN..HEADER_LEN]);
    let mut swapped = b.clone();
    swapped[salt.clone()].copy_from_slice(&[0x5a; SALT_LEN]);
    assert_eq!(
        keys.open(&base(), &encode(&swapped), now()),
        Err(OpenError::Tampered)
    );
    // Used up: the next token has a new salt, and the old subkey's tokens still open.
    keys.ring[0].subkeys.use_up();
    let c = decode(&keys.seal(&base(), TTL, now(), b"next").unwrap());
    assert_ne!(a[salt.clone()], c[salt]);
    assert_eq!(keys.open(&base(), &encode(&a), now()).unwrap(), b"same");
    assert_eq!(keys.open(&base(), &encode(&c), now()).unwrap(), b"next");
}

#[test]
fn another_process_subkey_is_remembered_once_a_token_opens_with_it() {
    let (ours, theirs) = (keys(6), keys(6));
    let token = theirs.seal(&base(), TTL, now(), b"from r2").unwrap();
    let subkeys = &ours.ring[0].subkeys;
    // A made-up salt derives a key that opens nothing, and is not kept.
    let mut forged = decode(&token);
    forged[1 + KEY_ID_LEN..AAD_LEN].copy_from_slice(&[0x33; SALT_LEN]);
    assert_eq!(
        ours.open(&base(), &encode(&forged), now()),
        Err(OpenError::Tampered)
    );
    assert_eq!(subkeys.remembered(), 0);
    assert_eq!(ours.open(&base(), &token, now()).unwrap(), b"from r2");
    assert_eq!(ours.open(&base(), &token, now()).unwrap(), b"from r2");
    assert_eq!(subkeys.remembered(), 1);
    // Its own tokens never need remembering.
    let own = ours.seal(&base(), TTL, now(), b"mine").unwrap();
    assert_eq!(ours.open(&base(), &own, now()).unwrap(), b"mine");
    assert_eq!(subkeys.remembered(), 1);
}

#[test]
fn seal_refuses_a_token_over_the_limit() {
    let keys = keys(1);
    // The largest payload whose token fits exactly at the limit.
    let max_payload = MAX_STATE_LEN * 3 / 4 - MIN_TOKEN_BYTES;
    let token = keys
        .seal(&base(), TTL, now(), &vec![7; max_payload])
        .unwrap();
    assert_eq!(token.len(), MAX_STATE_LEN);
    assert_eq!(
        keys.open(&base(), &token, now()).unwrap().len(),
        max_payload
    );
    let err = keys
        .seal(&base(), TTL, now(), &vec![7; max_payload + 1])
        .unwrap_err();
    assert!(
        matches!(err, SealError::TooLarge { len, max: MAX_STATE_LEN } if len > MAX_STATE_LEN),
        "{err:?}"
    );
}

#[test]
fn digests_hash_the_bytes_serde_json_writes_across_buffer_boundaries() {
    // Long strings (longer than the writer's buffer) and many short tokens.
    let long = "x".repeat(1000);
    let items: Vec<serde_json::Value> = (0..200).map(|i| json!({"k": i, "s": "é\"\n"})).collect();
    let params = json!({"z": long, "a": items, "m": {"b": 1, "a": [true, null, 1.5]}});
    let request = json!({"method": "elicitation/create", "params": params});
    let expected: [u8; 32] = Sha256::digest(serde_json::to_vec(&request).unwrap()).into();
    let text = serde_json::to_string(&params).unwrap();
    assert_eq!(digest_request("elicitation/create", &text), expected);
    // digest_json sorts keys: the same value built in sorted order hashes the same.
    let sorted = json!({"a": items, "m": {"a": [true, null, 1.5], "b": 1}, "z": long});
    let expected: [u8; 32] = Sha256::digest(serde_json::to_vec(&sorted).unwrap()).into();
    assert_eq!(digest_json(&params), expected);
    assert_ne!(
        digest_request("elicitation/create", &text),
        digest_request("sampling/createMessage", &text)
    );
}

#[test]
fn digest_json_is_canonical() {
    let a = json!({"b": 1, "a": {"y": [1, {"q": null, "p": true}], "x": "s"}});
    let b = json!({"a": {"x": "s", "y": [1, {"p": true, "q": null}]}, "b": 1});
    assert_eq!(digest_json(&a), digest_json(&b));
    let expected: [u8; 32] =
        Sha256::digest(br#"{"a":{"x":"s","y":[1,{"p":true,"q":null}]},"b":1}"#).into();
    assert_eq!(digest_json(&a), expected);
    for different in [
        json!({"b": 2, "a": {"y": [1, {"q": null, "p": true}], "x": "s"}}),
        json!({"b": 1, "a": {"y": [{"q": null, "p": true}, 1], "x": "s"}}),
        json!({"b": 1, "a": {"y": [1, {"q": null, "p": true}], "x": "S"}}),
        json!({"b": 1}),
        json!({"b": "1", "a": {"y": [1, {"q": null, "p": true}], "x": "s"}}),
    ] {
        assert_ne!(digest_json(&a), digest_json(&different), "{different}");
    }
    assert_ne!(
        digest_json(&json!(["ab", "c"])),
        digest_json(&json!(["a", "bc"]))
    );
    assert_ne!(
        digest_json(&json!({"a,b": 1})),
        digest_json(&json!({"a": 1, "b": 1}))
    );
    assert_ne!(digest_json(&json!(null)), digest_json(&json!({})));
}

#[test]
fn env_value_parsing() {
    use base64::engine::general_purpose::STANDARD;
    // Encodes with `+` / `-`: both alphabets.
    let new: [u8; 32] = std::array::from_fn(|i| if i % 2 == 0 { 0xfb } else { i as u8 });
    let old = secret_len(0xf0, 40);
    let value = format!(
        " {} ,{}",
        STANDARD.encode(new),
        URL_SAFE_NO_PAD.encode(&old)
    );
    let ring = StateKeys::parse_secrets(&value).unwrap();
    assert_eq!(ring.len(), 2);
    // Newest first: it seals with `new`, and opens what `old` sealed.
    let token = ring.seal(&base(), TTL, now(), b"x").unwrap();
    let only_new = StateKeys::from_secret(&new).unwrap();
    let only_old = StateKeys::from_secret(&old).unwrap();
    assert_eq!(only_new.open(&base(), &token, now()).unwrap(), b"x");
    assert_eq!(
        only_old.open(&base(), &token, now()),
        Err(OpenError::UnknownKey)
    );
    let token = only_old.seal(&base(), TTL, now(), b"y").unwrap();
    assert_eq!(ring.open(&base(), &token, now()).unwrap(), b"y");

    let ok = STANDARD.encode(secret(1));
    for (value, expected) in [
        (String::new(), KeyError::Empty),
        ("  ".to_owned(), KeyError::Empty),
        (format!("{ok},not*base64"), KeyError::Base64 { index: 1 }),
        (format!("{ok},"), KeyError::Base64 { index: 1 }),
        (format!("{ok},,{ok}"), KeyError::Base64 { index: 1 }),
        (
            STANDARD.encode(secret_len(1, 31)),
            KeyError::TooShort { index: 0, len: 31 },
        ),
        (
            format!("{ok},{}", STANDARD.encode(b"short")),
            KeyError::TooShort { index: 1, len: 5 },
        ),
    ] {
        assert_eq!(
            StateKeys::parse_secrets(&value).unwrap_err(),
            expected,
            "{value:?}"
        );
    }
    assert!(StateKeys::from_env_value(None).unwrap().is_none());
    assert_eq!(
        StateKeys::from_env_value(Some(std::ffi::OsStr::new(&ok)))
            .unwrap()
            .unwrap()
            .len(),
        1
    );
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"\xff\xfe");
        assert_eq!(
            StateKeys::from_env_value(Some(bad)).unwrap_err(),
            KeyError::NotUnicode
        );
    }
}

#[test]
fn keys_are_shared_across_threads() {
    fn send_sync<T: Send + Sync + Clone + 'static>() {}
    send_sync::<StateKeys>();
    let keys = keys(1);
    let token = keys.seal(&base(), TTL, now(), b"x").unwrap();
    let clone = keys.clone();
    assert!(Arc::ptr_eq(&keys.ring, &clone.ring));
    let opened = std::thread::spawn(move || clone.open(&base(), &token, now()));
    assert_eq!(opened.join().unwrap().unwrap(), b"x");
}

#[test]
fn constructors_check_their_secrets() {
    assert_eq!(
        StateKeys::from_secrets(Vec::<[u8; 32]>::new()).unwrap_err(),
        KeyError::Empty
    );
    assert_eq!(
        StateKeys::from_secrets([&secret(1)[..], &[2u8; 3][..]]).unwrap_err(),
        KeyError::TooShort { index: 1, len: 3 }
    );
    // The same secret twice is kept once; the same secret gives the same key anywhere.
    assert_eq!(
        StateKeys::from_secrets([secret(1), secret(1)])
            .unwrap()
            .len(),
        1
    );
    let token = keys(9).seal(&base(), TTL, now(), b"x").unwrap();
    assert_eq!(keys(9).open(&base(), &token, now()).unwrap(), b"x");
}

#[test]
fn weak_secrets_are_refused() {
    for (weak, distinct) in [
        (vec![7u8; 32], 1),
        (b"abababababababababababababababab".to_vec(), 2),
        ((0..64).map(|i| i % 15).collect::<Vec<u8>>(), 15),
    ] {
        assert_eq!(
            StateKeys::from_secret(&weak).unwrap_err(),
            KeyError::Weak { index: 0, distinct }
        );
    }
    assert_eq!(
        StateKeys::from_secrets([secret(1).to_vec(), vec![0u8; 48]]).unwrap_err(),
        KeyError::Weak {
            index: 1,
            distinct: 1
        }
    );
    assert!(StateKeys::from_secret(b"0123456789abcdef0123456789abcdef").is_ok());
}

#[test]
fn debug_shows_no_key_material() {
    let secret = secret(0xab);
    let keys = StateKeys::from_secret(&secret).unwrap();
    let mut derived = [0u8; 32];
    Hkdf::<Sha256>::new(None, &secret)
        .expand(HKDF_INFO, &mut derived)
        .unwrap();
    let shown = format!("{keys:?} {keys:#?}");
    let id: String = keys.ring[0].id.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        format!("{keys:?}"),
        format!("StateKeys {{ key_ids: [{id}] }}")
    );
    for material in [&secret[..], &derived[..]] {
        let hex: String = material.iter().map(|b| format!("{b:02x}")).collect();
        for form in [
            hex[..8].to_owned(),
            hex[..8].to_uppercase(),
            format!("{:?}", &material[..4]),
            format!("{}, {}, {}", material[0], material[1], material[2]),
            base64::engine::general_purpose::STANDARD.encode(&material[..6]),
        ] {
            assert!(!shown.contains(&form), "{form} in {shown}");
        }
    }
    let random = format!("{:?}", StateKeys::random());
    assert!(
        random.starts_with("StateKeys { key_ids: [") && random.len() < 40,
        "{random}"
    );
}

#[test]
fn arbitrary_inputs_never_panic() {
    let keys = keys(1);
    let token = keys.seal(&base(), TTL, now(), b"x").unwrap();
    let mut inputs: Vec<String> = (0..=255u8).map(|b| encode(&[b; 100])).collect();
    inputs.extend((0..token.len()).map(|i| {
        let mut t = token.clone().into_bytes();
        t[i] = if t[i] == b'A' { b'B' } else { b'A' };
        String::from_utf8(t).unwrap()
    }));
    for input in inputs {
        assert!(keys.open(&base(), &input, now()).is_err());
    }
}
