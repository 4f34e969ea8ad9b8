//! `Deserialize` for the wire types whose unknown members are kept (`extra`), without serde's
//! `flatten`: a flattened field makes the derive buffer every member of the object before it
//! reads one, which is most of the cost of the types every modern (MCP 2026-07-28) request
//! carries in its `_meta` (the client's capabilities and info).

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};
use std::borrow::Cow;
use std::fmt;

/// An object member's name, borrowed from the input when it can be.
pub(super) struct Key<'de>(pub(super) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }

            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Implements `Deserialize` for `$ty` (which implements `Default`): each listed JSON member
/// into its field, any other member into `extra`; a missing `required` field is an error,
/// as the derive makes it. Reads the same JSON as `#[derive(Deserialize)]` with
/// `#[serde(flatten)] extra` (tested beside each use).
macro_rules! deserialize_open {
    ($ty:ident $what:literal { $($json:literal => $field:ident),* $(,)? } required($($req:literal => $rfield:ident),*)) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct OpenVisitor;
                impl<'de> serde::de::Visitor<'de> for OpenVisitor {
                    type Value = $ty;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($what)
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        let mut value = <$ty>::default();
                        $(let mut $rfield = false;)*
                        while let Some(super::open::Key(key)) = map.next_key()? {
                            match &*key {
                                $($json => value.$field = map.next_value()?,)*
                                $($req => { value.$rfield = map.next_value()?; $rfield = true; })*
                                _ => {
                                    let member: serde_json::Value = map.next_value()?;
                                    value.extra.insert(key.into_owned(), member);
                                }
                            }
                        }
                        $(if !$rfield {
                            return Err(<A::Error as serde::de::Error>::missing_field($req));
                        })*
                        Ok(value)
                    }
                }
                d.deserialize_map(OpenVisitor)
            }
        }
    };
}

pub(super) use deserialize_open;

#[cfg(test)]
mod tests {
    use crate::protocol::{ClientCapabilities, Implementation};
    use serde_json::json;

    /// Read from text and from a borrowed tree, the value is the same.
    fn both<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
        value: serde_json::Value,
    ) -> Result<T, String> {
        let from_text = serde_json::from_str::<T>(&value.to_string()).map_err(|e| e.to_string());
        let from_tree = T::deserialize(&value).map_err(|e| e.to_string());
        assert_eq!(from_text.is_ok(), from_tree.is_ok(), "{value}");
        if let (Ok(a), Ok(b)) = (&from_text, &from_tree) {
            assert_eq!(a, b);
        }
        from_text
    }

    #[test]
    fn known_members_are_typed_and_unknown_ones_kept() {
        let caps: ClientCapabilities = both(json!({
            "elicitation": {"form": {}},
            "sampling": null,
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "x": [1]
        }))
        .expect("capabilities");
        assert!(caps.elicitation.and_then(|e| e.form).is_some());
        assert!(caps.sampling.is_none());
        assert_eq!(caps.extra.len(), 2);
        assert_eq!(caps.extra["x"], json!([1]));

        let info: Implementation = both(json!({
            "name": "c", "version": "1", "websiteUrl": "https://example.com", "vendor": "v"
        }))
        .expect("info");
        assert_eq!(info.website_url.as_deref(), Some("https://example.com"));
        assert_eq!(info.extra["vendor"], "v");
        // What it reads, it writes back.
        assert_eq!(
            serde_json::to_value(&info).expect("serialises"),
            json!({"name": "c", "version": "1", "websiteUrl": "https://example.com", "vendor": "v"})
        );
    }

    #[test]
    fn what_the_derive_refuses_is_refused() {
        let missing = both::<Implementation>(json!({"name": "c"})).expect_err("no version");
        assert!(missing.contains("missing field `version`"), "{missing}");
        both::<Implementation>(json!({"name": "c", "version": null})).expect_err("null version");
        both::<Implementation>(json!({"name": 7, "version": "1"})).expect_err("name a number");
        both::<ClientCapabilities>(json!("all")).expect_err("not an object");
        both::<ClientCapabilities>(json!({"elicitation": 5})).expect_err("elicitation a number");
        assert_eq!(
            both::<ClientCapabilities>(json!({})),
            Ok(ClientCapabilities::default())
        );
    }
}
