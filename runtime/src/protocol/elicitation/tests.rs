use super::*;

/// What the params serialised to through a value tree (the former implementation).
fn via_value(params: &ElicitRequestParams) -> String {
    let (mode, value) = match params {
        ElicitRequestParams::Form(f) => ("form", serde_json::to_value(f).unwrap()),
        ElicitRequestParams::Url(u) => ("url", serde_json::to_value(u).unwrap()),
    };
    let mut value = value;
    value
        .as_object_mut()
        .unwrap()
        .insert("mode".into(), mode.into());
    serde_json::to_string(&value).unwrap()
}

#[test]
fn params_serialise_as_through_a_value_tree() {
    let mut properties = IndexMap::new();
    properties.insert(
        "name".to_owned(),
        PrimitiveSchemaDefinition::String(StringSchema {
            description: Some("Your \"name\"".into()),
            min_length: Some(1),
            ..Default::default()
        }),
    );
    let schema = ElicitationSchema {
        properties,
        required: Some(vec!["name".into()]),
        ..Default::default()
    };
    let mut meta = Meta::new();
    meta.insert("k".into(), serde_json::json!({"b": 1, "a": [1.5, null]}));
    let cases = [
        ElicitRequestParams::Form(ElicitRequestFormParams {
            message: "Who?".into(),
            requested_schema: schema.clone(),
            ..Default::default()
        }),
        ElicitRequestParams::Form(ElicitRequestFormParams {
            message: "Who\n?".into(),
            requested_schema: schema,
            task: Some(TaskMetadata { ttl: Some(5) }),
            meta: Some(meta.clone()),
        }),
        ElicitRequestParams::Url(ElicitRequestURLParams {
            message: "Sign in".into(),
            url: "https://a.example/".into(),
            elicitation_id: "e-1".into(),
            meta: Some(meta),
            ..Default::default()
        }),
    ];
    for params in &cases {
        assert_eq!(serde_json::to_string(params).unwrap(), via_value(params));
    }
}
