use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Settings {
    values: std::collections::HashMap<String, String>,
}

fn main() {}
