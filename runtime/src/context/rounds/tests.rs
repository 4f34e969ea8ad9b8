use super::*;
use futures::FutureExt;
use serde_json::json;
use std::sync::Arc;

fn text(value: Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).unwrap()
}

fn request_text(value: Value) -> String {
    value.to_string()
}

fn parsed(raw: Option<Box<RawValue>>) -> Option<Value> {
    raw.map(|r| serde_json::from_str(r.get()).unwrap())
}

#[tokio::test]
async fn an_unanswered_question_is_asked_and_a_logged_one_replayed() {
    let rounds = Rounds::new("t", Carried::default());
    let params = request_text(json!({"m": 1}));
    let ask = rounds.ask("k", "elicitation/create", &params);
    assert!(ask.now_or_never().is_none());
    let Some(Stuck::Input(questions)) = rounds.stuck() else {
        panic!("expected input");
    };
    assert_eq!(questions.len(), 1);
    let mut carried = rounds.carry(&questions);
    let responses: JsonObject =
        serde_json::from_value(json!({"k": {"action": "accept"}, "extra": 1})).unwrap();
    carried.absorb(Some(&responses), false);
    assert_eq!(carried.answers.len(), 1);
    let replay = Rounds::new("t", carried);
    let answer = replay
        .ask("k", "elicitation/create", &request_text(json!({"m": 1})))
        .now_or_never();
    assert_eq!(parsed(answer), Some(json!({"action": "accept"})));
}

#[tokio::test]
async fn live_questions_wait_for_their_answers_and_others_are_ignored() {
    let rounds = Arc::new(Rounds::new("t", Carried::default()));
    rounds.go_live();
    let asking = {
        let rounds = rounds.clone();
        tokio::spawn(async move {
            rounds
                .ask("k", "elicitation/create", &request_text(json!({"m": 1})))
                .await
        })
    };
    rounds.changed().await;
    let outstanding = rounds.outstanding();
    assert_eq!(outstanding.len(), 1);
    assert_eq!(outstanding[0].key, "k");
    assert!(
        rounds.stuck().is_none(),
        "live questions do not end a round"
    );
    let other: JsonObject = serde_json::from_value(json!({"nobody": 1})).unwrap();
    assert!(rounds.answer(&other).is_empty());
    assert!(!asking.is_finished());
    let answer: JsonObject = serde_json::from_value(json!({"k": {"action": "accept"}})).unwrap();
    assert_eq!(rounds.answer(&answer), vec!["k".to_owned()]);
    assert_eq!(
        parsed(Some(asking.await.unwrap())),
        Some(json!({"action": "accept"}))
    );
    assert!(rounds.outstanding().is_empty());
    // The answer is in the snapshot a replay starts from.
    let snapshot = rounds.snapshot();
    assert_eq!(
        parsed(Some(snapshot.answers["k"].result.clone())),
        Some(json!({"action": "accept"}))
    );
    let replay = Rounds::new("t", snapshot);
    let again = replay
        .ask("k", "elicitation/create", &request_text(json!({"m": 1})))
        .now_or_never();
    assert_eq!(parsed(again), Some(json!({"action": "accept"})));
}

