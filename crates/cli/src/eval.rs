//! `classad eval`: HTCondor's `classad_eval`, and the batch mode that
//! `../shared/oracle/difftest.py` drives.
//!
//! Arguments are taken left to right, as `classad_eval` (a Python program
//! over classad2 in HTCondor 25) takes them: an argument that reads as an
//! ad, or as one once wrapped in `[ ]` (`a = 2`, `a = 2; b = 3`), replaces
//! attributes of the context ad; anything else is an expression. Before
//! an expression's value the context ad is printed on one line, when it
//! changed since it was last printed, as `repr` of a classad2 `ClassAd`;
//! the value is printed as `repr` of `ExprTree.simplify` (lists as
//! written). An argument that is neither ends the command with HTCondor's
//! message. `-quiet` is positional. `-file`/`-my-file`/`-ad-file PATH`
//! replace the context ad and `-target-file PATH` sets the TARGET ad, from
//! the first ad of the file in any form `classad convert` reads or
//! `condor_q -long:new`'s (`-` is standard input; the other ads are
//! reported as ignored, never merged). An unknown option is an error
//! (status 255, as HTCondor's). Beyond `classad_eval`, changing nothing
//! unless given: `--strict` (STRICT_CLASSAD_EVALUATION),
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

use classad::syntax::{
    self, AdExpr, AdReader, Dialect, Expr, ExprKind, Format, ParseOptions, Parser,
};
use classad::vm::Registry;
use classad::vm::print::{self, value_to_string};
use classad::{AdRef, Options, Vm};
use std::io::Write;
use std::process::ExitCode;

struct Settings {
    dialect: Dialect,
    registry: std::sync::Arc<Registry>,
    context: AdExpr,
    target: Option<AdRef>,
    quiet: bool,
    batch: bool,
    options: Options,
    /// How an ad file is read (`--refuse-partial-ads`).
    reading: crate::args::InputLimit,
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

/// Evaluate expressions in the context of an ad, as HTCondor's classad_eval.
///
/// Arguments take effect left to right: an ad ('[ a = 1; b = 2 ]') or
/// assignments ('a = 1', 'a = 1; b = 2') replace attributes of the context
/// ad; an expression is evaluated against it, after the context ad is
/// printed when it changed since it was last printed. Options may be
/// spelled with one dash or two; `-quiet`, `-file` and `-target-file` take
/// effect where they stand among the arguments.
#[derive(clap::Args)]
#[command(
    help_template = "usage: {usage}\n\n{about-with-newline}\n{all-args}{after-help}",
    after_help = concat!(
        "Examples:
  classad eval 'a = 2' 'a * 2'
  classad eval '[a = 2; b = a * 21]' 'b'
  classad eval -quiet -file job.ad -target-file machine.ad 'Requirements'
  echo 'strcat(\"x\", 1 + 2)' | classad eval --batch

An argument that is neither an ad nor an expression ends the command with
HTCondor's message, status 1; an unknown option has status 255, as in
classad_eval.",
        exit_status!()
    )
)]
pub struct EvalArgs {
    /// From here on, do not print the context ad.
    #[arg(long, action = clap::ArgAction::Count)]
    quiet: u8,
    /// Accepted and ignored, as classad_eval does.
    #[arg(long, action = clap::ArgAction::Count)]
    debug: u8,
    /// The context ad from FILE (new or old syntax, JSON, XML, condor_q
    /// -long:new; `-` is standard input), the first ad only.
    #[arg(
        long,
        alias = "my-file",
        alias = "ad-file",
        value_name = "FILE",
        allow_hyphen_values = true
    )]
    file: Vec<String>,
    /// The TARGET ad from FILE, as for -file.
    #[arg(
        long = "target-file",
        alias = "target-ad",
        alias = "target-ad-file",
        value_name = "FILE",
        allow_hyphen_values = true
    )]
    target_file: Vec<String>,
    /// Expressions from standard input, one a line, one output line each.
    #[arg(long)]
    batch: bool,
    /// STRICT_CLASSAD_EVALUATION: unscoped names are not looked up in TARGET.
    #[arg(long)]
    strict: bool,
    /// Corrected answers where HTCondor's look like bugs (docs/differences.md).
    #[arg(long)]
    corrections: bool,
    /// Read strings computed at run time in absTime and relTime as times.
    #[arg(long = "read-time-strings")]
    read_time_strings: bool,
    /// regexpMember of an invalid pattern is ERROR, not HTCondor's false.
    #[arg(long = "regexp-member-invalid-error")]
    regexp_member_invalid_error: bool,
    /// The 2001 JDL dialect: hex and octal integers, scale suffixes, JDL time functions.
    #[arg(long)]
    jdl: bool,
    /// Budget of each evaluation, in steps: nodes evaluated, as HTCondor
    /// counts its own 10,000,000 (docs/limits.md).
    #[arg(long = "max-steps", value_name = "N")]
    max_steps: Option<u64>,
    /// Budget of each evaluation, in bytes of values.
    #[arg(long = "max-memory", value_name = "BYTES")]
    max_memory: Option<u64>,
    /// Budget of each evaluation, in levels of nesting.
    #[arg(long = "max-depth", value_name = "N")]
    max_depth: Option<u64>,
    #[command(flatten)]
    limit: crate::args::InputLimit,
    /// Ads, assignments and expressions, taken left to right.
    // Never given to clap: `main` keeps them in order among the options.
    #[arg(value_name = "ARG")]
    args: Vec<String>,
}

