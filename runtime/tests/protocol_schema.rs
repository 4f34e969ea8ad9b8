//! Serialises representative values of every wire type and validates each against its
//! definition in the normative MCP 2025-11-25 `schema.json`; checks round trips, `_meta`
//! and unknown-field preservation, and single-or-array sampling content.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tracksuit::protocol::*;

fn schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/2025-11-25/schema.json"
    );
    let text = std::fs::read_to_string(path).expect("spec/2025-11-25/schema.json is in the repo");
    serde_json::from_str(&text).expect("schema.json parses")
}

/// Validates `value` against `#/$defs/{definition}`; returns the errors.
fn errors(schema: &Value, definition: &str, value: &Value) -> Vec<String> {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{definition}"),
        "$defs": schema["$defs"],
    });
    let validator = jsonschema::validator_for(&root).expect("schema compiles");
    validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

struct Checker {
    schema: Value,
    failures: Vec<String>,
    checked: Vec<&'static str>,
}

impl Checker {
    /// Serialises `item`, validates it against `definition`, and checks it round-trips.
    fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
        &mut self,
        definition: &'static str,
        item: &T,
    ) {
        let value = serde_json::to_value(item).expect("serialises");
        for e in errors(&self.schema, definition, &value) {
            self.failures
                .push(format!("{definition}: {e}\n    value: {value}"));
        }
        let back: T = serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("{definition} deserialises: {e}: {value}"));
        if &back != item {
            self.failures.push(format!(
                "{definition}: round trip changed the value: {value}"
            ));
        }
        self.checked.push(definition);
    }

    /// Validates a raw JSON value (envelopes and unions built around typed params).
    fn check_value(&mut self, definition: &'static str, value: Value) {
        for e in errors(&self.schema, definition, &value) {
            self.failures
                .push(format!("{definition}: {e}\n    value: {value}"));
        }
        self.checked.push(definition);
    }
}

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn meta() -> Option<Meta> {
    Some(obj(json!({"example.com/trace": "abc"})))
}

fn icon() -> Icon {
    Icon {
        src: "https://example.com/i.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: Some(IconTheme::Dark),
    }
}

fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    }
}

fn tool() -> Tool {
    Tool {
        name: "get_weather".into(),
        title: Some("Weather".into()),
        description: Some("Get the weather".into()),
        input_schema: obj(
            json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}),
        ),
        output_schema: Some(obj(
            json!({"type":"object","properties":{"t":{"type":"number"}}}),
        )),
        annotations: Some(ToolAnnotations {
            title: Some("Weather".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
        }),
        execution: Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
        }),
        icons: Some(vec![icon()]),
        meta: meta(),
        extra: JsonObject::new(),
    }
}

fn every_content() -> Vec<ContentBlock> {
    vec![
        ContentBlock::Text(TextContent {
            text: "hi".into(),
            annotations: Some(annotations()),
            meta: meta(),
        }),
        ContentBlock::image("iVBORw0KGgo=", "image/png"),
        ContentBlock::audio("UklGRg==", "audio/wav"),
        ContentBlock::ResourceLink(ResourceLink {
            uri: "file:///a.txt".into(),
            name: "a".into(),
            title: Some("A".into()),
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            size: Some(3),
            icons: Some(vec![icon()]),
            annotations: Some(annotations()),
            meta: meta(),
        }),
        ContentBlock::embedded(ResourceContents::text_with_mime(
            "file:///a.txt",
            "text/plain",
            "abc",
        )),
        ContentBlock::embedded(ResourceContents::blob_with_mime(
            "file:///b.bin",
            "application/octet-stream",
            "AAEC",
        )),
    ]
}

fn tool_use(id: &str) -> SamplingMessageContentBlock {
    SamplingMessageContentBlock::ToolUse(ToolUseContent {
        id: id.into(),
        name: "get_weather".into(),
        input: obj(json!({"city":"Paris"})),
        meta: None,
    })
}

fn task(status: TaskStatus) -> Task {
    Task {
        task_id: "t-1".into(),
        status,
        status_message: Some("working on it".into()),
        created_at: "2025-11-25T10:30:00Z".into(),
        last_updated_at: "2025-11-25T10:31:00Z".into(),
        ttl: Some(60000),
        poll_interval: Some(5000),
    }
}

fn form(properties: Vec<(&str, PrimitiveSchemaDefinition)>) -> ElicitRequestFormParams {
    ElicitRequestFormParams {
        message: "Please fill in".into(),
        requested_schema: ElicitationSchema {
            schema: None,
            kind: ObjectType::Object,
            properties: properties
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect::<tracksuit::protocol::IndexMap<_, _>>(),
            required: Some(vec![]),
        },
        task: None,
        meta: None,
    }
}

fn opts() -> Vec<TitledOption> {
    vec![
        TitledOption {
            value: "v1".into(),
            title: "First".into(),
        },
        TitledOption {
            value: "v2".into(),
            title: "Second".into(),
        },
    ]
}

