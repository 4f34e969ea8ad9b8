use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Point {
    at: (i32, i32),
}

fn main() {}
