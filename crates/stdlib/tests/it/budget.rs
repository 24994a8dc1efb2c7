//! Evaluation budgets (issue 13): work inside builtins is charged to the
//! step budget, what an evaluation produces to the memory budget, and past
//! either the value is ERROR. Costs are counted (small limits set through
//! `Options`), not timed, except where a test says so.

use classad::vm::{Limits, Options, Value, Vm};

/// The value of `source` evaluated with these limits.
fn eval_with(source: &str, limits: Limits) -> Value {
    let expr = classad::syntax::parse_expression(source).expect("parses");
    let program = classad::compile(&expr).expect("compiles");
    let mut vm = Vm::new(Options {
        limits,
        ..Options::default()
    });
    vm.evaluate(&program, &classad::empty_ad())
}

fn eval(source: &str) -> Value {
    eval_with(source, Limits::default())
}

/// `[s = <text>; a0 = <call>; a1 = a0 + a0; ...].a<levels>`: the call made
/// 2^levels times.
fn doubling(text: &str, call: &str, levels: usize) -> String {
    let mut parts = vec![format!("s = \"{text}\""), format!("a0 = {call}")];
    for i in 1..=levels {
        parts.push(format!("a{i} = a{} + a{}", i - 1, i - 1));
    }
    format!("[{}].a{levels}", parts.join("; "))
}

#[test]
fn builtin_work_is_charged_to_the_step_budget() {
    let text = "x".repeat(1 << 20);
    // 65,536 calls of toUpper on 1 MB: ERROR once the budget is spent
    // (53 s of work before budgets).
    let source = doubling(&text, "size(toUpper(s))", 16);
    assert!(eval(&source).is_error());
    // A few calls are well within it.
    let source = doubling(&text, "size(toUpper(s))", 2);
    assert!(matches!(eval(&source), Value::Int(4_194_304)));
}

#[test]
fn string_comparison_is_charged_to_the_step_budget() {
    let text = "x".repeat(1 << 20);
    let source = doubling(&text, "(s == s ? 1 : 0)", 16);
    assert!(eval(&source).is_error());
}

#[test]
fn regex_work_is_charged_to_the_step_budget() {
    let text = "a".repeat(1 << 20);
    let source = doubling(&text, "(regexp(\"a*b\", s) ? 1 : 2)", 16);
    assert!(eval(&source).is_error());
}

#[test]
fn steps_charged_scale_with_the_bytes_scanned() {
    // toUpper of 16 KiB charges about a thousand steps: with a budget of
    // 500 steps it is ERROR, with 5,000 it is not.
    let limits = |max_steps| Limits {
        max_steps,
        ..Limits::default()
    };
    // Compile-time folding runs with the default budget: the string is in
    // an attribute so that the call runs under these limits.
    let source = format!("[s = \"{}\"; r = size(toUpper(s))].r", "x".repeat(16 << 10));
    assert!(eval_with(&source, limits(500)).is_error());
    assert!(matches!(
        eval_with(&source, limits(5_000)),
        Value::Int(16_384)
    ));
}

#[test]
fn memory_budget_stops_strcat_amplification() {
    // strcat of 1,000 copies of 10 KB, then of 1,000 copies of that: 10 GB
    // (the process aborted before budgets).
    let a0 = "y".repeat(10_000);
    let copies = |name: &str| vec![name; 1000].join(", ");
    let source = format!(
        "[a0 = \"{a0}\"; a1 = strcat({}); a2 = strcat({})].a2",
        copies("a0"),
        copies("a1")
    );
    assert!(eval(&source).is_error());
    let source = format!("[a0 = \"{a0}\"; a1 = strcat({})].a1", copies("a0"));
    assert!(matches!(eval(&source), Value::Str(s) if s.len() == 10_000_000));
}

#[test]
fn memory_budget_covers_each_producing_function() {
    let limits = Limits {
        max_memory: 1 << 20,
        ..Limits::default()
    };
    let big = "z".repeat(300_000);
    // Each makes more than 1 MiB from a 300 KB string held in `s`.
    for call in [
        "strcat(s, s, s, s)",
        "join(\",\", s, s, s, s)",
        "join({s, s, s, s})",
        "split(strcat(s, s, s))",
        "replaceall(\"z\", s, \"zzzz\")",
        "replace(\".*\", s, \"\\\\0\\\\0\\\\0\\\\0\")",
        "regexps(\".*\", s, \"\\\\0\\\\0\\\\0\\\\0\")",
        "{s, s, s, s}",
        "substr(strcat(s, s, s, s), 0)",
        "evalInEachContext(s, {[], [], [], []})",
    ] {
        let source = format!("[s = \"{big}\"; r = {call}].r");
        assert!(eval_with(&source, limits).is_error(), "{call}");
    }
    // And well under the budget they answer.
    let source = format!("[s = \"{big}\"; r = size(strcat(s, s))].r");
    assert!(matches!(eval_with(&source, limits), Value::Int(600_000)));
}

#[test]
fn memory_budget_counts_shared_values_as_copies() {
    // A list of a thousand references to a list of a thousand references
    // to a 10 KB string is 10 GB once printed.
    let s = "w".repeat(10_000);
    let refs = |name: &str| vec![name; 1000].join(", ");
    let source = format!(
        "[s = \"{s}\"; l = {{{}}}; m = {{{}}}].m",
        refs("s"),
        refs("l")
    );
    assert!(eval(&source).is_error());
    let source = format!("[s = \"{s}\"; l = {{{}}}].l", refs("s"));
    assert!(matches!(eval(&source), Value::List(l) if l.len() == 1000));
}

