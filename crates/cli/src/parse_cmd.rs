//! `classad parse EXPR`: the tree and the canonical unparse, for debugging.

use classad::syntax;
use std::process::ExitCode;

pub fn run(args: &[String]) -> ExitCode {
    if args.is_empty() {
        eprintln!("usage: classad parse EXPR...");
        return ExitCode::from(2);
    }
    let source = args.join(" ");
    match syntax::parse_expression(&source) {
        Ok(expr) => {
            println!("{expr:#?}");
            println!("unparse: {}", syntax::unparse(&expr));
            println!("old:     {}", syntax::unparse_old(&expr));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprint!("{}", error.render(&source, "<argument>"));
            ExitCode::from(1)
        }
    }
}
