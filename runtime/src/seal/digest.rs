//! Digests of JSON values, request answers and requests: SHA-256 over a canonical form
//! (keys sorted at every level), for comparing what a client sent between rounds.

use sha2::{Digest, Sha256};
use std::io;

/// SHA-256 of `value`'s canonical JSON form: object keys sorted (by their UTF-8 bytes) at
/// every level, no whitespace, strings and numbers as `serde_json` writes them.
///
/// Equal for two values that differ only in key order (this workspace builds `serde_json`
/// with `preserve_order`, so the map's own order is the insertion order and is not used).
/// Not RFC 8785 (JCS): meant for comparing values within this crate, not across
/// implementations.
pub(crate) fn digest_json(value: &serde_json::Value) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut out = HashWriter::new(&mut h);
    write_canonical(&mut out, value);
    out.finish();
    h.finalize().into()
}

/// SHA-256/128 of the answers a client gives to a state's questions (by key, in key
/// order, each value in canonical JSON; a missing answer counts as one): with the state's
/// tag ([`Opened::tag`]), the identity of one MRTR round as a client sends it.
pub(crate) fn digest_answers<'a>(
    answers: impl Iterator<Item = (&'a str, Option<&'a serde_json::Value>)>,
) -> [u8; 16] {
    let mut h = Sha256::new();
    for (key, answer) in answers {
        h.update((key.len() as u64).to_be_bytes());
        h.update(key.as_bytes());
        match answer {
            None => h.update([0]),
            Some(value) => {
                h.update([1]);
                let mut out = HashWriter::new(&mut h);
                write_canonical(&mut out, value);
                out.finish();
                // A separator no canonical JSON text ends with.
                h.update([0xff]);
            }
        }
    }
    let full: [u8; 32] = h.finalize().into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// SHA-256 of `{"method": method, "params": params}`, `params` being JSON text taken as it
/// is (key order as written), without building that object.
///
/// For the requests a handler sends its client: they are serialised from the server's own
/// values, so one call writes them the same way every time (and `digest_json`'s sorting,
/// a copy of every object's entries, would buy nothing).
pub(crate) fn digest_request(method: &str, params: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    let mut out = HashWriter::new(&mut h);
    out.put(b"{\"method\":");
    write_leaf(&mut out, &method);
    out.put(b",\"params\":");
    out.put(params.as_bytes());
    out.put(b"}");
    out.finish();
    h.finalize().into()
}

/// Feeds what is written into a hash, through a small buffer: `serde_json` writes a token
/// at a time, and a hash update per punctuation mark costs more than the copy.
struct HashWriter<'a> {
    hash: &'a mut Sha256,
    buf: [u8; 256],
    len: usize,
}

impl<'a> HashWriter<'a> {
    fn new(hash: &'a mut Sha256) -> Self {
        HashWriter {
            hash,
            buf: [0; 256],
            len: 0,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        if self.len + bytes.len() > self.buf.len() {
            self.finish();
        }
        if bytes.len() >= self.buf.len() {
            self.hash.update(bytes);
        } else {
            self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    /// Hashes what is buffered.
    fn finish(&mut self) {
        self.hash.update(&self.buf[..self.len]);
        self.len = 0;
    }
}

impl io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.put(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.finish();
        Ok(())
    }
}

fn write_canonical(out: &mut HashWriter<'_>, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_canonical(out, item);
            }
            out.put(b"]");
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.put(b"{");
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_leaf(out, key);
                out.put(b":");
                write_canonical(out, item);
            }
            out.put(b"}");
        }
        leaf => write_leaf(out, leaf),
    }
}

/// A key, string, number, bool or null, as `serde_json` writes it.
fn write_leaf(out: &mut HashWriter<'_>, leaf: &impl serde::Serialize) {
    // Cannot fail: `HashWriter` never errors, and a leaf holds no map with non-string keys.
    let _ = serde_json::to_writer(out, leaf);
}
