//! Regular expressions: `regexp regexpMember regexps replace replaceall stringList_regexpMember`.
//!
//! Every expected value was checked against HTCondor 25.14 (the oracle)
//! unless a comment says otherwise.

mod common;
use common::{check, eval};

#[test]
fn regexp() {
    check(&[
        ("regexp(\"a.c\", \"xabcx\")", "true"),
        ("regexp(\"^abc$\", \"xabc\")", "false"),
        ("regexp(\"ABC\", \"abc\", \"i\")", "true"),
        ("regexp(\"ABC\", \"abc\", \"I\")", "false"),
        ("regexp(\"(\", \"abc\")", "error"),
        ("regexp(\"(a)\\\\1\", \"aa\")", "true"),
        ("regexp(\"(?<=a)b\", \"ab\")", "true"),
        ("regexp(\"a$\", \"a\\n\")", "true"),
        ("regexp(\"a\\\\Z\", \"a\\n\")", "true"),
        ("regexp(\"^b\", \"a\\nb\", \"m\")", "true"),
        ("regexp(\"a.b\", \"a\\nb\", \"s\")", "true"),
        ("regexp(\"a b\", \"ab\", \"x\")", "true"),
        ("regexp(\"^.$\", \"é\")", "false"),
        ("regexp(\"\\\\w+\", \"é\")", "false"),
        ("regexp(\"\\\\Qa.b\\\\E\", \"axb\")", "false"),
        ("regexp(\"\\\\101\", \"A\")", "true"),
        ("regexp(\"\", \"\")", "true"),
        ("regexp(undefined, \"a\")", "undefined"),
        ("regexp(error, undefined)", "error"),
        ("regexp(\"(\", undefined)", "undefined"),
        ("regexp(\"a\", \"a\", 1)", "error"),
        ("regexp(1, \"1\")", "error"),
        ("regexp(\"a\")", "error"),
    ]);
}

#[test]
fn regexpmember() {
    check(&[
        ("regexpMember(\"a.c\", {\"x\", \"abc\"})", "true"),
        ("regexpMember(\"a.c\", {\"x\", \"y\"})", "false"),
        ("regexpMember(\"a.c\", {})", "false"),
        ("regexpMember(\"a.c\", {undefined, \"x\"})", "undefined"),
        ("regexpMember(\"a.c\", {1, \"abc\"})", "error"),
        ("regexpMember(\"a.c\", {\"abc\", 1})", "true"),
        ("regexpMember(\"A.C\", {\"abc\"}, \"i\")", "true"),
        ("regexpMember(\"a\", \"a\")", "error"),
        ("regexpMember(\"a\", undefined)", "undefined"),
        // Differs on purpose: HTCondor: false (an invalid pattern never matches).
        ("regexpMember(\"(\", {\"abc\"})", "error"),
    ]);
}

#[test]
fn regexps() {
    check(&[
        ("regexps(\"a(b)c\", \"xabcx\", \"[\\\\1]\")", "\"[b]\""),
        ("regexps(\"a(b)c\", \"xabcx\", \"[\\\\0]\")", "\"[abc]\""),
        ("regexps(\"a(b)c\", \"xabcx\", \"[\\\\2]\")", "error"),
        ("regexps(\"a(b)c\", \"xyz\", \"[\\\\1]\")", "\"\""),
        (
            "regexps(\"a(b)c\", \"xabcx\", \"[\\\\1]\", \"f\")",
            "\"x[b]x\"",
        ),
        ("regexps(\"b\", \"abcb\", \"X\", \"g\")", "\"XX\""),
        ("regexps(\"b\", \"abcb\", \"X\", \"fg\")", "\"aXcX\""),
        ("regexps(\"(a)|(b)\", \"b\", \"[\\\\1]\")", "\"[]\""),
        ("regexps(\"(a)|(b)\", \"a\", \"[\\\\2]\")", "error"),
        ("regexps(\"(a)\", \"a\", \"\\\\10\")", "\"a0\""),
        ("regexps(\"b\", \"abcb\", \"\\\\n\", \"f\")", "\"a\\\\ncb\""),
        ("regexps(\"a\", \"a\", undefined)", "undefined"),
        ("regexps(\"a\", 1, \"b\")", "error"),
    ]);
}

#[test]
fn replace() {
    check(&[
        ("replace(\"b\", \"abcb\", \"X\")", "\"aXcb\""),
        ("replace(\"B\", \"abcb\", \"X\", \"i\")", "\"aXcb\""),
        ("replace(\"x\", \"abc\", \"X\")", "\"abc\""),
        ("replace(\"\", \"abc\", \"X\")", "\"Xabc\""),
        ("replace(\"$\", \"abc\", \"-\")", "\"abc-\""),
        (
            "replace(\"(\\\\w+) (\\\\w+)\", \"hello world\", \"\\\\2 \\\\1\")",
            "\"world hello\"",
        ),
    ]);
}

#[test]
fn replaceall() {
    check(&[
        ("replaceall(\"b\", \"abcb\", \"X\")", "\"aXcX\""),
        (
            "replaceall(\"(\\\\w)(\\\\w)\", \"abcde\", \"\\\\2\\\\1\")",
            "\"badce\"",
        ),
        ("replaceall(\"(?=b)\", \"abc\", \"-\")", "\"a-bc\""),
        ("replaceall(\"^\", \"abc\", \"-\")", "\"-abc\""),
        ("replaceall(\".\", \"é\", \"x\")", "\"xx\""),
        ("replaceall(\"\\\\s+\", \"a  b \\t c\", \" \")", "\"a b c\""),
        // As HTCondor: an empty match at the end of a global replacement is
        // ERROR (the correction is opt-in: crates/cli/tests/corrections.rs).
        ("replaceall(\"\", \"abc\", \"-\")", "error"),
        ("replaceall(\"$\", \"abc\", \"-\")", "error"),
    ]);
}

#[test]
fn stringlist_regexpmember() {
    check(&[
        ("stringList_regexpMember(\"a.c\", \"x, abc\")", "true"),
        ("stringList_regexpMember(\"^b$\", \"a, b \")", "true"),
        ("stringList_regexpMember(\"a.c\", \"\")", "undefined"),
        (
            "stringList_regexpMember(\"B\", \"a, b\", \", \", \"I\")",
            "true",
        ),
        ("stringList_regexpMember(\"(\", \"\")", "error"),
        ("stringList_regexpMember(\"a\", undefined)", "error"),
        ("stringList_regexpMember(\"a\", {\"a\"})", "error"),
    ]);
}

// Not in HTCondor's answers: a pattern that backtracks without end is
// ERROR (or false if the engine finds out early), never a hang; and the
// bounded cache serves any number of patterns.
#[test]
fn runaway_patterns_and_many_patterns() {
    let target = "a".repeat(60);
    let value = eval(&format!(r#"regexp("^(a|aa)+\\1b", "{target}")"#));
    assert!(value == "error" || value == "false", "{value}");
    for i in 0..600 {
        assert_eq!(eval(&format!(r#"regexp("^x{i}$", "x{i}")"#)), "true");
    }
}