#[test]
fn every_type_validates_against_schema_json() {
    let mut c = Checker {
        schema: schema(),
        failures: Vec::new(),
        checked: Vec::new(),
    };

    // basic / lifecycle
    let client_caps = ClientCapabilities {
        experimental: Some(obj(json!({"x": {}}))),
        roots: Some(RootsCapability {
            list_changed: Some(true),
        }),
        sampling: Some(SamplingCapability {
            context: Some(JsonObject::new()),
            tools: Some(JsonObject::new()),
        }),
        elicitation: Some(ElicitationCapability {
            form: Some(JsonObject::new()),
            url: Some(JsonObject::new()),
        }),
        tasks: Some(TasksCapability {
            list: Some(JsonObject::new()),
            cancel: Some(JsonObject::new()),
            requests: Some(obj(
                json!({"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}),
            )),
            extra: JsonObject::new(),
        }),
        extra: JsonObject::new(),
    };
    c.check("ClientCapabilities", &client_caps);
    let server_caps = ServerCapabilities {
        experimental: None,
        logging: Some(JsonObject::new()),
        completions: Some(JsonObject::new()),
        prompts: Some(ListChangedCapability {
            list_changed: Some(true),
        }),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        tools: Some(ListChangedCapability {
            list_changed: Some(true),
        }),
        tasks: Some(TasksCapability {
            list: Some(JsonObject::new()),
            cancel: Some(JsonObject::new()),
            requests: Some(obj(json!({"tools": {"call": {}}}))),
            extra: JsonObject::new(),
        }),
        extra: JsonObject::new(),
    };
    c.check("ServerCapabilities", &server_caps);
    let implementation = Implementation {
        name: "srv".into(),
        title: Some("Server".into()),
        version: "1.0.0".into(),
        description: Some("d".into()),
        icons: Some(vec![icon()]),
        website_url: Some("https://example.com".into()),
        extra: JsonObject::new(),
    };
    c.check("Implementation", &implementation);
    c.check("Icon", &icon());
    c.check("Annotations", &annotations());
    c.check(
        "InitializeRequestParams",
        &InitializeRequestParams {
            protocol_version: "2025-11-25".into(),
            capabilities: client_caps,
            client_info: implementation.clone(),
            meta: meta(),
        },
    );
    c.check(
        "InitializeResult",
        &InitializeResult {
            protocol_version: "2025-11-25".into(),
            capabilities: server_caps,
            server_info: implementation,
            instructions: Some("use me".into()),
            meta: meta(),
            extra: JsonObject::new(),
        },
    );
    c.check("RequestParams", &RequestParams { meta: meta() });
    c.check(
        "PaginatedRequestParams",
        &PaginatedRequestParams {
            cursor: Some("abc".into()),
            meta: None,
        },
    );
    c.check("EmptyResult", &EmptyResult::default());
    c.check(
        "CancelledNotificationParams",
        &CancelledNotificationParams {
            request_id: Some(RequestId::String("r1".into())),
            reason: Some("user".into()),
            meta: None,
        },
    );
    c.check(
        "ProgressNotificationParams",
        &ProgressNotificationParams {
            progress_token: ProgressToken::Number(3),
            progress: 50.0,
            total: Some(100.0),
            message: Some("half".into()),
            meta: None,
        },
    );
    c.check("ProgressToken", &ProgressToken::String("tok".into()));
    c.check("RequestId", &RequestId::Number(7));
    c.check(
        "Error",
        &ErrorObject::invalid_params("bad").with_data(json!({"field": "x"})),
    );

    // JSON-RPC envelopes
    c.check_value(
        "JSONRPCRequest",
        serde_json::to_value(JsonRpcMessage::request(1.into(), "ping", None)).unwrap(),
    );
    c.check_value(
        "JSONRPCNotification",
        serde_json::to_value(JsonRpcMessage::notification(
            "notifications/initialized",
            None,
        ))
        .unwrap(),
    );
    c.check_value(
        "JSONRPCResultResponse",
        serde_json::to_value(JsonRpcMessage::Response(
            JsonRpcResponse::new(1.into(), &json!({})).unwrap(),
        ))
        .unwrap(),
    );
    c.check_value(
        "JSONRPCErrorResponse",
        serde_json::to_value(JsonRpcMessage::error(
            Some(1.into()),
            ErrorObject::method_not_found("x"),
        ))
        .unwrap(),
    );
    let url_required = JsonRpcMessage::error(
        Some(2.into()),
        ErrorObject::new(URL_ELICITATION_REQUIRED, "authorization required").with_data(
            serde_json::to_value(UrlElicitationRequiredData {
                elicitations: vec![ElicitRequestURLParams {
                    mode: UrlMode::Url,
                    message: "Sign in".into(),
                    url: "https://example.com/auth".into(),
                    elicitation_id: "e1".into(),
                    task: None,
                    meta: None,
                }],
            })
            .unwrap(),
        ),
    );
    c.check_value(
        "URLElicitationRequiredError",
        serde_json::to_value(url_required).unwrap(),
    );

    // content
    for block in every_content() {
        let def = match &block {
            ContentBlock::Text(_) => "TextContent",
            ContentBlock::Image(_) => "ImageContent",
            ContentBlock::Audio(_) => "AudioContent",
            ContentBlock::ResourceLink(_) => "ResourceLink",
            ContentBlock::Resource(_) => "EmbeddedResource",
        };
        c.check(def, &block);
        c.check("ContentBlock", &block);
    }
    c.check(
        "TextResourceContents",
        &TextResourceContents {
            uri: "file:///a".into(),
            mime_type: Some("text/plain".into()),
            text: "a".into(),
            meta: meta(),
        },
    );
    c.check(
        "BlobResourceContents",
        &BlobResourceContents {
            uri: "file:///b".into(),
            mime_type: None,
            blob: "AA==".into(),
            meta: None,
        },
    );
    c.check("ToolUseContent", &tool_use("tu-1"));
    let tool_result = SamplingMessageContentBlock::ToolResult(ToolResultContent {
        tool_use_id: "tu-1".into(),
        content: every_content(),
        structured_content: Some(obj(json!({"t": 21}))),
        is_error: Some(false),
        meta: None,
    });
    c.check("ToolResultContent", &tool_result);
    c.check("SamplingMessageContentBlock", &tool_result);

    // tools
    c.check("Tool", &tool());
    c.check("ToolAnnotations", &tool().annotations.unwrap());
    c.check("ToolExecution", &tool().execution.unwrap());
    c.check(
        "ListToolsResult",
        &ListToolsResult {
            tools: vec![tool()],
            next_cursor: Some("n".into()),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "CallToolRequestParams",
        &CallToolRequestParams {
            name: "get_weather".into(),
            arguments: Some(obj(json!({"city":"Paris"}))),
            task: Some(TaskMetadata { ttl: Some(60000) }),
            meta: Some(obj(json!({"progressToken": "p1"}))),
        },
    );
    c.check(
        "CallToolResult",
        &CallToolResult {
            content: every_content(),
            structured_content: Some(obj(json!({"t": 21}))),
            is_error: Some(false),
            meta: meta(),
            extra: JsonObject::new(),
        },
    );
    c.check("CallToolResult", &CallToolResult::error_text("boom"));
    c.check(
        "CallToolResult",
        &CallToolResult::structured(obj(json!({"sum": 3}))),
    );

    // resources
    let resource = Resource {
        uri: "file:///a.txt".into(),
        name: "a".into(),
        title: Some("A".into()),
        description: Some("d".into()),
        mime_type: Some("text/plain".into()),
        size: Some(3),
        icons: Some(vec![icon()]),
        annotations: Some(annotations()),
        meta: meta(),
        extra: JsonObject::new(),
    };
    c.check("Resource", &resource);
    let template = ResourceTemplate {
        uri_template: "file:///{path}".into(),
        name: "files".into(),
        title: None,
        description: Some("d".into()),
        mime_type: Some("text/plain".into()),
        icons: None,
        annotations: Some(annotations()),
        meta: None,
        extra: JsonObject::new(),
    };
    c.check("ResourceTemplate", &template);
    c.check(
        "ListResourcesResult",
        &ListResourcesResult {
            resources: vec![resource],
            next_cursor: None,
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "ListResourceTemplatesResult",
        &ListResourceTemplatesResult {
            resource_templates: vec![template],
            next_cursor: Some("x".into()),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    let rr = ResourceRequestParams {
        uri: "file:///a.txt".into(),
        meta: None,
    };
    for def in [
        "ReadResourceRequestParams",
        "SubscribeRequestParams",
        "UnsubscribeRequestParams",
        "ResourceUpdatedNotificationParams",
        "ResourceRequestParams",
    ] {
        c.check(def, &rr);
    }
    c.check(
        "ReadResourceResult",
        &ReadResourceResult::new(vec![
            ResourceContents::text("file:///a.txt", "a"),
            ResourceContents::blob("file:///b", "AA=="),
        ]),
    );

    // prompts
    let prompt = Prompt {
        name: "review".into(),
        title: Some("Review".into()),
        description: Some("d".into()),
        arguments: Some(vec![PromptArgument {
            name: "code".into(),
            title: Some("Code".into()),
            description: Some("the code".into()),
            required: Some(true),
        }]),
        icons: Some(vec![icon()]),
        meta: None,
        extra: JsonObject::new(),
    };
    c.check("Prompt", &prompt);
    c.check("PromptArgument", &prompt.arguments.clone().unwrap()[0]);
    c.check(
        "ListPromptsResult",
        &ListPromptsResult {
            prompts: vec![prompt],
            next_cursor: None,
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "GetPromptRequestParams",
        &GetPromptRequestParams {
            name: "review".into(),
            arguments: Some([("code".to_owned(), "x".to_owned())].into()),
            meta: None,
        },
    );
    let messages: Vec<PromptMessage> = every_content()
        .into_iter()
        .map(PromptMessage::user)
        .chain([PromptMessage::assistant_text("ok")])
        .collect();
    c.check("PromptMessage", &messages[0]);
    c.check(
        "GetPromptResult",
        &GetPromptResult {
            description: Some("d".into()),
            messages,
            meta: None,
            extra: JsonObject::new(),
        },
    );

    // completion
    c.check("PromptReference", &PromptReference::new("review"));
    c.check(
        "ResourceTemplateReference",
        &ResourceTemplateReference::new("file:///{path}"),
    );
    c.check_value(
        "PromptReference",
        serde_json::to_value(CompletionReference::Prompt(PromptReference::new("p"))).unwrap(),
    );
    c.check_value(
        "ResourceTemplateReference",
        serde_json::to_value(CompletionReference::Resource(
            ResourceTemplateReference::new("u"),
        ))
        .unwrap(),
    );
    c.check(
        "CompleteRequestParams",
        &CompleteRequestParams {
            reference: CompletionReference::Prompt(PromptReference::new("review")),
            argument: CompletionArgument {
                name: "code".into(),
                value: "fn".into(),
            },
            context: Some(CompletionContext {
                arguments: Some([("lang".to_owned(), "rust".to_owned())].into()),
            }),
            meta: None,
        },
    );
    c.check(
        "CompleteResult",
        &CompleteResult {
            completion: Completion {
                values: vec!["fn main".into()],
                total: Some(1),
                has_more: Some(false),
            },
            meta: None,
        },
    );

    // logging
    for level in [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ] {
        c.check("LoggingLevel", &level);
    }
    c.check(
        "SetLevelRequestParams",
        &SetLevelRequestParams {
            level: LoggingLevel::Warning,
            meta: None,
        },
    );
    c.check(
        "LoggingMessageNotificationParams",
        &LoggingMessageNotificationParams {
            level: LoggingLevel::Error,
            logger: Some("db".into()),
            data: json!({"error": "x"}),
            meta: None,
        },
    );

    // sampling (SEP-1577)
    let request = CreateMessageRequestParams {
        messages: vec![
            SamplingMessage::user_text("What's the weather in Paris and London?"),
            SamplingMessage {
                role: Role::Assistant,
                content: OneOrMany::Many(vec![tool_use("a"), tool_use("b")]),
                meta: None,
            },
            SamplingMessage {
                role: Role::User,
                content: OneOrMany::Many(vec![tool_result.clone()]),
                meta: None,
            },
            SamplingMessage {
                role: Role::User,
                content: OneOrMany::One(SamplingMessageContentBlock::Image(ImageContent {
                    data: "AA==".into(),
                    mime_type: "image/png".into(),
                    annotations: None,
                    meta: None,
                })),
                meta: None,
            },
        ],
        model_preferences: Some(ModelPreferences {
            hints: Some(vec![ModelHint {
                name: Some("claude".into()),
            }]),
            cost_priority: Some(0.3),
            speed_priority: Some(0.8),
            intelligence_priority: Some(0.5),
        }),
        system_prompt: Some("You are helpful".into()),
        include_context: Some(IncludeContext::ThisServer),
        temperature: Some(0.2),
        max_tokens: 1000,
        stop_sequences: Some(vec!["STOP".into()]),
        metadata: Some(obj(json!({"provider": "x"}))),
        tools: Some(vec![tool()]),
        tool_choice: Some(ToolChoice {
            mode: Some(ToolChoiceMode::Required),
        }),
        task: Some(TaskMetadata { ttl: Some(1000) }),
        meta: None,
    };
    c.check("CreateMessageRequestParams", &request);
    c.check("SamplingMessage", &request.messages[1]);
    c.check(
        "ModelPreferences",
        request.model_preferences.as_ref().unwrap(),
    );
    c.check(
        "ModelHint",
        &ModelHint {
            name: Some("sonnet".into()),
        },
    );
    for mode in [
        ToolChoiceMode::Auto,
        ToolChoiceMode::Required,
        ToolChoiceMode::None,
    ] {
        c.check("ToolChoice", &ToolChoice { mode: Some(mode) });
    }
    for reason in [
        "endTurn",
        "stopSequence",
        "maxTokens",
        "toolUse",
        "refusal",
        "other",
        "somethingNew",
    ] {
        let result = CreateMessageResult {
            role: Role::Assistant,
            content: OneOrMany::Many(vec![tool_use("a"), tool_use("b")]),
            model: "m".into(),
            stop_reason: Some(StopReason::from(reason)),
            meta: None,
            extra: obj(json!({"usage": {"inputTokens": 3}})),
        };
        c.check("CreateMessageResult", &result);
        assert_eq!(serde_json::to_value(&result).unwrap()["stopReason"], reason);
    }
    c.check(
        "CreateMessageResult",
        &CreateMessageResult {
            role: Role::Assistant,
            content: OneOrMany::One(SamplingMessageContentBlock::text("hi")),
            model: "m".into(),
            stop_reason: None,
            meta: None,
            extra: JsonObject::new(),
        },
    );

    // elicitation (SEP-1330 enums, SEP-1034 defaults, URL mode)
    let string = PrimitiveSchemaDefinition::String(StringSchema {
        kind: StringType::String,
        title: Some("Email".into()),
        description: Some("d".into()),
        min_length: Some(3),
        max_length: Some(64),
        format: Some(StringFormat::Email),
        default: Some("a@b.c".into()),
    });
    let number = PrimitiveSchemaDefinition::Number(NumberSchema {
        kind: NumberType::Integer,
        title: Some("Age".into()),
        description: None,
        minimum: Some(0.into()),
        maximum: Some(150.into()),
        default: Some(30.into()),
    });
    let boolean = PrimitiveSchemaDefinition::Boolean(BooleanSchema {
        kind: BooleanType::Boolean,
        title: None,
        description: Some("ok?".into()),
        default: Some(true),
    });
    let untitled =
        PrimitiveSchemaDefinition::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
            kind: StringType::String,
            title: None,
            description: None,
            values: vec!["a".into(), "b".into()],
            default: Some("a".into()),
        });
    let titled = PrimitiveSchemaDefinition::TitledSingleSelect(TitledSingleSelectEnumSchema {
        kind: StringType::String,
        title: Some("Pick".into()),
        description: None,
        one_of: opts(),
        default: Some("v1".into()),
    });
    let legacy = PrimitiveSchemaDefinition::LegacyTitledEnum(LegacyTitledEnumSchema {
        kind: StringType::String,
        title: None,
        description: None,
        values: vec!["o1".into(), "o2".into()],
        enum_names: vec!["One".into(), "Two".into()],
        default: Some("o2".into()),
    });
    let untitled_multi =
        PrimitiveSchemaDefinition::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
            kind: ArrayType::Array,
            title: None,
            description: None,
            min_items: Some(1),
            max_items: Some(2),
            items: UntitledItems {
                kind: StringType::String,
                values: vec!["x".into(), "y".into()],
            },
            default: Some(vec!["x".into()]),
        });
    let titled_multi = PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema {
        kind: ArrayType::Array,
        title: None,
        description: None,
        min_items: None,
        max_items: Some(2),
        items: TitledItems { any_of: opts() },
        default: Some(vec!["v2".into()]),
    });
    for (def, p) in [
        ("StringSchema", &string),
        ("NumberSchema", &number),
        ("BooleanSchema", &boolean),
        ("UntitledSingleSelectEnumSchema", &untitled),
        ("TitledSingleSelectEnumSchema", &titled),
        ("LegacyTitledEnumSchema", &legacy),
        ("UntitledMultiSelectEnumSchema", &untitled_multi),
        ("TitledMultiSelectEnumSchema", &titled_multi),
    ] {
        c.check(def, p);
        c.check("PrimitiveSchemaDefinition", p);
    }
    for p in [&untitled, &titled, &legacy, &untitled_multi, &titled_multi] {
        c.check("EnumSchema", p);
    }
    let all_fields = form(vec![
        ("email", string),
        ("age", number),
        ("ok", boolean),
        ("u", untitled),
        ("t", titled),
        ("l", legacy),
        ("um", untitled_multi),
        ("tm", titled_multi),
    ]);
    c.check("ElicitRequestFormParams", &all_fields);
    c.check(
        "ElicitRequestParams",
        &ElicitRequestParams::Form(all_fields),
    );
    let url = ElicitRequestURLParams {
        mode: UrlMode::Url,
        message: "Authorize".into(),
        url: "https://example.com/oauth".into(),
        elicitation_id: "e-1".into(),
        task: None,
        meta: None,
    };
    c.check("ElicitRequestURLParams", &url);
    c.check("ElicitRequestParams", &ElicitRequestParams::Url(url));
    c.check(
        "ElicitResult",
        &ElicitResult {
            action: ElicitAction::Accept,
            content: Some(obj(
                json!({"email": "a@b.c", "age": 30, "ok": true, "um": ["x"]}),
            )),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "ElicitResult",
        &ElicitResult {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check_value("ElicitationCompleteNotification", json!({"jsonrpc":"2.0","method":"notifications/elicitation/complete","params": serde_json::to_value(ElicitationCompleteNotificationParams { elicitation_id: "e-1".into() }).unwrap()}));

    // roots
    let root = Root {
        uri: "file:///home/me/project".into(),
        name: Some("project".into()),
        meta: None,
    };
    c.check("Root", &root);
    c.check(
        "ListRootsResult",
        &ListRootsResult {
            roots: vec![root],
            meta: None,
            extra: JsonObject::new(),
        },
    );

    // tasks
    for status in [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ] {
        c.check("TaskStatus", &status);
        c.check("Task", &task(status));
    }
    c.check(
        "Task",
        &Task {
            ttl: None,
            poll_interval: None,
            status_message: None,
            ..task(TaskStatus::Working)
        },
    );
    c.check("TaskMetadata", &TaskMetadata { ttl: Some(60000) });
    c.check(
        "RelatedTaskMetadata",
        &RelatedTaskMetadata {
            task_id: "t-1".into(),
        },
    );
    c.check(
        "CreateTaskResult",
        &CreateTaskResult {
            task: task(TaskStatus::Working),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "GetTaskResult",
        &GetTaskResult {
            task: task(TaskStatus::Completed),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "CancelTaskResult",
        &GetTaskResult {
            task: task(TaskStatus::Cancelled),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "TaskStatusNotificationParams",
        &GetTaskResult {
            task: task(TaskStatus::InputRequired),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "ListTasksResult",
        &ListTasksResult {
            tasks: vec![task(TaskStatus::Working)],
            next_cursor: Some("c".into()),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check(
        "GetTaskPayloadResult",
        &obj(json!({"content": [{"type": "text", "text": "done"}]})),
    );

    // the SEP-1330 enum unions
    let titled_single = TitledSingleSelectEnumSchema {
        kind: StringType::String,
        title: Some("Pick".into()),
        description: None,
        one_of: opts(),
        default: Some("v1".into()),
    };
    let untitled_single = UntitledSingleSelectEnumSchema {
        kind: StringType::String,
        title: None,
        description: None,
        values: vec!["a".into(), "b".into()],
        default: None,
    };
    let titled_many = TitledMultiSelectEnumSchema {
        kind: ArrayType::Array,
        title: None,
        description: None,
        min_items: Some(0),
        max_items: None,
        items: TitledItems { any_of: opts() },
        default: Some(vec![]),
    };
    let untitled_many = UntitledMultiSelectEnumSchema {
        kind: ArrayType::Array,
        title: None,
        description: None,
        min_items: None,
        max_items: None,
        items: UntitledItems {
            kind: StringType::String,
            values: vec!["x".into()],
        },
        default: None,
    };
    let singles = [
        SingleSelectEnumSchema::Titled(titled_single),
        SingleSelectEnumSchema::Untitled(untitled_single),
    ];
    let multis = [
        MultiSelectEnumSchema::Titled(titled_many),
        MultiSelectEnumSchema::Untitled(untitled_many),
    ];
    for single in singles {
        c.check("SingleSelectEnumSchema", &single);
        let e = EnumSchema::from(single);
        c.check("EnumSchema", &e);
        c.check(
            "PrimitiveSchemaDefinition",
            &PrimitiveSchemaDefinition::from(e),
        );
    }
    for multi in multis {
        c.check("MultiSelectEnumSchema", &multi);
        let e = EnumSchema::from(multi);
        c.check("EnumSchema", &e);
        c.check(
            "PrimitiveSchemaDefinition",
            &PrimitiveSchemaDefinition::from(e),
        );
    }
    let legacy = EnumSchema::LegacyTitledEnum(LegacyTitledEnumSchema {
        kind: StringType::String,
        title: None,
        description: None,
        values: vec!["o1".into()],
        enum_names: vec!["One".into()],
        default: None,
    });
    c.check("EnumSchema", &legacy);

    // base definitions and mixins
    c.check("NotificationParams", &NotificationParams { meta: meta() });
    c.check("Cursor", &Cursor::from("opaque"));
    c.check(
        "TaskAugmentedRequestParams",
        &CallToolRequestParams {
            name: "t".into(),
            task: Some(TaskMetadata { ttl: None }),
            ..Default::default()
        },
    );
    c.check("BaseMetadata", &tool());
    c.check("Icons", &tool());
    c.check(
        "Result",
        &EmptyResult {
            meta: meta(),
            extra: obj(json!({"anything": [1]})),
        },
    );
    c.check(
        "PaginatedResult",
        &ListToolsResult {
            tools: vec![],
            next_cursor: Some("n".into()),
            meta: None,
            extra: JsonObject::new(),
        },
    );
    c.check_value(
        "Request",
        json!({"method": methods::TOOLS_LIST, "params": PaginatedRequestParams::default()}),
    );
    c.check_value(
        "PaginatedRequest",
        serde_json::to_value(JsonRpcMessage::request(
            9.into(),
            methods::PROMPTS_LIST,
            Some(json!(PaginatedRequestParams {
                cursor: Some("c".into()),
                meta: None
            })),
        ))
        .unwrap(),
    );
    c.check("Role", &Role::User);
    c.check("Role", &Role::Assistant);
    c.check("ResourceContents", &ResourceContents::text("a://b", "x"));
    c.check(
        "ResourceContents",
        &ResourceContents::blob_with_mime("a://c", "image/png", "AA=="),
    );
    c.check_value(
        "Notification",
        json!({"method": methods::INITIALIZED, "params": NotificationParams::default()}),
    );

    // every result type is a member of the union of its sender
    let call_result = serde_json::to_value(CallToolResult::text("ok")).unwrap();
    let results: Vec<(&'static str, Value)> = vec![
        ("ServerResult", json!({})),
        (
            "ServerResult",
            serde_json::to_value(InitializeResult {
                protocol_version: LATEST_PROTOCOL_VERSION.into(),
                server_info: Implementation::new("s", "1"),
                ..Default::default()
            })
            .unwrap(),
        ),
        ("ServerResult", call_result.clone()),
        (
            "ServerResult",
            serde_json::to_value(ListToolsResult::default()).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(ListPromptsResult::default()).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(ListResourcesResult::default()).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(ListResourceTemplatesResult::default()).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(ReadResourceResult::new(vec![ResourceContents::text(
                "a://b", "x",
            )]))
            .unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(GetPromptResult::new(vec![PromptMessage::user_text("x")]))
                .unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(CompleteResult::default()).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(GetTaskResult::new(task(TaskStatus::Working))).unwrap(),
        ),
        (
            "ServerResult",
            serde_json::to_value(ListTasksResult::default()).unwrap(),
        ),
        ("ServerResult", call_result),
        (
            "ClientResult",
            serde_json::to_value(CreateMessageResult {
                role: Role::Assistant,
                content: SamplingMessageContentBlock::text("x").into(),
                model: "m".into(),
                stop_reason: Some(StopReason::EndTurn),
                meta: None,
                extra: JsonObject::new(),
            })
            .unwrap(),
        ),
        (
            "ClientResult",
            serde_json::to_value(ListRootsResult {
                roots: vec![Root::new("file:///x")],
                ..Default::default()
            })
            .unwrap(),
        ),
        (
            "ClientResult",
            serde_json::to_value(ElicitResult {
                action: ElicitAction::Cancel,
                content: None,
                meta: None,
                extra: JsonObject::new(),
            })
            .unwrap(),
        ),
        (
            "ClientResult",
            serde_json::to_value(CreateTaskResult::new(task(TaskStatus::Working))).unwrap(),
        ),
    ];
    for (union, value) in results {
        c.check_value(union, value.clone());
        c.check_value(
            "JSONRPCResponse",
            serde_json::to_value(JsonRpcMessage::Response(
                JsonRpcResponse::new(5.into(), &value).unwrap(),
            ))
            .unwrap(),
        );
    }

    assert!(
        c.failures.is_empty(),
        "{} schema violations:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
    let mut distinct = c.checked.clone();
    distinct.sort();
    distinct.dedup();
    // Request/notification envelopes and the unions of them are covered by
    // `every_request_and_notification_envelope_validates`; everything else must be here.
    let defs = c.schema["$defs"].as_object().expect("$defs");
    let missing: Vec<&String> = defs
        .iter()
        .filter(|(name, def)| {
            let envelope = def["properties"]["method"]["const"].is_string();
            let union = matches!(
                name.as_str(),
                "ClientRequest"
                    | "ServerRequest"
                    | "ClientNotification"
                    | "ServerNotification"
                    | "JSONRPCMessage"
            );
            !envelope && !union && !distinct.contains(&name.as_str())
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        missing.is_empty(),
        "definitions with no value checked: {missing:?}"
    );
    println!(
        "validated {} values against {} of the schema's {} definitions here",
        c.checked.len(),
        distinct.len(),
        defs.len()
    );
}

#[test]
fn sampling_content_is_one_block_or_an_array() {
    let one: CreateMessageResult = serde_json::from_value(
        json!({"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}),
    )
    .unwrap();
    assert_eq!(one.content.len(), 1);
    assert!(matches!(one.content, OneOrMany::One(_)));
    let many: CreateMessageResult = serde_json::from_value(json!({
        "role":"assistant","model":"m","stopReason":"toolUse",
        "content":[{"type":"tool_use","id":"a","name":"w","input":{}},{"type":"tool_use","id":"b","name":"w","input":{"x":1}}]
    })).unwrap();
    assert_eq!(many.content.len(), 2);
    assert_eq!(many.stop_reason, Some(StopReason::ToolUse));
    let msg: SamplingMessage = serde_json::from_value(
        json!({"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]}]}),
    )
    .unwrap();
    assert!(matches!(msg.content, OneOrMany::Many(ref v) if v.len() == 1));
    let unknown: StopReason = serde_json::from_value(json!("pauseTurn")).unwrap();
    assert_eq!(unknown, StopReason::Other("pauseTurn".into()));
}

#[test]
fn meta_and_unknown_fields_survive_a_round_trip() {
    let input = json!({
        "content": [{"type":"text","text":"x","_meta":{"k":1}}],
        "_meta": {"io.example/trace": "t"},
        "vendorExtension": {"a": [1, 2]}
    });
    let result: CallToolResult = serde_json::from_value(input.clone()).unwrap();
    assert_eq!(result.extra["vendorExtension"], json!({"a": [1, 2]}));
    assert_eq!(serde_json::to_value(&result).unwrap(), input);

    let caps = json!({"sampling": {"tools": {}, "context": {}}, "elicitation": {"form": {}, "url": {}}, "futureCap": {"on": true}});
    let parsed: ClientCapabilities = serde_json::from_value(caps.clone()).unwrap();
    assert!(parsed.sampling.as_ref().unwrap().tools.is_some());
    assert!(parsed.elicitation.as_ref().unwrap().url.is_some());
    assert_eq!(serde_json::to_value(&parsed).unwrap(), caps);

    let tool = json!({"name":"t","inputSchema":{"type":"object"},"_meta":{"ui":"x"},"x-vendor":1});
    let parsed: Tool = serde_json::from_value(tool.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), tool);

    // A form elicitation without `mode` is form mode; with mode "url" it is URL mode.
    let form: ElicitRequestParams = serde_json::from_value(
        json!({"message":"m","requestedSchema":{"type":"object","properties":{}}}),
    )
    .unwrap();
    assert!(matches!(form, ElicitRequestParams::Form(_)));
    let url: ElicitRequestParams = serde_json::from_value(
        json!({"mode":"url","message":"m","url":"https://x","elicitationId":"e"}),
    )
    .unwrap();
    assert!(matches!(url, ElicitRequestParams::Url(_)));
    assert!(
        serde_json::from_value::<ElicitRequestParams>(json!({"mode":"telepathy","message":"m"}))
            .is_err()
    );
}

/// Every request and notification of the schema, built from the typed params and the
/// `methods` constants, validates as its envelope definition, as the matching
/// client/server union, and as a `JSONRPCMessage`.
#[test]
fn every_request_and_notification_envelope_validates() {
    let schema = schema();
    let id = || RequestId::Number(1);
    let to = |v: &dyn erased::Ser| v.value();
    let params: Vec<(&str, &str, Option<Value>, bool, &str)> = vec![
        (
            "InitializeRequest",
            methods::INITIALIZE,
            Some(to(&InitializeRequestParams {
                protocol_version: "2025-11-25".into(),
                capabilities: ClientCapabilities::default(),
                client_info: Implementation::new("c", "1"),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        ("PingRequest", methods::PING, None, true, "ClientRequest"),
        (
            "ListToolsRequest",
            methods::TOOLS_LIST,
            Some(to(&PaginatedRequestParams::default())),
            true,
            "ClientRequest",
        ),
        (
            "CallToolRequest",
            methods::TOOLS_CALL,
            Some(to(&CallToolRequestParams {
                name: "t".into(),
                arguments: Some(JsonObject::new()),
                task: None,
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "ListResourcesRequest",
            methods::RESOURCES_LIST,
            None,
            true,
            "ClientRequest",
        ),
        (
            "ListResourceTemplatesRequest",
            methods::RESOURCES_TEMPLATES_LIST,
            None,
            true,
            "ClientRequest",
        ),
        (
            "ReadResourceRequest",
            methods::RESOURCES_READ,
            Some(to(&ResourceRequestParams {
                uri: "a://b".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "SubscribeRequest",
            methods::RESOURCES_SUBSCRIBE,
            Some(to(&ResourceRequestParams {
                uri: "a://b".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "UnsubscribeRequest",
            methods::RESOURCES_UNSUBSCRIBE,
            Some(to(&ResourceRequestParams {
                uri: "a://b".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "ListPromptsRequest",
            methods::PROMPTS_LIST,
            None,
            true,
            "ClientRequest",
        ),
        (
            "GetPromptRequest",
            methods::PROMPTS_GET,
            Some(to(&GetPromptRequestParams {
                name: "p".into(),
                arguments: None,
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "CompleteRequest",
            methods::COMPLETION_COMPLETE,
            Some(to(&CompleteRequestParams {
                reference: CompletionReference::Prompt(PromptReference::new("p")),
                argument: CompletionArgument {
                    name: "a".into(),
                    value: "v".into(),
                },
                context: None,
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "SetLevelRequest",
            methods::LOGGING_SET_LEVEL,
            Some(to(&SetLevelRequestParams {
                level: LoggingLevel::Info,
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "GetTaskRequest",
            methods::TASKS_GET,
            Some(to(&TaskIdParams {
                task_id: "t".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "GetTaskPayloadRequest",
            methods::TASKS_RESULT,
            Some(to(&TaskIdParams {
                task_id: "t".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "CancelTaskRequest",
            methods::TASKS_CANCEL,
            Some(to(&TaskIdParams {
                task_id: "t".into(),
                meta: None,
            })),
            true,
            "ClientRequest",
        ),
        (
            "ListTasksRequest",
            methods::TASKS_LIST,
            None,
            true,
            "ClientRequest",
        ),
        (
            "CreateMessageRequest",
            methods::SAMPLING_CREATE_MESSAGE,
            Some(to(&CreateMessageRequestParams {
                messages: vec![SamplingMessage::user_text("hi")],
                max_tokens: 10,
                ..Default::default()
            })),
            true,
            "ServerRequest",
        ),
        (
            "ElicitRequest",
            methods::ELICITATION_CREATE,
            Some(to(&ElicitRequestParams::Url(ElicitRequestURLParams {
                mode: UrlMode::Url,
                message: "m".into(),
                url: "https://x".into(),
                elicitation_id: "e".into(),
                task: None,
                meta: None,
            }))),
            true,
            "ServerRequest",
        ),
        (
            "ListRootsRequest",
            methods::ROOTS_LIST,
            None,
            true,
            "ServerRequest",
        ),
        (
            "InitializedNotification",
            methods::INITIALIZED,
            None,
            false,
            "ClientNotification",
        ),
        (
            "CancelledNotification",
            methods::CANCELLED,
            Some(to(&CancelledNotificationParams {
                request_id: Some(id()),
                reason: None,
                meta: None,
            })),
            false,
            "ClientNotification",
        ),
        (
            "ProgressNotification",
            methods::PROGRESS,
            Some(to(&ProgressNotificationParams {
                progress_token: ProgressToken::String("p".into()),
                progress: 1.0,
                total: None,
                message: None,
                meta: None,
            })),
            false,
            "ServerNotification",
        ),
        (
            "RootsListChangedNotification",
            methods::ROOTS_LIST_CHANGED,
            None,
            false,
            "ClientNotification",
        ),
        (
            "LoggingMessageNotification",
            methods::MESSAGE,
            Some(to(&LoggingMessageNotificationParams::default())),
            false,
            "ServerNotification",
        ),
        (
            "ResourceUpdatedNotification",
            methods::RESOURCES_UPDATED,
            Some(to(&ResourceRequestParams {
                uri: "a://b".into(),
                meta: None,
            })),
            false,
            "ServerNotification",
        ),
        (
            "ResourceListChangedNotification",
            methods::RESOURCES_LIST_CHANGED,
            None,
            false,
            "ServerNotification",
        ),
        (
            "ToolListChangedNotification",
            methods::TOOLS_LIST_CHANGED,
            None,
            false,
            "ServerNotification",
        ),
        (
            "PromptListChangedNotification",
            methods::PROMPTS_LIST_CHANGED,
            None,
            false,
            "ServerNotification",
        ),
        (
            "ElicitationCompleteNotification",
            methods::ELICITATION_COMPLETE,
            Some(to(&ElicitationCompleteNotificationParams {
                elicitation_id: "e".into(),
            })),
            false,
            "ServerNotification",
        ),
        (
            "TaskStatusNotification",
            methods::TASKS_STATUS,
            Some(to(&GetTaskResult {
                task: task(TaskStatus::Working),
                meta: None,
                extra: JsonObject::new(),
            })),
            false,
            "ServerNotification",
        ),
    ];
    let mut failures = Vec::new();
    for (definition, method, p, is_request, union) in &params {
        let expected = schema["$defs"][definition]["properties"]["method"]["const"]
            .as_str()
            .unwrap_or_default();
        if expected != *method {
            failures.push(format!(
                "{definition}: methods constant {method:?} but the schema says {expected:?}"
            ));
        }
        let message = if *is_request {
            JsonRpcMessage::request(id(), *method, p.clone())
        } else {
            JsonRpcMessage::notification(*method, p.clone())
        };
        let value = serde_json::to_value(&message).expect("serialises");
        for def in [*definition, *union, "JSONRPCMessage"] {
            for e in errors(&schema, def, &value) {
                failures.push(format!("{definition} as {def}: {e}\n    value: {value}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        params.len(),
        31,
        "every request and notification definition of the schema"
    );
}

/// Object-safe serialisation for the table above.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }

    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).expect("serialises")
        }
    }
}

/// Every type with an `extra` map keeps unknown members and `_meta` through a round trip.
#[test]
fn unknown_fields_and_meta_survive_on_every_extensible_type() {
    fn survives<T: Serialize + DeserializeOwned>(name: &str, mut value: Value, has_meta: bool) {
        let map = value.as_object_mut().expect("object");
        map.insert("x-vendor".into(), json!({"nested": [1, "two", null]}));
        if has_meta {
            map.insert("_meta".into(), json!({"io.example/k": true}));
        }
        let typed: T = serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("{name} deserialises: {e}"));
        assert_eq!(serde_json::to_value(&typed).unwrap(), value, "{name}");
    }
    let t = serde_json::to_value(task(TaskStatus::Working)).unwrap();
    survives::<Implementation>("Implementation", json!({"name":"n","version":"1"}), false);
    survives::<ClientCapabilities>("ClientCapabilities", json!({"roots":{}}), false);
    survives::<ServerCapabilities>("ServerCapabilities", json!({"tools":{}}), false);
    survives::<TasksCapability>("TasksCapability", json!({"list":{}}), false);
    survives::<Tool>(
        "Tool",
        json!({"name":"t","inputSchema":{"type":"object"}}),
        true,
    );
    survives::<Resource>("Resource", json!({"uri":"a://b","name":"b"}), true);
    survives::<ResourceTemplate>(
        "ResourceTemplate",
        json!({"uriTemplate":"a://{b}","name":"b"}),
        true,
    );
    survives::<Prompt>("Prompt", json!({"name":"p"}), true);
    survives::<EmptyResult>("EmptyResult", json!({}), true);
    survives::<InitializeResult>(
        "InitializeResult",
        json!({"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}),
        true,
    );
    survives::<CallToolResult>("CallToolResult", json!({"content":[]}), true);
    survives::<ListToolsResult>("ListToolsResult", json!({"tools":[]}), true);
    survives::<ListPromptsResult>("ListPromptsResult", json!({"prompts":[]}), true);
    survives::<ListResourcesResult>("ListResourcesResult", json!({"resources":[]}), true);
    survives::<ListResourceTemplatesResult>(
        "ListResourceTemplatesResult",
        json!({"resourceTemplates":[]}),
        true,
    );
    survives::<ReadResourceResult>("ReadResourceResult", json!({"contents":[]}), true);
    survives::<GetPromptResult>("GetPromptResult", json!({"messages":[]}), true);
    survives::<CreateMessageResult>(
        "CreateMessageResult",
        json!({"role":"assistant","content":{"type":"text","text":"t"},"model":"m"}),
        true,
    );
    survives::<ElicitResult>(
        "ElicitResult",
        json!({"action":"accept","content":{"a":1}}),
        true,
    );
    survives::<ListRootsResult>("ListRootsResult", json!({"roots":[]}), true);
    survives::<ListTasksResult>("ListTasksResult", json!({"tasks":[t.clone()]}), true);
    survives::<CreateTaskResult>("CreateTaskResult", json!({"task": t.clone()}), true);
    // The task's own fields are flattened next to `_meta` and the unknown members.
    survives::<GetTaskResult>("GetTaskResult", t.clone(), true);
    let with_null_ttl =
        json!({"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null});
    survives::<GetTaskResult>("GetTaskResult (ttl null)", with_null_ttl, true);
}

#[test]
fn stop_reasons_are_an_open_string() {
    for (wire, known) in [
        ("endTurn", StopReason::EndTurn),
        ("stopSequence", StopReason::StopSequence),
        ("maxTokens", StopReason::MaxTokens),
        ("toolUse", StopReason::ToolUse),
        ("refusal", StopReason::Refusal),
        ("other", StopReason::Other("other".into())),
        ("pauseTurn", StopReason::Other("pauseTurn".into())),
    ] {
        let parsed: StopReason = serde_json::from_value(json!(wire)).unwrap();
        assert_eq!(parsed, known);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json!(wire));
        assert_eq!(parsed.to_string(), wire);
    }
}

/// Rejections of malformed input are error responses too. With a readable id they validate
/// as they are. With an unreadable one they carry `"id": null`, as JSON-RPC 2.0 §5 requires
/// ("If there was an error in detecting the id … it MUST be Null"), whereas the 2025-11-25
/// schema makes `JSONRPCErrorResponse.id` an optional `RequestId` (string or integer) and so
/// admits only its absence. That member is the one difference: everything else validates.
#[test]
fn rejections_are_error_responses() {
    let schema = schema();
    let sent = |bytes: &[u8]| match JsonRpcMessage::from_slice(bytes) {
        Ok(m) => panic!("accepted {m:?}"),
        Err(rejection) => serde_json::to_value(JsonRpcMessage::Error(rejection)).unwrap(),
    };
    for readable in [
        &br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}"#[..],
        br#"{"jsonrpc":"2.0","id":"a","method":7}"#,
        br#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
    ] {
        let v = sent(readable);
        assert!(v["id"].is_number() || v["id"].is_string(), "{v}");
        let found = errors(&schema, "JSONRPCErrorResponse", &v);
        assert!(found.is_empty(), "{v}: {found:?}");
    }
    for unreadable in [
        &b"{oops"[..],
        b"[]",
        br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
    ] {
        let v = sent(unreadable);
        assert_eq!(v.get("id"), Some(&Value::Null), "{v}");
        let found = errors(&schema, "JSONRPCErrorResponse", &v);
        assert!(
            !found.is_empty() && found.iter().all(|e| e.ends_with(" at /id")),
            "only the null id departs from the schema: {v}: {found:?}"
        );
        let mut without_id = v.clone();
        without_id.as_object_mut().unwrap().remove("id");
        let found = errors(&schema, "JSONRPCErrorResponse", &without_id);
        assert!(found.is_empty(), "{without_id}: {found:?}");
    }
}
