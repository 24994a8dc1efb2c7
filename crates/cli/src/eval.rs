//! `classad eval`: HTCondor's `classad_eval`, and the batch mode that
//! `../shared/oracle/difftest.py` drives.
//!
//! Arguments are taken left to right: an ad (`[a = 2]`) becomes the
//! context ad, an assignment (`a = 2`) adds to it, anything else is an
//! expression evaluated and printed. Options: `-file PATH` (the context
//! ad from a file), `-target-file PATH` (the TARGET ad), `-quiet` (do not
//! print the context ad), `--strict` (STRICT_CLASSAD_EVALUATION),
//! `--corrections` (corrected answers where HTCondor's look like bugs:
//! `Options::corrections`, docs/differences.md), `--read-time-strings`
//! (read strings computed at run time in `absTime` and `relTime` as times,
//! where HTCondor does not), `--jdl`
//! (the 2001 JDL dialect: hex and octal integers, scale suffixes, the JDL
//! time functions), `--batch` (expressions from standard input, one a
//! line, one output line each), `--max-steps N`, `--max-memory BYTES`,
//! `--max-depth N` (the budgets of each evaluation, docs/limits.md) and
//! `--regexp-member-invalid-error` (an opt-in correction,
//! docs/differences.md). Each option may be spelled with one dash or two.

use classad::syntax::{self, AdExpr, Dialect, ParseOptions, Parser};
use classad::vm::Registry;
use classad::vm::print::value_to_string;
use classad::{AdRef, Options, Vm};
use std::io::{BufRead, Write};
use std::process::ExitCode;

struct Settings {
    dialect: Dialect,
    registry: std::sync::Arc<Registry>,
    context: AdExpr,
    target: Option<AdRef>,
    quiet: bool,
    batch: bool,
    options: Options,
}

impl Settings {
    fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            dialect: self.dialect,
            strict: self.options.strict,
            ..ParseOptions::default()
        }
    }
}

fn option_name(arg: &str) -> Option<&str> {
    arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))
}

fn read_ad_file(path: &str) -> Result<AdExpr, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let parser = Parser::new(Default::default());
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return parser.parse_ad(&text).map_err(|e| e.render(&text, path));
    }
    let mut ad = AdExpr::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, expr) = parser
            .parse_old_line(line)
            .map_err(|e| format!("{path}:{}: {}", number + 1, e.message))?;
        ad.insert(name, expr);
    }
    Ok(ad)
}

pub fn run(args: &[String]) -> ExitCode {
    let mut settings = Settings {
        dialect: Dialect::HTCondor,
        registry: classad::stdlib::shared_registry(),
        context: AdExpr::new(),
        target: None,
        quiet: false,
        batch: false,
        options: Options::default(),
    };
    let mut work: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        match option_name(arg) {
            Some("quiet") => settings.quiet = true,
            Some("batch") => settings.batch = true,
            Some("strict") => settings.options.strict = true,
            Some("corrections") => settings.options.corrections = true,
            Some("read-time-strings") => settings.options.read_time_strings = true,
            Some("regexp-member-invalid-error") => {
                settings.options.regexp_member_invalid_error = true
            }
            Some("jdl") => {
                settings.dialect = Dialect::Jdl;
                settings.registry = std::sync::Arc::new(classad::stdlib::jdl::jdl_registry());
            }
            Some(flag @ ("max-steps" | "max-memory" | "max-depth")) => {
                let Some(number) = args.get(i + 1).and_then(|n| n.parse::<u64>().ok()) else {
                    eprintln!("classad eval: `{arg}` needs a whole number");
                    return ExitCode::from(2);
                };
                i += 1;
                let limits = &mut settings.options.limits;
                match flag {
                    "max-steps" => limits.max_steps = number,
                    "max-memory" => limits.max_memory = number,
                    _ => limits.max_depth = u32::try_from(number).unwrap_or(u32::MAX),
                }
            }
            Some(flag @ ("file" | "target-file")) => {
                let Some(path) = args.get(i + 1) else {
                    eprintln!("classad eval: `{arg}` needs a file name");
                    return ExitCode::from(2);
                };
                i += 1;
                match read_ad_file(path) {
                    Ok(ad) if flag == "file" => {
                        for (name, expr) in ad.attributes {
                            settings.context.insert(name, expr);
                        }
                    }
                    Ok(ad) => match classad::ad_from_ast_with(&settings.registry, &ad) {
                        Ok(target) => settings.target = Some(target),
                        Err(e) => {
                            eprintln!("classad eval: {e}");
                            return ExitCode::from(1);
                        }
                    },
                    Err(message) => {
                        eprintln!("classad eval: {message}");
                        return ExitCode::from(1);
                    }
                }
            }
            _ => work.push(arg.clone()),
        }
        i += 1;
    }
    if settings.batch {
        return batch(&settings);
    }
    arguments(&mut settings, &work)
}