/// One step of the command line, in order.
enum Step {
    Quiet,
    File(String),
    TargetFile(String),
    Arg(String),
}

/// The first ad of a file (or of standard input for `-`), in any form
/// `classad convert` reads, and `condor_q -long:new`'s (`{` alone on the
/// first line). The other ads are ignored, with a note on standard error:
/// merging them would mix attributes of different ads. The error is
/// what to print on standard error, whole: a bad ad as `classad check`
/// shows one (message, `--> file:line:column`, the line, a caret).
fn read_ad_file(path: &str, options: ParseOptions) -> Result<AdExpr, String> {
    let limit = syntax::read::max_input_bytes();
    let bytes = if path == "-" {
        syntax::read::read_to_end_within(std::io::stdin().lock(), limit)
            .map_err(|e| format!("classad eval: cannot read standard input: {}", e))?
    } else {
        syntax::read::read_file_within(path)
            .map_err(|e| format!("classad eval: cannot read `{path}`: {}", e))?
    };
    let shown = if path == "-" {
        "standard input".to_string()
    } else {
        format!("`{path}`")
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "classad eval: cannot read {shown}: stream did not contain valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let origin = if path == "-" { "<stdin>" } else { path };
    let mut body = text.as_str();
    let mut format = syntax::detect_format(body);
    if let Some(rest) = body.trim_start().strip_prefix('{')
        && rest.trim_start().starts_with('[')
    {
        body = rest;
        if let Some(inner) = body.trim_end().strip_suffix('}') {
            body = inner;
        }
        format = Format::New;
    }
    let parser = Parser::new(options);
    let mut reader = AdReader::new(body.as_bytes(), format, &parser);
    let first = match reader.next() {
        Some(Ok(ad)) => ad,
        Some(Err(error)) => return Err(error.render(origin).trim_end().to_string()),
        None => {
            return Err(format!(
                "classad eval: Unable to turn file {origin} into a ClassAd."
            ));
        }
    };
    // The ad is used as HTCondor reads it, without what an unreadable
    // line dropped: say what that was.
    for warning in reader.take_warnings() {
        eprint!("{}", warning.render(origin));
    }
    // Only ads count: the `,` between condor_q -long:new's ads is no ad.
    let others = reader.filter(Result::is_ok).count();
    if others > 0 {
        eprintln!(
            "classad eval: {origin}: the first ad is used; {others} other{} ignored",
            if others == 1 { " was" } else { "s were" }
        );
    }
    Ok(first)
}

/// `classad eval` from its raw arguments. clap cannot keep the order of
/// options among positional arguments that may themselves start with a
/// dash (`-1`, `-x > 2` is an unknown option as in classad_eval), so the
/// line is split here: each word spelled like an option goes to clap with
/// its value (for checking, suggestions and `--help`), and the steps keep
/// their places.
pub fn main(command: &clap::Command, args: &[String]) -> ExitCode {
    let mut flags = vec![command.get_name().to_string()];
    let mut steps: Vec<Step> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let body = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
        let Some(body) = body else {
            steps.push(Step::Arg(arg.clone()));
            continue;
        };
        let (word, inline) = match body.split_once('=') {
            Some((word, value)) => (word, Some(value)),
            None => (body, None),
        };
        let known = crate::args::find_arg(command, word);
        let option_like = if inline.is_some() {
            // `a==b` style expressions: `-x==1` is an expression, not `-x`.
            known.is_some() && crate::args::option_word(word)
        } else {
            crate::args::option_word(word)
        };
        if !option_like {
            steps.push(Step::Arg(arg.clone()));
            continue;
        }
        let spelled = if word.chars().count() == 1 {
            format!("-{word}")
        } else {
            format!("--{word}")
        };
        flags.push(spelled);
        let Some(known) = known else { continue };
        if !known.get_action().takes_values() {
            if known.get_id() == "quiet" {
                steps.push(Step::Quiet);
            }
            continue;
        }
        let value = match inline {
            Some(value) => Some(value.to_string()),
            None if i < args.len() => {
                i += 1;
                Some(args[i - 1].clone())
            }
            None => None,
        };
        let Some(value) = value else { continue };
        flags.push(value.clone());
        match known.get_id().as_str() {
            "file" => steps.push(Step::File(value)),
            "target_file" => steps.push(Step::TargetFile(value)),
            _ => {}
        }
    }
    let matches = match command.clone().try_get_matches_from(&flags) {
        Ok(matches) => matches,
        Err(error) => {
            let status = match error.kind() {
                clap::error::ErrorKind::UnknownArgument => 255,
                _ => 2,
            };
            return crate::clap_exit(&error, status);
        }
    };
    let parsed = match <EvalArgs as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(parsed) => parsed,
        Err(error) => return crate::clap_exit(&error, 2),
    };
    run(command, parsed, steps)
}

