//! The AES-256-GCM subkeys version 2 tokens are sealed under.
//!
//! A subkey is expanded from a ring key's HKDF-SHA256 PRK with a 128-bit random salt that
//! every token it seals carries. A process seals with one subkey until it has sealed
//! [`TOKENS_PER_SUBKEY`] tokens, then draws a new salt, so no key ever meets AES-GCM's
//! limit on random nonces, however long a secret lives. Deriving a key per token would
//! do the same at the price of an HKDF expansion and an AES key schedule per seal and per
//! open; here a process derives once per salt: its own sealing subkey, and the subkeys of
//! the few other processes whose tokens it opens (remembered, once a token authenticates).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::rand_core::RngCore;
use aes_gcm::aead::{KeyInit, OsRng};
use hkdf::Hkdf;
use sha2::Sha256;

use super::SealError;

/// The length of a subkey's salt, carried in every token it seals.
pub(super) const SALT_LEN: usize = 16;
/// HKDF `info` prefix of a subkey (the salt follows).
const SUBKEY_INFO: &[u8] = b"tracksuit/requestState/subkey/v2";
/// The tokens one subkey seals before a process draws a new salt. Their random 96-bit
/// nonces collide with probability under 2⁻⁴⁸, and AES-GCM allows 2³² per key.
pub(super) const TOKENS_PER_SUBKEY: u64 = 1 << 24;
/// How many other processes' subkeys a process remembers for opening their tokens; more
/// replicas than this still open each other's tokens, deriving the key each time.
const REMEMBERED: usize = 32;

/// One subkey: its salt and its cipher.
pub(super) struct Subkey {
    pub(super) salt: [u8; SALT_LEN],
    pub(super) cipher: Aes256Gcm,
    /// Tokens sealed with it (a sealing subkey only).
    sealed: AtomicU64,
}

/// A ring key's subkeys: the one this process seals with, and those it opened lately.
pub(super) struct Subkeys {
    prk: Hkdf<Sha256>,
    sealing: RwLock<Option<Arc<Subkey>>>,
    opened: Mutex<VecDeque<Arc<Subkey>>>,
}

impl Subkeys {
    pub(super) fn new(prk: Hkdf<Sha256>) -> Self {
        Self {
            prk,
            sealing: RwLock::new(None),
            opened: Mutex::new(VecDeque::with_capacity(REMEMBERED)),
        }
    }

    /// The subkey to seal the next token with: the current one, or a fresh one once the
    /// current one sealed its share.
    pub(super) fn for_sealing(&self) -> Result<Arc<Subkey>, SealError> {
        if let Some(current) = self
            .sealing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && current.sealed.fetch_add(1, Ordering::Relaxed) < TOKENS_PER_SUBKEY
        {
            return Ok(current.clone());
        }
        let mut salt = [0u8; SALT_LEN];
        OsRng
            .try_fill_bytes(&mut salt)
            .map_err(|e| SealError::Random(e.to_string()))?;
        let fresh = Arc::new(self.derive(salt));
        fresh.sealed.store(1, Ordering::Relaxed);
        // Two threads that both found the subkey used up each install their own: both
        // are fresh, and the one replaced has sealed a single token.
        *self.sealing.write().unwrap_or_else(PoisonError::into_inner) = Some(fresh.clone());
        Ok(fresh)
    }

    /// The subkey of a token with `salt`, and whether it was known already. A subkey
    /// derived here is remembered only once a token opened with it ([`Subkeys::remember`]),
    /// so made-up salts cannot push out the subkeys of real tokens.
    pub(super) fn for_opening(&self, salt: &[u8]) -> (Arc<Subkey>, bool) {
        if let Some(current) = self
            .sealing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && current.salt[..] == *salt
        {
            return (current.clone(), true);
        }
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = opened.iter().find(|k| k.salt[..] == *salt) {
            return (known.clone(), true);
        }
        drop(opened);
        let mut own = [0u8; SALT_LEN];
        own.copy_from_slice(salt);
        (Arc::new(self.derive(own)), false)
    }

    /// Keeps a subkey a token just opened with, forgetting the oldest beyond
    /// [`REMEMBERED`].
    pub(super) fn remember(&self, subkey: Arc<Subkey>) {
        let mut opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        if opened.iter().any(|k| k.salt == subkey.salt) {
            return;
        }
        if opened.len() >= REMEMBERED {
            opened.pop_front();
        }
        opened.push_back(subkey);
    }

    fn derive(&self, salt: [u8; SALT_LEN]) -> Subkey {
        let mut key = [0u8; 32];
        // HKDF-SHA256 fails only for outputs over 255 × 32 bytes.
        let _ = self.prk.expand_multi_info(&[SUBKEY_INFO, &salt], &mut key);
        Subkey {
            salt,
            cipher: Aes256Gcm::new(&GenericArray::from(key)),
            sealed: AtomicU64::new(0),
        }
    }

    /// How many subkeys are remembered for opening (for tests).
    #[cfg(test)]
    pub(super) fn remembered(&self) -> usize {
        self.opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Marks the sealing subkey used up, as after [`TOKENS_PER_SUBKEY`] seals (for tests).
    #[cfg(test)]
    pub(super) fn use_up(&self) {
        if let Some(current) = self
            .sealing
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            current.sealed.store(TOKENS_PER_SUBKEY, Ordering::Relaxed);
        }
    }
}
