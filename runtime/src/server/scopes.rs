//! The OAuth scopes an item requires: fixed ones (`scopes()`), and those a [`ScopeRule`]
//! computes from the request (a tool's or prompt's arguments, a resource template's
//! variables), checked before the item runs.

use crate::protocol::{ErrorObject, JsonObject};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

type Compute = dyn Fn(&JsonObject) -> Result<Vec<String>, String> + Send + Sync;

/// Scopes computed from the request an item serves: a tool's or a prompt's arguments, or a
/// resource template's variables (each a string). What it returns is required on top of the
/// item's fixed scopes, checked before the item runs, in both eras and for tasks, and named
/// exactly in the `insufficient_scope` challenge of a caller who lacks them.
///
/// `#[mcp_tool(scopes = ["repo:{owner}:write"])]` (also `#[mcp_prompt]`, `#[mcp_resource]`
/// on a template) writes [`ScopeRule::template`]; `scopes_with = path` writes
/// [`ScopeRule::typed`]. Without the macros, `ToolFn::scopes_with` and its siblings take one.
///
/// ```
/// use tracksuit::ScopeRule;
/// let args = serde_json::json!({"owner": "acme", "n": 3});
/// let args = args.as_object().unwrap();
/// let rule = ScopeRule::template(["repo:{owner}:write", "quota:{n}"]);
/// assert_eq!(rule.scopes(args).unwrap(), ["repo:acme:write", "quota:3"]);
///
/// #[derive(serde::Deserialize)]
/// struct Args { owner: String }
/// let typed = ScopeRule::typed(|a: &Args| vec![format!("org:{}", a.owner)]);
/// assert_eq!(typed.scopes(args).unwrap(), ["org:acme"]);
/// assert_eq!(rule.and(typed).scopes(args).unwrap().len(), 3);
/// ```
#[derive(Clone)]
pub struct ScopeRule(Arc<Compute>);

impl std::fmt::Debug for ScopeRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScopeRule(..)")
    }
}

impl ScopeRule {
    /// Scopes written with `{name}` placeholders, each filled with the argument (or template
    /// variable) of that name: a string as it is, a number or boolean as JSON writes it. A
    /// request without a usable value for a placeholder is refused (`-32602`) before the
    /// item runs.
    pub fn template<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Self {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        ScopeRule(Arc::new(move |input| {
            scopes.iter().map(|scope| fill(scope, input)).collect()
        }))
    }

    /// Scopes computed by `f` from the arguments (or template variables) read as `T`, e.g.
    /// a struct with the fields the rule needs (others are ignored unless `T` denies them).
    /// Arguments that do not read as `T` are refused (`-32602`) before the item runs.
    pub fn typed<T, F>(f: F) -> Self
    where
        T: DeserializeOwned,
        F: Fn(&T) -> Vec<String> + Send + Sync + 'static,
    {
        ScopeRule(Arc::new(move |input| {
            // Read from the map in place: a clone of the arguments per check is avoidable.
            let map = serde::de::value::MapDeserializer::<_, serde_json::Error>::new(
                input.iter().map(|(k, v)| (k.as_str(), v)),
            );
            let typed = T::deserialize(map).map_err(|e| e.to_string())?;
            Ok(f(&typed))
        }))
    }