#[tokio::test]
async fn expected_questions_take_answers_before_the_replay_asks_them() {
    let rounds = Rounds::new("t", Carried::default());
    rounds.go_live();
    let digest = Digest::of("elicitation/create", r#"{"m":2}"#);
    rounds.expect(vec![Question {
        key: "k".into(),
        digest,
        request: RawValue::from_string("{}".into()).unwrap(),
    }]);
    let answer: JsonObject = serde_json::from_value(json!({"k": {"action": "decline"}})).unwrap();
    assert_eq!(rounds.answer(&answer), vec!["k".to_owned()]);
    let asked = rounds
        .ask("k", "elicitation/create", &request_text(json!({"m": 2})))
        .now_or_never();
    assert_eq!(parsed(asked), Some(json!({"action": "decline"})));
}

#[tokio::test]
async fn a_different_request_at_a_logged_key_fails_the_call_naming_it() {
    let mut carried = Carried::default();
    carried.pending.insert(
        "k".into(),
        Digest::of("sampling/createMessage", r#"{"a":1}"#),
    );
    carried.absorb(
        Some(&serde_json::from_value(json!({"k": {"role": "assistant"}})).unwrap()),
        false,
    );
    let rounds = Rounds::new("tool `t`", carried);
    let params = request_text(json!({"a": 2}));
    let ask = rounds.ask("k", "sampling/createMessage", &params);
    assert!(ask.now_or_never().is_none());
    match rounds.stuck().expect("stuck") {
        Stuck::Failed(e) => {
            assert!(
                e.message.contains("tool `t`") && e.message.contains("`k`"),
                "{e:?}"
            )
        }
        Stuck::Input(q) => panic!("expected a failure, got questions {q:?}"),
    }
}

#[test]
fn the_carried_state_is_written_compactly_and_earlier_states_still_read() {
    // Digests as 22 base64url digits ("" for an answer no question claimed yet),
    // results as the JSON they were.
    let digest = Digest::of("elicitation/create", r#"{"m":1}"#);
    let full = crate::seal::digest_request("elicitation/create", r#"{"m":1}"#);
    assert_eq!(digest.0[..], full[..16]);
    let b64 = {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.0)
    };
    assert_eq!(b64.len(), 22);
    let mut carried = Carried::default();
    carried.answers.insert(
        "k".into(),
        Answer {
            digest: Some(digest),
            result: text(json!({"action": "accept", "content": {"b": 1, "a": "x"}})),
        },
    );
    carried.answers.insert(
        "first".into(),
        Answer {
            digest: None,
            result: text(json!({"action": "decline"})),
        },
    );
    carried.pending.insert("p".into(), digest);
    let written = serde_json::to_string(&carried).unwrap();
    assert_eq!(
        written,
        format!(
            r#"{{"a":{{"first":{{"d":"","r":{{"action":"decline"}}}},"k":{{"d":"{b64}","r":{{"action":"accept","content":{{"b":1,"a":"x"}}}}}}}},"p":{{"p":"{b64}"}}}}"#
        )
    );
    let read: Carried = serde_json::from_str(&written).unwrap();
    assert_eq!(read.answers["k"].digest, Some(digest));
    assert_eq!(read.answers["first"].digest, None);
    assert_eq!(read.pending["p"], digest);
    assert_eq!(serde_json::to_string(&read).unwrap(), written);
    // A state written by an earlier build (full digests in hex) still opens, and its
    // digests match the ones a replay takes now.
    let hex: String = full.iter().map(|b| format!("{b:02x}")).collect();
    let earlier = format!(
        r#"{{"a":{{"k":{{"d":"{hex}","r":{{"action":"decline"}}}}}},"p":{{"p":"{hex}"}}}}"#
    );
    let read: Carried = serde_json::from_str(&earlier).unwrap();
    assert_eq!(read.answers["k"].digest, Some(digest));
    assert_eq!(read.pending["p"], digest);
    // Anything else where a digest belongs is not a call state.
    let upper = hex.to_uppercase();
    let mut bad = vec![
        r#"{"p":{"p":"zz"}}"#.to_owned(),
        r#"{"p":{"p":""}}"#.to_owned(),
        r#"{"a":{"k":{"d":1,"r":null}}}"#.to_owned(),
        // 22 digits, but not base64url.
        r#"{"p":{"p":"!!!!!!!!!!!!!!!!!!!!!!"}}"#.to_owned(),
        // 22 digits whose last one carries bits past the 16 bytes.
        format!(r#"{{"p":{{"p":"{}B"}}}}"#, &b64[..21]),
    ];
    if hex != upper {
        bad.push(format!(r#"{{"p":{{"p":"{upper}"}}}}"#));
    }
    for bad in bad {
        assert!(serde_json::from_str::<Carried>(&bad).is_err(), "{bad}");
    }
}
