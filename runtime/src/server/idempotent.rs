//! A later MRTR round, claimed before it runs (see [`crate::idempotency`]): a re-sent round
//! gets the outcome of its first sending, and a consumed state with other answers is
//! refused.

use super::answer::Answer;
use crate::idempotency::{Claim, IdempotencyStore, RoundKey};
use crate::protocol::{ErrorObject, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How a round goes on after its claim.
pub(super) enum Admission {
    /// Serve it; settle the claim with its outcome.
    Serve(Held),
    /// It was served before: this is its outcome.
    Replay(Result<Answer, ErrorObject>),
}

/// A round's outcome as recorded: what [`super::ServerSession::in_rounds`] returned.
#[derive(Serialize, Deserialize)]
enum Recorded {
    /// A result before the era shapes it (a tree, or a tool's result as one).
    #[serde(rename = "r")]
    Result(Box<RawValue>),
    /// A result written whole (`input_required`).
    #[serde(rename = "s")]
    Shaped(Box<RawValue>),
    /// A JSON-RPC error.
    #[serde(rename = "e")]
    Error(ErrorObject),
}

/// A round's outcome as it is recorded, borrowed: written once, in the shape [`Recorded`]
/// reads.
#[derive(Serialize)]
enum Recording<'a> {
    #[serde(rename = "r")]
    Tree(&'a serde_json::Value),
    #[serde(rename = "r")]
    Tool(&'a crate::protocol::CallToolResult),
    #[serde(rename = "s")]
    Shaped(&'a RawValue),
    #[serde(rename = "e")]
    Error(&'a ErrorObject),
}

/// Claims the round that presents the state tagged `tag` with `responses` to its
/// `pending` questions, waiting while a duplicate is being served.
pub(super) async fn admit(
    store: &Arc<dyn IdempotencyStore>,
    tag: [u8; 16],
    pending: &BTreeMap<String, crate::context::Digest>,
    responses: Option<&JsonObject>,
    ttl: Duration,
) -> Result<Admission, ErrorObject> {
    let answers = pending
        .keys()
        .map(|key| (key.as_str(), responses.and_then(|r| r.get(key))));
    let key = RoundKey {
        state: tag,
        answers: crate::seal::digest_answers(answers),
    };
    let claim = store.claim(key, ttl).await.map_err(|e| {
        ErrorObject::internal(format!(
            "the round could not be claimed, so it did not run (retry it): {e}"
        ))
    })?;
    Ok(match claim {
        Claim::Won(claim) => Admission::Serve(Held {
            store: store.clone(),
            key,
            claim,
            ttl,
            settled: false,
        }),
        Claim::Done(outcome) => Admission::Replay(replayed(&outcome)),
        Claim::Conflict => {
            return Err(ErrorObject::invalid_params(
                "requestState refused: this round was already served with other inputResponses (a state's answers cannot change once the call went on with them)",
            ));
        }
    })
}

/// The recorded outcome `text`, as the round answered it.
fn replayed(text: &RawValue) -> Result<Answer, ErrorObject> {
    match serde_json::from_str::<Recorded>(text.get()) {
        Ok(Recorded::Result(result)) => serde_json::from_str(result.get())
            .map(Answer::Tree)
            .map_err(|e| ErrorObject::internal(format!("a recorded outcome does not read: {e}"))),
        Ok(Recorded::Shaped(text)) => Ok(Answer::InputRequired(text)),
        Ok(Recorded::Error(error)) => Err(error),
        Err(e) => Err(ErrorObject::internal(format!(
            "a recorded outcome does not read: {e}"
        ))),
    }
}

/// A claimed round: given back when dropped unless [`Held::settle`] recorded its outcome.
pub(super) struct Held {
    store: Arc<dyn IdempotencyStore>,
    key: RoundKey,
    claim: u64,
    ttl: Duration,
    settled: bool,
}

impl Held {
    /// Records `outcome` if the round must not run again (`commit`: it finished, or ran a
    /// side effect), else gives the claim back. A record that cannot be written is logged:
    /// the client still gets this outcome, and a re-send would run the round again.
    pub(super) async fn settle(mut self, outcome: &Result<Answer, ErrorObject>, commit: bool) {
        self.settled = true;
        if !commit {
            self.store.release(self.key, self.claim);
            return;
        }
        let recording = match outcome {
            Ok(Answer::Tree(value)) => Recording::Tree(value),
            Ok(Answer::Tool(result)) => Recording::Tool(result.as_ref()),
            Ok(Answer::InputRequired(text)) => Recording::Shaped(text),
            Err(error) => Recording::Error(error),
        };
        let recorded = serde_json::value::to_raw_value(&recording);
        let recorded = match recorded {
            Ok(recorded) => recorded,
            Err(e) => {
                tracing::error!(error = %e, "could not write a round's outcome for its re-sends");
                self.store.release(self.key, self.claim);
                return;
            }
        };
        match self
            .store
            .finish(self.key, self.claim, recorded, self.ttl)
            .await
        {
            Ok(true) => {}
            Ok(false) => tracing::warn!(
                "a round's claim lapsed while it ran: another server may have run it too"
            ),
            Err(e) => {
                tracing::error!(error = %e, "could not record a round's outcome; a re-send would run it again")
            }
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if !self.settled {
            self.store.release(self.key, self.claim);
        }
    }
}
