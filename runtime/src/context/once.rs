//! Side effects that run once per call, whatever the era: [`Ctx::once`], [`Ctx::now`],
//! [`Ctx::random`].
//!
//! On a 2025-11-25 session a call runs once, so an effect simply runs. A 2026-07-28 call is
//! replayed from the top each round (and a task of the tasks extension resumed by replay in
//! another process): there an effect runs the first time the call reaches it, its result
//! is logged in the call's state beside the client's answers (sealed into `requestState`,
//! or stored in the task's replay record), and every replay gets the logged result back
//! without running it again.

use super::Ctx;
use super::rounds::{Digest, Recall};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::future::IntoFuture;
use std::time::{Duration, SystemTime};

/// The largest result a [`Ctx::once`] block may log, as JSON text: 64 KiB. Every logged
/// result rides in each later round's `requestState`, which is capped at
/// [`MAX_STATE_LEN`](crate::MAX_STATE_LEN) in all; keep results to what the rest of the
/// call needs (an id, a count), not whole rows.
///
/// ```
/// assert_eq!(tracksuit::MAX_ONCE_LEN, 64 * 1024);
/// ```
pub const MAX_ONCE_LEN: usize = 64 * 1024;

/// The method name a side effect's digest is taken under (never sent anywhere).
pub(super) const ONCE: &str = "tracksuit/once";

/// Why a [`Ctx::once`] block's result could not be logged or read back.
///
/// Converts into a [`ToolError`](crate::ToolError) with `?`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OnceError {
    /// The result does not serialise to JSON (the effect ran).
    #[error("the result of `{name}` cannot be logged: {error}")]
    Serialize {
        /// The block's name.
        name: String,
        /// serde_json's words.
        error: String,
    },
    /// The result is larger than [`MAX_ONCE_LEN`] (the effect ran).
    #[error(
        "the result of `{name}` is {len} bytes as JSON, more than the {MAX_ONCE_LEN} a once block may log"
    )]
    TooLarge {
        /// The block's name.
        name: String,
        /// Its length as JSON text.
        len: usize,
    },
    /// The logged result does not read as the type asked for (the code changed between
    /// rounds).
    #[error("the logged result of `{name}` does not read as the type asked for: {error}")]
    Decode {
        /// The block's name.
        name: String,
        /// serde_json's words.
        error: String,
    },
}

impl<K> Ctx<K> {
    /// Runs `effect` once per call and returns its result: on a replayed round (MCP
    /// 2026-07-28) or a task resumed in another process, the result it had the first time,
    /// without running it again.
    ///
    /// Use it for every side effect between or before questions to the client in code that
    /// asks the client (a database write, a charge, an email), and for anything whose
    /// result must not change between rounds. `name` says what it is; a replay that
    /// reaches a block of another name at the same place fails the call as not
    /// deterministic (blocks are numbered in order, with the questions, per branch).
    /// The result must serialise and read back (`T: Serialize + DeserializeOwned`) and be
    /// at most [`MAX_ONCE_LEN`] as JSON; to keep a failure, return it as a value
    /// (`Result<u64, String>`).
    ///
    /// What once means, precisely: the effect runs at most once per call for every round a
    /// client sends once; a round re-sent verbatim gets the first sending's outcome (see
    /// docs/eras.md); a call cancelled (or a process killed) while the effect runs may have
    /// run it without logging it, and its next round runs it again. Make effects
    /// idempotent at the database (a unique key) where that matters.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    ///
    /// static DELETED: AtomicUsize = AtomicUsize::new(0);
    ///
    /// #[derive(serde::Deserialize, tracksuit::Elicits)]
    /// struct Confirm {
    ///     /// Delete the duplicate?
    ///     yes: bool,
    /// }
    ///
    /// /// Deletes duplicates, asking before each.
    /// #[mcp_tool]
    /// async fn dedupe(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let mut deleted = 0;
    ///     for row in ["a", "b"] {
    ///         let answer = ctx.elicit_form::<Confirm>(&format!("Delete {row}?")).await?;
    ///         if answer.accepted().is_some_and(|c| c.yes) {
    ///             // Runs once, even though a 2026-07-28 client replays this loop each round.
    ///             deleted += ctx
    ///                 .once("delete", async { DELETED.fetch_add(1, Ordering::SeqCst); 1 })
    ///                 .await?;
    ///         }
    ///     }
    ///     Ok(format!("{deleted} deleted"))
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(dedupe).build().unwrap();
    /// ```
    pub async fn once<T, F>(&self, name: &str, effect: F) -> Result<T, OnceError>
    where
        T: Serialize + DeserializeOwned,
        F: IntoFuture<Output = T>,
    {
        let Some(rounds) = self.rounds() else {
            // A call that runs once: the effect runs, and its result is held to the same
            // limits as on a replayed call, so code that works here works there.
            let value = effect.await;
            logged(name, &value)?;
            return Ok(value);
        };
        let key = self.flow.key(ONCE, None);
        let digest = Digest::of(ONCE, &serde_json::to_string(name).unwrap_or_default());
        match rounds.recall(&key, digest) {
            Recall::Logged(text) => {
                serde_json::from_str(text.get()).map_err(|e| OnceError::Decode {
                    name: name.to_owned(),
                    error: e.to_string(),
                })
            }
            Recall::Diverged => {
                rounds.fail(crate::protocol::ErrorObject::internal(format!(
                    "`{}` is not deterministic: replaying it reached the once block `{name}` at `{key}`, where another block ran (keep clocks, randomness and I/O out of code that asks the client, or inside once blocks)",
                    rounds.target()
                )));
                std::future::pending().await
            }
            Recall::Fresh => {
                // Counted as under way until logged, so a round does not end meanwhile; a
                // dropped call uncounts it.
                let mut under_way = UnderWay(Some(rounds));
                let value = effect.await;
                under_way.0 = None;
                match logged(name, &value) {
                    Ok(text) => rounds.record(key, digest, text),
                    Err(e) => {
                        rounds.abandon();
                        return Err(e);
                    }
                }
                Ok(value)
            }
        }
    }