fn evaluate_line(
    settings: &Settings,
    vm: &mut Vm,
    context: &AdRef,
    parser: &Parser,
    line: &str,
) -> String {
    match parser.parse_expression(line) {
        Err(e) => format!("parse error: {}", one_line(&e.to_string())),
        Ok(expr) => match classad::compile_with(&settings.registry, &expr) {
            Err(e) => format!("parse error: {}", one_line(&e.to_string())),
            Ok(program) => {
                let value = match &settings.target {
                    Some(target) => vm.evaluate_in_match(&program, context, target),
                    None => vm.evaluate(&program, context),
                };
                value_to_string(&value)
            }
        },
    }
}

/// A message on one line whatever it quotes: control characters (and the
/// Unicode line and paragraph separators) written as escapes, so that one
/// input line always gives exactly one output line in batch mode.
fn one_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{0}'..='\u{1f}' | '\u{7f}' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

fn batch(settings: &Settings) -> ExitCode {
    let context = match classad::ad_from_ast_with(&settings.registry, &settings.context) {
        Ok(ad) => ad,
        Err(e) => {
            eprintln!("classad eval: {e}");
            return ExitCode::from(1);
        }
    };
    let parser = Parser::new(settings.parse_options());
    let mut vm = Vm::new(settings.options);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().split(b'\n') {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        let text = evaluate_line(settings, &mut vm, &context, &parser, line);
        if writeln!(out, "{text}").is_err() {
            return ExitCode::from(1);
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

fn arguments(settings: &mut Settings, work: &[String]) -> ExitCode {
    let parser = Parser::new(settings.parse_options());
    let mut vm = Vm::new(settings.options);
    let mut status = ExitCode::SUCCESS;
    for arg in work {
        let trimmed = arg.trim_start();
        if trimmed.starts_with('[') {
            match parser.parse_ad(arg) {
                Ok(ad) => {
                    for (name, expr) in ad.attributes {
                        settings.context.insert(name, expr);
                    }
                    if !settings.quiet {
                        println!("{}", syntax::unparse_ad_pretty(&settings.context));
                    }
                }
                Err(e) => {
                    eprint!("{}", e.render(arg, "<argument>"));
                    status = ExitCode::from(1);
                }
            }
            continue;
        }
        if let Ok((name, expr)) = parser.parse_old_line(arg) {
            settings.context.insert(name, expr);
            if !settings.quiet {
                println!("{}", syntax::unparse_ad_pretty(&settings.context));
            }
            continue;
        }
        let context = match classad::ad_from_ast_with(&settings.registry, &settings.context) {
            Ok(ad) => ad,
            Err(e) => {
                eprintln!("classad eval: {e}");
                return ExitCode::from(1);
            }
        };
        match parser.parse_expression(arg) {
            Ok(_) => println!(
                "{}",
                evaluate_line(settings, &mut vm, &context, &parser, arg)
            ),
            Err(e) => {
                eprint!("{}", e.render(arg, "<argument>"));
                status = ExitCode::from(1);
            }
        }
    }
    status
}
