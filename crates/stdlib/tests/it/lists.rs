//! List aggregates: `avg max min sum`.
//!
//! Every expected value was checked against HTCondor 25.14 (the oracle)
//! unless a comment says otherwise.

use crate::common;
use common::check;

#[test]
fn avg() {
    check(&[
        ("avg({1, 2})", "1.500000000000000E+00"),
        ("avg({1, 2, 4})", "2.3333333333333335E+00"),
        ("avg({})", "0"),
        ("avg({2})", "2.000000000000000E+00"),
        ("avg({true})", "1.000000000000000E+00"),
        ("avg({1, undefined})", "1.000000000000000E+00"),
        ("avg({undefined})", "0"),
        ("avg({\"a\"})", "error"),
        ("avg({1e308, 1e308})", "error"),
        ("avg({real(\"INF\")})", "error"),
        ("avg({9223372036854775807, 1})", "-4.611686018427388E+18"),
        ("avg(undefined)", "undefined"),
        ("avg(\"a\")", "error"),
        ("avg()", "error"),
    ]);
}

#[test]
fn max() {
    check(&[
        ("max({3, 1, 2})", "3"),
        ("max({1, 2.5})", "2.500000000000000E+00"),
        ("max({3, 2.5})", "3.000000000000000E+00"),
        ("max({})", "undefined"),
        ("max({true})", "true"),
        ("max({false, true})", "1"),
        ("max({2, 3.5, undefined})", "3.500000000000000E+00"),
        ("max({2, real(\"NaN\"), 3})", "3.000000000000000E+00"),
        ("max({real(\"NaN\"), 1})", "real(\"NaN\")"),
        ("max({1, \"a\"})", "error"),
        ("max({1, error})", "error"),
        ("max({relTime(3)})", "error"),
        ("max(undefined)", "undefined"),
        ("max(error)", "error"),
        ("max({1}, {2})", "error"),
    ]);
}

#[test]
fn min() {
    check(&[
        ("min({3, 1, 2})", "1"),
        ("min({1, 2.5})", "1.000000000000000E+00"),
        ("min({5, 3.0, 4})", "3.000000000000000E+00"),
        ("min({})", "undefined"),
        ("min({undefined})", "undefined"),
        ("min({1, undefined})", "1"),
        ("min({true})", "true"),
        ("min({true, 2})", "1"),
        ("min({real(\"NaN\"), 1})", "real(\"NaN\")"),
        ("min({1, real(\"NaN\")})", "1.000000000000000E+00"),
        ("min({-0.0, 0.0})", "-0.0"),
        ("min({0.0, -0.0})", "0.0"),
        ("min({\"a\", \"b\"})", "error"),
        ("min(3)", "error"),
        ("min(undefined)", "undefined"),
    ]);
}

#[test]
fn sum() {
    check(&[
        ("sum({1, 2, 3})", "6"),
        ("sum({1, 2.5})", "3.500000000000000E+00"),
        ("sum({})", "0"),
        ("sum({true})", "true"),
        ("sum({true, true})", "2"),
        ("sum({1, undefined})", "1"),
        ("sum({undefined})", "0"),
        ("sum({1, \"2\"})", "error"),
        ("sum({1, error})", "error"),
        ("sum({9223372036854775807, 1})", "-9223372036854775808"),
        ("sum({1e308, 1e308})", "error"),
        ("sum({-1e308, -1e308})", "real(\"-INF\")"),
        ("sum({real(\"INF\")})", "real(\"INF\")"),
        ("sum({real(\"INF\"), 1})", "error"),
        ("sum({relTime(5)})", "error"),
        ("sum(undefined)", "undefined"),
        ("sum(1)", "error"),
        ("sum()", "error"),
    ]);
}
