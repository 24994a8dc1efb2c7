//! How values become strings (issue 12): a value is not a printing choice,
//! so text made from a value is HTCondor's bytes. Every expected value was
//! checked with the oracle (HTCondor 25.14.1); the corpora
//! `tests/corpus/functions_strings.txt` and
//! `tests/corpus/functions_introspection.txt` hold them too.

use crate::common;
use common::check;

#[test]
fn reals_become_htcondor_strings() {
    check(&[
        ("strcat(7/3.0)", r#""2.333333333333333E+00""#),
        ("string(7/3.0)", r#""2.333333333333333E+00""#),
        ("strcat(0.1 + 0.2)", r#""3.000000000000000E-01""#),
        ("string(123456789012345678.0)", r#""1.234567890123457E+17""#),
        ("strcat(-0.0)", r#""-0.0""#),
        ("strcat(1e300)", r#""1.000000000000000E+300""#),
        ("strcat(5e-324)", r#""4.940656458412465E-324""#),
        ("strcat(2.5e-310)", r#""2.500000000000017E-310""#),
        (r#"strcat(real("NaN"))"#, r#""real(\"NaN\")""#),
        ("strcat(-1e308 * 10)", r#""real(\"-INF\")""#),
        ("toUpper(1.5)", r#""1.500000000000000E+00""#),
        (
            r#"join(",", 1.5, 2.5)"#,
            r#""1.500000000000000E+00,2.500000000000000E+00""#,
        ),
        (
            r#"splitSlotName(strcat(7/3.0, "@", 1.5))"#,
            r#"{ "2.333333333333333E+00","1.500000000000000E+00" }"#,
        ),
        ("split(strcat(0.1 + 0.2))", r#"{ "3.000000000000000E-01" }"#),
        (
            "[a = 0.30000000000000004; b = unparse(a)].b",
            r#""3.000000000000000E-01""#,
        ),
        ("strcat({7/3.0})", r#""{ 7 / 3.000000000000000E+00 }""#),
    ]);
}

#[test]
fn lists_become_strings_as_written() {
    check(&[
        ("toUpper({a + 1})", r#""{ A + 1 }""#),
        ("toLower({A + 1})", r#""{ a + 1 }""#),
        (r#"strcat({1+2}, "x")"#, r#""{ 1 + 2 }x""#),
        (r#"join(",", {1+2}, {3})"#, r#""{ 1 + 2 },{ 3 }""#),
        ("join({1+2, 3})", r#""33""#),
        (r#"strcmp({1+2}, "{ 1 + 2 }")"#, "0"),
        (r#"stricmp({1+2}, "{ 1 + 2 }")"#, "0"),
        ("strcat({{1+2}})", r#""{ { 1 + 2 } }""#),
        ("strcat(ifThenElse(true, {1+2}, 0))", r#""{ 1 + 2 }""#),
        ("[l = {1+2}; s = strcat(l)].s", r#""{ 1 + 2 }""#),
        ("strcat({[a = {1+2}]}.a)", r#""{ { 1 + 2 } }""#),
        (r#"strcat(eval("{1+2}"))"#, r#""{ 1 + 2 }""#),
        ("strcat({x, y.z, self})", r#""{ x,y.z,self }""#),
        (
            "strcat({absTime(0), relTime(60)})",
            r#""{ absTime(0),relTime(60) }""#,
        ),
    ]);
}

#[test]
fn ads_become_strings_in_htcondor_order() {
    check(&[
        ("strcat([b = 1; a = 2])", r#""[ a = 2; b = 1 ]""#),
        (
            "toUpper([Name = \"x\"; Cpus = 4; Memory = 1024])",
            r#""[ CPUS = 4; NAME = \"X\"; MEMORY = 1024 ]""#,
        ),
        ("strcat([A = 1; a = 2])", r#""[ A = 2 ]""#),
        ("strcat([a = x.'b c'])", r#""[ a = x.b c ]""#),
        ("strcat([a = -(1) - - 1])", r#""[ a =  -(1) -  -1 ]""#),
        ("strcat([b = 1 + 2 ?: 3])", r#""[ b = 1 + 2 ?: 3 ]""#),
    ]);
}

#[test]
fn unparse_looks_up_the_reference_text_in_the_current_ad() {
    check(&[
        ("unparse([a = 1 + 2].a)", r#""""#),
        ("[a = 1 + 2; b = unparse(a)].b", r#""1 + 2""#),
        ("[a = 1 + 2; b = unparse(self.a)].b", r#""""#),
        ("[a = 1 + 2; b = unparse(.a)].b", r#""""#),
        ("[a = 1 + 2; b = [c = unparse(a)]].b.c", r#""""#),
        ("['a.c' = 5; a = [c = 1 + 2]; b = unparse(a.c)].b", r#""5""#),
        ("[a = 1 + 2; b = unparse((a))].b", "error"),
        ("unparse(1)", "error"),
    ]);
}

#[test]
fn count_matches_evaluates_the_attribute_expression_in_each_ad() {
    check(&[
        (
            "[jobtest = Prio > 2; joblist = {[Prio = 1], [Prio = 5]}; n = countMatches(jobtest, joblist)].n",
            "1",
        ),
        (
            "[jobtest = Prio > 2; Prio = 9; joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(jobtest, joblist)].n",
            "{ false,true }",
        ),
        (
            "[Prio = 9; joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(Prio, joblist)].n",
            "{ 9,9 }",
        ),
        (
            "[t = [u = Prio * 2]; joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(t.u, joblist)].n",
            "{ 2,10 }",
        ),
        (
            "[w = Prio * 3; t = [u = 1]; joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(t.w, joblist)].n",
            "{ 3,15 }",
        ),
        // HTCondor's lookup of the first argument leaves its evaluation in
        // the ad where the lookup ended, and the list is looked up from there.
        (
            "[joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(x, joblist)].n",
            "undefined",
        ),
        (
            "[Prio = 9; x = [Prio = 2; joblist = {[Prio = 1], [Prio = 5]}; n = evalInEachContext(parent.Prio, joblist)]].x.n",
            "undefined",
        ),
        (
            "[b = Prio > 2; joblist = {[Prio = 1], [Prio = 5], 3, undefined}; n = evalInEachContext(b, joblist)].n",
            "{ false,true,error,undefined }",
        ),
    ]);
}

#[test]
fn an_expression_that_dereferences_itself_ends() {
    // HTCondor overflows its stack here; we stop at the depth limit.
    let value = common::eval("[t = countMatches(t, l); l = {[x = 1]}].t");
    assert!(value == "0" || value == "error", "{value}");
}

#[test]
fn identical_tells_a_list_a_function_made_from_a_list_literal() {
    // HTCondor has two list types: a literal's, and the shared list that
    // split, splitUserName, splitSlotName, argsToList and evalInEachContext
    // return. `=?=` of two lists of different types is false; of one type,
    // ERROR.
    check(&[
        (r#"{1} =?= split("x")"#, "false"),
        (r#"{1} =?= splitSlotName("a@b")"#, "false"),
        (r#"split("x") =?= {1}"#, "false"),
        (r#"{1} isnt split("a")"#, "true"),
        (r#"{1} =?= argsToList("a b")"#, "false"),
        ("{1} =?= evalInEachContext(1, {[a=1]})", "false"),
        (r#"[x = split("a"); y = {1} =?= x].y"#, "false"),
        (r#"split("x") =?= split("x")"#, "error"),
        (r#"evalInEachContext(1, {[a=1]}) =?= split("x")"#, "error"),
        ("{1} =?= {1}", "error"),
        ("{1} =?= {[a=1]}.a", "error"),
        (r#"{1} =?= eval("{1}")"#, "error"),
        (r#"{1} == split("x")"#, "error"),
        (r#"size(split("a")) =?= 1"#, "true"),
        (r#"split("a b")[1]"#, r#""b""#),
    ]);
}

#[test]
fn time_literals_become_text_as_htcondor_folds_them() {
    check(&[
        (
            r#"toUpper({relTime("60.5"), relTime("90"), relTime("-90"), relTime("3661.5")})"#,
            r#""{ RELTIME(\"01:0.5\"),RELTIME(\"01:30\"),RELTIME(\"-01:30\"),RELTIME(\"01:01:1.5\") }""#,
        ),
        (
            r#"toUpper({relTime("1d"), relTime("1.123456789"), absTime("2020-01-01")})"#,
            r#""{ RELTIME(\"1+00:00:00\"),RELTIME(\"1.12346\"),ABSTIME(\"2020-01-01T00:00:00-00:00\") }""#,
        ),
        (
            r#"[a = relTime("90"); b = unparse(a)].b"#,
            r#""relTime(\"01:30\")""#,
        ),
    ]);
}

#[test]
fn ads_of_a_list_made_by_selection_have_no_parent_scope() {
    check(&[
        ("{ [ b = [ c = true; y = B ] ] }.b[0].y", "undefined"),
        (
            "[z = 3; l = { [ b = [ y = z ] ] }.b; r = l[0].y].r",
            "undefined",
        ),
        (
            "[z = 3; l = { [ b = [ y = z ] ] }.b; r = l.y].r",
            "{ undefined }",
        ),
        (
            "[z = 3; l = { [ b = { z } ] }.b; r = l[0][0]].r",
            "undefined",
        ),
        ("[z = 3; l = { [ b = 4 ] }.b; r = l[0]].r", "4"),
    ]);
}

// `evalInEachContext` stores each value as a literal, as a selection over
// a list does: a relative time becomes its whole seconds, a real where it
// is used (found by the generated difftest, seed 352) that is written as a
// relative time (class 2 of tests/gen/known_bugs.txt).
#[test]
fn eval_in_each_context_stores_relative_times_as_whole_seconds() {
    check(&[
        (
            "evalInEachContext(relTime(90.7), {[a = 1]})",
            r#"{ relTime("01:30") }"#,
        ),
        (
            "evalInEachContext(relTime(-3.5), {[a = 1]})[0]",
            "-3.000000000000000E+00",
        ),
        (
            "[x = relTime(90.7); r = evalInEachContext(x, {[a = 1]})].r[0]",
            "9.000000000000000E+01",
        ),
        (
            "evalInEachContext(absTime(90), {[a = 1]})[0]",
            "absTime(\"1970-01-01T00:01:30-00:00\")",
        ),
    ]);
}

// Class 2 of tests/gen/known_bugs.txt: HTCondor's literal for a relative
// time that a selection over a list or `evalInEachContext` stores is a
// real where it is used (a subscript, `join`, a strict function) but is
// written as a relative time of its whole seconds wherever the list is
// written (`string`, `strcat`, `toUpper`, nested in another list).
#[test]
fn a_relative_time_stored_in_a_list_is_written_as_a_relative_time() {
    check(&[
        (
            "string(evalInEachContext(P, {[P = relTime(61.5)]}))",
            r#""{ relTime(\"01:01\") }""#,
        ),
        (
            r#"string({[a = relTime(3.5)], [a = 2.5], [a = "s"], [a = absTime(7200, 3600)]}.a)"#,
            r#""{ relTime(\"03\"),2.500000000000000E+00,\"s\",absTime(\"1970-01-01T03:00:00+01:00\") }""#,
        ),
        (
            "toUpper({[a = relTime(3.5)]}.a)",
            r#""{ RELTIME(\"03\") }""#,
        ),
        (
            "string({[a = relTime(-2147483648.7)], [a = relTime(-0.7)]}.a)",
            r#""{ relTime(\"--24855+-3:-14:-8\"),relTime(\"00\") }""#,
        ),
        (
            "string(evalInEachContext(P, {[P = evalInEachContext(Q, {[Q = relTime(1.5)]})]}))",
            r#""{ { relTime(\"01\") } }""#,
        ),
        (
            "[x = {[a = relTime(3.5)]}.a; y = {x}; z = string(y[0])].z",
            r#""{ relTime(\"03\") }""#,
        ),
        (
            "string(eval(string({[a = relTime(3.5)]}.a)))",
            r#""{ relTime(\"03\") }""#,
        ),
        (
            r#"join(",", {[a = relTime(1.5)], [a = {[b = relTime(1.5)]}.b]}.a)"#,
            r#""1.000000000000000E+00,{ relTime(\"01\") }""#,
        ),
        (
            "string({[a = relTime(3.5)]}.a[0])",
            r#""3.000000000000000E+00""#,
        ),
        (
            "sum(evalInEachContext(P, {[P = relTime(3.5)], [P = relTime(2)]}))",
            "5.000000000000000E+00",
        ),
        (
            "isReal(evalInEachContext(P, {[P = relTime(3.5)]})[0])",
            "true",
        ),
        ("member(3, {[a = relTime(3.5)]}.a)", "true"),
        (
            "identicalMember(relTime(3), {[a = relTime(3.5)]}.a)",
            "false",
        ),
        ("{[a = relTime(3.5)]}.a[0] + relTime(1)", "error"),
    ]);
}

// `evalInEachContext` copies a list value into its result as HTCondor holds
// it, unevaluated: the result prints it as written (found while fixing
// class 2 of tests/gen/known_bugs.txt; HTCondor 25.14's values).
#[test]
fn eval_in_each_context_keeps_a_list_value_as_written() {
    check(&[
        (
            "string(evalInEachContext(P, {[P = {1+1}]}))",
            r#""{ { 1 + 1 } }""#,
        ),
        (
            "string(evalInEachContext(P, {[P = {Q}; Q = 5]}))",
            r#""{ { Q } }""#,
        ),
        (
            "string(evalInEachContext(P, {[P = {relTime(1.5)}]}))",
            r#""{ { relTime(1.500000000000000E+00) } }""#,
        ),
        (
            "[t = {P + 1}; r = string(evalInEachContext(t, {[P = 1], [P = 2]}))].r",
            r#""{ { P + 1 },{ P + 1 } }""#,
        ),
        (
            "string(evalInEachContext(P, {[P = evalInEachContext(Q, {[Q = {1+1}]})]}))",
            r#""{ { { 1 + 1 } } }""#,
        ),
        ("size(evalInEachContext(P, {[P = {1+1}], [P = {}]}))", "2"),
    ]);
}
