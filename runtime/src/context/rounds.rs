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
//!
//! A call that became a task of the tasks extension (SEP-2663) goes *live*: an unanswered
//! question is recorded as outstanding (the task's `inputRequests`) and the asking future
//! waits until [`Rounds::answer`] delivers its answer (`tasks/update`), so the handler
//! continues where it stopped instead of being replayed.

use crate::peer::sync::lock;
use crate::protocol::{ErrorObject, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{Notify, watch};

/// SHA-256 of the `{method, params}` of a request the handler asked
/// ([`crate::seal::digest_request`]), its first 128 bits (SHA-256/128): the digest tells a
/// replay that asks something else at a logged key, inside a state nobody but the server
/// can write, so 128 bits are ample and every digest in a `requestState` is half as long.
/// Written as 22 base64url digits; the 64 hex digits of a full digest (states written by
/// earlier builds) are read as their first 128 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Digest(pub(crate) [u8; 16]);

impl Digest {
    /// The digest of asking `method` with `params` (JSON text).
    pub(crate) fn of(method: &str, params: &str) -> Self {
        let full = crate::seal::digest_request(method, params);
        let mut out = [0u8; 16];
        out.copy_from_slice(&full[..16]);
        Digest(out)
    }
}

/// An answer's digest: `None` for an answer given by key alone (a first round) that no
/// question has claimed yet, written as `""`.
mod answer_digest {
    use super::Digest;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    /// base64url digits of 16 bytes, unpadded.
    const WRITTEN_LEN: usize = 22;

    pub(super) fn serialize<S: Serializer>(d: &Option<Digest>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            None => s.serialize_str(""),
            Some(d) => serde::Serialize::serialize(d, s),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Digest>, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Option<Digest>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("22 base64url digits, 64 hex digits or an empty string")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                let bytes = v.as_bytes();
                let invalid = || E::invalid_value(serde::de::Unexpected::Str(v), &Text);
                let mut out = [0u8; 16];
                match bytes.len() {
                    0 => return Ok(None),
                    WRITTEN_LEN => {
                        // Room for the decoder's estimate; exactly 16 bytes must come out.
                        let mut buf = [0u8; 18];
                        let n = URL_SAFE_NO_PAD
                            .decode_slice(bytes, &mut buf)
                            .map_err(|_| invalid())?;
                        if n != out.len() {
                            return Err(invalid());
                        }
                        out.copy_from_slice(&buf[..16]);
                    }
                    64 => {
                        // A full SHA-256 in hex (an earlier build's state): its first half.
                        let nibble = |c: u8| match c {
                            b'0'..=b'9' => Ok(c - b'0'),
                            b'a'..=b'f' => Ok(c - b'a' + 10),
                            _ => Err(invalid()),
                        };
                        for (i, pair) in bytes.chunks_exact(2).enumerate() {
                            let byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
                            if let Some(o) = out.get_mut(i) {
                                *o = byte;
                            }
                        }
                    }
                    n => return Err(E::invalid_length(n, &self)),
                }
                Ok(Some(Digest(out)))
            }
        }
        d.deserialize_str(Text)
    }

    /// As base64url text, without allocating.
    impl serde::Serialize for Digest {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut text = [0u8; WRITTEN_LEN];
            let n = URL_SAFE_NO_PAD
                .encode_slice(self.0, &mut text)
                .map_err(serde::ser::Error::custom)?;
            // base64url digits are ASCII.
            s.serialize_str(std::str::from_utf8(&text[..n]).unwrap_or_default())
        }
    }

    impl<'de> serde::Deserialize<'de> for Digest {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            deserialize(d)?.ok_or_else(|| D::Error::custom("an empty digest"))
        }
    }
}

/// One answer the client gave, with the digest of the request it answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The digest of the request it answered; `None` (`""`) until one claims it.
    #[serde(rename = "d", with = "answer_digest")]
    pub(crate) digest: Option<Digest>,
    /// The client's result, as JSON text: carried from round to round as it is and
    /// parsed only into what the asking code wants.
    #[serde(rename = "r")]
    pub(crate) result: Box<RawValue>,
}

/// What a modern call carries from one round to the next inside its sealed `requestState`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// Answers so far, by key.
    #[serde(default, rename = "a", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) answers: BTreeMap<String, Answer>,
    /// The questions of the last round, by key: their digests.
    #[serde(default, rename = "p", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) pending: BTreeMap<String, Digest>,
    /// State kept by the handler across rounds (a handoff tool's `before` state).
    #[serde(default, rename = "s", skip_serializing_if = "Option::is_none")]
    pub(crate) kept: Option<Value>,
    /// Results of the side effects the handler ran once (`Ctx::once`, `now`, `random`), by
    /// key, each with the digest of its name. Only the server writes them: unlike answers,
    /// a client can never supply one.
    #[serde(default, rename = "e", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) effects: BTreeMap<String, Answer>,
}