#[test]
fn exhausting_memory_ends_the_evaluation() {
    // The failed call cannot be tested and retried: the evaluation is over.
    let limits = Limits {
        max_memory: 1 << 20,
        ..Limits::default()
    };
    let source = format!(
        "[s = \"{}\"; r = isError(strcat(s, s, s, s, s)) ? 1 : 2].r",
        "q".repeat(300_000)
    );
    assert!(eval_with(&source, limits).is_error());
}

/// Evaluates `source` and checks it took less than `seconds` (generous:
/// the quadratic versions took 10 to 100 times longer).
fn timed(source: &str, seconds: f64) -> Value {
    let start = std::time::Instant::now();
    let value = eval(source);
    let elapsed = start.elapsed().as_secs_f64();
    assert!(elapsed < seconds, "{elapsed:.2} s");
    value
}

fn numbered(count: usize, separator: &str) -> String {
    (0..count)
        .map(|i| format!("item{i}"))
        .collect::<Vec<_>>()
        .join(separator)
}

#[test]
fn string_list_subset_match_is_linear() {
    // 100,000 items: 12 s with a linear search per item, 0.1 s in HTCondor.
    let list = numbered(100_000, ", ");
    let source = format!("[l = \"{list}\"; r = stringListSubsetMatch(l, l)].r");
    assert!(matches!(timed(&source, 2.0), Value::Bool(true)));
    let upper = list.to_uppercase();
    let source = format!("[l = \"{list}\"; u = \"{upper}\"; r = stringListISubsetMatch(u, l)].r");
    assert!(matches!(timed(&source, 2.0), Value::Bool(true)));
    let source = format!("[l = \"{list}\"; u = \"{upper}\"; r = stringListSubsetMatch(u, l)].r");
    assert!(matches!(timed(&source, 2.0), Value::Bool(false)));
}

#[test]
fn string_lists_intersect_is_linear() {
    let first = numbered(100_000, ",");
    let second = (0..100_000)
        .map(|i| format!("other{i}"))
        .collect::<Vec<_>>()
        .join(",");
    let source = format!("[a = \"{first}\"; b = \"{second}\"; r = stringListsIntersect(a, b)].r");
    assert!(matches!(timed(&source, 2.0), Value::Bool(false)));
    let source =
        format!("[a = \"{first}\"; b = \"{second},item99999\"; r = stringListsIntersect(a, b)].r");
    assert!(matches!(timed(&source, 2.0), Value::Bool(true)));
}

#[test]
fn long_delimiter_sets_are_linear() {
    // A delimiter set of every byte but letters and digits, 100,000 times:
    // each byte of the list was compared with each delimiter.
    let delimiters: String = (1u8..128)
        .filter(|b| !b.is_ascii_alphanumeric() && *b != b'"' && *b != b'\\')
        .map(char::from)
        .collect::<String>()
        .repeat(1000);
    let list = numbered(100_000, ";");
    for call in [
        "stringListSize(l, d)",
        "stringListMember(\"item5\", l, d)",
        "size(split(l, d))",
        "stringListsIntersect(l, l, d)",
    ] {
        let source = format!("[l = \"{list}\"; d = \"{delimiters}\"; r = {call}].r");
        assert!(!timed(&source, 2.0).is_error(), "{call}");
    }
}

#[test]
fn evaluation_depth_counts_constants_as_htcondor_does() {
    // HTCondor 25.14 evaluates a chain of 399 references and fails one of
    // 400, whether the last attribute is a constant or not.
    let chain = |n: usize, last: &str| {
        let mut parts = vec![format!("a0 = {last}")];
        parts.extend((1..=n).map(|i| format!("a{i} = a{}", i - 1)));
        format!("[{}].a{n}", parts.join("; "))
    };
    assert!(matches!(eval(&chain(399, "1")), Value::Int(1)));
    assert!(eval(&chain(400, "1")).is_error());
    assert!(eval(&chain(399, "x")).is_undefined());
    assert!(eval(&chain(400, "x")).is_error());
}

#[test]
fn eval_of_itself_is_bounded_by_the_depth() {
    // A stack overflow before `eval` counted as a level; ERROR in HTCondor
    // ("failed to evaluate").
    assert!(eval(r#"[s = "eval(s)"; r = eval(s)].r"#).is_error());
    assert!(eval(r#"[s = "[t = eval(s)].t"; r = eval(s)].r"#).is_error());
}

/// `[l = {[], [], ...}; n = countMatches(true, l)].n` with `ads` ads.
fn count_matches_over(ads: usize) -> String {
    format!(
        "[l = {{{}}}; n = countMatches(true, l)].n",
        vec!["[]"; ads].join(", ")
    )
}

#[test]
fn context_evaluations_are_charged_to_the_step_budget() {
    // Found by the fuzz target `evaluate`: each level of this
    // self-reference evaluates it in two ads, 2^400 evaluations in all,
    // and counting only instructions let it run for 6 s. HTCondor's
    // process overflows its stack on both (the oracle, 25.14): here they
    // end in ERROR within the step budget.
    assert!(eval("[a = countMatches(a, {[], []})].a").is_error());
    assert!(eval("[a = evalInEachContext(a, {[], []})].a").is_error());
    // 100 ads cost well over 1,000 steps: each one entered is charged.
    let limits = |max_steps| Limits {
        max_steps,
        ..Limits::default()
    };
    assert!(eval_with(&count_matches_over(100), limits(1_000)).is_error());
    assert!(matches!(
        eval_with(&count_matches_over(100), limits(100_000)),
        Value::Int(100)
    ));
}
