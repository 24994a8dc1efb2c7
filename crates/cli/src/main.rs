//! The `classad` command: a person's tool for ClassAds.
//!
//! Subcommands: `convert` (between old, new and JSON forms), `parse` (the
//! tree and canonical unparse of an expression, for debugging), `eval`
//! (like HTCondor's `classad_eval`), `disasm` (the bytecode of an
//! expression). Each lives in its own module; this file only dispatches.

mod analyze;
mod check;
mod config_cmd;
mod convert;
mod demo;
mod disasm;
mod eval;
mod match_cmd;
mod parse_cmd;

use std::process::ExitCode;

const USAGE: &str = "\
usage: classad <command> [arguments]

commands:
  demo [--jobs N] [--slots M] [--seed S] [--threads N] [--write DIR]
                     negotiate a realistic pool made on the spot (10,000 x 10,000 by default)
  convert [--from old|new|json] [--to old|new|json] [--pretty] [FILE...]
                     read ads (standard input when no FILE) and write them in another form
  check [--json] FILE...
                     read and compile every ad: counts per file, every bad ad with its position
  parse EXPR         print the tree and the canonical unparse of EXPR
  eval [-file F] [-target-file F] [-quiet] [--strict] [--corrections] [--jdl] [--batch] ARG...
                     evaluate like classad_eval: ads, assignments, expressions, left to right
                     (classad eval -help for the details);
                     --batch reads expressions from standard input, one a line;
                     budgets of each evaluation: [--max-steps N] [--max-memory BYTES]
                     [--max-depth N] (docs/limits.md); --regexp-member-invalid-error:
                     regexpMember of an invalid pattern is ERROR, not HTCondor's false
  disasm EXPR        print the bytecode of EXPR
  config [-f FILE] [-subsystem NAME] [-local-name NAME] [-v] [-eval] [-dump] [-machine-ad] [NAME...]
                     HTCondor configuration values, like condor_config_val
  match --jobs FILE --slots FILE [--policy FILE] [--threads N] [--all-pairs] [--json] [--strict]
                     one negotiation cycle (or every matching pair), with a summary on stderr
  analyze --jobs FILE --slots FILE [JOB_ID...]
                     why jobs match what they match, clause by clause
  help               print this message
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    match command.as_str() {
        "check" => check::run_args(rest),
        "config" => config_cmd::run(rest),
        "convert" => convert::run(rest),
        "demo" => demo::run(rest),
        "disasm" => disasm::run(rest),
        "match" => match_cmd::run(rest),
        "analyze" => analyze::run(rest),
        "parse" => parse_cmd::run(rest),
        "eval" => eval::run(rest),
        "help" | "-h" | "--help" | "-help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("classad: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
