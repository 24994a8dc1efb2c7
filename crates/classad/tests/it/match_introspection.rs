//! The introspection functions in a match (MY with a TARGET), against
//! HTCondor 25.14.1: every expected answer below was printed by the oracle
//! (`classad2.ExprTree(E).eval(MY, TARGET)`, default mode) for the same
//! ads; tests/corpus/match_context.txt holds many more, checked against
//! the oracle itself when it is installed. These run without it.

use classad::ClassAd;

fn eval(my: &str, target: &str, expr: &str) -> String {
    let my: ClassAd = my.parse().unwrap();
    let target: ClassAd = target.parse().unwrap();
    my.evaluate_expr_with_target(expr, &target)
        .unwrap()
        .to_string()
}

const MY: &str = "[a = 1; Requirements = true; Rank = 3; r = x + y; i = [u = unresolved(Memory); w = countMatches(Memory, {[Memory = 1]})]; l = {[q = 1], [Memory = 3]}]";
const TARGET: &str = "[x = 7; a = 2; Requirements = a > 0; Rank = b; Memory = 5]";

/// The lookup of `unresolved` walks on from MY to its context ad `lCtx`
/// and the match ad, where the names a search meets are looked up.
#[test]
fn unresolved_reaches_the_context_ad_and_the_match_ad() {
    for (expr, want) in [
        ("unresolved(symmetricMatch)", "\"\""),
        ("unresolved(RIGHT)", "\"a,b\""),
        ("unresolved(rightRankValue)", "\"b\""),
        ("unresolved(other)", "\"a,b\""),
        ("unresolved(lCtx.zz)", "undefined"),
        ("unresolved(r)", "\"x,y\""),
        (
            "strcat(unresolved(zz), unparse(leftMatchesRight))",
            "undefined",
        ),
    ] {
        assert_eq!(eval(MY, TARGET, expr), want, "{expr}");
    }
}

/// The fallback to TARGET is only from MY itself, and from the ad
/// evalInEachContext/countMatches evaluates in when MY (or its context
/// ad, or the match ad) holds that ad: HTCondor's evaluateInContext.
#[test]
fn the_fallback_to_target_is_the_alternate_scope_of_htcondor() {
    for (expr, want) in [
        ("i.u", "undefined"),
        ("i.w", "1"),
        ("evalInEachContext(Memory + 0, l)", "{ 5,3 }"),
        ("countMatches(Memory > 4, l)", "1"),
        ("evalInEachContext(x + 0, {lCtx, rCtx})", "{ 7,7 }"),
        (
            "evalInEachContext(x + 0, {[q = [r = 1]].q})",
            "{ undefined }",
        ),
        ("evalInEachContext(x + 0, {splitTime(5)})", "{ undefined }"),
    ] {
        assert_eq!(eval(MY, TARGET, expr), want, "{expr}");
    }
}

/// A selection over a list copies the ads it collects without their
/// parent: a copy of MY (`.LEFT`) is no ad of the match.
#[test]
fn a_copy_of_my_is_no_ad_of_the_match() {
    for (expr, want) in [
        ("{[B = .LEFT]}.B[0].r", "undefined"),
        ("{[B = .LEFT]}.B[0].a", "1"),
        ("{[B = root]}.B[0].LEFT.r", "undefined"),
        ("{[B = root]}.B[0].RIGHT.x", "7"),
    ] {
        assert_eq!(eval(MY, TARGET, expr), want, "{expr}");
    }
}
