use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Contact {
    #[elicit(format = "phone")]
    number: String,
}

fn main() {}