fn run(command: &clap::Command, args: EvalArgs, steps: Vec<Step>) -> ExitCode {
    args.limit.apply();
    let mut settings = Settings {
        dialect: Dialect::HTCondor,
        registry: classad::stdlib::shared_registry(),
        context: AdExpr::new(),
        target: None,
        quiet: false,
        batch: args.batch,
        options: Options::default(),
        reading: args.limit,
    };
    settings.options.strict = args.strict;
    settings.options.corrections = args.corrections;
    settings.options.read_time_strings = args.read_time_strings;
    settings.options.regexp_member_invalid_error = args.regexp_member_invalid_error;
    if args.jdl {
        settings.dialect = Dialect::Jdl;
        settings.registry = std::sync::Arc::new(classad::stdlib::jdl::jdl_registry());
    }
    let limits = &mut settings.options.limits;
    if let Some(n) = args.max_steps {
        limits.max_steps = n;
    }
    if let Some(n) = args.max_memory {
        limits.max_memory = n;
    }
    if let Some(n) = args.max_depth {
        limits.max_depth = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if settings.batch {
        for step in &steps {
            let status = match step {
                Step::File(path) => set_context(&mut settings, path),
                Step::TargetFile(path) => set_target(&mut settings, path),
                _ => Ok(()),
            };
            if let Err(status) = status {
                return status;
            }
        }
        return batch(&settings);
    }
    if steps.is_empty() {
        let _ = command.clone().print_help();
        return ExitCode::from(255);
    }
    arguments(&mut settings, &steps)
}

/// A file is read in the dialect of the command line (`--jdl`), with its
/// reading options (`--refuse-partial-ads`).
fn set_context(settings: &mut Settings, path: &str) -> Result<(), ExitCode> {
    match read_ad_file(
        path,
        settings.reading.parse_options(settings.parse_options()),
    ) {
        Ok(ad) => {
            settings.context = ad;
            Ok(())
        }
        Err(message) => {
            eprintln!("{message}");
            Err(ExitCode::from(1))
        }
    }
}

fn set_target(settings: &mut Settings, path: &str) -> Result<(), ExitCode> {
    let options = settings.reading.parse_options(settings.parse_options());
    let ad = read_ad_file(path, options).map_err(|message| {
        eprintln!("{message}");
        ExitCode::from(1)
    })?;
    match classad::ad_from_ast_with(&settings.registry, &ad) {
        Ok(target) => {
            settings.target = Some(target);
            Ok(())
        }
        Err(e) => {
            eprintln!("classad eval: {e}");
            Err(ExitCode::from(1))
        }
    }
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
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        // A line longer than the bound is answered (one output line for
        // one input line) without being kept: an endless line costs no
        // more memory than the bound.
        buf.clear();
        let max = syntax::read::MAX_LINE_BYTES;
        let cut = match syntax::read::read_line_within(&mut input, &mut buf, max) {
            Ok((0, _)) | Err(_) => break,
            Ok((_, cut)) => cut,
        };
        let text = if cut {
            format!(
                "parse error: line 1, column 1: the line is longer than {}; it is not read",
                syntax::read::human_bytes(max as u64)
            )
        } else {
            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
            let line = String::from_utf8_lossy(line);
            let line = line.trim_end_matches('\r');
            evaluate_line(settings, &mut vm, &context, &parser, line)
        };
        if let Err(e) = writeln!(out, "{text}") {
            return crate::args::output_failed("eval", &e);
        }
    }
    match out.flush() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::args::output_failed("eval", &e),
    }
}