    /// The wall-clock time, read once per call: a replayed round gets the time the first
    /// round read (see [`Ctx::once`]). Each call of `now` is its own reading.
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// /// Stamps a note.
    /// #[mcp_tool]
    /// async fn stamp(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let at = ctx.now().await?;
    ///     let secs = at.duration_since(std::time::UNIX_EPOCH)?.as_secs();
    ///     Ok(format!("stamped at {secs}"))
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(stamp).build().unwrap();
    /// ```
    pub async fn now(&self) -> Result<SystemTime, OnceError> {
        let since = self
            .once("now", async {
                let since = SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap_or_default();
                (since.as_secs(), since.subsec_nanos())
            })
            .await?;
        Ok(SystemTime::UNIX_EPOCH + Duration::new(since.0, since.1))
    }

    /// A random value, drawn once per call: a replayed round gets the value the first
    /// round drew (see [`Ctx::once`]). Any type `rand` draws uniformly (`u64`, `bool`,
    /// `f64` in `[0, 1)`, `[u8; 16]`, tuples of them).
    ///
    /// ```
    /// use tracksuit::{Ctx, ToolError, mcp_tool};
    /// /// Flips a coin that stays flipped across rounds.
    /// #[mcp_tool]
    /// async fn coin(ctx: &Ctx) -> Result<String, ToolError> {
    ///     let heads: bool = ctx.random().await?;
    ///     Ok(if heads { "heads" } else { "tails" }.into())
    /// }
    /// # let _ = tracksuit::Server::new(tracksuit::crate_info!()).tool(coin).build().unwrap();
    /// ```
    pub async fn random<T>(&self) -> Result<T, OnceError>
    where
        T: Serialize + DeserializeOwned,
        rand::distr::StandardUniform: rand::distr::Distribution<T>,
    {
        self.once("random", async { rand::random::<T>() }).await
    }
}

/// `value` as the JSON text a once block logs, within [`MAX_ONCE_LEN`].
fn logged<T: Serialize>(name: &str, value: &T) -> Result<Box<RawValue>, OnceError> {
    let text = serde_json::value::to_raw_value(value).map_err(|e| OnceError::Serialize {
        name: name.to_owned(),
        error: e.to_string(),
    })?;
    let len = text.get().len();
    if len > MAX_ONCE_LEN {
        return Err(OnceError::TooLarge {
            name: name.to_owned(),
            len,
        });
    }
    Ok(text)
}

/// Uncounts a fresh effect whose future is dropped before it finished (`None` once it did).
struct UnderWay<'r>(Option<&'r super::Rounds>);

impl Drop for UnderWay<'_> {
    fn drop(&mut self) {
        if let Some(rounds) = self.0 {
            rounds.abandon();
        }
    }
}
