//! The grammar's work is linear in its input on every path, failing ones
//! included: counted in pest rule calls (not time), by finding the least
//! call limit under which each text still parses or fails as it would
//! without a limit.
//!
//! pest's call limit is one setting for the whole process, so this file
//! holds a single test that sets it alone.

use classad_syntax::{ParseError, ParseOptions, Parser, StringRules};
use std::num::NonZeroUsize;

/// No work bound of our own, and nesting far beyond the defaults so that
/// the series grow long enough to show their shape (run on a large stack).
fn unbounded() -> Parser {
    Parser::new(ParseOptions {
        work_per_byte: 0,
        max_nesting: 100_000,
        max_depth: 100_000,
        ..ParseOptions::default()
    })
}

fn too_complex(result: &Result<classad_syntax::Expr, ParseError>) -> bool {
    matches!(result, Err(e) if e.message.contains("too complex"))
}

/// The number of rule calls parsing `source` takes.
fn calls(parser: &Parser, source: &str) -> usize {
    let fits = |limit: usize| {
        pest::set_call_limit(NonZeroUsize::new(limit));
        !too_complex(&parser.parse_expression_with_grammar(source, StringRules::New))
    };
    let mut high = 1024;
    while !fits(high) {
        high *= 2;
        assert!(high < 1 << 34, "no limit fits");
    }
    let mut low = 0;
    while high - low > 1 {
        let mid = (low + high) / 2;
        if fits(mid) { high = mid } else { low = mid }
    }
    high
}

fn main_series(parser: &Parser, name: &str, make: impl Fn(usize) -> String) {
    let mut previous: Option<(usize, usize)> = None;
    for k in [4, 8, 16, 32, 64] {
        let source = make(k);
        let n = calls(parser, &source);
        eprintln!("{name}: k = {k}, {} bytes, {n} calls", source.len());
        if let Some((pk, pn)) = previous {
            // Doubling the input at most a little more than doubles the work.
            let ratio = n as f64 / pn as f64;
            assert!(
                ratio < 1.25 * (k as f64 / pk as f64),
                "{name}: work grew {ratio:.2}x from k = {pk} to k = {k}"
            );
        }
        previous = Some((k, n));
    }
}

#[test]
fn parse_work_is_linear() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(series)
        .expect("spawn")
        .join()
        .expect("series");
}

fn series() {
    let parser = unbounded();
    main_series(&parser, "elvis-paren-subscript", |k| {
        ("a?:".repeat(4) + "(b?:h[").repeat(k)
    });
    // Each way a bracket can be left open, repeated: every failure must be
    // found once, not once per enclosing alternative.
    for (name, unit) in [
        ("calls", "f(a?:"),
        ("lists", "{a?:b,"),
        ("ads", "[x = a?:"),
        ("subscripts", "a?:b["),
        ("ternary middles", "a ? (b ? "),
        ("spaced elvis", "a ? : ("),
        ("selections", "a.b?:(c."),
        ("prefixes", "-!~(a?:-"),
        ("strings", "\"s\" \"t\" ?: ("),
    ] {
        main_series(&parser, name, |k| unit.repeat(k));
    }
    // Random sequences of tokens, repeated: none may grow faster than its
    // length.
    let tokens = [
        "a", "?:", "?", ":", "(", ")", "[", "]", "{", "}", "f(", ",", ";", "-", "!", ".", "b.c",
        "1", ".5", "\"s\"", " ", "+", "||", "=?=", "is", "x = ",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let len = 2 + (next() % 7) as usize;
        let unit: String = (0..len)
            .map(|_| tokens[(next() % tokens.len() as u64) as usize])
            .collect();
        let small = calls(&parser, &unit.repeat(8));
        let large = calls(&parser, &unit.repeat(32));
        assert!(
            large <= small * 5,
            "`{unit}` repeated: {small} calls at 8, {large} at 32"
        );
    }
    pest::set_call_limit(None);
    work_bound_refuses_cleanly();
}

/// Past the bound a text is refused with a plain error, not parsed on:
/// here a bound of one call a byte (plus the base every text gets) against
/// a valid sum that needs far more.
fn work_bound_refuses_cleanly() {
    // No depth bound: the scan for runs of operators would refuse this
    // chain before pest, and the work bound is what is tried here.
    let tight = Parser::new(ParseOptions {
        work_per_byte: 1,
        max_depth: usize::MAX,
        ..ParseOptions::default()
    });
    let sum = format!("1{}", "+1".repeat(20_000));
    let error = tight.parse_expression(&sum).expect_err("over the bound");
    assert!(error.message.contains("too complex"), "{}", error.message);
    let default = Parser::new(ParseOptions::default());
    default
        .parse_expression(&sum[..1001])
        .expect("the default bound");
}
