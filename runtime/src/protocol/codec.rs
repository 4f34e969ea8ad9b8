//! Request params in, results out: the typed view of a message's `params` and `result`,
//! with failures mapped to the JSON-RPC errors the spec names.

use super::ErrorObject;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Decodes request params into their type, mapping failures to `-32602`.
pub(crate) fn decode<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    serde_json::from_value(params.unwrap_or(Value::Object(Default::default())))
        .map_err(ErrorObject::invalid_params)
}

pub(crate) fn decode_or_default<T: DeserializeOwned + Default>(
    params: Option<Value>,
) -> Result<T, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v).map_err(ErrorObject::invalid_params),
    }
}

/// Encodes a result, mapping (impossible in practice) failures to `-32603`.
pub(crate) fn encode<T: Serialize>(value: T) -> Result<Value, ErrorObject> {
    serde_json::to_value(value).map_err(ErrorObject::internal)
}
