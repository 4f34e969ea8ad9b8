//! [`SchemaProfile`]: the shape of JSON Schema a client is given, chosen per client when it
//! introduces itself; the rewriting itself lives in `authoring` (`SchemaProfile::apply`).

use super::Ctx;

/// The dialect of JSON Schema a client gets for tools' `inputSchema`s (in `tools/list`) and
/// for the `__schema__` tool of [`Ctx::sample_schema`](crate::Ctx::sample_schema): chosen
/// per client by [`ServerOptions::schema_profile`](crate::ServerOptions::schema_profile) /
/// [`schema_profile_by`](crate::ServerOptions::schema_profile_by), applied with
/// [`SchemaProfile::apply`].
///
/// ```
/// use tracksuit::SchemaProfile;
/// assert_eq!(SchemaProfile::default(), SchemaProfile::Portable);
/// assert_eq!("gemini-safe".parse::<SchemaProfile>(), Ok(SchemaProfile::GeminiSafe));
/// assert_eq!(SchemaProfile::OpenAiStrict.as_str(), "openai-strict");
/// assert!("jsonschema".parse::<SchemaProfile>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// The default: derived schemas made portable (`$defs` inlined, no `null` on optional
    /// properties, standard formats only, an object at the top); hand-written ones as
    /// written.
    #[default]
    Portable,
    /// OpenAI's strict mode on top of the portable form: every property `required` (an
    /// optional one nullable instead) and `additionalProperties: false` on every object
    /// ([`strict_schema`](crate::strict_schema)).
    OpenAiStrict,
    /// The OpenAPI 3.0 subset Gemini's function declarations (`parameters`) accept, on top of
    /// the portable form: no `$ref` / `$defs`, `additionalProperties`, `const`, `$schema`,
    /// `default` or `oneOf`; a single `type` (`nullable: true` for a `null` one); string
    /// `format` only `date-time` or `enum`; `enum` values strings.
    GeminiSafe,
    /// No rewriting: a derived schema as schemars derived it (`$defs`, `["T", "null"]`),
    /// wrapped in an object only where the tool's arguments are; a hand-written one as
    /// written.
    Raw,
}

impl SchemaProfile {
    /// Every profile, [`Portable`](SchemaProfile::Portable) first.
    ///
    /// ```
    /// assert_eq!(tracksuit::SchemaProfile::ALL.len(), 4);
    /// ```
    pub const ALL: [SchemaProfile; 4] = [
        SchemaProfile::Portable,
        SchemaProfile::OpenAiStrict,
        SchemaProfile::GeminiSafe,
        SchemaProfile::Raw,
    ];

    /// Its name: `portable`, `openai-strict`, `gemini-safe` or `raw` (what
    /// `TRACKSUIT_SCHEMA_PROFILE` takes).
    ///
    /// ```
    /// assert_eq!(tracksuit::SchemaProfile::Raw.as_str(), "raw");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            SchemaProfile::Portable => "portable",
            SchemaProfile::OpenAiStrict => "openai-strict",
            SchemaProfile::GeminiSafe => "gemini-safe",
            SchemaProfile::Raw => "raw",
        }
    }

    /// Its position in [`ALL`](SchemaProfile::ALL).
    pub(crate) const fn index(self) -> usize {
        match self {
            SchemaProfile::Portable => 0,
            SchemaProfile::OpenAiStrict => 1,
            SchemaProfile::GeminiSafe => 2,
            SchemaProfile::Raw => 3,
        }
    }
}

impl std::fmt::Display for SchemaProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SchemaProfile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchemaProfile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown schema profile `{s}` (portable, openai-strict, gemini-safe, raw)")
            })
    }
}

impl<K> Ctx<K> {
    /// The schema profile this request's client was given (see [`SchemaProfile`]).
    ///
    /// ```
    /// /// Names the schema profile of the client.
    /// #[tracksuit::mcp_tool]
    /// async fn profile(ctx: &tracksuit::Ctx) -> String { ctx.schema_profile().to_string() }
    /// # fn main() {}
    /// ```
    pub fn schema_profile(&self) -> SchemaProfile {
        self.session()
            .client()
            .map_or(SchemaProfile::Portable, |c| c.schema_profile)
    }
}
