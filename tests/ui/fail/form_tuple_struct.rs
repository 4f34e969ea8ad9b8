use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Pair(String, String);

fn main() {}
