//! The old-syntax reader's fast path for literal values must give exactly
//! the tree (and spans) the grammar gives, and must leave every other line
//! to the grammar.

use classad_syntax::{Expr, ParseOptions, Parser};
use proptest::prelude::*;

fn agree(parser: &Parser, line: &str) {
    let fast = parser.parse_old_line(line);
    let grammar = parser.parse_old_line_with_grammar(line);
    match (&fast, &grammar) {
        (Ok((n1, e1)), Ok((n2, e2))) => {
            assert_eq!(n1, n2, "name of {line:?}");
            assert_eq!(e1, e2, "tree of {line:?}");
            assert_eq!(spans(e1), spans(e2), "spans of {line:?}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "error of {line:?}"),
        _ => panic!("{line:?}: fast path {fast:?}, grammar {grammar:?}"),
    }
}

fn spans(expr: &Expr) -> Vec<(u32, u32)> {
    let mut out = vec![(expr.span.start, expr.span.end)];
    expr.for_each_child(|c| out.extend(spans(c)));
    out
}

#[test]
fn literal_lines_agree() {
    let parser = Parser::new(ParseOptions::default());
    for line in [
        "Cpus = 8",
        "Cpus=8",
        "  Cpus   =   8  ",
        "Memory = -1",
        "Zero = 0",
        "Neg = -0",
        "Lead = 007",
        "Big = 9223372036854775807",
        "Over = 9223372036854775808",
        "Min = -9223372036854775808",
        "LoadAvg = 0.05",
        "R = -0.0",
        "R = 1.5e10",
        "R = 1.5E-3",
        "R = 1e10",
        "R = .5",
        "R = 5.",
        "R = 1.e5",
        "Name = \"slot1@host\"",
        "Name = \"\"",
        "Name = \"a\\\"b\"",
        "Name = \"back\\\\\"",
        "Name = \"tab\\tkept\"",
        "Name = \"a\" \"b\"",
        "Name = \"unterminated",
        "B = true",
        "B = FALSE",
        "B = True1",
        "U = undefined",
        "E = ERROR",
        "X = a + 1",
        "X = 1 + 1",
        "X = 8 // comment",
        "X = -",
        "X =",
        "= 3",
        "true = 3",
        "parent = 3",
        "'quoted name' = 3",
        "X = 3\r",
        "X = \"é\"",
        "X = 0x10",
        "X = 2K",
    ] {
        agree(&parser, line);
    }
}

#[test]
fn workload_lines_agree() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/seed_examples.txt");
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let parser = Parser::new(ParseOptions::default());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        agree(&parser, &format!("X = {line}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn generated_lines_agree(value in "[ a-zA-Z0-9_.+\\-eE\"\\\\=/*()\\t]{0,16}") {
        let parser = Parser::new(ParseOptions::default());
        agree(&parser, &format!("Attr = {value}"));
    }
}

/// Found by the `roundtrip` fuzz target: a raw NUL in a string or quoted
/// name, or escaped (`\` then NUL), is refused like `\0`, so every string
/// that parses unparses to text that parses.
#[test]
fn raw_nul_in_strings_is_refused() {
    for source in ["'/a|\0\0'", "\"\\\0!b=\"", "\"a\0b\""] {
        let error = classad_syntax::parse_expression(source).expect_err(source);
        assert!(error.message.contains("NUL"), "{source}: {}", error.message);
    }
}
