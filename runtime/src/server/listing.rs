//! Pages of `*/list` results, and `tools/list` in the client's schema profile: a tool's
//! descriptor in each profile other than the portable one is made on first use and kept with
//! the tool's entry, so listing never rewrites a schema twice.

use super::request_scope::RequestScope;
use super::session::{decode_cursor, encode_cursor};
use super::visibility::Describe;
use super::{Entry, Registry, ToolHandler};
use crate::caller::Caller;
use crate::context::SchemaProfile;
use crate::peer::sync::read;
use crate::protocol::*;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// An item's descriptor in the profiles other than [`SchemaProfile::Portable`] (indexed by
/// [`SchemaProfile::index`] minus one), each made when a client of that profile first lists.
pub(crate) struct Profiled<D>([OnceLock<Arc<D>>; 3]);

impl<D> Default for Profiled<D> {
    fn default() -> Self {
        Profiled(Default::default())
    }
}

impl<D> Clone for Profiled<D> {
    fn clone(&self) -> Self {
        Profiled(self.0.clone())
    }
}

impl Entry<Tool, dyn ToolHandler> {
    /// The tool's descriptor as a client of `profile` gets it.
    pub(crate) fn descriptor_in(&self, profile: SchemaProfile) -> Tool {
        let Some(slot) = profile
            .index()
            .checked_sub(1)
            .and_then(|i| self.profiled.0.get(i))
        else {
            return self.descriptor.clone();
        };
        let made = slot.get_or_init(|| {
            let mut descriptor = self.descriptor.clone();
            descriptor.input_schema = match profile {
                SchemaProfile::Raw => self
                    .item
                    .raw_input_schema()
                    .unwrap_or(descriptor.input_schema),
                other => other.apply(&descriptor.input_schema),
            };
            Arc::new(descriptor)
        });
        Tool::clone(made)
    }
}

impl RequestScope {
    /// The schema profile of this session's client (portable until it is known).
    pub(super) fn schema_profile(&self) -> SchemaProfile {
        self.client()
            .map_or(SchemaProfile::Portable, |i| i.schema_profile)
    }

    /// One page of the registry's descriptors `caller` may see (see
    /// [`visible`](Self::visible)): up to a page of them, and a cursor when more follow.
    pub(super) fn page_of<D: Clone + Describe, T: ?Sized>(
        &self,
        caller: &Caller,
        registry: &Registry<Entry<D, T>>,
        params: Option<Value>,
    ) -> Result<(Vec<D>, Option<String>), ErrorObject> {
        self.page_with(caller, registry, params, |e| e.descriptor.clone())
    }

    /// [`page_of`](Self::page_of) with each item's descriptor made by `describe`.
    ///
    /// A page holds the next `page_size` visible items from the cursor's position; the
    /// next cursor is the position of the first visible item after them, so every visible
    /// item is listed once and no page is short but the last (hidden items are skipped,
    /// and a page is never empty because of them). Positions are the registry's order, so
    /// items added meanwhile come later, as without visibility rules.
    fn page_with<D: Describe, T: ?Sized, O>(
        &self,
        caller: &Caller,
        registry: &Registry<Entry<D, T>>,
        params: Option<Value>,
        describe: impl Fn(&Entry<D, T>) -> O,
    ) -> Result<(Vec<O>, Option<String>), ErrorObject> {
        let p: PaginatedRequestParams = decode_or_default(params)?;
        let offset = match p.cursor.as_deref() {
            None => 0,
            Some(c) => decode_cursor(c)?,
        };
        let size = self.server().inner.options.page_size.max(1);
        let mut items = Vec::with_capacity(size.min(64));
        let mut next = None;
        for (position, entry) in registry.from(offset) {
            if !self.visible(entry, caller) {
                continue;
            }
            if items.len() == size {
                next = Some(position);
                break;
            }
            items.push(describe(entry));
        }
        Ok((items, next.map(encode_cursor)))
    }

    /// `tools/list`, in the schema profile of the session's client.
    pub(super) fn list_tools(
        &self,
        caller: &Caller,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let profile = self.schema_profile();
        let tools = read(&self.server().inner.tools);
        let (tools, next_cursor) =
            self.page_with(caller, &tools, params, |e| e.descriptor_in(profile))?;
        encode(ListToolsResult {
            tools,
            next_cursor,
            ..Default::default()
        })
    }
}
