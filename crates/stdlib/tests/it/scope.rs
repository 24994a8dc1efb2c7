//! Scope after a selection over a list (issue 12). Every expected value
//! was checked against HTCondor 25.14 (the oracle).

use crate::common;
use common::check;

// The elements of a list made by a selection over a list have no scope:
// every reference made directly in them is UNDEFINED (`root`, `self`, `MY`
// and `CurrentTime` too), while an ad literal among them still has a root
// (an empty ad).
#[test]
fn list_made_by_selection_over_list_has_no_scope() {
    check(&[
        ("{ [ a = { root, 1 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { self, 1 } ] }.a[0][1]", "1"),
        ("{ [ a = { self, 1 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { toplevel } ] }.a[0][0]", "undefined"),
        ("{ [ a = { MY } ] }.a[0][0]", "undefined"),
        ("{ [ a = { CurrentTime > 0 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { x }; x = 1 ] }.a[0][0]", "undefined"),
        ("{ [ a = { root } ] }.a", "{ { undefined } }"),
        ("{ [ a = { [ y = root ].y } ] }.a[0][0]", "[  ]"),
    ]);
}

// An ad in a list made by a selection over a list has no parent scope:
// its `root` is the root of the evaluation that reads it (here the empty
// context ad) and `parent` is UNDEFINED; its own attributes and `self`
// still work.
#[test]
fn ad_made_by_selection_over_list_has_no_parent() {
    check(&[
        (
            "[ Y = 5; r = { [ B = [ B = root.Y; y = 418 ] ] }.B[0].B ].r",
            "undefined",
        ),
        ("[ Y = 5; r = { [ B = [ B = root ] ] }.B[0].B ].r", "[  ]"),
        (
            "[ Y = 5; r = { [ B = [ B = .y; y = 418 ] ] }.B[0].B ].r",
            "undefined",
        ),
        (
            "[ Y = 5; r = { [ B = [ B = parent ] ] }.B[0].B ].r",
            "undefined",
        ),
        (
            "[ Y = 5; r = { [ B = [ B = Y; y = 418 ] ] }.B[0].B ].r",
            "418",
        ),
        (
            "[ Y = 5; r = { [ B = [ B = self.y; y = 4 ] ] }.B[0].B ].r",
            "4",
        ),
    ]);
}

// A list taken by `ad["name"]` is HTCondor's shared list type (as
// `split`'s): `=?=` against a list literal's is false, against another
// shared list ERROR.
#[test]
fn list_taken_by_subscript_is_a_shared_list_for_identity() {
    check(&[
        ("[ b = { 1, 2 }; A = self[\"b\"] isnt {1,2} ].A", "true"),
        ("[ b = { 1, 2 }; A = self[\"b\"] isnt b ].A", "true"),
        (
            "[ b = { 1, 2 }; A = self[\"b\"] is self[\"b\"] ].A",
            "error",
        ),
        (
            "[ b = { 1, 2 }; A = self[\"b\"] is split(\"1 2\") ].A",
            "error",
        ),
        ("[ a = {}; B = { 9 } is MY[\"A\"] ].B", "false"),
    ]);
}

// A list that contains itself through a selection: HTCondor's evaluation
// fails at its depth limit; an element that is a selection chain is then
// UNDEFINED, one under an operator or a call ERROR, and a selection over
// the list stops at the first failed element.
#[test]
fn list_containing_itself_through_a_selection() {
    check(&[
        ("[ a = { a.a } ].a", "{ undefined }"),
        ("[ B = { B.B, false } ].B", "{ undefined,false }"),
        ("[ a = { a.a, a.a } ].a", "{ undefined,undefined }"),
        ("[ a = { ( a ).a } ].a", "{ undefined }"),
        ("[ a = { a.a.b } ].a", "{ undefined }"),
        ("[ a = { a.a } ].a[0]", "undefined"),
        ("[ a = { a.a + 1 } ].a", "{ error }"),
        ("[ a = { isUndefined(a.a) } ].a", "{ error }"),
        ("[ a = { a.a is undefined } ].a", "{ error }"),
        ("[ c = { 2, c.b ?: (-7) } ].c", "{ 2,error }"),
        ("[ a = { [x = a.a].x } ].a", "{ { undefined } }"),
    ]);
}

// A list taken by `ad["name"]` has no scope either.
#[test]
fn list_taken_by_subscript_has_no_scope() {
    check(&[
        (
            "[ b = { root, self, toplevel, 1 }; r = self[\"b\"] ].r",
            "{ undefined,undefined,undefined,1 }",
        ),
        (
            "[ b = { CurrentTime > 0 }; r = self[\"b\"] ].r",
            "{ undefined }",
        ),
        (
            "[ b = { MY, .x }; x = 1; r = self[\"b\"] ].r",
            "{ undefined,undefined }",
        ),
        ("[ b = { [y = root].y }; r = self[\"b\"] ].r", "{ [  ] }"),
    ]);
}

