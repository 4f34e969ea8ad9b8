use super::*;
use crate::protocol::error::*;
use serde_json::json;

#[test]
fn classifies_each_kind() {
    let req = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert!(matches!(req, Ok(JsonRpcMessage::Request(r)) if r.id == RequestId::Number(1)));
    let n = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","method":"x"}"#);
    assert!(matches!(n, Ok(JsonRpcMessage::Notification(_))));
    let r = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
    assert!(matches!(r, Ok(JsonRpcMessage::Response(_))));
    let e = JsonRpcMessage::from_slice(
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#,
    );
    assert!(matches!(
        e,
        Ok(JsonRpcMessage::Error(JsonRpcError { id: None, .. }))
    ));
}

#[test]
fn bad_input_maps_to_codes() {
    let code = |b: &[u8]| JsonRpcMessage::from_slice(b).err().map(|e| e.error.code);
    assert_eq!(code(b"{not json"), Some(PARSE_ERROR));
    assert_eq!(code(b""), Some(PARSE_ERROR));
    assert_eq!(
        code(b"[{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}]"),
        Some(INVALID_REQUEST)
    );
    assert_eq!(code(b"42"), Some(INVALID_REQUEST));
    assert_eq!(
        code(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
        Some(INVALID_REQUEST)
    );
    assert_eq!(
        code(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
        Some(INVALID_REQUEST)
    );
    assert_eq!(code(br#"{"jsonrpc":"2.0","id":1}"#), Some(INVALID_REQUEST));
    assert_eq!(
        code(br#"{"jsonrpc":"2.0","id":1,"method":7}"#),
        Some(INVALID_REQUEST)
    );
}

#[test]
fn a_result_is_kept_as_its_text_from_bytes_and_from_a_tree() {
    let bytes = br#"{"jsonrpc":"2.0","id":4,"result":{"a": [1, 2], "b": null}}"#;
    let Ok(JsonRpcMessage::Response(from_bytes)) = JsonRpcMessage::from_slice(bytes) else {
        panic!("a response");
    };
    assert_eq!(
        from_bytes.result.to_text().expect("text").get(),
        r#"{"a": [1, 2], "b": null}"#
    );
    let tree: Value = serde_json::from_slice(bytes).expect("JSON");
    let Ok(JsonRpcMessage::Response(from_tree)) = serde_json::from_value(tree) else {
        panic!("a response");
    };
    // Spaced differently, the same JSON: equal.
    assert_eq!(
        from_tree.result.to_text().expect("text").get(),
        r#"{"a":[1,2],"b":null}"#
    );
    assert_eq!(from_bytes, from_tree);
    let other =
        JsonRpcResponse::new(RequestId::Number(4), &json!({"a": [2, 1]})).expect("serialised");
    assert_ne!(from_bytes, other);
    // `"result": null` is a result (of null), not a missing member.
    let null = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","id":1,"result":null}"#);
    assert!(
        matches!(null, Ok(JsonRpcMessage::Response(r)) if r.result.to_text().expect("text").get() == "null")
    );
    // Written back verbatim.
    let written = JsonRpcMessage::Response(from_bytes).to_vec();
    assert_eq!(
        written,
        br#"{"jsonrpc":"2.0","id":4,"result":{"a": [1, 2], "b": null}}"#
    );
}

#[test]
fn serialises_round_trip() {
    let msg = JsonRpcMessage::request(7.into(), "tools/call", Some(json!({"name":"x"})));
    let bytes = msg.to_vec();
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).ok(),
        Some(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}))
    );
    assert_eq!(JsonRpcMessage::from_slice(&bytes), Ok(msg));
}

/// The rejection of `bytes`: its error code and the `id` member it is sent with.
fn rejection(bytes: &[u8]) -> (i64, Value) {
    match JsonRpcMessage::from_slice(bytes) {
        Ok(m) => panic!("accepted {m:?}"),
        Err(e) => {
            let sent = serde_json::to_value(JsonRpcMessage::Error(e.clone())).unwrap_or_default();
            (e.error.code, sent["id"].clone())
        }
    }
}

#[test]
fn rejections_carry_the_id_when_it_can_be_read() {
    // Nothing readable: null.
    assert_eq!(rejection(b"{not json"), (PARSE_ERROR, Value::Null));
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":1,"method":"ping""#),
        (PARSE_ERROR, Value::Null)
    );
    assert_eq!(rejection(b"[1,2]"), (INVALID_REQUEST, Value::Null));
    assert_eq!(rejection(b"\"hi\""), (INVALID_REQUEST, Value::Null));
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#),
        (INVALID_REQUEST, Value::Null)
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
        (INVALID_REQUEST, Value::Null)
    );
    // A readable id, whatever else is wrong.
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}"#),
        (INVALID_REQUEST, json!(7))
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":"s","method":"ping","params":3}"#),
        (INVALID_REQUEST, json!("s"))
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#),
        (INVALID_REQUEST, json!(2))
    );
    assert_eq!(
        rejection(br#"{"id":3,"method":"ping"}"#),
        (INVALID_REQUEST, json!(3))
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":4}"#),
        (INVALID_REQUEST, json!(4))
    );
    // A member of the wrong type fails serde before classification: the id is probed.
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":5,"method":7}"#),
        (INVALID_REQUEST, json!(5))
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":2,"id":"t","method":"ping"}"#),
        (INVALID_REQUEST, json!("t"))
    );
    // A malformed response: its id names one of our requests, so null.
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"m"}}"#),
        (INVALID_REQUEST, Value::Null)
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":8,"error":{"code":"x"}}"#),
        (INVALID_REQUEST, Value::Null)
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"1.0","id":9,"result":{}}"#),
        (INVALID_REQUEST, Value::Null)
    );
}