/// The context ad as `repr` of a `classad2.ClassAd` prints it:
/// `[ a = 1; b = 2 ]` in HTCondor's order, `[  ]` when empty.
fn context_text(context: &AdExpr) -> String {
    syntax::unparse::unparse_htcondor(&Expr::new(ExprKind::Ad(Box::new(context.clone()))))
}

/// An argument as `classad_eval` reads it: an ad, or assignments once
/// wrapped in `[ ]`; `None` when it is neither.
/// As HTCondor's ClassAd constructor, only the first ad counts: what
/// follows it is ignored (`[a = 1].a` is the ad `[ a = 1 ]`).
fn as_ad(parser: &Parser, arg: &str) -> Option<AdExpr> {
    let first_ad = |text: &str| match AdReader::new(text.as_bytes(), Format::New, parser).next() {
        Some(Ok(ad)) => Some(ad),
        _ => None,
    };
    first_ad(arg).or_else(|| first_ad(&format!("[{arg}]")))
}

/// An argument as `classad2.ExprTree` reads it: the value of
/// `[expression = ARG]`, whatever follows that ad ignored (so `1]` is 1,
/// and `1 // c` is nothing: the comment hides the closing bracket).
fn as_expression(parser: &Parser, arg: &str) -> Option<Expr> {
    let text = format!("[expression = {arg}]");
    let Some(Ok(ad)) = AdReader::new(text.as_bytes(), Format::New, parser).next() else {
        return None;
    };
    ad.attributes
        .into_iter()
        .rev()
        .find(|(name, _)| name.eq_ignore_case("expression"))
        .map(|(_, expr)| expr)
}

fn arguments(settings: &mut Settings, steps: &[Step]) -> ExitCode {
    let parser = Parser::new(settings.parse_options());
    let mut vm = Vm::new(settings.options);
    let mut changed = true;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for step in steps {
        let arg = match step {
            Step::Quiet => {
                settings.quiet = true;
                continue;
            }
            Step::File(path) => {
                // Not a change: `classad_eval` sets its `updated` flag
                // only for ad and assignment arguments, so a file loaded
                // after an expression was printed is not printed.
                if let Err(status) = set_context(settings, path) {
                    let _ = out.flush();
                    return status;
                }
                continue;
            }
            Step::TargetFile(path) => {
                if let Err(status) = set_target(settings, path) {
                    let _ = out.flush();
                    return status;
                }
                continue;
            }
            Step::Arg(arg) => arg,
        };
        if let Some(ad) = as_ad(&parser, arg) {
            for (name, expr) in ad.attributes {
                settings.context.insert(name, expr);
            }
            changed = true;
            continue;
        }
        // `classad_eval` prints the context ad (when it changed) before it
        // tries the argument as an expression, so an argument that is
        // neither an ad nor an expression still has the ad printed first.
        let mut text = String::new();
        if changed && !settings.quiet {
            text.push_str(&context_text(&settings.context));
            text.push('\n');
        }
        changed = false;
        let program = match as_expression(&parser, arg)
            .and_then(|expr| classad::compile_with(&settings.registry, &expr).ok())
        {
            Some(program) => program,
            None => {
                let _ = out.write_all(&syntax::unparse::htcondor_text_bytes(text));
                let _ = out.flush();
                eprintln!("Unable to turn '{arg}' into a ClassAd or an expression.");
                return ExitCode::from(1);
            }
        };
        let context = match classad::ad_from_ast_with(&settings.registry, &settings.context) {
            Ok(ad) => ad,
            Err(e) => {
                let _ = out.flush();
                eprintln!("classad eval: {e}");
                return ExitCode::from(1);
            }
        };
        let value = vm.evaluate_as_written(&program, &context, settings.target.as_ref());
        // As `repr` prints `ExprTree.simplify`'s literal.
        print::write_value_as(&value, print::Style::HTCONDOR, &mut text);
        text.push('\n');
        // HTCondor's bytes: a selected name is written raw, whatever bytes
        // it holds.
        if let Err(e) = out.write_all(&syntax::unparse::htcondor_text_bytes(text)) {
            return crate::args::output_failed("eval", &e);
        }
    }
    match out.flush() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::args::output_failed("eval", &e),
    }
}