// An ad literal written inside a list element (under a selection or an
// operator, not the element itself) keeps the ad it was written in as its
// parent when a selection over the list evaluates the element where the
// selection is: HTCondor's copy of the element keeps its parent scopes.
#[test]
fn ad_literal_inside_list_element_keeps_its_parent() {
    check(&[
        ("[ a = { [ A = [ A = 1 ] ].A }; c = true ].A.c", "{ true }"),
        (
            "[ a = { [ A = [ x = c ] ].A }; c = 4; r = [ c = 5; s = a.x ] ].r.s",
            "{ 4 }",
        ),
        (
            "[ a = { true ? [ c = 2 ] : 1, [ x = 1 ].c }; c = 3 ].a.c",
            "{ 2,error }",
        ),
    ]);
}

// A list literal written inside a list element keeps the ad it was written
// in (its elements are read there by a subscript, and its ad literals have
// it as parent) when the element is evaluated elsewhere.
#[test]
fn list_literal_inside_list_element_keeps_its_scope() {
    check(&[
        (
            "[ l = { { x }[0] }; x = 1; r = [ x = 2; s = sum(l) ] ].r.s",
            "1",
        ),
        ("[ x = 3; A = { { [ b = 1 ] }.x } ].A.x", "{ { error } }"),
    ]);
}

// `ad["name"]` evaluates the attribute as HTCondor's `EvaluateAttr` does,
// without marking it as being evaluated: a reference to itself inside it
// runs once more before it is found circular (found by the generated
// difftest, tests/gen/known_bugs.txt).
#[test]
fn attribute_taken_by_subscript_is_not_marked_active() {
    check(&[
        ("[ c = isUndefined(c) ][\"c\"]", "false"),
        ("[ c = isUndefined(c) ].c", "true"),
        ("[ B = [ c = c[2] ?: 831 ] ].B[\"c\"]", "error"),
        ("[ B = [ c = c[2] ?: 831 ] ].B.c", "831"),
        ("[ B = [ c = -c ?: 831 ] ].B[\"c\"]", "831"),
        ("[ B = [ c = c ] ].B[\"c\"]", "undefined"),
        ("[ B = [ c = isUndefined(d); d = c ] ].B[\"c\"]", "false"),
        ("[ B = [ c = isUndefined(d); d = c ] ].B[\"d\"]", "true"),
        ("[ B = [ c = isUndefined(self.c) ] ].B[\"c\"]", "false"),
    ]);
}

// The expression `evalInEachContext` and `countMatches` evaluate in each
// listed ad (an attribute's definition, or the argument itself): the ad
// and list literals written in it keep the ad they were written in as
// parent, not the listed ad, as HTCondor's literals keep the parent scope
// the parser gave them.
#[test]
fn literals_in_expression_evaluated_in_each_context_keep_their_parent() {
    check(&[
        (
            "[ x = [ B = 1 ].y; xs = { [ y = 5 ] }; r = evalInEachContext(x, xs) ].r",
            "{ undefined }",
        ),
        (
            "[ x = y; xs = { [ y = 5 ] }; r = evalInEachContext(x, xs) ].r",
            "{ 5 }",
        ),
        (
            "[ x = { y }[0]; xs = { [ y = 5 ] }; r = evalInEachContext(x, xs) ].r",
            "{ undefined }",
        ),
        (
            "[ x = [ B = y ].B; xs = { [ y = 5 ] }; r = evalInEachContext(x, xs) ].r",
            "{ undefined }",
        ),
        (
            "[ y = 3; x = [ B = y ].B; xs = { [ y = 5 ] }; r = evalInEachContext(x, xs) ].r",
            "{ 3 }",
        ),
        (
            "[ t = [ B = 1 ].y > 2; xs = { [ y = 5 ], [ y = 1 ] }; r = countMatches(t, xs) ].r",
            "0",
        ),
    ]);
}

// A list element in parentheses whose evaluation fails at the depth limit
// is ERROR (HTCondor's `OperationParens` sets it), while a selection
// passes the failure on as UNDEFINED, parentheses around its base or not
// (found by the --library generator, seed 465).
#[test]
fn failed_element_in_parentheses_is_error() {
    check(&[
        ("[a = {(a.a)}].a", "{ error }"),
        ("[B = {(B.B), false}].B", "{ error,false }"),
        ("[a = {(a).a}].a", "{ undefined }"),
        ("[a = {a.a}].a", "{ undefined }"),
    ]);
}

