use tracksuit::Elicits;

#[derive(serde::Deserialize, Elicits)]
struct Confirm {
    ok: bool,
}

/// Not `Serialize` (nor `JsonSchema`): it cannot be a key's context.
struct Board;

#[derive(Elicits)]
enum Keys {
    /// Confirm the move.
    #[elicit(response = Confirm)]
    ConfirmMove { board: Board },
}

fn main() {}
