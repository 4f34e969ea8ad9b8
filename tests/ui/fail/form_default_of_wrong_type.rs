use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Order {
    #[elicit(default = "two")]
    quantity: u8,
}

fn main() {}
