use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
