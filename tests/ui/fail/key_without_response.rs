use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Cell {
    row: u8,
}

#[derive(Elicits)]
enum Keys {
    #[elicit(response = Cell)]
    PickMove { board: String },
    /// Forgot the response.
    Confirm { question: String },
}

fn main() {}
