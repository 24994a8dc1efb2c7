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

/// Each ad of `text` (old syntax, ads apart by blank lines) read by one
/// reader after the others, and read alone by a reader of its own: what
/// the reader kept from the ads before (names interned, the last ad's
/// names as guesses, its table of names defined) must change nothing.
fn read_alone_and_after_others(text: &str) {
    read_alone_and_after_others_in(text, classad_syntax::Format::Old, "\n\n");
}

fn read_alone_and_after_others_in(text: &str, format: classad_syntax::Format, between: &str) {
    use classad_syntax::AdReader;
    let parser = Parser::new(ParseOptions::default());
    let together: Vec<_> = AdReader::new(text.as_bytes(), format, &parser).collect();
    let alone: Vec<_> = text
        .split(between)
        .filter(|ad| !ad.trim().is_empty())
        .map(|ad| {
            let parser = Parser::new(ParseOptions::default());
            let mut ads: Vec<_> = AdReader::new(ad.as_bytes(), format, &parser).collect();
            assert_eq!(ads.len(), 1, "{ad:?}");
            ads.remove(0)
        })
        .collect();
    assert_eq!(together.len(), alone.len(), "{text:?}");
    for (a, b) in together.iter().zip(&alone) {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text:?}");
                let names = |ad: &classad_syntax::AdExpr| {
                    ad.attributes
                        .iter()
                        .map(|(n, _)| n.to_string())
                        .collect::<Vec<_>>()
                };
                assert_eq!(names(a), names(b), "spellings in {text:?}");
            }
            (Err(a), Err(b)) => assert_eq!(a.error.message, b.error.message, "{text:?}"),
            _ => panic!("{text:?}: together {a:?}, alone {b:?}"),
        }
    }
}

#[test]
fn names_defined_twice_keep_the_first_place_and_spelling() {
    let parser = Parser::new(ParseOptions::default());
    let text = "A = 1\nb = 2\na = 3\nB = 4 + 1\nC = 5\n\nA = 1\n";
    let ads: Vec<_> =
        classad_syntax::AdReader::new(text.as_bytes(), classad_syntax::Format::Old, &parser)
            .map(Result::unwrap)
            .collect();
    let first = &ads[0];
    let names: Vec<&str> = first
        .attributes
        .iter()
        .map(|(n, _)| n.to_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "b", "C"]);
    assert_eq!(
        classad_syntax::unparse(first.get("a").unwrap()),
        "3",
        "the last definition wins"
    );
    assert_eq!(classad_syntax::unparse(first.get("B").unwrap()), "4 + 1");
    read_alone_and_after_others(text);
}

#[test]
fn a_reader_guesses_names_without_changing_what_is_read() {
    // The second ad of each pair has the names of the first in the same
    // places, spelt differently, or not names at all.
    for text in [
        "'x y' = 1\n\nx y = 1\n",
        "'true' = 1\n\ntrue = 1\n",
        "'parent' = 1\n\nparent = 1\n",
        "Memory = 1\nCpus = 2\n\nmemory = 1\nCPUS = 2\n",
        "Memory = 1\nCpus = 2\n\nMemoryX = 1\nCpu = 2\n",
        "Memory = 1\nCpus = 2\n\nMemory= 1\nCpus =2\nMemory = 3\n",
        "Memory = 1\nCpus = 2\n\nCpus = 1\nMemory = 2\ncpus = 3\n",
        "A = 1\nA = 2\nB = 3\n\nA = 1\nB = 2\nB = 3\n",
        "A = 1\n\nA.b = 1\n",
        "A = 1\n\nA(1) = 1\n",
    ] {
        read_alone_and_after_others(text);
    }
}

#[test]
fn a_new_syntax_reader_guesses_names_without_changing_what_is_read() {
    for text in [
        "[ 'x y' = 1 ]\n[ x y = 1 ]\n",
        "[ 'true' = 1 ]\n[ true = 1 ]\n",
        "[ Memory = 1; Cpus = 2 ]\n[ memory = 1; CPUS = 2; MEMORY = 3 ]\n",
        "[ Memory = 1; Cpus = 2 ]\n[ MemoryX = 1; Cpu = 2 ]\n",
        "[ A = 1; A = 2; B = [ B = 1; b = 2 ] ]\n[ A = 1; B = [ A = 1; a = 2 ]; b = 3 ]\n",
        "[ A = 1 ]\n[ A.b = 1 ]\n",
        "[ A = 1; B = 2 ]\n[ A = 1; B = (1 ? 2 : 3) ]\n[ A = 1; b = 4 ]\n",
    ] {
        read_alone_and_after_others_in(text, classad_syntax::Format::New, "\n");
    }
}

/// An ad longer than the reader takes in at once (a few thousand lines)
/// is read whole, its positions those of the file.
#[test]
fn long_ads_are_read_across_the_readers_batches() {
    use classad_syntax::{AdReader, Format};
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!("A{i} = {i}\n# note\n"));
    }
    text.push_str("A5 = \"last\"\n\nB = 1\n");
    let parser = Parser::new(ParseOptions::default());
    let ads: Vec<_> = AdReader::new(text.as_bytes(), Format::Old, &parser)
        .map(Result::unwrap)
        .collect();
    assert_eq!(ads.len(), 2);
    assert_eq!(ads[0].len(), 10_000);
    assert_eq!(
        classad_syntax::unparse(ads[0].get("a9999").unwrap()),
        "9999"
    );
    assert_eq!(
        classad_syntax::unparse(ads[0].get("A5").unwrap()),
        "\"last\""
    );
    let b = &ads[1].attributes[0].1;
    assert_eq!(b.span.start as usize, text.len() - 2);
    // An error past the first batch has its own line; the ad keeps the
    // 7000 lines before it, and drops the 3000 from it on (`A5 = "last"`
    // included: the ad keeps A5's first definition).
    let broken = text.replacen("A7000 = 7000", "A7000 = 7000 +", 1);
    let mut reader = AdReader::new(broken.as_bytes(), Format::Old, &parser);
    let ads: Vec<_> = reader.by_ref().collect();
    let kept = ads[0].as_ref().unwrap();
    assert_eq!(kept.len(), 7000);
    assert_eq!(classad_syntax::unparse(kept.get("A5").unwrap()), "5");
    let warnings = reader.take_warnings();
    let err = &warnings[0].error;
    assert_eq!((err.first_line, err.error.line), (1, 14_001));
    assert_eq!(
        (warnings[0].kept_lines, warnings[0].dropped_lines),
        (7000, 3001)
    );
    assert!(ads[1].is_ok());
    let refusing = Parser::new(ParseOptions {
        refuse_partial_ads: true,
        ..ParseOptions::default()
    });
    let ads: Vec<_> = AdReader::new(broken.as_bytes(), Format::Old, &refusing).collect();
    let err = ads[0].as_ref().unwrap_err();
    assert_eq!((err.first_line, err.error.line), (1, 14_001));
    assert!(ads[1].is_ok());
}