    /// This rule's scopes and `other`'s.
    pub fn and(self, other: ScopeRule) -> Self {
        ScopeRule(Arc::new(move |input| {
            let mut scopes = (self.0)(input)?;
            for scope in (other.0)(input)? {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
            Ok(scopes)
        }))
    }

    /// The scopes this rule requires of a request with `input`, or why it cannot tell.
    pub fn scopes(&self, input: &JsonObject) -> Result<Vec<String>, String> {
        (self.0)(input)
    }
}

/// `scope` with each `{name}` replaced by `input[name]`.
fn fill(scope: &str, input: &JsonObject) -> Result<String, String> {
    let mut out = String::with_capacity(scope.len());
    let mut rest = scope;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("scope {scope:?} has an unclosed `{{`"))?;
        let name = &after[..close];
        match input.get(name) {
            Some(Value::String(s)) => out.push_str(s),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => out.push_str(&v.to_string()),
            _ => {
                return Err(format!(
                    "`{name}` must be a string, number or boolean: the scope {scope:?} depends on it"
                ));
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What an item requires: its fixed scopes and its rule, if any.
#[derive(Clone, Debug, Default)]
pub(crate) struct Required {
    fixed: Arc<[String]>,
    rule: Option<ScopeRule>,
}

impl Required {
    pub(crate) fn new(fixed: Vec<String>, rule: Option<ScopeRule>) -> Self {
        Required {
            fixed: fixed.into(),
            rule,
        }
    }

    /// Whether the item requires any scope (or may, depending on the request).
    pub(crate) fn any(&self) -> bool {
        !self.fixed.is_empty() || self.rule.is_some()
    }

    /// The scopes every request needs (what list filtering can check without a request).
    pub(crate) fn fixed(&self) -> &[String] {
        &self.fixed
    }

    /// The scopes a request needs, `input` made only for a rule to read: `-32602` when the
    /// rule cannot tell.
    pub(crate) fn of<'i>(
        &self,
        input: impl FnOnce() -> Cow<'i, JsonObject>,
    ) -> Result<Cow<'_, [String]>, ErrorObject> {
        let Some(rule) = &self.rule else {
            return Ok(Cow::Borrowed(&self.fixed));
        };
        let mut all = self.fixed.to_vec();
        let computed = rule.scopes(&input()).map_err(|e| {
            ErrorObject::invalid_params(format!("the scopes this request needs: {e}"))
        })?;
        for scope in computed {
            if !all.contains(&scope) {
                all.push(scope);
            }
        }
        Ok(Cow::Owned(all))
    }
}

/// A resource template's variables as the input of its rule: an object of strings.
pub(crate) fn variables(vars: std::collections::HashMap<String, String>) -> JsonObject {
    vars.into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn placeholders_take_strings_numbers_and_booleans_and_refuse_the_rest() {
        let rule = ScopeRule::template(["a:{s}", "b:{n}:{f}", "plain"]);
        let input = obj(json!({"s": "x", "n": 12, "f": true}));
        assert_eq!(rule.scopes(&input).unwrap(), ["a:x", "b:12:true", "plain"]);
        for bad in [
            json!({"n": 1, "f": true}),
            json!({"s": null, "n": 1, "f": true}),
            json!({"s": [1], "n": 1, "f": true}),
        ] {
            let e = rule.scopes(&obj(bad)).unwrap_err();
            assert!(e.contains("`s`"), "{e}");
        }
        assert!(
            ScopeRule::template(["a:{x"])
                .scopes(&input)
                .unwrap_err()
                .contains("unclosed")
        );
    }

    #[test]
    fn required_adds_the_rule_to_the_fixed_scopes_once_each() {
        let required = Required::new(
            vec!["read".into()],
            Some(ScopeRule::template(["read", "item:{id}"])),
        );
        assert!(required.any());
        assert_eq!(required.fixed(), ["read"]);
        let scopes = required.of(|| Cow::Owned(obj(json!({"id": "7"})))).unwrap();
        assert_eq!(&*scopes, ["read", "item:7"]);
        let error = required.of(|| Cow::Owned(obj(json!({})))).unwrap_err();
        assert_eq!(error.code, crate::protocol::INVALID_PARAMS);
        assert!(!Required::default().any());
        let fixed = Required::new(vec!["read".into()], None);
        let scopes = fixed
            .of(|| unreachable!("no rule reads the input"))
            .unwrap();
        assert_eq!(&*scopes, ["read"]);
    }

    #[test]
    fn a_typed_rule_refuses_arguments_that_do_not_read() {
        #[derive(serde::Deserialize)]
        struct Args {
            id: u32,
        }
        let rule = ScopeRule::typed(|a: &Args| vec![format!("item:{}", a.id)]);
        assert_eq!(
            rule.scopes(&obj(json!({"id": 4, "x": 1}))).unwrap(),
            ["item:4"]
        );
        assert!(rule.scopes(&obj(json!({"id": "four"}))).is_err());
    }
}