// A subscript keeps whatever value an element's failed evaluation left
// (HTCondor's list iterator ignores the failure), so a function or an
// operator one step up sees a value: `isError(b[0])` at the bottom of the
// recursion is true, and every level above it false. A selection whose base
// fails leaves its value UNDEFINED whatever the base is. Values from the
// oracle (HTCondor 25.14).
#[test]
fn subscript_swallows_failed_element() {
    check(&[
        ("[ b = { isError(b[0]) } ].b[0]", "false"),
        ("[ b = { b[0] is 1 } ].b[0]", "false"),
        ("[ b = { b[0] =?= 1 } ].b[0]", "false"),
        ("[ b = { isUndefined(b[0]) } ].b[0]", "false"),
        ("[ b = { ifThenElse(isError(b[0]), 1, 2) } ].b[0]", "2"),
        ("[ b = { isError(b[0][0]) } ].b[0]", "true"),
        ("[ b = { isError(c) }; c = b[0] ].c", "false"),
        ("[ b = { b[0] + 1 } ].b[0]", "error"),
        ("[ a = {a[0].a}].a[0]", "undefined"),
        ("[ a = {(a[0] + 1).a}].a[0]", "undefined"),
        ("[ a = {a.a[0]}].a[0]", "error"),
    ]);
}

/// The value of `source` evaluated with `context` as the context ad.
fn eval_in(context: &str, source: &str) -> String {
    let ad = classad::syntax::parse_ad(context).expect("the context parses");
    let ad = classad::ad_from_ast(&ad).expect("the context compiles");
    let expr = classad::syntax::parse_expression(source).expect("the expression parses");
    let program = classad::compile(&expr).expect("the expression compiles");
    let value = classad::Vm::default().evaluate(&program, &ad);
    classad::vm::print::value_to_string(&value)
}

// HTCondor keeps one root per evaluation state: `root`, `toplevel` and
// `.name` in an ad a selection over a list copied (without a parent) are
// the root of the evaluation reading it, the context ad, and a new state
// started in such an ad (`MY["name"]`) has the ad itself as root. Checked
// against the oracle with this context ad.
#[test]
fn root_of_an_ad_copied_by_a_selection_is_the_root_of_the_evaluation() {
    let context = "[ q = 5; l = { [ c = [ y = root; z = .q; w = parent; v = MY[\"y\"] ] ] }.c ]";
    for (source, expected) in [
        ("({ [ c = [ y = root ] ] }.c)[0].y.q", "5"),
        ("({ [ c = [ y = .q ] ] }.c)[0].y", "5"),
        ("({ [ c = [ y = toplevel ] ] }.c)[0].y.q", "5"),
        ("({ [ c = [ y = [ z = root ] ] ] }.c)[0].y.z.q", "5"),
        ("({ [ c = [ y = [ z = .q ] ] ] }.c)[0].y.z", "5"),
        ("({ [ c = [ y = parent ] ] }.c)[0].y", "undefined"),
        ("l[0].y.q", "5"),
        ("l[0].z", "5"),
        ("l[0].w", "undefined"),
        (
            "l[0].v",
            "[ y = root; z = .q; w = 'parent'; v = MY[\"y\"] ]",
        ),
        ("1 + [ b = [ l = { .q } ] ][\"b\"][\"l\"][0]", "6"),
        ("{ [ a = [ l = { .q } ] ] }.a[0][\"l\"][0]", "5"),
        ("{ [ a = { .q } ] }.a[0][0]", "5"),
    ] {
        assert_eq!(eval_in(context, source), expected, "{source}");
    }
}

// A list or an ad `eval` made from the literal it parsed is taken over by
// `ad["name"]` with its scope (HTCondor takes the tree out of its
// evaluation state instead of copying it): its references still resolve,
// a further `ad["name"]` hands it on unchanged, and it is the shared type
// for `=?=`. Text that only contains the literal (`({z})`) is copied as
// any other value. Found by seed 972 (`--odd`).
#[test]
fn value_eval_made_keeps_its_scope_through_subscript() {
    check(&[
        ("[A = eval(\"{z}\"); z = 5][\"A\"][0]", "5"),
        ("[A = eval({z}); z = 5][\"A\"][0]", "5"),
        ("[A = eval(\"({z})\"); z = 5][\"A\"][0]", "undefined"),
        ("[A = {z}; z = 5][\"A\"][0]", "undefined"),
        ("[A = B; B = eval(\"{z}\"); z = 5][\"A\"][0]", "5"),
        (
            "[A = [B = eval(\"{z}\"); z = 4][\"B\"]; z = 5][\"A\"][0]",
            "4",
        ),
        ("[A = eval(\"[q = z]\"); z = 5][\"A\"][\"q\"]", "5"),
        ("[A = eval(\"[q = z]\"); z = 5][\"A\"].q", "undefined"),
        ("[A = eval(\"{z}\"); z = 5][\"A\"] =?= {5}", "false"),
        (
            "[A = eval(\"{z}\"); z = 5][\"A\"] =?= split(\"5\")",
            "error",
        ),
        ("[A = eval(\"[q = z]\"); z = 5][\"A\"] =?= [q = z]", "false"),
    ]);
}

