//! Parses each line of standard input as an expression and prints the
//! canonical unparse, or the error: a quick check against a corpus.
use std::io::BufRead;

fn main() {
    let parser = classad_syntax::Parser::new(Default::default());
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match parser.parse_expression(&line) {
            Ok(e) => println!("OK  {}", classad_syntax::unparse(&e)),
            Err(e) => println!("ERR {line}\n    {e}"),
        }
    }
}