impl Carried {
    /// As JSON, written into a buffer sized for it up front (a digest, a key and a result
    /// per answer).
    pub(crate) fn to_json(&self) -> serde_json::Result<Vec<u8>> {
        let answers: usize = self
            .answers
            .iter()
            .map(|(key, answer)| key.len() + answer.result.get().len() + 96)
            .sum();
        let pending: usize = self.pending.keys().map(|key| key.len() + 72).sum();
        let kept = if self.kept.is_some() { 256 } else { 0 };
        let effects: usize = self
            .effects
            .iter()
            .map(|(key, effect)| key.len() + effect.result.get().len() + 48)
            .sum();
        let mut out = Vec::with_capacity(16 + answers + pending + kept + effects);
        serde_json::to_writer(&mut out, self)?;
        Ok(out)
    }

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
                        digest: None,
                        result: raw(result),
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
                        digest: Some(digest),
                        result: raw(result),
                    },
                );
            }
        }
    }
}

impl Carried {
    /// Live mode (a task): records `responses` to the pending questions they name, as
    /// [`Rounds::answer`] will once they are delivered (anything else is ignored; the
    /// other questions stay pending). Returns the keys answered. A task's holder writes
    /// the state this makes before it delivers the answers, so an answer it acknowledged
    /// survives it.
    pub(crate) fn answer_pending(&mut self, responses: &JsonObject) -> Vec<String> {
        let answered: Vec<String> = self
            .pending
            .keys()
            .filter(|key| responses.contains_key(*key))
            .cloned()
            .collect();
        for key in &answered {
            if let (Some(digest), Some(result)) = (self.pending.remove(key), responses.get(key)) {
                self.answers.insert(
                    key.clone(),
                    Answer {
                        digest: Some(digest),
                        result: raw(result),
                    },
                );
            }
        }
        answered
    }
}

/// `{"method": method, "params": params}`, as it goes into `inputRequests`: written as text
/// around the params' text, no tree built.
fn request_text(method: &str, params: &str) -> Box<RawValue> {
    let mut text = String::with_capacity(params.len() + method.len() + 24);
    text.push_str("{\"method\":");
    // A string always serialises.
    text.push_str(&serde_json::to_string(method).unwrap_or_default());
    text.push_str(",\"params\":");
    text.push_str(params);
    text.push('}');
    // The params are JSON text the server wrote; the default (`null`) is never taken.
    RawValue::from_string(text).unwrap_or_default()
}

/// A client's result as JSON text.
fn raw(value: &Value) -> Box<RawValue> {
    // A `Value` always serialises (its map keys are strings); the default is `null`.
    serde_json::value::to_raw_value(value).unwrap_or_default()
}

/// A question the handler asked that has no answer yet.
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub(crate) key: String,
    pub(crate) digest: Digest,
    /// `{ "method": ..., "params": ... }`, as it goes into `inputRequests`.
    pub(crate) request: Box<RawValue>,
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
    /// Live (a task): unanswered questions wait for [`Rounds::answer`].
    live: AtomicBool,
    /// Bumped whenever live answers arrive (made when first needed: only a live call does).
    answers: std::sync::OnceLock<watch::Sender<u64>>,
    /// Signalled when the outstanding questions or the failure change (live mode), or the
    /// handler asks to become a task.
    changed: Notify,
    /// The id of the task the call became, once it is one.
    task_id: std::sync::OnceLock<String>,
}

#[derive(Debug, Default)]
struct Inner {
    asked: Vec<Question>,
    /// Live mode: questions waiting for an answer, in the order asked.
    outstanding: Vec<Question>,
    /// Live mode: answers delivered by `tasks/update`.
    delivered: BTreeMap<String, Answer>,
    /// The handler asked to continue as a task ([`Rounds::request_task`]).
    task_requested: bool,
    /// Answers given by key alone (first round) that the handler used, with the digest of
    /// what it asked.
    confirmed: BTreeMap<String, Digest>,
    failure: Option<ErrorObject>,
    kept: Option<Value>,
    /// Side effects run in this round (or, live, since the task started), by key.
    effects: BTreeMap<String, Answer>,
    /// Side effects under way: a round does not end while one runs.
    running_effects: usize,
}

