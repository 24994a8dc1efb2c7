//! Type predicates, member/identicalMember, anyCompare/allCompare, size, ifThenElse.
//!
//! Every expected value agrees with HTCondor 25.14 (checked with the oracle;
//! the corpus `tests/corpus/functions_core.txt` holds more cases).

use crate::common;
use common::check;

#[test]
fn all_compare() {
    check(&[
        (r#"allCompare("<", {1,2,3}, 4)"#, r#"true"#),
        (r#"allCompare("<", {1,2,3}, 2)"#, r#"false"#),
        (r#"allCompare("==", {}, 1)"#, r#"true"#),
        (r#"allCompare("==", {undefined, 1}, 1)"#, r#"false"#),
        (r#"allCompare("==", {1, "a"}, 1)"#, r#"error"#),
        (r#"allCompare("isnt", {1, 2}, 3)"#, r#"true"#),
        (r#"allCompare("==", {1}, undefined)"#, r#"false"#),
        (r#"allCompare(undefined, {1}, 1)"#, r#"undefined"#),
        (r#"allCompare("<")"#, r#"error"#),
    ]);
}

#[test]
fn any_compare() {
    check(&[
        (r#"anyCompare("<", {1,2,3}, 2)"#, r#"true"#),
        (r#"anyCompare("<", {3,4}, 2)"#, r#"false"#),
        (r#"anyCompare("==", {}, 1)"#, r#"false"#),
        (r#"anyCompare("==", {undefined, 1}, 1)"#, r#"false"#),
        (r#"anyCompare("==", {"a", 1}, 1)"#, r#"error"#),
        (r#"anyCompare("==", {1, "a"}, 1)"#, r#"true"#),
        (r#"anyCompare("is", {1.0}, 1)"#, r#"false"#),
        (r#"anyCompare("IS", {1}, 1)"#, r#"error"#),
        (r#"anyCompare("<>", {1}, 1)"#, r#"error"#),
        (r#"anyCompare(1, {1}, 1)"#, r#"error"#),
        (r#"anyCompare("==", undefined, 1)"#, r#"undefined"#),
        (r#"anyCompare("==", 1, 1)"#, r#"error"#),
        (r#"anyCompare("<=", {"a", "B"}, "b")"#, r#"true"#),
    ]);
}

#[test]
fn identical_member() {
    check(&[
        (r#"identicalMember(undefined, {undefined})"#, r#"true"#),
        (r#"identicalMember(error, {error})"#, r#"true"#),
        (r#"identicalMember(1, {1.0})"#, r#"false"#),
        (r#"identicalMember("a", {"A"})"#, r#"false"#),
        (r#"identicalMember(1, 1)"#, r#"error"#),
        (r#"identicalMember(1, undefined)"#, r#"undefined"#),
        (r#"identicalMember({1}, {{1}})"#, r#"error"#),
    ]);
}

#[test]
fn if_then_else() {
    check(&[
        (r#"ifThenElse(true, 1, 2)"#, r#"1"#),
        (r#"ifThenElse(0.0, 1, 2)"#, r#"2"#),
        (r#"ifThenElse(real("NaN"), 1, 2)"#, r#"1"#),
        (r#"ifThenElse(undefined, 1, 2)"#, r#"undefined"#),
        (r#"ifThenElse("a", 1, 2)"#, r#"error"#),
        (r#"ifThenElse(false, 1/0, 2)"#, r#"2"#),
        (r#"ifThenElse(true)"#, r#"error"#),
        (r#"ifThenElse(true, 1)"#, r#"error"#),
        (r#"ifThenElse(true, 1, 2, 3)"#, r#"error"#),
    ]);
}

#[test]
fn is_type() {
    check(&[
        (r#"isUndefined(x)"#, r#"true"#),
        (r#"isUndefined(error)"#, r#"false"#),
        (r#"isError(1/0)"#, r#"true"#),
        (r#"isString("")"#, r#"true"#),
        (r#"isInteger(1.0)"#, r#"false"#),
        (r#"isInteger(true)"#, r#"false"#),
        (r#"isReal(1.0)"#, r#"true"#),
        (r#"isBoolean(1)"#, r#"false"#),
        (r#"isList({})"#, r#"true"#),
        (r#"isList([])"#, r#"false"#),
        (r#"isClassAd([])"#, r#"true"#),
        (r#"isAbsTime(absTime(0))"#, r#"true"#),
        (r#"isRelTime(relTime(5))"#, r#"true"#),
        (r#"isRelTime(relTime("01:00"))"#, r#"false"#),
        (r#"isInteger(undefined)"#, r#"false"#),
        (r#"isUndefined()"#, r#"error"#),
        (r#"isError(1, 2)"#, r#"error"#),
    ]);
}

#[test]
fn member() {
    check(&[
        (r#"member(1, {1.0})"#, r#"true"#),
        (r#"member("A", {"a"})"#, r#"true"#),
        (r#"member(undefined, {undefined})"#, r#"undefined"#),
        (r#"member(error, {1})"#, r#"error"#),
        (r#"member(error, undefined)"#, r#"undefined"#),
        (r#"member({1}, {{1}})"#, r#"error"#),
        (r#"member(1, {undefined, 1})"#, r#"true"#),
        (r#"member(1, {"a"})"#, r#"false"#),
        (r#"member(1, "abc")"#, r#"error"#),
        (r#"member(true, {1})"#, r#"true"#),
        (r#"member(relTime(5), {5})"#, r#"false"#),
    ]);
}

#[test]
fn size() {
    check(&[
        (r#"size("abc")"#, r#"3"#),
        (r#"size("")"#, r#"0"#),
        (r#"size("é")"#, r#"2"#),
        (r#"size({1,2})"#, r#"2"#),
        (r#"size([a=1;b=2])"#, r#"2"#),
        (r#"size(undefined)"#, r#"undefined"#),
        (r#"size(error)"#, r#"error"#),
        (r#"size(1)"#, r#"error"#),
        (r#"size()"#, r#"error"#),
    ]);
}

/// Class: the kind of a list in anyCompare/allCompare. HTCondor's `is` and
/// `isnt` tell a list literal from a list a function made (different kinds
/// are not identical, one kind is ERROR); the elements and the third
/// argument must keep their kind when the function receives them.
#[test]
fn list_compare_keeps_the_kind_of_a_list() {
    check(&[
        (r#"allCompare("isnt", {split("a b")}, {1})"#, "true"),
        (r#"allCompare("isnt", {{1}}, split("c"))"#, "true"),
        (r#"allCompare("isnt", {split("a b")}, split("c"))"#, "error"),
        (r#"anyCompare("is", {{"a"}}, {1})"#, "error"),
        (
            r#"[x = {1}; r = allCompare("isnt", {split("a b")}, x)].r"#,
            "true",
        ),
    ]);
}

// The type predicates look at the value only: the elements of a list are
// not evaluated (HTCondor's isType does not), so a list whose element
// fails at the depth limit (a list selecting from itself) is still a list
// (seed 978 `--wild`).
#[test]
fn type_predicates_do_not_evaluate_list_elements() {
    check(&[
        ("[A = isList(B); B = {B.b}].A", "true"),
        ("[A = isError(B); B = {B.b}].A", "false"),
        ("[A = isUndefined(B); B = {B.b}].A", "false"),
        ("[A = isList(B); B = true ? {B.b} : 1].A", "true"),
        ("isList(split(\"a b\"))", "true"),
        ("isList([b = {1}][\"b\"])", "true"),
    ]);
}
