//! The `classad` command: a person's tool for ClassAds.
//!
//! Subcommands: `query` (condor_q/condor_status over ad files), `eval`
//! (HTCondor's `classad_eval`), `convert` (between old, new, JSON and XML
//! forms), `match`, `analyze` and `demo` (the matchmaker), `config`
//! (`condor_config_val`), `parse` and `disasm` (for debugging), and
//! `completions`. Each lives in its own module with its clap arguments;
//! this file reads the command line and dispatches.

/// The exit statuses every subcommand shares, for the end of its `--help`.
macro_rules! exit_status {
    () => {
        "

Exit status:
  0    success
  1    bad input: a file, an ad or an expression could not be read or evaluated
  2    bad command line (unknown option, missing value)
  141  standard output was closed early (`... | head`); nothing is printed"
    };
}

mod analyze;
mod args;
mod check;
mod config_cmd;
mod convert;
mod demo;
mod disasm;
mod eval;
mod json_text;
mod match_cmd;
mod parse_cmd;
mod query;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "classad",
    version,
    about = "ClassAds from the command line: query, evaluate, convert and match HTCondor ads",
    after_help = concat!(
        "Examples:
  classad query jobs.ads -constraint 'RequestMemory > 2048' -af Owner ClusterId
  classad eval '[a = 2; b = a * 21]' 'b'
  classad convert --to json pool.ads
  classad match --jobs jobs.ads --slots slots.ads
  classad completions bash > ~/.local/share/bash-completion/completions/classad",
        exit_status!()
    ),
    propagate_version = true,
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Query(query::QueryArgs),
    Eval(eval::EvalArgs),
    Convert(convert::ConvertArgs),
    Match(match_cmd::MatchArgs),
    Analyze(analyze::AnalyzeArgs),
    Demo(demo::DemoArgs),
    Config(config_cmd::ConfigArgs),
    Parse(parse_cmd::ParseArgs),
    Disasm(disasm::DisasmArgs),
    Check(check::CheckArgs),
    Completions(CompletionsArgs),
}

/// Print a shell completion script for `classad` on standard output.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  classad completions bash > ~/.local/share/bash-completion/completions/classad
  classad completions zsh > ~/.zfunc/_classad
  classad completions fish > ~/.config/fish/completions/classad.fish")]
struct CompletionsArgs {
    /// The shell.
    shell: clap_complete::Shell,
}

fn main() -> ExitCode {
    args::quiet_broken_pipe();
    let argv = match args::utf8(std::env::args_os()) {
        Ok(argv) => argv,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let mut command = Cli::command();
    command.build();
    // `eval` and `query` take options between their positional arguments,
    // in HTCondor's order-sensitive way; each reads its own line.
    match argv.get(1).map(String::as_str) {
        Some("eval") => return eval::main(subcommand(&command, "eval"), &argv[2..]),
        Some("query") => return query::main(subcommand(&command, "query"), &argv[2..]),
        _ => {}
    }
    // `parse` and `disasm` take expressions, which may start with a dash
    // (`-1`, `-(x)`); a word spelled like an option is still an option.
    if let Some(name @ ("parse" | "disasm")) = argv.get(1).map(String::as_str)
        && let Some(flag) = argv[2..].iter().take_while(|a| *a != "--").find(|a| {
            let word = a.strip_prefix("--").or_else(|| a.strip_prefix('-'));
            word.is_some_and(|w| args::option_word(w) && !matches!(w, "h" | "help"))
        })
    {
        let error = subcommand(&command, name).clone().error(
            clap::error::ErrorKind::UnknownArgument,
            format!(
                "unexpected argument '{flag}' found\n\n  tip: an expression that starts with a dash goes after '--': classad {name} -- '{flag}'"
            ),
        );
        return clap_exit(&error, 2);
    }
    let line = match argv.get(1).map(String::as_str) {
        Some(name @ ("config" | "match" | "analyze" | "demo" | "convert" | "check")) => {
            let sub = subcommand(&command, name);
            let mut line = argv[..2].to_vec();
            line.extend(args::double_dashes(&argv[2..], |word| {
                args::takes_value(sub, word)
            }));
            line
        }
        _ => argv,
    };
    let cli = match Cli::try_parse_from(&line) {
        Ok(cli) => cli,
        Err(error) => return clap_exit(&error, 2),
    };
    match cli.command {
        Command::Query(_) | Command::Eval(_) => unreachable_dispatch(),
        Command::Convert(a) => convert::run(a),
        Command::Match(a) => match_cmd::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Config(a) => config_cmd::run(a),
        Command::Parse(a) => parse_cmd::run(a),
        Command::Disasm(a) => disasm::run(a),
        Command::Check(a) => check::run_args(a),
        Command::Completions(a) => {
            let mut out = std::io::stdout().lock();
            clap_complete::generate(a.shell, &mut Cli::command(), "classad", &mut out);
            ExitCode::SUCCESS
        }
    }
}

/// `eval` and `query` are dispatched before clap sees the line; reaching
/// them here would mean `main` lost that check.
fn unreachable_dispatch() -> ExitCode {
    eprintln!("classad: internal error: eval and query are read by their own modules");
    ExitCode::from(2)
}

fn subcommand<'c>(command: &'c clap::Command, name: &str) -> &'c clap::Command {
    command
        .find_subcommand(name)
        .expect("every dispatched name is a subcommand")
}

/// Prints a clap error or help the way clap does, with our status for
/// usage errors (`usage_status`) and 0 for `--help` and `--version`.
pub fn clap_exit(error: &clap::Error, usage_status: u8) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = error.print();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => ExitCode::from(usage_status),
        _ => ExitCode::from(usage_status),
    }
}
