//! Reading a request's `params` with the `_meta` members of MCP 2026-07-28 that name its
//! protocol version and describe the client (`io.modelcontextprotocol/protocolVersion`,
//! `io.modelcontextprotocol/clientCapabilities` and `io.modelcontextprotocol/clientInfo`)
//! kept as raw JSON text.
//!
//! Every modern request carries them. Built into the `params` tree they cost a map, its
//! keys and their hashes per request, only to be read once into typed capabilities. Read
//! with `ClientMetaParams` they are borrowed slices of the request's bytes, parsed typed
//! where they are checked (`server::modern`); everything else in `params` is the usual tree.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
#[cfg(feature = "http")]
use {
    super::open::Key,
    serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor},
    serde_json::Map,
    std::fmt,
};

/// `_meta` key of the protocol version a request speaks (MCP 2026-07-28).
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities (MCP 2026-07-28).
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's name and version (MCP 2026-07-28).
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// The client-describing `_meta` members of one request, as raw JSON borrowed from its
/// bytes (absent when the request did not carry them, or carried a `_meta` that is not an
/// object).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ClientMeta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`
    pub(crate) version: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/clientCapabilities`
    pub(crate) capabilities: Option<&'a RawValue>,
    /// `io.modelcontextprotocol/clientInfo`
    pub(crate) info: Option<&'a RawValue>,
}

impl ClientMeta<'_> {
    /// Puts the members back into `params._meta` as values: for a request that turns out
    /// not to be modern, so it reads exactly as [`JsonRpcMessage::from_slice`] would have
    /// made it.
    ///
    /// [`JsonRpcMessage::from_slice`]: super::JsonRpcMessage::from_slice
    #[cfg(feature = "http")]
    pub(crate) fn restore(self, params: Option<&mut Value>) {
        if self.version.is_none() && self.capabilities.is_none() && self.info.is_none() {
            return;
        }
        let Some(Value::Object(meta)) = params
            .and_then(Value::as_object_mut)
            .and_then(|p| p.get_mut("_meta"))
        else {
            return;
        };
        for (key, raw) in [
            (PROTOCOL_VERSION, self.version),
            (CLIENT_CAPABILITIES, self.capabilities),
            (CLIENT_INFO, self.info),
        ] {
            // Raw text taken from a parsed message is valid JSON.
            if let Some(value) = raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()) {
                meta.insert(key.to_owned(), value);
            }
        }
    }
}

/// The `params` of a message: the tree, and the client-describing `_meta` members beside it.
pub(crate) trait SplitParams<'de>: Deserialize<'de> {
    /// What is kept beside the tree.
    type Beside: Default;

    /// The tree and what was kept beside it.
    fn into_parts(self) -> (Value, Self::Beside);
}

impl SplitParams<'_> for Value {
    type Beside = ();

    fn into_parts(self) -> (Value, ()) {
        (self, ())
    }
}

/// `params` read with its client-describing `_meta` members kept raw.
#[cfg(feature = "http")]
pub(crate) type ClientMetaParams<'a> = Split<'a, false>;

/// A JSON value read with the client-describing `_meta` members kept raw beside its tree:
/// the request's `params` (`META` false: its `_meta` member is read as `Split<true>`), or
/// that `_meta` object itself (`META` true: the members are taken out). Anything but an
/// object reads as a plain value.
#[cfg(feature = "http")]
pub(crate) struct Split<'a, const META: bool> {
    tree: Value,
    client: ClientMeta<'a>,
}

#[cfg(feature = "http")]
impl<'a> SplitParams<'a> for Split<'a, false> {
    type Beside = ClientMeta<'a>;

    fn into_parts(self) -> (Value, ClientMeta<'a>) {
        (self.tree, self.client)
    }
}

#[cfg(feature = "http")]
impl<'de, const META: bool> Deserialize<'de> for Split<'de, META> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SplitVisitor::<META>)
    }
}

#[cfg(feature = "http")]
impl<const META: bool> Split<'_, META> {
    fn other(tree: Value) -> Self {
        Split {
            tree,
            client: ClientMeta::default(),
        }
    }
}

/// The visitor of a [`Split`].
#[cfg(feature = "http")]
struct SplitVisitor<const META: bool>;

#[cfg(feature = "http")]
impl<'de, const META: bool> Visitor<'de> for SplitVisitor<META> {
    type Value = Split<'de, META>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut tree = Map::new();
        let mut client = ClientMeta::default();
        while let Some(Key(key)) = map.next_key()? {
            match (META, &*key) {
                (true, PROTOCOL_VERSION) => client.version = Some(map.next_value()?),
                (true, CLIENT_CAPABILITIES) => client.capabilities = Some(map.next_value()?),
                (true, CLIENT_INFO) => client.info = Some(map.next_value()?),
                (false, "_meta") => {
                    let meta: Split<'de, true> = map.next_value()?;
                    client = meta.client;
                    tree.insert(key.into_owned(), meta.tree);
                }
                _ => {
                    let value: Value = map.next_value()?;
                    tree.insert(key.into_owned(), value);
                }
            }
        }
        Ok(Split {
            tree: Value::Object(tree),
            client,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let items = Vec::<Value>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(Split::other(Value::Array(items)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Split::other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Split::other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Split::other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Split::other(Value::from(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Split::other(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Split::other(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Split::other(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Split::other(Value::Null))
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use crate::protocol::JsonRpcMessage;

    fn params(message: &JsonRpcMessage) -> Option<&Value> {
        match message {
            JsonRpcMessage::Request(r) => r.params.as_ref(),
            JsonRpcMessage::Notification(n) => n.params.as_ref(),
            _ => None,
        }
    }

    #[test]
    fn client_members_are_kept_raw_and_the_rest_is_the_tree() {
        let bytes = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":7},"arguments":{"text":"hi"}}}"#;
        let (message, client) =
            JsonRpcMessage::from_slice_with::<ClientMetaParams>(bytes).expect("a request");
        assert_eq!(
            client.capabilities.map(RawValue::get),
            Some(r#"{"elicitation":{"form":{}}}"#)
        );
        assert_eq!(
            client.info.map(RawValue::get),
            Some(r#"{"name":"c","version":"1"}"#)
        );
        assert_eq!(
            params(&message),
            Some(&serde_json::json!({
                "name": "echo",
                "_meta": {"progressToken": 7},
                "arguments": {"text": "hi"}
            }))
        );
        // Restored, the message is what the plain parse makes of the same bytes.
        let mut message = message;
        if let JsonRpcMessage::Request(r) = &mut message {
            client.restore(r.params.as_mut());
        }
        assert_eq!(Some(message), JsonRpcMessage::from_slice(bytes).ok());
    }

    #[test]
    fn anything_else_reads_as_the_plain_parse_does() {
        for bytes in [
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,"a",null,true,2.5,{"b":[]}]}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":"text"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":[1]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":"text"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            br#"{"jsonrpc":"2.0","method":"n","params":{"x":-1}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/clientInfo":{}}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"#,
            br#"[]"#,
        ] {
            let split = JsonRpcMessage::from_slice_with::<ClientMetaParams>(bytes)
                .map(|(m, client)| {
                    assert!(client.capabilities.is_none() && client.info.is_none());
                    assert!(client.version.is_none());
                    m
                });
            assert_eq!(split, JsonRpcMessage::from_slice(bytes), "{}", String::from_utf8_lossy(bytes));
        }
    }
}
