//! `classad disasm EXPR`: the bytecode the compiler makes of an expression.

use std::process::ExitCode;

pub fn run(args: &[String]) -> ExitCode {
    if args.is_empty() {
        eprintln!("usage: classad disasm EXPR...");
        return ExitCode::from(2);
    }
    let source = args.join(" ");
    let expr = match classad::syntax::parse_expression(&source) {
        Ok(expr) => expr,
        Err(error) => {
            eprint!("{}", error.render(&source, "<argument>"));
            return ExitCode::from(1);
        }
    };
    match classad::compile(&expr) {
        Ok(program) => {
            print!("{}", program.disassemble_all());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("classad disasm: {error}");
            ExitCode::from(1)
        }
    }
}
