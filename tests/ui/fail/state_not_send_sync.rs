use std::rc::Rc;
use tracksuit::Server;

/// Not `Send`: every session's requests read the state, from any thread.
struct Cache(Rc<Vec<String>>);

fn main() {
    let _ = Server::new(tracksuit::crate_info!()).state(Cache(Rc::new(Vec::new())));
}
