//! Multi round-trip requests (MCP 2026-07-28 MRTR) as a handler's context sees them.
//!
//! A modern request cannot push a request to the client. Instead, when handler code asks
//! for something (sampling, elicitation, roots), [`Rounds::ask`] looks the question up by
//! its key among the answers the client already gave — sealed into `requestState` by
//! earlier rounds, or sent now in `inputResponses`. A known answer is returned at once, so
//! code that already ran is replayed without waiting. An unknown question is recorded and
//! the asking future never completes: once the handler is stuck on such questions the
//! engine drops it and answers `input_required` with every recorded question. The client
//! retries with the answers and the handler runs again from the top, further this time.
//!
//! Each logged answer keeps a digest of the request it answered. If a replay asks
//! something else at a logged key, the handler is not deterministic: the call fails
//! naming the key instead of feeding it an answer to a different question.

use crate::peer::sync::lock;
use crate::protocol::{ErrorObject, INTERNAL_ERROR, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One answer the client gave, with the digest of the request it answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// Hex SHA-256 of the canonical `{method, params}` of the request.
    #[serde(rename = "d")]
    pub(crate) digest: String,
    /// The client's result.
    #[serde(rename = "r")]
    pub(crate) result: Value,
}

/// What a modern call carries from one round to the next inside its sealed `requestState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// Answers so far, by key.
    #[serde(default, rename = "a", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) answers: BTreeMap<String, Answer>,
    /// The questions of the last round, by key: their digests.
    #[serde(default, rename = "p", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) pending: BTreeMap<String, String>,
    /// State kept by the handler across rounds (a handoff tool's `before` state).
    #[serde(default, rename = "s", skip_serializing_if = "Option::is_none")]
    pub(crate) kept: Option<Value>,
}

impl Carried {
    /// Takes the answers to last round's questions from `inputResponses`; anything else
    /// there is ignored, a missing answer is simply asked again. A first round (no
    /// `requestState`) has no questions on record: its answers are taken by key, for
    /// whatever the handler asks under that key (answers the handler never asks for are
    /// dropped).
    pub(crate) fn absorb(&mut self, responses: Option<&JsonObject>, first_round: bool) {
        let pending = std::mem::take(&mut self.pending);
        let Some(responses) = responses else {
            return;
        };
        if first_round {
            for (key, result) in responses {
                self.answers.insert(
                    key.clone(),
                    Answer {
                        digest: String::new(),
                        result: result.clone(),
                    },
                );
            }
            return;
        }
        for (key, digest) in pending {
            if let Some(result) = responses.get(&key) {
                self.answers.insert(
                    key,
                    Answer {
                        digest,
                        result: result.clone(),
                    },
                );
            }
        }
    }
}

/// A question the handler asked that has no answer yet.
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub(crate) key: String,
    pub(crate) digest: String,
    /// `{ "method": ..., "params": ... }`, as it goes into `inputRequests`.
    pub(crate) request: Value,
}

/// How a round ended without the handler finishing.
#[derive(Debug)]
pub(crate) enum Stuck {
    /// The handler waits for these answers.
    Input(Vec<Question>),
    /// The call cannot go on (replay diverged, a capability is missing).
    Failed(ErrorObject),
}

/// The MRTR state of one modern request.
#[derive(Debug)]
pub(crate) struct Rounds {
    /// The tool, prompt or resource being served, for error messages.
    target: String,
    carried: Carried,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    asked: Vec<Question>,
    /// Answers given by key alone (first round) that the handler used, with the digest of
    /// what it asked.
    confirmed: BTreeMap<String, String>,
    failure: Option<ErrorObject>,
    kept: Option<Value>,
}

impl Rounds {
    /// The rounds of a call of `target` that arrived with `carried` (answers absorbed).
    pub(crate) fn new(target: impl Into<String>, carried: Carried) -> Self {
        let kept = carried.kept.clone();
        Rounds {
            target: target.into(),
            carried,
            inner: Mutex::new(Inner {
                kept,
                ..Inner::default()
            }),
        }
    }

