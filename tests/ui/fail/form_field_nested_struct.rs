use tracksuit::Elicits;

#[derive(serde::Deserialize)]
struct Address {
    street: String,
}

#[derive(serde::Deserialize, Elicits)]
struct Signup {
    name: String,
    address: Address,
}

fn main() {}
