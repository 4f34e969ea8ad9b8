//! The typed capabilities and info of the last client whose modern (MCP 2026-07-28)
//! request carried them: a client sends the same two `_meta` members with every request,
//! so most requests find theirs here, compared as text, and skip the parse.

use super::modern::ClientDescription;
use crate::peer::sync::{read, write};
use crate::protocol::ClientMeta;
use std::sync::RwLock;

/// One client's description: the raw text it came as, and what it says.
struct Known {
    capabilities_text: Box<str>,
    info_text: Option<Box<str>>,
    description: ClientDescription,
}

/// The last client description parsed (see the module docs).
#[derive(Default)]
pub(crate) struct KnownClient(RwLock<Option<Known>>);

impl KnownClient {
    /// What `client` says, when its capabilities (and info) are the ones last seen.
    pub(crate) fn get(&self, client: ClientMeta<'_>) -> Option<ClientDescription> {
        let capabilities = client.capabilities?.get();
        let info = client.info.map(|i| i.get());
        let known = read(&self.0);
        let known = known.as_ref()?;
        (*known.capabilities_text == *capabilities && known.info_text.as_deref() == info)
            .then(|| known.description.clone())
    }

    /// Remembers what `client` says (just parsed from it).
    pub(crate) fn remember(&self, client: ClientMeta<'_>, description: &ClientDescription) {
        let Some(text) = client.capabilities else {
            return;
        };
        *write(&self.0) = Some(Known {
            capabilities_text: text.get().into(),
            info_text: client.info.map(|i| i.get().into()),
            description: description.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientCapabilities, Implementation};
    use serde_json::value::RawValue;
    use std::sync::Arc;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("JSON")
    }

    #[test]
    fn a_client_is_known_by_the_exact_text_of_both_members() {
        let known = KnownClient::default();
        let (caps, info, other) = (
            raw(r#"{"elicitation":{}}"#),
            raw(r#"{"name":"c","version":"1"}"#),
            raw(r#"{"name":"c","version":"2"}"#),
        );
        let client = ClientMeta {
            capabilities: Some(&caps),
            info: Some(&info),
            ..ClientMeta::default()
        };
        assert!(known.get(client).is_none());
        let typed: ClientCapabilities = serde_json::from_str(caps.get()).expect("caps");
        let info_typed = Arc::new(Implementation::new("c", "1"));
        known.remember(client, &(Arc::new(typed.clone()), Some(info_typed)));
        let (got, got_info) = known.get(client).expect("known now");
        assert_eq!(*got, typed);
        assert_eq!(got_info.map(|i| i.version.clone()), Some("1".to_owned()));
        // Another version, or no info at all, is another client.
        for info in [Some(&*other), None] {
            let client = ClientMeta {
                capabilities: Some(&caps),
                info,
                ..ClientMeta::default()
            };
            assert!(known.get(client).is_none());
        }
    }
}