    /// What is being called (`tool `name``), for messages.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// Asks `method` with `params` under `key`: the logged answer if there is one (and it
    /// answered the same request), else never (the question goes out with this round).
    pub(crate) async fn ask(&self, key: String, method: &str, params: &RawValue) -> Value {
        let digest = hex(&crate::seal::digest_request(method, params.get()));
        match self.carried.answers.get(&key) {
            Some(answer) if answer.digest == digest => return answer.result.clone(),
            Some(answer) if answer.digest.is_empty() => {
                lock(&self.inner).confirmed.insert(key, digest);
                return answer.result.clone();
            }
            Some(_) => self.fail(ErrorObject::new(
                INTERNAL_ERROR,
                format!(
                    "`{}` is not deterministic: replaying it asked a different request at `{key}` than the one the client answered (keep clocks, randomness and I/O out of code that asks the client)",
                    self.target
                ),
            )),
            None => {
                let mut inner = lock(&self.inner);
                if !inner.asked.iter().any(|q| q.key == key) {
                    let params: Value = serde_json::from_str(params.get()).unwrap_or(Value::Null);
                    let request = json!({ "method": method, "params": params });
                    inner.asked.push(Question {
                        key,
                        digest,
                        request,
                    });
                }
            }
        }
        std::future::pending().await
    }

    /// Ends the call with `error` (the asking code never resumes).
    pub(crate) fn fail(&self, error: ErrorObject) {
        let mut inner = lock(&self.inner);
        if inner.failure.is_none() {
            inner.failure = Some(error);
        }
    }

    /// State the handler keeps across rounds (sealed with the answers).
    pub(crate) fn kept(&self) -> Option<Value> {
        lock(&self.inner).kept.clone()
    }

    /// Keeps `state` for the following rounds.
    pub(crate) fn keep(&self, state: Value) {
        lock(&self.inner).kept = Some(state);
    }

    /// Whether the handler is stuck, checked right after it was polled and returned
    /// `Pending`: it failed, or it asked something unanswered (then every question asked so
    /// far in this round is taken). Questions are only asked while the handler is being
    /// polled, so nothing needs waking: the caller checks after each poll.
    pub(crate) fn stuck(&self) -> Option<Stuck> {
        let mut inner = lock(&self.inner);
        if let Some(error) = &inner.failure {
            return Some(Stuck::Failed(error.clone()));
        }
        if inner.asked.is_empty() {
            return None;
        }
        Some(Stuck::Input(std::mem::take(&mut inner.asked)))
    }

    /// What the next round carries after this one ended asking `questions`.
    pub(crate) fn carry(&self, questions: &[Question]) -> Carried {
        let confirmed = lock(&self.inner).confirmed.clone();
        let answers = self
            .carried
            .answers
            .iter()
            .filter_map(|(key, answer)| {
                if !answer.digest.is_empty() {
                    return Some((key.clone(), answer.clone()));
                }
                confirmed.get(key).map(|digest| {
                    let answer = Answer {
                        digest: digest.clone(),
                        result: answer.result.clone(),
                    };
                    (key.clone(), answer)
                })
            })
            .collect();
        Carried {
            answers,
            pending: questions
                .iter()
                .map(|q| (q.key.clone(), q.digest.clone()))
                .collect(),
            kept: self.kept(),
        }
    }

    /// The key a question was asked under could not be answered with what the client sent.
    pub(crate) fn malformed(&self, key: &str, method: &str, error: &str) {
        self.fail(ErrorObject::invalid_params(format!(
            "inputResponses[{}] is not a valid {method} result: {error}",
            ErrorObject::quote(key)
        )));
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    fn text(value: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&value).unwrap()
    }

    #[tokio::test]
    async fn an_unanswered_question_is_asked_and_a_logged_one_replayed() {
        let rounds = Rounds::new("t", Carried::default());
        let params = text(json!({"m": 1}));
        let ask = rounds.ask("k".into(), "elicitation/create", &params);
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
            .ask("k".into(), "elicitation/create", &text(json!({"m": 1})))
            .now_or_never();
        assert_eq!(answer, Some(json!({"action": "accept"})));
    }

    #[tokio::test]
    async fn a_different_request_at_a_logged_key_fails_the_call_naming_it() {
        let mut carried = Carried::default();
        carried.pending.insert(
            "k".into(),
            hex(&crate::seal::digest_request(
                "sampling/createMessage",
                r#"{"a":1}"#,
            )),
        );
        carried.absorb(
            Some(&serde_json::from_value(json!({"k": {"role": "assistant"}})).unwrap()),
            false,
        );
        let rounds = Rounds::new("tool `t`", carried);
        let params = text(json!({"a": 2}));
        let ask = rounds.ask("k".into(), "sampling/createMessage", &params);
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
}
