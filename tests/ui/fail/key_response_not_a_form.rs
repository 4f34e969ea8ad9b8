use tracksuit::Elicits;

struct NotAForm;

#[derive(Elicits)]
enum Keys {
    #[elicit(response = NotAForm)]
    Ask { question: String },
}

fn main() {}
