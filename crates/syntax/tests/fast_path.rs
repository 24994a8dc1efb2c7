//! The scanner of `classad_syntax::fast` and the grammar agree: on every
//! line of the corpora and on generated text, read as an expression (new
//! and old string rules), as an old-syntax line and inside a new-syntax
//! ad, the parser with its fast path gives exactly the tree, spans and
//! names the grammar alone gives, or exactly the same error.
//!
//! The corpora are this repository's (`tests/corpus`, `tests/gen`,
//! `tests/hostile`, this crate's `tests/corpus`) and, where present, the
//! shared conformance files and a small generated pool
//! (`shared/workloads/gen_pool.py`); a missing shared directory is said
//! on stderr, not silently passed over.

use classad_syntax::{AdExpr, Expr, ExprKind, Literal, Name, ParseOptions, Parser, StringRules};
use classad_syntax::{BinaryOp, UnaryOp, fast, unparse, unparse_old};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

mod common;
use common::spans;

/// Trees equal, spans equal (equality of trees ignores spans) and names
/// spelt the same (equality of names is exact already).
fn same_expr(a: &Expr, b: &Expr) -> bool {
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    spans(a, &mut sa);
    spans(b, &mut sb);
    a == b && sa == sb
}

fn same_ad(a: &AdExpr, b: &AdExpr) -> bool {
    a.attributes.len() == b.attributes.len()
        && a.attributes
            .iter()
            .zip(&b.attributes)
            .all(|((na, ea), (nb, eb))| na == nb && same_expr(ea, eb))
}

/// How many texts the fast path read itself, of how many.
#[derive(Default, Debug)]
struct Tally {
    fast: usize,
    total: usize,
}

/// Checks one text every way it can be read; panics on a disagreement.
fn agree(parser: &Parser, text: &str, tally: &mut Tally) {
    for rules in [StringRules::New, StringRules::Old] {
        let with = parser.parse_expression_with(text, rules);
        let without = parser.parse_expression_with_grammar(text, rules);
        match (&with, &without) {
            (Ok(a), Ok(b)) => assert!(same_expr(a, b), "{rules:?} {text:?}:\n{a:?}\n{b:?}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{rules:?} {text:?}"),
            _ => panic!("{rules:?} {text:?}: fast path {with:?}, grammar {without:?}"),
        }
        tally.total += 1;
        tally.fast += usize::from(fast::expression(parser, text, rules).is_some());
    }
    for line in [format!("X = {text}"), text.to_string()] {
        let with = parser.parse_old_line(&line);
        let without = parser.parse_old_line_with_grammar(&line);
        match (&with, &without) {
            (Ok((na, a)), Ok((nb, b))) => {
                assert!(na == nb && same_expr(a, b), "line {line:?}:\n{a:?}\n{b:?}")
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "line {line:?}"),
            _ => panic!("line {line:?}: fast path {with:?}, grammar {without:?}"),
        }
        tally.total += 1;
        let at_zero = fast::old_line(parser, &line);
        tally.fast += usize::from(at_zero.is_some());
        // Moved into a file, every span moves and nothing else.
        if let Some((name, mut expr)) = at_zero {
            classad_syntax::json::shift_spans(&mut expr, 1000);
            let (moved_name, moved) = fast::old_line_at(parser, &line, 1000).expect("moved");
            assert!(
                name == moved_name && same_expr(&expr, &moved),
                "{line:?} moved"
            );
        }
    }
    for ad in [
        format!("[X = {text}]"),
        format!("[\n  A = 1;\n  X = {text};\n  B = X\n]"),
        format!("[{text}]"),
    ] {
        let with = parser.parse_ad(&ad);
        let without = parser.parse_ad_with_grammar(&ad);
        match (&with, &without) {
            (Ok(a), Ok(b)) => assert!(same_ad(a, b), "ad {ad:?}:\n{a:?}\n{b:?}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "ad {ad:?}"),
            _ => panic!("ad {ad:?}: fast path {with:?}, grammar {without:?}"),
        }
        tally.total += 1;
        tally.fast += usize::from(fast::ad(parser, &ad).is_some());
    }
}

fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            text_files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "txt" || e == "ad" || e == "ads")
        {
            out.push(path);
        }
    }
}

/// The shared directory (`../shared` of the repository), if present.
fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLASSAD_SHARED_DIR") {
        return Some(PathBuf::from(dir));
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The repository's sibling, or (in a worktree beside it) one level up.
    [
        here.join("../../../shared"),
        here.join("../../../../shared"),
    ]
    .into_iter()
    .find(|d| d.join("conformance").is_dir())
}

