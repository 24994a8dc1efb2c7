//! `classad disasm EXPR`: the bytecode the compiler makes of an expression.

use std::io::Write as _;
use std::process::ExitCode;

/// Print the bytecode the compiler makes of an expression.
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad disasm 'TARGET.Memory >= RequestMemory'
  classad disasm -- '-x * 2'      (an expression that starts with a dash)",
    exit_status!()
))]
pub struct DisasmArgs {
    /// The expression; several arguments are joined with spaces.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true, value_name = "EXPR")]
    expr: Vec<String>,
}

pub fn run(args: DisasmArgs) -> ExitCode {
    let source = args.expr.join(" ");
    let expr = match classad::syntax::parse_expression(&source) {
        Ok(expr) => expr,
        Err(error) => {
            eprint!("{}", error.render(&source, "<argument>"));
            return ExitCode::from(1);
        }
    };
    match classad::compile(&expr) {
        Ok(program) => {
            let text = program.disassemble_all();
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => crate::args::output_failed("disasm", &e),
            }
        }
        Err(error) => {
            eprintln!("classad disasm: {error}");
            ExitCode::from(1)
        }
    }
}
