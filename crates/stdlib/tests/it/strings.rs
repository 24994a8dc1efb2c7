//! strcat, join, substr, strcmp, stricmp, toUpper, toLower, split, splitUserName, splitSlotName.
//!
//! Every expected value agrees with HTCondor 25.14 (checked with the oracle;
//! the corpus `tests/corpus/functions_strings.txt` holds more cases).

use crate::common;
use common::check;

#[test]
fn join() {
    check(&[
        (r#"join(", ", "a", "b", "c")"#, r#""a, b, c""#),
        (r#"join(split("a b c"))"#, r#""abc""#),
        (r#"join(";", split("a b c"))"#, r#""a;b;c""#),
        (r#"join()"#, r#""""#),
        (r#"join("x")"#, r#""""#),
        (r#"join({1,2}, {3, 4})"#, r#""3{ 1,2 }4""#),
        (r#"join(undefined, {1})"#, r#""1""#),
        (r#"join(",", undefined)"#, r#"undefined"#),
        (r#"join(",", "a", undefined)"#, r#""a""#),
        (r#"join(",", "a", undefined, error)"#, r#"error"#),
        (r#"join(",", "", "", "a")"#, r#""a""#),
        (r#"join(",", "a", "", "b")"#, r#""a,,b""#),
        (r#"join(1, 2, 3)"#, r#""213""#),
    ]);
}

#[test]
fn split() {
    check(&[
        (r#"split("a b c")"#, r#"{ "a","b","c" }"#),
        (r#"split("a,b,,c")"#, r#"{ "a","b","","c" }"#),
        (r#"split(",a")"#, r#"{ "a" }"#),
        (r#"split(",,a")"#, r#"{ "","a" }"#),
        (r#"split("a, ,b")"#, r#"{ "a","","b" }"#),
        (r#"split("")"#, r#"{  }"#),
        (r#"split("a:b::c", ":")"#, r#"{ "a","b","","c" }"#),
        (r#"split("a b", "")"#, r#"{ "a b" }"#),
        (r#"split("a\tb\nc")"#, r#"{ "a","b\nc" }"#),
        (r#"split(undefined)"#, r#"error"#),
        (r#"split("a b", 1)"#, r#"error"#),
    ]);
}

#[test]
fn split_slot_name() {
    check(&[
        (
            r#"splitSlotName("slot1@machine")"#,
            r#"{ "slot1","machine" }"#,
        ),
        (r#"splitSlotName("machine")"#, r#"{ "","machine" }"#),
        (r#"splitSlotName("a@b@c")"#, r#"{ "a","b@c" }"#),
        (r#"splitSlotName(undefined)"#, r#"error"#),
    ]);
}

#[test]
fn split_user_name() {
    check(&[
        (r#"splitUserName("user@domain")"#, r#"{ "user","domain" }"#),
        (r#"splitUserName("username")"#, r#"{ "username","" }"#),
        (r#"splitUserName("@")"#, r#"{ "","" }"#),
        (r#"splitUserName(1)"#, r#"error"#),
    ]);
}

#[test]
fn strcat() {
    check(&[
        (
            r#"strcat("a", 1, 2.5, true)"#,
            r#""a12.500000000000000E+00true""#,
        ),
        (r#"strcat()"#, r#""""#),
        (r#"strcat("a", undefined)"#, r#"undefined"#),
        (r#"strcat(undefined, error)"#, r#"undefined"#),
        (r#"strcat(error, undefined)"#, r#"error"#),
        (r#"strcat("a", {1})"#, r#""a{ 1 }""#),
        (
            r#"strcat(relTime(60), "|", absTime(0, 3600))"#,
            r#""01:00|1970-01-01T01:00:00+01:00""#,
        ),
    ]);
}

#[test]
fn strcmp() {
    check(&[
        (r#"strcmp("a", "b")"#, r#"-1"#),
        (r#"strcmp("b", "a")"#, r#"1"#),
        (r#"strcmp("a", "a")"#, r#"0"#),
        (r#"strcmp("A", "a")"#, r#"-1"#),
        (r#"strcmp(1, "1")"#, r#"0"#),
        (r#"strcmp("é", "e")"#, r#"1"#),
        (r#"strcmp(undefined, "a")"#, r#"undefined"#),
        (r#"strcmp("a", error)"#, r#"error"#),
        (r#"strcmp(error, undefined)"#, r#"undefined"#),
        (r#"strcmp("a")"#, r#"error"#),
    ]);
}

#[test]
fn stricmp() {
    check(&[
        (r#"stricmp("A", "a")"#, r#"0"#),
        (r#"stricmp("abc", "ABD")"#, r#"-1"#),
        (r#"stricmp("_", "A")"#, r#"-1"#),
        (r#"stricmp("é", "É")"#, r#"1"#),
        (r#"stricmp(true, "TRUE")"#, r#"0"#),
        (r#"stricmp(undefined, "a")"#, r#"undefined"#),
    ]);
}

#[test]
fn substr() {
    check(&[
        (r#"substr("abcdef", 2)"#, r#""cdef""#),
        (r#"substr("abcdef", 2, 2)"#, r#""cd""#),
        (r#"substr("abcdef", -2)"#, r#""ef""#),
        (r#"substr("abcdef", 1, -1)"#, r#""bcde""#),
        (r#"substr("abcdef", 1, -10)"#, r#""""#),
        (r#"substr("abcdef", 10)"#, r#""""#),
        (r#"substr("abcdef", -10, 3)"#, r#""abc""#),
        (r#"substr("abcdef", 0, 0)"#, r#""""#),
        (r#"substr("abcdef", 4294967297)"#, r#""bcdef""#),
        (r#"substr("abcdef", 9223372036854775807)"#, r#""f""#),
        (
            r#"substr("abcdef", -9223372036854775807 - 1)"#,
            r#""abcdef""#,
        ),
        (r#"substr("abcdef", 1, -9223372036854775807 - 1)"#, r#""""#),
        (r#"substr("abc", 1.0)"#, r#"error"#),
        (r#"substr(undefined, 1)"#, r#"undefined"#),
        (r#"substr("abc", error)"#, r#"error"#),
        (r#"substr(error, undefined)"#, r#"undefined"#),
        (r#"substr("abc")"#, r#"error"#),
    ]);
}

#[test]
fn to_lower() {
    check(&[
        (r#"toLower("ABC")"#, r#""abc""#),
        (r#"toLower("É")"#, r#""\303\211""#),
        (r#"toLower(true)"#, r#""true""#),
        (r#"toLower(undefined)"#, r#"undefined"#),
        (r#"toLower(error)"#, r#"error"#),
    ]);
}

#[test]
fn to_upper() {
    check(&[
        (r#"toUpper("abcé")"#, r#""ABC\303\251""#),
        (r#"toUpper(1.5)"#, r#""1.500000000000000E+00""#),
        (r#"toUpper({"a"})"#, r#""{ \"A\" }""#),
        (r#"toUpper(relTime(60))"#, r#""01:00""#),
        (r#"toUpper("a", "b")"#, r#"error"#),
    ]);
}