// Class 32 (issue 12): an ad or a list that a subscript takes out of a
// list taken by `ad["name"]` (or one `eval` made and `ad["name"]` handed
// on) was freed with that list in HTCondor and reads emptied: no
// attributes, no parent, no elements. Values the list does not hold are
// whole; with corrections the element is kept.
#[test]
fn element_of_a_list_taken_by_subscript_reads_emptied() {
    check(&[
        ("[ y = { [ c = 1 ] } ][\"y\"][0][\"c\"]", "undefined"),
        ("[ y = { [ c = 1 ] } ][\"y\"][0].c", "undefined"),
        ("size([ y = { [ c = 1 ], [ d = 2 ] } ][\"y\"][1])", "0"),
        ("strcat([ y = { [ c = 1 ] } ][\"y\"][0])", "\"[  ]\""),
        ("[ y = { { 1, 2 } } ][\"y\"][0][1]", "error"),
        ("size([ y = { { z } }; z = 1 ][\"y\"][0])", "0"),
        ("[ y = { [ c = 1 ] } ][\"y\"][0] =?= [ c = 1 ]", "error"),
        ("[ A = eval(\"{[q = 1]}\") ][\"A\"][0][\"q\"]", "undefined"),
        (
            "[ A = eval(\"{([q = 1])}\") ][\"A\"][0][\"q\"]",
            "undefined",
        ),
        ("[ A = eval(\"{z, {z}}\"); z = 5 ][\"A\"][1][0]", "error"),
        ("[ A = eval(\"{z, {z}}\"); z = 5 ][\"A\"][0]", "5"),
        ("[ A = eval(\"{D}\"); D = [ q = 3 ] ][\"A\"][0][\"q\"]", "3"),
        ("[ A = { splitTime(65) } ][\"A\"][0][\"Minutes\"]", "1"),
        ("[ y = { [ c = 1 ] } ].y[0][\"c\"]", "1"),
        ("{ [ c = 1 ] }[0][\"c\"]", "1"),
        ("[ A = eval(\"{[c = 1]}\") ].A[0][\"c\"]", "1"),
    ]);
}

// Class 35: a selection frees the ad `ad["name"]` handed back before its
// lookup; the emptied ad keeps its parent scope, which the lookup goes on
// in. A copy has none; an ad `eval` made (or an ad element of a list it
// made) keeps the ad `eval` ran in, emptied too when that ad was itself a
// shared ad freed with its subscript. `unresolved` searches the same way.
#[test]
fn ad_eval_made_taken_by_subscript_keeps_its_parent_scope() {
    check(&[
        ("[A = eval(\"[q = 1]\"); z = 5][\"A\"].z", "5"),
        ("[A = eval(\"[q = 1]\"); z = 5][\"A\"].q", "undefined"),
        ("[A = eval(\"[q = 1]\"); z = 5][\"A\"][\"q\"]", "1"),
        ("[A = eval(\"[q = 1]\"); z = 5][\"A\"].parent.z", "5"),
        ("[A = [q = 1]; z = 5][\"A\"].z", "undefined"),
        (
            "[A = [B = eval(\"[q = z]\"); z = 4][\"B\"]; z = 5][\"A\"].z",
            "4",
        ),
        ("[A = eval(\"{[q = 1]}\"); z = 5][\"A\"][0].z", "5"),
        ("[A = eval(\"{[q = 1]}\"); z = 5][\"A\"][0].q", "undefined"),
        (
            "[c = 1; B = [c = 6; D = eval(\"[s = 1]\")]][\"B\"][\"D\"].c",
            "undefined",
        ),
        (
            "[c = 1; A = eval(\"[q = 1; D = eval(\\\"[s = 1]\\\")]\")][\"A\"][\"D\"].c",
            "1",
        ),
        (
            "[A = eval(\"[q = 1]\"); z = w; B = self[\"A\"]; u = unresolved(B.z)].u",
            "\"w\"",
        ),
    ]);
}
