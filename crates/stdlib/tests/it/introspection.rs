//! eval and unresolved (more in `tests/corpus/functions_introspection.txt`).
//! Expected values agree with HTCondor 25.14 (checked with the oracle).

use classad::evaluate_str;

fn check(cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        let value = evaluate_str(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"));
        assert_eq!(format!("{value:?}"), *expected, "{expr}");
    }
}

/// Class: eval of a value that is not a string. HTCondor converts the
/// value to a string as `string()` does and parses that.
#[test]
fn eval_reads_the_text_of_a_value() {
    check(&[
        ("eval(relTime(-1.5))", "-1"),
        ("eval(relTime(2.5))", "error"),
        ("eval(absTime(0))", "error"),
        ("eval(1.5)", "1.500000000000000E+00"),
        ("eval(true)", "true"),
        ("eval([a = 1; b = a]).b", "1"),
        ("eval(undefined)", "error"),
    ]);
}

/// Class: unresolved as HTCondor's hasRefs: a reference that finds nothing
/// is UNDEFINED; defined names are followed; `base.name` with an UNDEFINED
/// base is listed whole; the pattern ignores case and matches no empty
/// text.
#[test]
fn unresolved_follows_definitions() {
    check(&[
        ("unresolved(x)", "undefined"),
        ("unresolved(.x)", "undefined"),
        ("unresolved(2)", "error"),
        ("[A = B + 1; B = C; res = unresolved(A)].res", r#""C""#),
        ("[A = B + 1; B = A; res = unresolved(A)].res", r#""""#),
        ("[A = y.z.w + q; res = unresolved(A)].res", r#""q,y.z.w""#),
        (
            "[A = Zed + alpha + target.Beta + TARGET.aa; res = unresolved(A)].res",
            r#""alpha,aa,Beta,Zed""#,
        ),
        ("[A = x + MY; res = unresolved(A)].res", r#""""#),
        ("[A = \"s\".z + q; res = unresolved(A)].res", r#""""#),
        (r#"[Q = abc; res = unresolved(Q, "B")].res"#, "true"),
        (r#"[Q = abc; res = unresolved(Q, "")].res"#, "false"),
        (r#"[Q = abc; res = unresolved(Q, "(")].res"#, "error"),
    ]);
}

/// Class: evalInEachContext and countMatches of a name leave the ad their
/// lookup of the name ended in as the one the rest of the attribute's
/// expression looks names up from (HTCondor's `Deref` does not restore
/// its state's current ad); a name found in the ad itself changes nothing,
/// and the next attribute starts afresh.
#[test]
fn a_dereferenced_name_leaves_its_ad_current() {
    check(&[
        ("[v = 1; r = countMatches(P, {}) + v].r", "undefined"),
        ("[v = 1; r = v + countMatches(P, {})].r", "1"),
        (
            "[v = 1; P = true; r = countMatches(P, {[a = 1]}) + v].r",
            "2",
        ),
        (
            "[v = 1; r = [w = 2; s = countMatches(v, {[a = 1]}) + w].s].r",
            "undefined",
        ),
        (
            "[v = 1; r = [w = 2; s = countMatches(v, {[a = 1]}) + v].s].r",
            "2",
        ),
        ("[v = 1; r = countMatches(P, {}) + w; w = 2].r", "undefined"),
        (
            "[v = 1; r = countMatches(P, {}) + w; w = v + 1].r",
            "undefined",
        ),
        (
            "[v = 1; r = countMatches(P, {}) > 0 ? 1 : v].r",
            "undefined",
        ),
    ]);
}

/// Class (known_bugs class 6): the ad evalInEachContext/countMatches of a
/// name leave current is carried from one element of a list to the next
/// when a function evaluates the list's elements in one pass, and on to
/// the rest of the caller's expression, as HTCondor's one EvalState keeps
/// it; a subscript starts a state of its own.
#[test]
fn the_left_ad_is_carried_across_a_functions_list_elements() {
    check(&[
        ("[v = 1; r = {countMatches(P, {}), v}; s = sum(r)].s", "0"),
        (
            "[v = 1; r = {v, countMatches(P, {}), v}; s = sum(r)].s",
            "1",
        ),
        ("[v = 1; s = sum({countMatches(P, {})}) + v].s", "undefined"),
        (
            r#"[v = 1; s = join(",", {countMatches(P, {}), v})].s"#,
            r#""0""#,
        ),
        (
            r#"[v = 1; s = eval("countMatches(P, {})") + v].s"#,
            "undefined",
        ),
        ("[v = 1; s = {countMatches(P, {}), v}[0] + v].s", "1"),
        (
            "[v = 1; r = {countMatches(P, {}), v}; s = size(r) + v].s",
            "3",
        ),
    ]);
}

/// Class (known_bugs class 7): a list element that calls a function over
/// its own list evaluates the list again, until the depth limit (ERROR),
/// as HTCondor's functions do; member stops at the first element equal
/// to its item, before the recursion, and evalInEachContext/countMatches
/// ignore the element's failure. Without an operation HTCondor never ends
/// (it crashes); here the nesting is bounded.
#[test]
fn a_function_over_its_own_list_recurses_to_the_depth_limit() {
    check(&[
        ("[y = {member(1, y) || 1}].y[0]", "error"),
        (
            "[y = {1, member(9223372036854775807, y) || 1}].y[1]",
            "error",
        ),
        ("[y = {2, member(2, y) || 1}].y[1]", "true"),
        (r#"[y = {join(",", y)}].y[0]"#, "error"),
        ("[y = {countMatches(true, y) + 1}].y[0]", "1"),
        ("[y = {size(evalInEachContext(1, y)) + 1}].y[0]", "2"),
        ("[y = {member(2, y)}].y[0]", "error"),
        ("[y = {sum(y)}].y[0]", "error"),
        ("[y = {member(1, y), member(2, y)}].y[0]", "error"),
    ]);
}
