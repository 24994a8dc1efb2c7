//! Hostile input: very deep nesting and very long chains give a clean
//! [`ParseError`], never a panic or a stack overflow. Each input is parsed
//! in a thread with a 2 MiB stack (Rust's default for spawned threads), so
//! a recursion that depends on the input shows up as a crash here.

use classad_syntax::{ParseError, ParseOptions, Parser, StringRules, parse_ad, parse_expression};

const N: usize = 100_000;
const STACK: usize = 2 * 1024 * 1024;

/// Runs `f` on a thread with a 2 MiB stack; a panic or crash fails the test.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the parser panicked")
}

/// Parses `source` as an expression on a small stack; it must fail cleanly,
/// with a message about depth or nesting, at a position inside the text.
fn assert_clean_error(what: &str, source: String) -> ParseError {
    let len = source.len();
    let error =
        on_small_stack(move || parse_expression(&source)).expect_err(&format!("{what}: parsed"));
    assert!(
        error.message.contains("nested too deeply"),
        "{what}: unexpected message {:?}",
        error.message
    );
    assert!(
        (error.span.start as usize) <= len,
        "{what}: span {:?}",
        error.span
    );
    assert_eq!(error.line, 1, "{what}");
    error
}

#[test]
fn nested_parentheses() {
    let e = assert_clean_error("parens", format!("{}1{}", "(".repeat(N), ")".repeat(N)));
    assert_eq!(e.column, ParseOptions::default().max_nesting + 1);
}

#[test]
fn unbalanced_parentheses() {
    assert_clean_error("open parens", "(".repeat(N));
}

#[test]
fn nested_brackets() {
    assert_clean_error("brackets", format!("{}{}", "[".repeat(N), "]".repeat(N)));
    assert_clean_error("ads", format!("{}1{}", "[a = ".repeat(N), "]".repeat(N)));
    assert_clean_error(
        "subscripts",
        format!("a{}0{}", "[a".repeat(N), "]".repeat(N)),
    );
}

#[test]
fn nested_braces() {
    assert_clean_error("braces", format!("{}1{}", "{".repeat(N), "}".repeat(N)));
}

#[test]
fn nested_calls() {
    assert_clean_error("calls", format!("{}1{}", "f(".repeat(N), ")".repeat(N)));
}

#[test]
fn unary_minus_chain() {
    assert_clean_error("minus signs", format!("{}1", "-".repeat(N)));
    assert_clean_error("spaced minus signs", format!("{}a", "- ".repeat(N)));
    assert_clean_error("mixed prefixes", format!("{}a", "!~+-".repeat(N / 4)));
}

#[test]
fn binary_chain() {
    assert_clean_error("1+1+...", format!("1{}", "+1".repeat(N)));
    assert_clean_error("a||b&&...", format!("a{}", "||b&&c".repeat(N / 2)));
}

#[test]
fn selection_chain() {
    assert_clean_error("a[0][0]...", format!("a{}", "[0]".repeat(N)));
    assert_clean_error("a.b[0].b[0]...", format!("a{}", ".b[0]".repeat(N)));
    // A chain of selections alone is read whatever its length (HTCondor's
    // parser reads it in a loop; known_bugs.txt class 46), and unparsed
    // and dropped without recursion.
    let chain = format!("a{}", ".b".repeat(N));
    let unparsed = on_small_stack(move || {
        let e = parse_expression(&chain).expect("parses");
        classad_syntax::unparse(&e) == chain
    });
    assert!(unparsed);
}

#[test]
fn conditional_chain() {
    assert_clean_error("a?b:a?b:...", format!("{}a", "a?b:".repeat(N)));
}

#[test]
fn nested_conditional() {
    assert_clean_error(
        "a?a?...:b:b",
        format!("{}a{}", "a?".repeat(N), ":b".repeat(N)),
    );
}

#[test]
fn elvis_chain() {
    assert_clean_error("a?:a?:...", format!("{}a", "a?:".repeat(N)));
}

/// A long list or ad is wide, not deep: it parses. (The ad has 10,000
/// attributes, not 100,000: building an ad is quadratic in its size, as
/// `AdExpr::insert` looks for an earlier definition by a linear scan, and
/// 100,000 take minutes in a debug build.)
#[test]
fn wide_inputs_parse() {
    let list = format!("{{{}1}}", "1,".repeat(N));
    on_small_stack(move || parse_expression(&list).expect("a long list parses"));
    let ad = format!(
        "[{}]",
        (0..N / 10)
            .map(|i| format!("a{i} = {i};"))
            .collect::<String>()
    );
    on_small_stack(move || parse_ad(&ad).expect("a long ad parses"));
    let string = format!("\"{}\"", "x".repeat(N));
    on_small_stack(move || parse_expression(&string).expect("a long string parses"));
}

