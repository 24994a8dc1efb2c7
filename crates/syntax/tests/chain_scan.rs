//! The scan that refuses long runs of operators before pest reads them
//! (`max_depth`, docs/limits.md) refuses nothing the tree builder would
//! accept: on every line of the corpora and on generated chains, at small
//! depth bounds where the scan runs on every text, a text the scan refuses
//! is one the builder refuses too.

use classad_syntax::{ParseOptions, Parser, StringRules};
use std::path::PathBuf;

fn corpus_lines() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [root.join("tests/corpus"), root.join("tests/gen")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            files.extend(entries.flatten().map(|e| e.path()));
        }
    }
    let shared = PathBuf::from("/work/shared/conformance");
    if let Ok(entries) = std::fs::read_dir(&shared) {
        files.extend(entries.flatten().map(|e| e.path()));
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    let mut lines = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .map(str::to_string),
        );
    }
    lines
}

fn generated() -> Vec<String> {
    let mut out = Vec::new();
    let atoms = [
        "x", "1", "1e-5", "0x1e", "\"s\"", "'q'", "f(x)", "{1}", "[a=1]", "(x)", ".5", "1.e",
    ];
    let ops = [
        "||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", " is ", " isnt ", "<", "<=", ">",
        ">=", "<<", ">>", ">>>", "+", "-", "*", "/", "%", "?:", "-", "- -",
    ];
    let posts = ["", ".a", "[0]", ".'b'", ". c", "[x.y]"];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..20_000 {
        let mut text = String::new();
        let terms = 1 + next(12);
        for t in 0..terms {
            if t > 0 {
                text.push_str(ops[next(ops.len())]);
            }
            for _ in 0..next(3) {
                text.push_str(["-", "!", "~", "+"][next(4)]);
            }
            text.push_str(atoms[next(atoms.len())]);
            for _ in 0..next(4) {
                text.push_str(posts[next(posts.len())]);
            }
        }
        out.push(text);
    }
    out
}

#[test]
fn the_scan_refuses_only_what_the_builder_refuses() {
    let mut texts = corpus_lines();
    texts.extend(generated());
    assert!(texts.len() > 20_000);
    let mut refused = 0;
    for max_depth in [1, 2, 3, 4, 6, 9] {
        let parser = Parser::new(ParseOptions {
            max_depth,
            ..ParseOptions::default()
        });
        for text in &texts {
            if parser.scan_chains(text).is_ok() {
                continue;
            }
            refused += 1;
            if let Ok(expr) = parser.parse_expression_unscanned(text, StringRules::New) {
                panic!(
                    "max_depth {max_depth}: the scan refuses `{text}`, the builder reads {expr:?}"
                );
            }
        }
    }
    // The scan does refuse some: the test is not vacuous.
    assert!(refused > 1000, "{refused}");
}

/// Runs far past the bound are refused by the scan, with the builder's
/// message, for each form.
#[test]
fn long_runs_are_refused_before_pest() {
    let parser = Parser::new(ParseOptions::default());
    let n = 5000;
    for text in [
        format!("{}1", "-".repeat(n)),
        format!("1{}1", "+".repeat(n)),
        format!("x{}", "[0]".repeat(n)),
        format!("x{}", ".b[0]".repeat(n)),
        format!("x{}", " || x".repeat(n)),
        format!("x{}", " + y * z".repeat(n)),
        format!("{}1", "! ".repeat(n)),
    ] {
        let err = parser.scan_chains(&text).expect_err(&text[..40]);
        assert!(err.message.contains("nested too deeply"), "{err}");
        let err = parser.parse_expression(&text).expect_err(&text[..40]);
        assert!(err.message.contains("nested too deeply"), "{err}");
    }
    // A selection chain is no run (no level of depth, as in HTCondor's
    // parser): read whatever its length.
    let chain = format!("x{}", ".b".repeat(n));
    assert!(parser.scan_chains(&chain).is_ok());
    assert!(parser.parse_expression(&chain).is_ok());
    // Balanced mixes of precedences are not runs: read as before.
    let balanced = format!("x{}", " + y * z || w".repeat(n / 10));
    assert!(parser.scan_chains(&balanced).is_ok());
}
