//! `gen-exprs --seed S --count N [--max-depth D] [--calls] [--text] [--library] [--odd] [--wild] [--outside]`:
//! prints N generated ClassAd expressions, one a line, for the oracle
//! (`tests/gen/run_difftest.sh`). Without `--calls` no function is called;
//! `--text` adds the forms of `GenOptions::text` (values as text, lists and
//! ads in string functions, subscripted ads, selection chains, the elvis
//! token spelled with white space inside); `--library` the forms of
//! `GenOptions::library` (the wider library, arguments that are
//! references, `MY.`/`TARGET.` in lists); `--odd` the forms of
//! `GenOptions::odd` (every builtin with arguments at the edges of every
//! type); `--wild` the forms of `GenOptions::wild` (operators on every
//! type and times, every builtin at any arity, the text respelled as an
//! outside tester writes it: hex and octal numbers, escapes, case,
//! quoted names, comments); `--outside` the texts of
//! `GenOptions::outside` (made token by token as a generator written by
//! someone else would: identity on every pair of types, unary chains,
//! numbers past the edges, escapes, odd time strings, builtins with nested
//! arguments, old ways of writing ads and lists, comments between tokens).
//!
//! `gen-exprs --mutate FILE [--mutate FILE ...] --seed S --count N`:
//! prints N mutants of the expressions in the FILEs (corpus files, one
//! expression a line, `#` comments), one a line
//! ([`classad_testkit::mutate`]).
//!
//! `gen-exprs --classify` reads expressions from standard input and prints,
//! for each, the known VM bug it may run into
//! ([`classad_testkit::harness::known_vm_bug`]) or `-`, for triage of
//! oracle mismatches (`tests/gen/triage.py`).

use classad_testkit::generator::{GenOptions, Generator};
use classad_testkit::mutate::Mutator;
use std::io::Write;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: gen-exprs --seed S --count N [--max-depth D] [--calls] [--text] [--library] [--odd] [--wild] [--outside]\n       gen-exprs --mutate FILE [--mutate FILE ...] --seed S --count N"
    );
    ExitCode::from(2)
}

fn classify() -> ExitCode {
    use std::io::BufRead;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let tag = classad_syntax::parse_expression(&line)
            .ok()
            .and_then(|e| classad_testkit::harness::known_vm_bug(&e))
            .unwrap_or("-");
        if writeln!(out, "{tag}").is_err() {
            return ExitCode::from(1);
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// Prints `count` mutants of the lines of `files` (fewer when the corpus
/// runs out of new ones).
fn print_mutants(files: &[String], seed: u64, count: u64) -> ExitCode {
    let mut lines = Vec::new();
    for file in files {
        match std::fs::read(file) {
            // Bytes that are not UTF-8 are rare in a corpus; they become U+FFFD.
            Ok(bytes) => lines.extend(String::from_utf8_lossy(&bytes).lines().map(String::from)),
            Err(e) => {
                eprintln!("gen-exprs: {file}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let mut mutator = Mutator::new(seed, lines);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for _ in 0..count {
        let Some(mutant) = mutator.next_mutant() else {
            break;
        };
        if writeln!(out, "{mutant}").is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--classify") {
        return classify();
    }
    let mut seed = None;
    let mut count = None;
    let mut options = GenOptions::default();
    let mut mutate = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--mutate" {
            let Some(file) = args.get(i + 1) else {
                return usage();
            };
            mutate.push(file.clone());
            i += 2;
            continue;
        }
        let value = args.get(i + 1).and_then(|v| v.parse::<u64>().ok());
        match (args[i].as_str(), value) {
            ("--seed", Some(v)) => seed = Some(v),
            ("--count", Some(v)) => count = Some(v),
            ("--max-depth", Some(v)) => options.max_depth = u32::try_from(v).unwrap_or(u32::MAX),
            ("--calls", _) => {
                options.calls = true;
                i += 1;
                continue;
            }
            ("--library", _) => {
                options.calls = true;
                options.library = true;
                i += 1;
                continue;
            }
            ("--odd", _) => {
                options.calls = true;
                options.odd = true;
                i += 1;
                continue;
            }
            ("--wild", _) => {
                options.calls = true;
                options.wild = true;
                i += 1;
                continue;
            }
            ("--outside", _) => {
                options.calls = true;
                options.outside = true;
                i += 1;
                continue;
            }
            ("--text", _) => {
                options.calls = true;
                options.text = true;
                i += 1;
                continue;
            }
            _ => return usage(),
        }
        i += 2;
    }
    let (Some(seed), Some(count)) = (seed, count) else {
        return usage();
    };
    if !mutate.is_empty() {
        return print_mutants(&mutate, seed, count);
    }
    let mut generator = Generator::new(seed, options);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for _ in 0..count {
        if writeln!(out, "{}", generator.next_text()).is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