fn check_files(parser: &Parser, files: &[PathBuf], tally: &mut Tally) {
    for file in files {
        let bytes = std::fs::read(file).expect("readable corpus file");
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines() {
            agree(parser, line, tally);
            // `name = value` lines are old-syntax lines already; their
            // values are expressions.
            if let Some((_, value)) = line.split_once('=') {
                agree(parser, value, tally);
            }
        }
    }
}

#[test]
fn corpora_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "tests/corpus",
        "tests/gen",
        "tests/hostile",
        "crates/syntax/tests/corpus",
    ] {
        text_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "the repository's corpora: {files:?}");
    let parser = Parser::new(ParseOptions::default());
    let mut tally = Tally::default();
    check_files(&parser, &files, &mut tally);
    eprintln!("repository corpora: {} files, {tally:?}", files.len());
    assert!(
        tally.fast * 5 > tally.total,
        "the fast path took too few: {tally:?}"
    );
}

#[test]
fn shared_corpora_agree() {
    let Some(shared) = shared_dir() else {
        eprintln!("note: ../shared not found: shared conformance corpora skipped");
        return;
    };
    let mut files = Vec::new();
    text_files(&shared.join("conformance"), &mut files);
    let parser = Parser::new(ParseOptions::default());
    let mut tally = Tally::default();
    check_files(&parser, &files, &mut tally);
    eprintln!("shared corpora: {} files, {tally:?}", files.len());
}

