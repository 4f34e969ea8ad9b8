//! Reading a JSON value the peer sent, without building anything from it.

use serde_json::Value;

/// `value[key]`, when `value` is an object that has it. A request's params and `_meta` have
/// a handful of members: they are compared in order, which is cheaper than hashing `key`
/// (the ordered map `serde_json` keeps hashes every lookup). A larger object is looked up
/// by hash. The result is the map's own: a duplicated member was kept once, its last value.
pub(crate) fn member<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    /// Up to this many members, a scan beats a hash.
    const SCANNED: usize = 8;
    let object = value.as_object()?;
    if object.len() <= SCANNED {
        object.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        object.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_member_is_found_the_same_way_in_small_and_large_objects() {
        let small = json!({"name": "echo", "arguments": {}, "_meta": {"progressToken": 7}});
        let mut large = small.clone();
        for i in 0..20 {
            large[format!("extra{i}")] = json!(i);
        }
        for object in [&small, &large] {
            assert_eq!(member(object, "name"), Some(&json!("echo")));
            assert_eq!(
                member(member(object, "_meta").unwrap(), "progressToken"),
                Some(&json!(7))
            );
            assert_eq!(member(object, "uri"), None);
        }
        assert_eq!(member(&large, "extra19"), Some(&json!(19)));
        assert_eq!(member(&json!(["name"]), "name"), None);
        assert_eq!(member(&Value::Null, "name"), None);
    }

    #[test]
    fn a_repeated_member_reads_as_the_parser_kept_it() {
        let parsed: Value = serde_json::from_str(r#"{"name": "a", "x": 1, "name": "b"}"#).unwrap();
        assert_eq!(member(&parsed, "name"), parsed.get("name"));
    }
}
