//! Known_bugs class 11: a builtin given a list whose element fails (`B =
//! {B.b}` selects from itself and fails at the depth limit) or is ERROR.
//! As in HTCondor, a function gets a list argument as written: only those
//! that read the elements evaluate them, one by one, stopping where
//! HTCondor's stop; the others see a list whatever its elements.
//!
//! Every expected value agrees with HTCondor 25.14 (checked with the
//! oracle; the corpus `tests/corpus/lazy_list_arguments.txt` holds more).

use crate::common;
use common::check;

#[test]
fn functions_that_only_look_at_the_type_see_a_list() {
    check(&[
        (r#"[A = userHome(B, "a"); B = {B.b}].A"#, r#""a""#),
        (
            r#"[A = stringListsIntersect(B, "a", undefined); B = {B.b}].A"#,
            "undefined",
        ),
        (r#"[A = userMap(B, "u"); B = {B.b}].A"#, "undefined"),
        (r#"[A = isError(int(B)); B = {B.b}].A"#, "true"),
        (r#"[A = isError(splitTime({1, B.b})); B = {B.b}].A"#, "true"),
        (r#"[A = regexp(B, undefined); B = {B.b}].A"#, "undefined"),
        (r#"[A = substr(B, undefined); B = {B.b}].A"#, "undefined"),
        (r#"[A = isError(quantize(B, 5)); B = {B.b}].A"#, "true"),
        (r#"[A = isError(debug({1, B.b})); B = {B.b}].A"#, "false"),
        (r#"[A = size(debug({1, B.b})); B = {B.b}].A"#, "2"),
    ]);
}

#[test]
fn walking_functions_stop_where_htcondor_stops() {
    check(&[
        // The walk stops before the failing element.
        (r#"[A = member(1, {1, B.b}); B = {B.b}].A"#, "true"),
        (r#"[A = anyCompare("<", {1, B.b}, 3); B = {B.b}].A"#, "true"),
        (r#"[A = isError(sum({"a", B.b})); B = {B.b}].A"#, "true"),
        (r#"[A = isError(max({{B.b}})); B = {B.b}].A"#, "true"),
        (r#"[A = quantize(1, {2, B.b}); B = {B.b}].A"#, "2"),
        (
            r#"[A = isError(listToArgs({"a", 1, B.b})); B = {B.b}].A"#,
            "true",
        ),
        (
            r#"[A = isError(join(",", {"a", error, B.b})); B = {B.b}].A"#,
            "true",
        ),
        (r#"[A = isError(join(error, {B.b})); B = {B.b}].A"#, "true"),
        // An element's own list is not evaluated.
        (
            r#"[A = isError(member(1, {{B.b}, 1})); B = {B.b}].A"#,
            "false",
        ),
        // Reaching the failing element fails the call.
        (
            r#"[A = isError(member(2, {1, B.b})); B = {B.b}].A"#,
            "error",
        ),
        (r#"[A = isError(sum({1, B.b})); B = {B.b}].A"#, "error"),
        (
            r#"[A = isError(quantize(3, {2, B.b})); B = {B.b}].A"#,
            "error",
        ),
        (
            r#"[A = isError(listToArgs({"a", B.b})); B = {B.b}].A"#,
            "error",
        ),
    ]);
}

#[test]
fn functions_that_go_on_past_a_failed_element() {
    check(&[
        (
            r#"[A = isError(regexpMember("a", {B.b, "a"})); B = {B.b}].A"#,
            "true",
        ),
        (
            r#"[A = regexpMember("a", {"a", B.b}); B = {B.b}].A"#,
            "true",
        ),
        (
            r#"[A = evalInEachContext(true, {B.b, [a = 1]}); B = {B.b}].A"#,
            "{ error,true }",
        ),
        (
            r#"[A = countMatches(true, {B.b, [a = 1]}); B = {B.b}].A"#,
            "1",
        ),
        // formatTime of an ad: a field that fails to evaluate is missing.
        (
            r#"[A = formatTime([Year = B.b], "%Y"); B = {B.b}].A"#,
            r#""1900""#,
        ),
        (
            r#"[A = formatTime([Year = 2000; Month = B.b], "%Y %m"); B = {B.b}].A"#,
            r#""2000 01""#,
        ),
    ]);
}
