//! int, real, string, bool.
//!
//! Every expected value agrees with HTCondor 25.14 (checked with the oracle;
//! the corpus `tests/corpus/functions_convert.txt` holds more cases).

use crate::common;
use common::check;

#[test]
fn bool() {
    check(&[
        (r#"bool("true")"#, r#"true"#),
        (r#"bool("FALSE")"#, r#"false"#),
        (r#"bool("yes")"#, r#"undefined"#),
        (r#"bool(" true")"#, r#"undefined"#),
        (r#"bool(0)"#, r#"false"#),
        (r#"bool(5)"#, r#"true"#),
        (r#"bool(-0.0)"#, r#"false"#),
        (r#"bool(real("NaN"))"#, r#"true"#),
        (r#"bool(relTime(0.5))"#, r#"false"#),
        (r#"bool(relTime(3))"#, r#"true"#),
        (r#"bool(absTime(0))"#, r#"error"#),
        (r#"bool({})"#, r#"error"#),
        (r#"bool(undefined)"#, r#"undefined"#),
        (r#"bool(error)"#, r#"error"#),
    ]);
}

#[test]
fn int() {
    check(&[
        (r#"int("12abc")"#, r#"12"#),
        (r#"int("2k")"#, r#"2"#),
        (r#"int("  42")"#, r#"42"#),
        (r#"int("0x10")"#, r#"16"#),
        (r#"int("1e3")"#, r#"1000"#),
        (r#"int("-7.9")"#, r#"-7"#),
        (r#"int("inf")"#, r#"-9223372036854775808"#),
        (r#"int("")"#, r#"error"#),
        (r#"int("abc")"#, r#"error"#),
        (r#"int("9223372036854775807")"#, r#"-9223372036854775808"#),
        (r#"int(1e30)"#, r#"-9223372036854775808"#),
        (r#"int(real("NaN"))"#, r#"-9223372036854775808"#),
        (r#"int(-3.9)"#, r#"-3"#),
        (r#"int(true)"#, r#"1"#),
        (r#"int(undefined)"#, r#"undefined"#),
        (r#"int(error)"#, r#"error"#),
        (r#"int({1})"#, r#"error"#),
        (r#"int(relTime(90.7))"#, r#"90"#),
        (r#"int(relTime(2.5e9))"#, r#"-2147483648"#),
        (r#"int(absTime("2020-01-01T00:00:00Z"))"#, r#"1577836800"#),
        (r#"int()"#, r#"error"#),
    ]);
}

#[test]
fn real() {
    check(&[
        (r#"real("1e3x")"#, r#"1.000000000000000E+03"#),
        (r#"real("abc")"#, r#"error"#),
        (r#"real("")"#, r#"error"#),
        (r#"real("  3.5  ")"#, r#"3.500000000000000E+00"#),
        (r#"real("0x1p4")"#, r#"1.600000000000000E+01"#),
        (r#"real("-INF")"#, r#"real("-INF")"#),
        (r#"real("nan")"#, r#"real("NaN")"#),
        (r#"real("1e400")"#, r#"real("INF")"#),
        (r#"real(".")"#, r#"error"#),
        (r#"real("-0")"#, r#"-0.0"#),
        (r#"real(relTime(1.5))"#, r#"1.000000000000000E+00"#),
        (r#"real(absTime(0, 0))"#, r#"0.0"#),
        (r#"real(true)"#, r#"1.000000000000000E+00"#),
        (r#"real(7)"#, r#"7.000000000000000E+00"#),
        (r#"real(undefined)"#, r#"undefined"#),
        (r#"real({1})"#, r#"error"#),
    ]);
}

#[test]
fn string() {
    check(&[
        (r#"string(1.5)"#, r#""1.500000000000000E+00""#),
        (r#"string(1)"#, r#""1""#),
        (r#"string(true)"#, r#""true""#),
        (r#"string("x")"#, r#""x""#),
        (r#"string(undefined)"#, r#"undefined"#),
        (r#"string(error)"#, r#"error"#),
        (
            r#"string({1, "a", 2.5})"#,
            r#""{ 1,\"a\",2.500000000000000E+00 }""#,
        ),
        (r#"string({})"#, r#""{  }""#),
        (r#"string([a=1; b="x"])"#, r#""[ a = 1; b = \"x\" ]""#),
        (r#"string(relTime(90))"#, r#""01:30""#),
        (r#"string(relTime(-90.5))"#, r#""-01:30""#),
        (r#"string(relTime(0))"#, r#""00""#),
        (r#"string(relTime(90061))"#, r#""1+01:01:01""#),
        (r#"string(absTime(0, 0))"#, r#""1970-01-01T00:00:00-00:00""#),
        (
            r#"string(absTime(0, 5400))"#,
            r#""1970-01-01T01:30:00+01:30""#,
        ),
        (
            r#"string(absTime(0, -5400))"#,
            r#""1969-12-31T22:30:00-01:30""#,
        ),
        (r#"string(real("NaN"))"#, r#""real(\"NaN\")""#),
        (r#"string(-0.0)"#, r#""-0.0""#),
    ]);
}
