//! Finding a JSON value in a model's text answer: a fenced ```json block, or the first
//! balanced `{...}` / `[...]` that parses.

use serde_json::Value;

/// The JSON the text carries, or why none could be read.
pub fn extract(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Ok(v);
    }
    if let Some(fenced) = fenced_block(trimmed) {
        return serde_json::from_str(fenced.trim())
            .map_err(|e| format!("the ```json block is not valid JSON: {e}"));
    }
    for (start, open) in trimmed
        .char_indices()
        .filter(|(_, c)| *c == '{' || *c == '[')
    {
        let close = if open == '{' { '}' } else { ']' };
        for (end, _) in trimmed[start..].char_indices().filter(|(_, c)| *c == close) {
            if let Ok(v) = serde_json::from_str(&trimmed[start..start + end + 1]) {
                return Ok(v);
            }
        }
    }
    Err("the answer contains no JSON value".into())
}

fn fenced_block(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body_start = after.find('\n')? + 1;
    let body = &after[body_start..];
    let end = body.find("```")?;
    Some(&body[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_json_bare_fenced_and_embedded() {
        assert_eq!(extract(r#" {"a":1} "#), Ok(json!({"a":1})));
        assert_eq!(
            extract("Sure!\n```json\n{\"a\": 2}\n```\nDone."),
            Ok(json!({"a":2}))
        );
        assert_eq!(
            extract("The answer is {\"a\": 3} as requested."),
            Ok(json!({"a":3}))
        );
        assert!(extract("no json here").is_err());
        assert!(extract("```json\n{oops}\n```").is_err());
    }
}
