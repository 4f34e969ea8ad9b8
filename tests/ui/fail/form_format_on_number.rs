use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Age {
    #[elicit(format = "email")]
    years: u32,
}

fn main() {}
