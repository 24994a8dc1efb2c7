//! The `classad` command.
fn main() {}
