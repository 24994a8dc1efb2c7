//! Every example of `docs/semantics.md` and `docs/differences.md` run
//! through `classad eval --batch` with `TZ=UTC`.
//!
//! An example is `expr  =>  value` on a line of a fenced code block, or
//! `` `expr => value` `` in running text or a table. Text after the value
//! that is set off by two spaces and a parenthesis (`(why)`) or `[spec≠lib]`
//! is a comment. The printed value of `expr` must equal the printed value
//! of `value` (so `{1, 2}` and `{ 1,2 }` agree), or `value` exactly.
//!
//! In docs/differences.md a code block whose first line is `# --corrections`
//! (or `# --strict`) is run with that option: HTCondor's answers are the
//! plain blocks, the opt-in corrections the others.
//!
//! The docs must name paths relative to the repository, never a machine's,
//! and the size they state of `tests/corpus/operators.txt` must be its size.

use crate::common;

use common::{assert_all_hold, batch};

use std::path::{Path, PathBuf};

struct Example {
    file: &'static str,
    line: usize,
    flags: Vec<String>,
    expr: String,
    expected: String,
}

fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

/// The value part of an example without its trailing comment.
fn strip_comment(value: &str) -> &str {
    let mut end = value.len();
    for marker in ["  (", "\t(", "  [spec", " [spec", "  //"] {
        if let Some(at) = value.find(marker) {
            end = end.min(at);
        }
    }
    value[..end].trim()
}

fn examples_of(file: &'static str) -> Vec<Example> {
    let text = std::fs::read_to_string(docs_dir().join(file)).expect("readable");
    let mut out = Vec::new();
    let mut in_block = false;
    let mut flags: Vec<String> = Vec::new();
    let mut first_in_block = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            flags.clear();
            first_in_block = in_block;
            continue;
        }
        if in_block {
            let trimmed = line.trim();
            if first_in_block && let Some(options) = trimmed.strip_prefix("# ") {
                flags = options.split_whitespace().map(str::to_string).collect();
                first_in_block = false;
                continue;
            }
            first_in_block = false;
            if let Some((expr, value)) = trimmed.split_once("=>") {
                out.push(Example {
                    file,
                    line: i + 1,
                    flags: flags.clone(),
                    expr: expr.trim().to_string(),
                    expected: strip_comment(value).to_string(),
                });
            }
            continue;
        }
        // `expr => value` in running text or a table cell (`\|` is a `|`
        // escaped for the table).
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            let span = &after[..end];
            if let Some((expr, value)) = span.split_once("=>") {
                out.push(Example {
                    file,
                    line: i + 1,
                    flags: Vec::new(),
                    expr: expr.trim().replace("\\|", "|"),
                    expected: strip_comment(value).replace("\\|", "|"),
                });
            }
            rest = &after[end + 1..];
        }
    }
    out
}

fn check(file: &'static str, at_least: usize) {
    let examples = examples_of(file);
    assert!(
        examples.len() >= at_least,
        "{file}: found only {} examples",
        examples.len()
    );
    let mut groups: Vec<Vec<String>> = examples.iter().map(|e| e.flags.clone()).collect();
    groups.sort();
    groups.dedup();
    let mut wrong = Vec::new();
    for flags in groups {
        let chosen: Vec<&Example> = examples.iter().filter(|e| e.flags == flags).collect();
        let exprs: Vec<String> = chosen.iter().map(|e| e.expr.clone()).collect();
        let values: Vec<String> = chosen.iter().map(|e| e.expected.clone()).collect();
        let got = batch(&flags, &exprs);
        let want = batch(&flags, &values);
        for ((example, got), want) in chosen.iter().zip(&got).zip(&want) {
            let parse_error = example.expected == "parse error" && got.starts_with("parse error:");
            if *got != *want && *got != example.expected && !parse_error {
                wrong.push(format!(
                    "{}:{}: {} {}\n  documented: {}\n  printed:    {}",
                    example.file,
                    example.line,
                    flags.join(" "),
                    example.expr,
                    example.expected,
                    got
                ));
            }
        }
    }
    assert_all_hold(&wrong, examples.len());
}

#[test]
fn semantics_examples_hold() {
    check("semantics.md", 300);
}

#[test]
fn differences_examples_hold() {
    check("differences.md", 20);
}

#[test]
fn docs_name_no_machine_paths() {
    for file in ["semantics.md", "differences.md"] {
        let text = std::fs::read_to_string(docs_dir().join(file)).expect("readable");
        for (i, line) in text.lines().enumerate() {
            for prefix in ["/work/", "/home/", "/root/", "/tmp/", "/Users/"] {
                assert!(
                    !line.contains(prefix),
                    "{file}:{}: an absolute path: {line}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn stated_corpus_size_is_the_corpus_size() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/operators.txt");
    let count = std::fs::read_to_string(corpus)
        .expect("readable")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .count();
    let text = std::fs::read_to_string(docs_dir().join("semantics.md")).expect("readable");
    let stated = text
        .split("`tests/corpus/operators.txt` (")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse::<usize>().ok())
        .expect("semantics.md states the size of tests/corpus/operators.txt");
    assert_eq!(
        stated, count,
        "the stated size of tests/corpus/operators.txt"
    );
}
