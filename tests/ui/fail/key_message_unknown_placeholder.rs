use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    sure: bool,
}

#[derive(Elicits)]
enum Keys {
    /// The message names a field the key does not have.
    #[elicit(response = Confirm, message = "Delete {cont} files in {dir}?")]
    DeleteFiles { dir: String, count: usize },
}

fn main() {}