/// Every line of a small generated pool, the text the fast path is for:
/// nearly all of it must be read by the fast path.
#[test]
fn pool_lines_agree() {
    let Some(shared) = shared_dir() else {
        eprintln!("note: ../shared not found: generated pool skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("classad-fast-path-{}", std::process::id()));
    let ran = std::process::Command::new("python3")
        .arg(shared.join("workloads/gen_pool.py"))
        .args(["--machines", "40", "--jobs", "40", "--out"])
        .arg(&dir)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ran {
        eprintln!("note: gen_pool.py did not run: generated pool skipped");
        return;
    }
    let parser = Parser::new(ParseOptions::default());
    let mut lines = 0;
    let mut fast_lines = 0;
    for name in ["machines.ads", "jobs.ads"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("generated pool");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (with, without) = (
                parser.parse_old_line(line),
                parser.parse_old_line_with_grammar(line),
            );
            let ((na, a), (nb, b)) = (with.expect(line), without.expect(line));
            assert!(na == nb && same_expr(&a, &b), "{line:?}");
            lines += 1;
            fast_lines += usize::from(fast::old_line(&parser, line).is_some());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("pool: {fast_lines} of {lines} lines read by the fast path");
    assert!(fast_lines * 100 >= lines * 99, "{fast_lines} of {lines}");
}

/// The cases at the edges of what the scanner reads.
#[test]
fn edge_cases_agree() {
    let parser = Parser::new(ParseOptions::default());
    let mut tally = Tally::default();
    for text in [
        "",
        " ",
        "1",
        "-1",
        "- 1",
        "--1",
        "-+-1",
        "+1",
        "!a",
        "~ a",
        "-a.b",
        "a-1",
        "a -1",
        "a - -1",
        "a--1",
        "1-1",
        "-.5",
        "- .5",
        "-..5",
        "..5",
        ".5",
        "5.",
        "5.a",
        "1.e5",
        "1e5",
        "1E+5",
        "1e",
        "1e+",
        "1.5e-3",
        "1.5.x",
        "1 .x",
        "1..x",
        "0",
        "00",
        "007",
        "-007",
        "0x1F",
        "2K",
        "3is b",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678",
        "1234567890123456789",
        "\"\"",
        "\"a\" \"b\"",
        "\"a\"\n\"b\"",
        "\"a\" /* c */ \"b\"",
        "\"\\\"\"",
        "\"\\\\\"",
        "\"\\101\\0\"",
        "\"\\n\\t\\q\"",
        "\"\0\"",
        "\"é\\é\"",
        "\"x",
        "\"x\\",
        "\"x\\\"",
        "true",
        "TRUE",
        "True1",
        "trueX",
        "true.x",
        "true(1)",
        "is",
        "isnt",
        "a is b",
        "a IS b",
        "a isnt b",
        "a isx b",
        "a is_b",
        "a isnt",
        "undefined",
        "error",
        "ERROR(1)",
        "a.b.c",
        "a . b",
        "a..b",
        "a.'b'",
        "a.true",
        "a.is",
        "MY.x",
        "f()",
        "f( )",
        "f(1)",
        "f (1)",
        "f(1,2)",
        "f(1;2)",
        "f(1,)",
        "f(,)",
        "f((1))",
        "{}",
        "{ }",
        "{1}",
        "{1,}",
        "{1,{2,{3}}}",
        "{,}",
        "(1)",
        "( 1 )",
        "()",
        "((a))",
        "a[1]",
        "a ? b : c",
        "a ?: b",
        "a?:b",
        "a // c",
        "a /* c */",
        "a / b",
        "a/ b",
        "a /b",
        "a/*b*/",
        "a = b",
        "a == b",
        "a =?= b",
        "a =!= b",
        "a != b",
        "a ! b",
        "a <= b",
        "a < = b",
        "a << b",
        "a <<= b",
        "a >>> b",
        "a >> b",
        "a > >b",
        "a >= b",
        "a || b && c",
        "a && b || c",
        "a | b ^ c & d",
        "a || | b",
        "a & &b",
        "a ||| b",
        "1 + 2 * 3 - 4 / 5 % 6",
        "a < b == c > d",
        "1 << 2 + 3",
        "[a = 1]",
        "[]",
        "[;]",
        "[a=1;;]",
        "[a = 1 b = 2]",
        "'q'",
        "'q' = 1",
        "a;",
        "a,",
        "a)",
        "a]",
        "a}",
        "x = 1",
        "\t a \u{b}\u{c}\r\n",
        "é",
        "a é",
        "f(a)(b)",
        "parent",
        "a.parent",
        "self.x",
        "Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.Memory >= RequestMemory)",
        "ifThenElse(MY.RemoteOwner =?= undefined, 0, 3 * 24 * 3600)",
        ";",
        ";;",
        "a = 1;",
        ";a = 1",
        "a = 1;;b = 2",
        "a = 1 b = 2",
    ] {
        agree(&parser, text, &mut tally);
    }
}

/// Expressions that start with blanks (a JSON ad's `"\/Expr( -x)\/"`)
/// are read by the scanner too, and agree.
#[test]
fn leading_blanks_are_read_by_the_scanner() {
    let parser = Parser::new(ParseOptions::default());
    let mut tally = Tally::default();
    for text in [" -TARGET.LoadAvg", "\t x + 1", " \n 1 ", "  "] {
        agree(&parser, text, &mut tally);
    }
    for text in [" -TARGET.LoadAvg", "\t x + 1", " \n 1 "] {
        assert!(
            fast::expression(&parser, text, StringRules::New).is_some(),
            "{text:?}"
        );
    }
}

/// The scanner reads only up to its own nesting bound, and never past the
/// parser's limits: deeper text gets the grammar's answer.
#[test]
fn limits_agree() {
    for (depth, nesting) in [(5, 200), (2000, 3), (1, 1), (2000, 200)] {
        let parser = Parser::new(ParseOptions {
            max_depth: depth,
            max_nesting: nesting,
            ..ParseOptions::default()
        });
        let mut tally = Tally::default();
        for n in [1, 2, 3, 4, 5, 6, 63, 64, 65, 200, 201] {
            for text in [
                format!("{}1{}", "(".repeat(n), ")".repeat(n)),
                format!("{}1{}", "{".repeat(n), "}".repeat(n)),
                format!("{}1{}", "f(".repeat(n), ")".repeat(n)),
                format!("{}a", "-".repeat(n)),
                format!("{}a", "!".repeat(n)),
                format!("a{}", " + a".repeat(n)),
                format!("a{}", ".b".repeat(n)),
            ] {
                agree(&parser, &text, &mut tally);
            }
        }
    }
    // A work bound tighter than the scanner assumes leaves all to the grammar.
    let parser = Parser::new(ParseOptions {
        work_per_byte: 1,
        ..ParseOptions::default()
    });
    assert!(fast::expression(&parser, "a + 1", StringRules::New).is_none());
}

// ---------------------------------------------------------------------------
// Generated text.

/// Tokens that the scanner reads or must decline, and their neighbours.
fn token() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "a",
        "MY",
        "TARGET",
        "_x1",
        "is",
        "isnt",
        "IS",
        "true",
        "False",
        "undefined",
        "error",
        "f",
        "parent",
        "0",
        "1",
        "007",
        "1.5",
        "1e5",
        "1.",
        ".5",
        "..",
        "-1",
        "2K",
        "0x1F",
        "9223372036854775808",
        "\"s\"",
        "\"a\\\"b\"",
        "\"\\\\\"",
        "\"\\101\"",
        "\"\\0\"",
        "\"é\"",
        "\"",
        "'q'",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        ";",
        ".",
        "?",
        ":",
        "?:",
        "=",
        "==",
        "!=",
        "=?=",
        "=!=",
        "<",
        "<=",
        ">",
        ">=",
        "<<",
        ">>",
        ">>>",
        "+",
        "-",
        "*",
        "/",
        "%",
        "!",
        "~",
        "&",
        "&&",
        "|",
        "||",
        "^",
        "//c\n",
        "/*c*/",
        "\n",
    ])
}