/// The other entry points are bounded as well.
#[test]
fn other_entry_points() {
    let deep = format!("{}1{}", "(".repeat(N), ")".repeat(N));
    let ad = format!("[a = {deep}]");
    on_small_stack(move || parse_ad(&ad).expect_err("deep ad"));
    let line = format!("a = {deep}");
    on_small_stack(move || Parser::new(ParseOptions::default()).parse_old_line(&line))
        .expect_err("deep old line");
    let chain = format!("{}a", "a?b:".repeat(N));
    on_small_stack(move || {
        Parser::new(ParseOptions::default()).parse_expression_with(&chain, StringRules::Old)
    })
    .expect_err("old rules");
}

/// Deep input that is allowed parses, and parsing and dropping the tree
/// fit the stack: 100 levels of each kind of nesting, and chains just
/// under the depth limit.
#[test]
fn deep_but_allowed() {
    let options = ParseOptions::default();
    let n = 100;
    for (what, source) in [
        ("parens", format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ("braces", format!("{}1{}", "{".repeat(n), "}".repeat(n))),
        ("ads", format!("{}1{}", "[a = ".repeat(n), "]".repeat(n))),
        ("calls", format!("{}1{}", "f(".repeat(n), ")".repeat(n))),
        (
            "subscripts",
            format!("a{}0{}", "[a".repeat(n), "]".repeat(n)),
        ),
        ("then", format!("{}a{}", "a ? ".repeat(n), " : b".repeat(n))),
        ("chain", format!("{}a", "a ? b : ".repeat(n))),
        ("elvis", format!("{}a", "a ?: ".repeat(n))),
    ] {
        on_small_stack(move || parse_expression(&source).map(|_| ()))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    // Comparisons with `=?=` are not conditionals: any number of them.
    let many_is = vec!["x =?= 1"; 1000].join(" || ");
    Parser::new(ParseOptions {
        max_depth: 5000,
        ..options
    })
    .parse_expression(&many_is)
    .expect("1000 `=?=`");
    // Past HTCondor's own parser bound, which is off here: the tree's
    // depth bound alone must keep the stack safe.
    let minus = format!("{}a", "-".repeat(options.max_depth - 1));
    on_small_stack(move || {
        unbounded()
            .parse_expression(&minus)
            .expect("max_depth - 1 minus signs")
    });
    let sum = format!("1{}", "+1".repeat(options.max_depth - 1));
    on_small_stack(move || parse_expression(&sum).expect("max_depth - 1 additions"));
}

/// The default nesting limit fits a 2 MiB stack even in a debug build
/// (about 13 KiB of stack a level of nested ads there), so a test thread
/// parsing any allowed input cannot crash.
#[test]
fn default_max_nesting_fits_a_small_stack() {
    let n = ParseOptions::default().max_nesting;
    for source in [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "[a = ".repeat(n), "]".repeat(n)),
    ] {
        on_small_stack(move || unbounded().parse_expression(&source).map(|_| ())).expect("parses");
    }
}

/// A parser without HTCondor's parser depth bound (`max_parse_depth`), so
/// that the bounds that keep the stack safe are reached.
fn unbounded() -> Parser {
    Parser::new(ParseOptions {
        max_parse_depth: 0,
        ..ParseOptions::default()
    })
}

/// A text nested `n` times.
type Nesting = Box<dyn Fn(usize) -> String>;

/// HTCondor's parser depth bound, at and one past its edge for each kind
/// of nesting (measured with the oracle: `classad2.ClassAd("[e = E]")`
/// keeps `e` for the first and refuses the second). Brackets cost three
/// levels, prefix operators, conditional branches and `?:` one.
#[test]
fn refuses_what_htcondor_refuses() {
    let cases: Vec<(&str, usize, Nesting)> = vec![
        (
            "parens",
            165,
            Box::new(|n| format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ),
        (
            "braces",
            165,
            Box::new(|n| format!("{}1{}", "{".repeat(n), "}".repeat(n))),
        ),
        (
            "ads",
            165,
            Box::new(|n| format!("{}1{}", "[a=".repeat(n), "]".repeat(n))),
        ),
        (
            "calls",
            165,
            Box::new(|n| format!("{}1{}", "f(".repeat(n), ")".repeat(n))),
        ),
        (
            "subscripts",
            165,
            Box::new(|n| format!("{}1{}", "x[".repeat(n), "]".repeat(n))),
        ),
        (
            "minus signs",
            497,
            Box::new(|n| format!("{}x", "-".repeat(n))),
        ),
        // The last `-1` is a literal, no operator.
        (
            "minus signs on a number",
            498,
            Box::new(|n| format!("{}1", "-".repeat(n))),
        ),
        (
            "ternary chain",
            497,
            Box::new(|n| format!("{}1", "1?2:".repeat(n))),
        ),
        (
            "nested ternary",
            497,
            Box::new(|n| format!("{}1{}", "1?".repeat(n), ":2".repeat(n))),
        ),
        (
            "elvis chain",
            497,
            Box::new(|n| format!("{}1", "1?:".repeat(n))),
        ),
        (
            "parens and minus",
            124,
            Box::new(|n| format!("{}1{}", "(-".repeat(n), ")".repeat(n))),
        ),
        (
            "parens and braces",
            82,
            Box::new(|n| format!("{}1{}", "({".repeat(n), "})".repeat(n))),
        ),
        (
            "parens and ternary",
            124,
            Box::new(|n| format!("{}1{}", "(1?2:".repeat(n), ")".repeat(n))),
        ),
        (
            "minus before 100 parens",
            197,
            Box::new(|n| format!("{}{}1{}", "-".repeat(n), "(".repeat(100), ")".repeat(100))),
        ),
        (
            "ads around 50 parens",
            115,
            Box::new(|n| {
                format!(
                    "{}{}1{}{}",
                    "[a=".repeat(n),
                    "(".repeat(50),
                    ")".repeat(50),
                    "]".repeat(n)
                )
            }),
        ),
    ];
    for (what, edge, text) in cases {
        let (at, past) = (text(edge), text(edge + 1));
        on_small_stack(move || {
            parse_expression(&at).unwrap_or_else(|e| panic!("{what} x {edge}: {e}"));
            let e = parse_expression(&past).expect_err(what);
            assert!(e.message.contains("nested too deeply"), "{what}: {e}");
            // The same bound for a definition of an ad and of an old-syntax line.
            let line = format!("A = {at}");
            Parser::new(ParseOptions::default())
                .parse_old_line(&line)
                .expect(what);
            let line = format!("A = {past}");
            Parser::new(ParseOptions::default())
                .parse_old_line(&line)
                .expect_err(what);
        });
    }
    // An ad read as a whole is parsed from its definitions down: an
    // attribute of it may nest one bracket more than an ad literal's.
    let inner = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    parse_ad(&format!("[a = {}]", inner(165))).expect("top-level ad");
    parse_ad(&format!("[a = {}]", inner(166))).expect_err("top-level ad");
    parse_expression(&format!("[a = {}]", inner(164))).expect("ad literal");
    parse_expression(&format!("[a = {}]", inner(165))).expect_err("ad literal");
}

/// Everything HTCondor 25.14 parses is parsed here too, on a 2 MiB stack
/// (measured with the oracle: 165 nested brackets of each kind; 497
/// conditionals, elvis operators or prefix operators; flat chains of any
/// length, which it evaluates up to about 400 deep). A chain of 1000 `||`
/// was refused before (issue 12).
#[test]
fn accepts_what_htcondor_accepts() {
    let n = 165;
    let m = 497;
    for (what, source) in [
        ("parens", format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ("braces", format!("{}1{}", "{".repeat(n), "}".repeat(n))),
        ("ads", format!("{}1{}", "[a = ".repeat(n), "]".repeat(n))),
        ("calls", format!("{}1{}", "f(".repeat(n), ")".repeat(n))),
        (
            "subscripts",
            format!("a{}0{}", "[a".repeat(n), "]".repeat(n)),
        ),
        ("ternary chain", format!("{}a", "a ? b : ".repeat(m))),
        (
            "nested ternary",
            format!("{}a{}", "a ? ".repeat(m), " : b".repeat(m)),
        ),
        ("elvis chain", format!("{}a", "a ?: ".repeat(m))),
        ("spaced elvis chain", format!("{}a", "a ? : ".repeat(m))),
        ("minus signs", format!("{}a", "-".repeat(m))),
        ("spaced minus signs", format!("{}a", "- ".repeat(m))),
        (
            "or chain",
            (0..=1000)
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .join(" || "),
        ),
        ("sum chain", format!("1{}", "+1".repeat(1500))),
        ("selection chain", format!("a{}", ".b".repeat(1500))),
        ("subscript chain", format!("a{}", "[0]".repeat(1500))),
    ] {
        on_small_stack(move || {
            let e = parse_expression(&source)?;
            let text = classad_syntax::unparse(&e);
            parse_expression(&text).map(|_| ())
        })
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// The bounds together: as many brackets and open conditionals as allowed
/// at once, in each order, still fit a 2 MiB stack.
#[test]
fn worst_allowed_combination_fits_a_small_stack() {
    let options = ParseOptions::default();
    let brackets = options.max_nesting;
    let conditionals = options.max_conditionals;
    for source in [
        format!(
            "{}{}1{}",
            "[a = ".repeat(brackets),
            "a ?: ".repeat(conditionals),
            "]".repeat(brackets)
        ),
        format!(
            "{}{}1{}",
            "(".repeat(brackets),
            "a ? b : ".repeat(conditionals),
            ")".repeat(brackets)
        ),
        format!(
            "{}{}{}",
            "a ? ".repeat(conditionals),
            "f(".repeat(brackets),
            ")".repeat(brackets)
        ),
    ] {
        on_small_stack(move || {
            if let Ok(e) = parse_expression(&source) {
                let text = classad_syntax::unparse(&e);
                let _ = parse_expression(&text);
            }
        });
    }
}
