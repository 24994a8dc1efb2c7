//! What the per-family test files share: evaluate an expression in an empty
//! ad and compare its printed value (as `classad eval` prints it).

#![allow(dead_code)]

/// The value of `source` as `classad eval` prints it.
pub fn eval(source: &str) -> String {
    let value = classad::evaluate_str(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    classad::vm::print::value_to_string(&value)
}

/// Checks each `(expression, printed value)` pair.
pub fn check(cases: &[(&str, &str)]) {
    for (source, expected) in cases {
        assert_eq!(eval(source), *expected, "{source}");
    }
}