/// What the log holds for a side effect about to run (see [`Rounds::recall`]).
#[derive(Debug)]
pub(crate) enum Recall {
    /// It ran in an earlier round: its result.
    Logged(Box<RawValue>),
    /// Something else ran at this key: the handler is not deterministic.
    Diverged,
    /// It has not run: run it now, then [`Rounds::record`] it.
    Fresh,
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
            live: AtomicBool::new(false),
            answers: std::sync::OnceLock::new(),
            changed: Notify::new(),
            task_id: std::sync::OnceLock::new(),
        }
    }

    /// The live answers' version counter.
    fn answers(&self) -> &watch::Sender<u64> {
        self.answers.get_or_init(|| watch::channel(0).0)
    }

    /// What is being called (`tool `name``), for messages.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }

    /// The call is now the task `id` (live mode: see [`Rounds::go_live`]).
    pub(crate) fn become_task(&self, id: &str) {
        let _ = self.task_id.set(id.to_owned());
        self.go_live();
    }

    /// The id of the task the call became, if it did.
    pub(crate) fn task_id(&self) -> Option<&str> {
        self.task_id.get().map(String::as_str)
    }

    /// Switches to live mode (the call is now a task): from here on an unanswered question
    /// waits for its answer instead of ending the round.
    pub(crate) fn go_live(&self) {
        self.live.store(true, Ordering::Release);
    }

    /// Live mode, resuming a task: `questions` are outstanding already (the task showed them
    /// to the client before its process died), so their answers are taken even before the
    /// replay asks them again.
    pub(crate) fn expect(&self, questions: Vec<Question>) {
        lock(&self.inner).outstanding.extend(questions);
    }

    /// Whether the call is live (a task).
    pub(crate) fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// The handler asks to continue as a task (`Ctx::become_task`).
    pub(crate) fn request_task(&self) {
        lock(&self.inner).task_requested = true;
        self.changed.notify_one();
    }

    /// Whether the handler asked to continue as a task.
    pub(crate) fn task_requested(&self) -> bool {
        lock(&self.inner).task_requested
    }

    /// Resolves when the outstanding questions or the failure may have changed.
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }

    /// Live mode: the questions waiting for an answer, in the order asked.
    pub(crate) fn outstanding(&self) -> Vec<Question> {
        lock(&self.inner).outstanding.clone()
    }

    /// The error that ended the call, if one did.
    pub(crate) fn failure(&self) -> Option<ErrorObject> {
        lock(&self.inner).failure.clone()
    }

    /// Live mode: delivers the answers in `responses` to the outstanding questions they
    /// name (anything else is ignored) and wakes the questions. Returns the keys answered.
    pub(crate) fn answer(&self, responses: &JsonObject) -> Vec<String> {
        let mut inner = lock(&self.inner);
        let mut answered = Vec::new();
        let mut still = Vec::new();
        for question in std::mem::take(&mut inner.outstanding) {
            match responses.get(&question.key) {
                Some(result) => {
                    answered.push(question.key.clone());
                    inner.delivered.insert(
                        question.key,
                        Answer {
                            digest: Some(question.digest),
                            result: raw(result),
                        },
                    );
                }
                None => still.push(question),
            }
        }
        inner.outstanding = still;
        drop(inner);
        if !answered.is_empty() {
            self.answers().send_modify(|n| *n = n.wrapping_add(1));
        }
        answered
    }

    /// Every answer of the call so far (carried and delivered live) with the kept state:
    /// what a replay of the call needs.
    pub(crate) fn snapshot(&self) -> Carried {
        let inner = lock(&self.inner);
        let mut answers = self.carried.answers.clone();
        answers.extend(inner.delivered.clone());
        let mut effects = self.carried.effects.clone();
        effects.extend(inner.effects.clone());
        Carried {
            answers,
            pending: inner
                .outstanding
                .iter()
                .map(|q| (q.key.clone(), q.digest))
                .collect(),
            kept: inner.kept.clone(),
            effects,
        }
    }

    /// Live mode: waits for the answer to `key` (recording the question as outstanding).
    async fn ask_live(
        &self,
        key: String,
        digest: Digest,
        method: &str,
        params: &str,
    ) -> Box<RawValue> {
        let mut version = self.answers().subscribe();
        loop {
            // Decided under the lock, acted on after it (no guard across an await).
            let found = {
                let mut inner = lock(&self.inner);
                match inner.delivered.get(&key) {
                    Some(answer) => {
                        Some((answer.digest == Some(digest)).then(|| answer.result.clone()))
                    }
                    None => {
                        if !inner.outstanding.iter().any(|q| q.key == key) {
                            let request = request_text(method, params);
                            inner.outstanding.push(Question {
                                key: key.clone(),
                                digest,
                                request,
                            });
                            self.changed.notify_one();
                        }
                        None
                    }
                }
            };
            match found {
                Some(Some(result)) => return result,
                Some(None) => {
                    self.fail(self.diverged(&key));
                    return std::future::pending().await;
                }
                None => {}
            }
            if version.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }

    fn diverged(&self, key: &str) -> ErrorObject {
        ErrorObject::internal(format!(
            "`{}` is not deterministic: replaying it asked a different request at `{key}` than the one the client answered (keep clocks, randomness and I/O out of code that asks the client)",
            self.target
        ))
    }

    /// Asks `method` with `params` under `key`: the logged answer if there is one (and it
    /// answered the same request), else never (the question goes out with this round).
    pub(crate) async fn ask(&self, key: &str, method: &str, params: &str) -> Box<RawValue> {
        let digest = Digest::of(method, params);
        match self.carried.answers.get(key) {
            Some(answer) if answer.digest == Some(digest) => return answer.result.clone(),
            Some(answer) if answer.digest.is_none() => {
                lock(&self.inner).confirmed.insert(key.to_owned(), digest);
                return answer.result.clone();
            }
            Some(_) => self.fail(self.diverged(key)),
            None if self.is_live() => {
                return self.ask_live(key.to_owned(), digest, method, params).await;
            }
            None => {
                let mut inner = lock(&self.inner);
                if !inner.asked.iter().any(|q| q.key == key) {
                    let request = request_text(method, params);
                    inner.asked.push(Question {
                        key: key.to_owned(),
                        digest,
                        request,
                    });
                }
            }
        }
        std::future::pending().await
    }

    /// What the log holds for the side effect `key`, whose name has the digest `digest`.
    /// A fresh effect counts as under way until [`Rounds::record`] or [`Rounds::abandon`].
    pub(crate) fn recall(&self, key: &str, digest: Digest) -> Recall {
        let mut inner = lock(&self.inner);
        let logged = self
            .carried
            .effects
            .get(key)
            .or_else(|| inner.effects.get(key));
        match logged {
            Some(effect) if effect.digest == Some(digest) => Recall::Logged(effect.result.clone()),
            Some(_) => Recall::Diverged,
            None => {
                inner.running_effects += 1;
                Recall::Fresh
            }
        }
    }

    /// Logs the result of the side effect `key` that just ran. Live (a task), the change
    /// is announced so the task's replay record takes it.
    pub(crate) fn record(&self, key: String, digest: Digest, result: Box<RawValue>) {
        let mut inner = lock(&self.inner);
        inner.running_effects = inner.running_effects.saturating_sub(1);
        inner.effects.insert(
            key,
            Answer {
                digest: Some(digest),
                result,
            },
        );
        drop(inner);
        if self.is_live() {
            self.changed.notify_one();
        }
    }

    /// A fresh side effect ended without a result to log (its future was dropped, or its
    /// result could not be logged).
    pub(crate) fn abandon(&self) {
        let mut inner = lock(&self.inner);
        inner.running_effects = inner.running_effects.saturating_sub(1);
    }

    /// Whether a side effect ran (and was logged) in this round: the round cannot be
    /// repeated without repeating it, so its outcome is what a re-sent round gets.
    pub(crate) fn ran_effects(&self) -> bool {
        !lock(&self.inner).effects.is_empty()
    }

    /// Ends the call with `error` (the asking code never resumes).
    pub(crate) fn fail(&self, error: ErrorObject) {
        let mut inner = lock(&self.inner);
        if inner.failure.is_none() {
            inner.failure = Some(error);
        }
        drop(inner);
        self.changed.notify_one();
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
        // A side effect under way finishes first (its result goes into the state), even
        // when another branch already waits on a question.
        if inner.asked.is_empty() || inner.running_effects > 0 {
            return None;
        }
        Some(Stuck::Input(std::mem::take(&mut inner.asked)))
    }

    /// What the next round carries after this one ended asking `questions`.
    pub(crate) fn carry(&self, questions: &[Question]) -> Carried {
        let (confirmed, ran) = {
            let inner = lock(&self.inner);
            (inner.confirmed.clone(), inner.effects.clone())
        };
        let mut effects = self.carried.effects.clone();
        effects.extend(ran);
        let answers = self
            .carried
            .answers
            .iter()
            .filter_map(|(key, answer)| {
                if answer.digest.is_some() {
                    return Some((key.clone(), answer.clone()));
                }
                confirmed.get(key).map(|digest| {
                    let answer = Answer {
                        digest: Some(*digest),
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
                .map(|q| (q.key.clone(), q.digest))
                .collect(),
            kept: self.kept(),
            effects,
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

#[cfg(test)]
mod tests;