#[test]
fn a_null_id_makes_an_invalid_request_not_a_notification() {
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
        (INVALID_REQUEST, Value::Null)
    );
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}"#),
        (INVALID_REQUEST, Value::Null)
    );
    // A null id in a result response is no id either.
    assert_eq!(
        rejection(br#"{"jsonrpc":"2.0","id":null,"result":{}}"#),
        (INVALID_REQUEST, Value::Null)
    );
    // serde's view agrees.
    assert!(
        serde_json::from_value::<JsonRpcMessage>(
            json!({"jsonrpc":"2.0","id":null,"method":"ping"})
        )
        .is_err()
    );
}

#[test]
fn error_responses_always_write_an_id_and_notifications_never_do() {
    let unread = JsonRpcMessage::error(None, ErrorObject::parse_error("x"));
    let v = serde_json::to_value(&unread).unwrap_or_default();
    assert!(v.as_object().is_some_and(|o| o.contains_key("id")));
    assert_eq!(v["id"], Value::Null);
    let known = JsonRpcMessage::error(Some("r".into()), ErrorObject::internal("x"));
    assert_eq!(serde_json::to_value(&known).unwrap_or_default()["id"], "r");
    let n = JsonRpcMessage::notification("notifications/initialized", None);
    let v = serde_json::to_value(&n).unwrap_or_default();
    assert!(v.as_object().is_some_and(|o| !o.contains_key("id")));
    // Round trip: the null id reads back as unknown.
    assert_eq!(JsonRpcMessage::from_slice(&unread.to_vec()), Ok(unread));
}

#[test]
fn received_error_responses_without_an_id_are_still_accepted() {
    let e = JsonRpcMessage::from_slice(br#"{"jsonrpc":"2.0","error":{"code":-1,"message":"m"}}"#);
    assert!(matches!(
        e,
        Ok(JsonRpcMessage::Error(JsonRpcError { id: None, .. }))
    ));
}

#[test]
fn quoted_input_is_cut_on_a_character_boundary() {
    assert_eq!(ErrorObject::quote(""), "");
    let exact = "a".repeat(ErrorObject::QUOTE_LIMIT);
    assert_eq!(ErrorObject::quote(&exact), exact.as_str());
    // Multi-byte characters straddling the limit: cut between characters, never inside.
    for filler in ["é", "日本", "🦀", "a"] {
        let long = format!(
            "{}{}",
            "x".repeat(ErrorObject::QUOTE_LIMIT - 1),
            filler.repeat(10)
        );
        let quoted = ErrorObject::quote(&long);
        assert_eq!(
            quoted.chars().count(),
            ErrorObject::QUOTE_LIMIT + 1,
            "{filler}"
        );
        assert!(quoted.ends_with('…'));
        assert!(long.starts_with(quoted.trim_end_matches('…')));
    }
    let m = ErrorObject::method_not_found(&"m".repeat(10_000));
    assert!(m.message.chars().count() < 200, "{}", m.message);
    assert!(m.message.starts_with("Method not found: mmm"));
    assert!(m.message.ends_with('…'));
    // A serde error quoting a long value is cut too.
    let serde = serde_json::from_value::<u8>(json!("v".repeat(10_000)))
        .err()
        .map(ErrorObject::invalid_params);
    let serde = serde.map(|e| e.message).unwrap_or_default();
    assert!(
        serde.starts_with("Invalid params: invalid type: string \"vvv"),
        "{serde}"
    );
    assert!(serde.chars().count() <= "Invalid params: ".len() + 2 * ErrorObject::QUOTE_LIMIT + 1);
    // Short details are left alone.
    assert_eq!(
        ErrorObject::invalid_params("bad").message,
        "Invalid params: bad"
    );
}