fn soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            token(),
            proptest::sample::select(vec!["", "", " ", "\t", "\n"]),
        ),
        0..12,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .map(|(t, sep)| format!("{t}{sep}"))
            .collect()
    })
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// Trees of the forms the scanner reads (and some it declines), to be
/// unparsed into text that mostly parses.
fn tree() -> impl Strategy<Value = Expr> {
    let name = proptest::sample::select(vec!["a", "MY", "TARGET", "Memory", "x_1", "B"]);
    let leaf = prop_oneof![
        (-1000i64..1000).prop_map(|i| Expr::literal(Literal::Integer(i))),
        any::<i64>().prop_map(|i| Expr::literal(Literal::Integer(i))),
        any::<f64>().prop_map(|r| Expr::literal(Literal::Real(r))),
        (-100.0f64..100.0).prop_map(|r| Expr::literal(Literal::Real(r))),
        "[ -~é\\\\\"]{0,6}".prop_map(|s| Expr::literal(Literal::String(s.into_bytes().into()))),
        any::<bool>().prop_map(|b| Expr::literal(Literal::Boolean(b))),
        Just(Expr::literal(Literal::Undefined)),
        name.clone()
            .prop_map(|n| Expr::new(ExprKind::Attribute(Name::new(n)))),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            4 => (proptest::sample::select(BinaryOp::ALL.to_vec()), inner.clone(), inner.clone())
                .prop_map(|(op, l, r)| Expr::new(ExprKind::Binary { op, lhs: boxed(l), rhs: boxed(r) })),
            2 => (proptest::sample::select(vec![UnaryOp::Minus, UnaryOp::Plus, UnaryOp::Not, UnaryOp::BitNot]), inner.clone())
                .prop_map(|(op, e)| Expr::new(ExprKind::Unary { op, operand: boxed(e) })),
            2 => (inner.clone(), name.clone())
                .prop_map(|(b, n)| Expr::new(ExprKind::Select { base: boxed(b), name: Name::new(n) })),
            2 => proptest::collection::vec(inner.clone(), 0..3)
                .prop_map(|args| Expr::new(ExprKind::Call { name: Name::new("f"), args })),
            1 => proptest::collection::vec(inner.clone(), 0..3).prop_map(|v| Expr::new(ExprKind::List(v))),
            2 => inner.clone().prop_map(|e| Expr::new(ExprKind::Paren(boxed(e)))),
            1 => (inner.clone(), inner.clone())
                .prop_map(|(b, i)| Expr::new(ExprKind::Subscript { base: boxed(b), index: boxed(i) })),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generated_soup_agrees(text in soup()) {
        let parser = Parser::new(ParseOptions::default());
        agree(&parser, &text, &mut Tally::default());
    }

    /// A JSON `"\/Expr(...)\/"` string without other escapes is read in
    /// place: the tree, spans and errors of the expression read alone,
    /// moved to where it stands in the document.
    #[test]
    fn json_expressions_read_in_place_agree(text in soup()) {
        let text = text.replace(['"', '\\'], "");
        let parser = Parser::new(ParseOptions::default());
        let doc = format!("{{\"a\": \"\\/Expr({text})\\/\"}}");
        let offset = doc.find("Expr(").unwrap() + 5;
        let json = classad_syntax::parse_json_ad(&parser, &doc);
        let alone = parser.parse_expression(&text);
        match (&json, &alone) {
            (Ok(ad), Ok(expr)) => {
                let mut moved = expr.clone();
                classad_syntax::json::shift_spans(&mut moved, offset);
                prop_assert!(same_expr(ad.get("a").unwrap(), &moved), "{doc:?}");
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(&a.message, &b.message);
                prop_assert_eq!(a.span.start as usize, b.span.start as usize + offset);
                prop_assert_eq!(a.span.end as usize, b.span.end as usize + offset);
            }
            _ => prop_assert!(false, "{doc:?}: json {json:?}, alone {alone:?}"),
        }
    }

    #[test]
    fn generated_trees_agree(e in tree()) {
        let parser = Parser::new(ParseOptions::default());
        agree(&parser, &unparse(&e), &mut Tally::default());
        agree(&parser, &unparse_old(&e), &mut Tally::default());
    }
}
