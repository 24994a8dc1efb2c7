//! versioncmp, versionGT/LT/GE/LE/EQ, version_in_range.
//!
//! Every expected value agrees with HTCondor 25.14 (checked with the oracle;
//! the corpus `tests/corpus/functions_version.txt` holds more cases).

use crate::common;
use common::check;

#[test]
fn version_eq() {
    check(&[
        (r#"versionEQ("1.0", "1.0")"#, r#"true"#),
        (r#"versionEQ("1.0", "1.00")"#, r#"false"#),
        (r#"versionEQ(undefined, undefined)"#, r#"undefined"#),
        (r#"versionEQ(error, error)"#, r#"error"#),
    ]);
}

#[test]
fn version_ge() {
    check(&[
        (r#"versionGE("1.0", "1.0")"#, r#"true"#),
        (r#"versionGE("8.8", "8.9")"#, r#"false"#),
        (r#"versionGE(1/0, 1)"#, r#"error"#),
    ]);
}

#[test]
fn version_gt() {
    check(&[
        (r#"versionGT("8.9.0", "8.10.0")"#, r#"false"#),
        (r#"versionGT("8.10", "8.9")"#, r#"true"#),
        (r#"versionGT(1, 0)"#, r#"true"#),
        (r#"versionGT(undefined, "1")"#, r#"undefined"#),
    ]);
}

#[test]
fn version_in_range() {
    check(&[
        (r#"version_in_range("8.10.1", "8.9", "8.11")"#, r#"true"#),
        (r#"version_in_range("8.8.1", "8.9", "8.11")"#, r#"false"#),
        (r#"version_in_range("8.9", "8.9", "8.9")"#, r#"true"#),
        (r#"version_in_range(undefined, "1", "2")"#, r#"error"#),
        (r#"version_in_range("1", undefined, "2")"#, r#"undefined"#),
        (r#"version_in_range(error, undefined, "2")"#, r#"undefined"#),
        (r#"version_in_range("1", "0")"#, r#"error"#),
    ]);
}

#[test]
fn version_le() {
    check(&[
        (r#"versionLE("1.0", "1.0")"#, r#"true"#),
        (r#"versionLE("8.10", "8.9")"#, r#"false"#),
        (r#"versionLE("1", {1})"#, r#"true"#),
    ]);
}

#[test]
fn version_lt() {
    check(&[
        (r#"versionLT("8.9.0", "8.10.0")"#, r#"true"#),
        (r#"versionLT("8.9", "8.9")"#, r#"false"#),
        (r#"versionLT("a", "b", "c")"#, r#"error"#),
    ]);
}

#[test]
fn versioncmp() {
    check(&[
        (r#"versioncmp("7.9", "7.10")"#, r#"-1"#),
        (r#"versioncmp("7.x", "7.y")"#, r#"-1"#),
        (r#"versioncmp("a", "c")"#, r#"-2"#),
        (r#"versioncmp("000", "00")"#, r#"-1"#),
        (r#"versioncmp("01", "010")"#, r#"-48"#),
        (r#"versioncmp("010", "09")"#, r#"-8"#),
        (r#"versioncmp("09", "0")"#, r#"-1"#),
        (r#"versioncmp("9", "10")"#, r#"-1"#),
        (r#"versioncmp("1.0", "1.00")"#, r#"1"#),
        (r#"versioncmp("1", "1a")"#, r#"-97"#),
        (r#"versioncmp("é", "e")"#, r#"-162"#),
        (
            r#"versioncmp("12345678901234567890", "12345678901234567891")"#,
            r#"-1"#,
        ),
        (r#"versioncmp(1.5, "1.5")"#, r#"14"#),
        (r#"versioncmp(undefined, "1")"#, r#"undefined"#),
        (r#"versioncmp(error, "1")"#, r#"error"#),
        (r#"versioncmp(error, undefined)"#, r#"undefined"#),
        (r#"versioncmp("1")"#, r#"error"#),
    ]);
}

/// Class: lists in the version functions. HTCondor converts them as
/// `string()` does, as written, not evaluated.
#[test]
fn version_functions_read_lists_as_written() {
    check(&[
        (r#"versioncmp({x}, "{ x }")"#, "0"),
        (r#"versioncmp({isString(target)}, {c.parent}.a)"#, "-12"),
        (r#"versionEQ({1 + 1}, "{ 1 + 1 }")"#, "true"),
        (r#"version_in_range({x}, "{ w }", "{ y }")"#, "true"),
    ]);
}
