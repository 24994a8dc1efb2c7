//! argsToList, envV1ToV2, listToArgs, mergeEnvironment, userHome, userMap.
//!
//! Expected values agree with HTCondor 25.14 (checked with the oracle;
//! `tests/corpus/functions_env.txt` holds more). userMap's maps are
//! installed with `set_user_map`.

use classad::evaluate_str;
use classad::stdlib::env::{home_in_passwd, set_user_map};

fn check(cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        let value = evaluate_str(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"));
        assert_eq!(format!("{value:?}"), *expected, "{expr}");
    }
}

#[test]
fn args_to_list() {
    check(&[
        (
            r#"argsToList("a b  'c d' e''f")"#,
            r#"{ "a","b","c d","ef" }"#,
        ),
        (r#"argsToList("a 'it''s'")"#, r#"{ "a","it's" }"#),
        (r#"argsToList("a ''")"#, r#"{ "a","" }"#),
        (r#"argsToList("  ")"#, "{  }"),
        (r#"argsToList("a \"b c\"", 1)"#, r#"{ "a","\"b","c\"" }"#),
        (r#"argsToList("'unterminated")"#, "error"),
        (r#"argsToList("a b", 3)"#, "error"),
        (r#"argsToList("a b", "1")"#, "error"),
        ("argsToList(undefined)", "error"),
        ("argsToList(5)", "error"),
    ]);
}

#[test]
fn env_v1_to_v2() {
    check(&[
        (r#"envV1ToV2("B=2;A=1;C=x y")"#, r#""A=1 B=2 C=x' 'y""#),
        (r#"envV1ToV2("A=1;;B=it's;")"#, r#""A=1 B=it''''s""#),
        (r#"envV1ToV2("A=1;A=2")"#, r#""A=2""#),
        (r#"envV1ToV2("A==b")"#, r#""A==b""#),
        (r#"envV1ToV2("")"#, r#""""#),
        (r#"envV1ToV2("A")"#, "error"),
        (r#"envV1ToV2("=1")"#, "error"),
        ("envV1ToV2(undefined)", "undefined"),
        ("envV1ToV2(5)", "error"),
    ]);
}

#[test]
fn list_to_args() {
    check(&[
        (
            r#"listToArgs({"a", "b c", "it's", ""})"#,
            r#""a b' 'c it''''s ''""#,
        ),
        (r#"listToArgs({"a  b", "''"})"#, r#""a'  'b ''''''""#),
        (r#"listToArgs({"a", "b"}, 1)"#, r#""a b""#),
        (r#"listToArgs({"a", "b c"}, 1)"#, "error"),
        ("listToArgs({})", r#""""#),
        (r#"listToArgs({"a", 5})"#, "error"),
        (r#"listToArgs({"a"}, undefined)"#, "error"),
        ("listToArgs(undefined)", "error"),
        (
            r#"argsToList(listToArgs({"a b", "it's", ""}))"#,
            r#"{ "a b","it's","" }"#,
        ),
    ]);
}

#[test]
fn merge_environment() {
    check(&[
        (
            r#"mergeEnvironment("A=1 B=2", "B=3 C=4")"#,
            r#""A=1 B=3 C=4""#,
        ),
        (r#"mergeEnvironment("Z=1 a=2 A=3")"#, r#""A=3 Z=1 a=2""#),
        (r#"mergeEnvironment(undefined, "'A=x y'")"#, r#""A=x' 'y""#),
        ("mergeEnvironment()", r#""""#),
        (r#"mergeEnvironment("A=1 A=")"#, r#""A=""#),
        (r#"mergeEnvironment("A")"#, "error"),
        (r#"mergeEnvironment("'A=1")"#, "error"),
        (r#"mergeEnvironment("A=1", 5)"#, "error"),
    ]);
}

#[test]
fn user_home() {
    let passwd = std::fs::read("/etc/passwd").unwrap_or_default();
    if let Some(home) = home_in_passwd(&passwd, b"root") {
        let expected = format!("{:?}", String::from_utf8_lossy(&home));
        check(&[
            (r#"userHome("root")"#, &expected),
            (r#"userHome("root", "/d")"#, &expected),
        ]);
    }
    check(&[
        (r#"userHome("no such user")"#, "undefined"),
        (r#"userHome("no such user", "/d")"#, r#""/d""#),
        (r#"userHome("no such user", "")"#, "undefined"),
        ("userHome(undefined)", "undefined"),
        (r#"userHome(undefined, "/d")"#, r#""/d""#),
        ("userHome(5)", "error"),
        (r#"userHome(5, "/d")"#, r#""/d""#),
    ]);
}

// With no argument or more than two HTCondor's userHome fails the
// evaluation: an operation or a list element over it is ERROR (`1 is
// userHome()` too), found by seed 976 (`--odd`).
#[test]
fn user_home_with_a_wrong_count_fails_the_evaluation() {
    check(&[
        ("userHome()", "error"),
        ("{1 is userHome()}", "{ error }"),
        ("{1 is userHome(1, 2, 3)}", "{ error }"),
        (r#"{"a" is userHome(1, split("a b"), 1, 2)}"#, "{ error }"),
        ("{1 is userHome(1, 2)}", "{ false }"),
        ("{isError(userHome())}", "{ error }"),
        ("{true || userHome()}", "{ true }"),
    ]);
}

#[test]
fn user_map() {
    let map = "# groups\n\
               * alice staff,admins\n\
               * \"bob smith\" users\n\
               * /^(\\w+)@physics\\.example$/i \\1,physics\n\
               * /^carol/ never\n\
               * carol wins\n\
               GSI /.*/ other\n";
    assert_eq!(set_user_map("groups", map), Ok(()));
    assert!(set_user_map("bad", "* /(/ x").is_err());
    assert!(set_user_map("bad", "* onlytwo").is_err());
    check(&[
        (r#"userMap("groups", "alice")"#, r#""staff,admins""#),
        (r#"userMap("GROUPS", "bob smith")"#, r#""users""#),
        (
            r#"userMap("groups", "Dave@Physics.Example")"#,
            r#""Dave,physics""#,
        ),
        // Literal rules come before regular expressions.
        (r#"userMap("groups", "carol")"#, r#""wins""#),
        (r#"userMap("groups", "carolyn")"#, r#""never""#),
        (r#"userMap("groups", "eve")"#, "undefined"),
        (r#"userMap("groups", "alice", "ADMINS")"#, r#""admins""#),
        (r#"userMap("groups", "alice", "other")"#, r#""staff""#),
        (r#"userMap("groups", "eve", "other")"#, "undefined"),
        (
            r#"userMap("groups", "eve", "other", "nobody")"#,
            r#""nobody""#,
        ),
        (r#"userMap("nomap", "alice")"#, "undefined"),
        (r#"userMap(undefined, "alice")"#, "undefined"),
        (r#"userMap("groups", 5)"#, "undefined"),
        (r#"userMap("groups", alice)"#, "undefined"),
        (r#"userMap("groups", error)"#, "error"),
        (r#"userMap("groups", "alice", 7)"#, r#""staff""#),
    ]);
}

/// Class: userMap's fallback. HTCondor's answer, when no group is chosen,
/// is the fourth argument whatever its type, and a map name or user that
/// is not a string is UNDEFINED unless one of them is ERROR (checked with
/// the oracle, which has no maps).
#[test]
fn user_map_fourth_argument_of_any_type() {
    check(&[
        ("userMap(2, 3)", "undefined"),
        (r#"userMap("m", "u", error)"#, "undefined"),
        (r#"userMap("m", "u", "g", 1.5)"#, "1.500000000000000E+00"),
        (r#"userMap("m", "u", "g", [a = 1])"#, "[ a = 1 ]"),
        (r#"userMap(undefined, "u", "g", {1})"#, "{ 1 }"),
        (r#"userMap(1, error, 3, "d")"#, "error"),
        (r#"userMap("m", "u", "g", error)"#, "error"),
    ]);
}

/// Class: V1 environments with another delimiter. HTCondor's
/// `MergeFromV1AutoDelim` takes a leading punctuation character as the
/// delimiter, ends entries at newlines too, and keeps a `$$` macro
/// without `=`; its V2 blanks are space, tab, newline and return only.
#[test]
fn env_v1_delimiter_and_v2_blanks() {
    check(&[
        (r#"envV1ToV2(",")"#, r#""""#),
        (r#"envV1ToV2("|a=b|c=d")"#, r#""a=b c=d""#),
        (r#"envV1ToV2(",a=b,c=d;e")"#, r#""a=b c=d;e""#),
        (r#"envV1ToV2("a=b\nc=d")"#, r#""a=b c=d""#),
        (r#"envV1ToV2(".a=b")"#, r#"".a=b""#),
        (r#"envV1ToV2("a$$b;c=d")"#, r#""a$$b c=d""#),
        (r#"mergeEnvironment("$$(X)")"#, r#""$$(X)""#),
        (r#"mergeEnvironment("a=b\013c=d")"#, r#""a=b\vc=d""#),
        (r#"argsToList("a\014b c", 1)"#, r#"{ "a\fb","c" }"#),
    ]);
}
