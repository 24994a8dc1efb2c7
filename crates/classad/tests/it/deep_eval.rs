//! Evaluation of hostile expressions stays bounded: self-referring lists,
//! long attribute chains and deep recursion end in a value, never in a
//! stack overflow, on a thread with the default 2 MiB stack.

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no stack overflow")
}

fn eval(source: &str) -> String {
    let source = source.to_string();
    on_small_stack(move || {
        classad::evaluate_str(&source)
            .map(|v| classad::vm::print::value_to_string(&v))
            .unwrap_or_else(|e| format!("parse error: {e}"))
    })
}

/// [`eval`] parsed without HTCondor's parser depth bound
/// (`ParseOptions::max_parse_depth`).
fn eval_unbounded(source: &str) -> String {
    let source = source.to_string();
    on_small_stack(move || {
        let parser = classad::syntax::Parser::new(classad::syntax::ParseOptions {
            max_parse_depth: 0,
            ..classad::syntax::ParseOptions::default()
        });
        match parser.parse_expression(&source) {
            Ok(expr) => {
                let program = classad::compile(&expr).expect("compiles");
                let value = classad::vm::Vm::default().evaluate(&program, &classad::empty_ad());
                classad::vm::print::value_to_string(&value)
            }
            Err(e) => format!("parse error: {e}"),
        }
    })
}

#[test]
fn self_referring_list_through_a_subscript_is_error() {
    assert_eq!(eval("[a = {a[0]}].a[0]"), "error");
    assert_eq!(eval("[a = {a[0] + 1}].a[0]"), "error");
}

#[test]
fn list_containing_itself_stays_bounded() {
    assert_eq!(eval("size([a = {a, a}].a)"), "2");
    assert_eq!(eval("[a = {a}].a"), "{ { a } }");
    // A selection over a list that finds the list again maps it inside
    // itself at the same depth (HTCondor's process overflows its stack):
    // bounded here.
    assert_eq!(eval("[x = {x}; y = x.a].y"), "undefined");
    assert_eq!(eval("[x = {x, x}; y = x.a].y"), "undefined");
}

#[test]
fn long_attribute_chain_is_bounded() {
    // a0 = a1 + 1; a1 = a2 + 1; ... deeper than the depth limit.
    let n = 5000;
    let mut ad = String::from("[");
    for i in 0..n {
        ad.push_str(&format!("a{i} = a{} + 1; ", i + 1));
    }
    ad.push_str(&format!("a{n} = 0].a0"));
    assert_eq!(eval(&ad), "error");
}

#[test]
fn mutual_recursion_through_nested_ads_is_bounded() {
    assert_eq!(eval("[a = [b = parent.a.b]].a.b"), "undefined");
    assert_eq!(eval("[f = [x = {f.x[0]}]].f.x[0]"), "error");
}

#[test]
fn long_logical_chains_compile_in_linear_time() {
    // A compiler that compiled an operand twice (once to see whether it is
    // constant) took 2^n steps on n chained operators: this would not end.
    let chain = (0..60)
        .map(|i| format!("x{i} > {i}"))
        .collect::<Vec<_>>()
        .join(" && ");
    assert_eq!(eval(&chain), "undefined");
    let nested = (0..60).fold("x".to_string(), |acc, i| {
        format!("({acc} ?: {i}) || y{i} ? {i} : z")
    });
    assert_eq!(eval(&nested), "undefined"); // the oracle agrees
    // Found by the `evaluate` fuzz target (it ran out of memory); `4.m` is
    // now a parse error, as in HTCondor, so it is written `4 .m`.
    let found = "R4m5.m.m3.m5o41>.N&&n91>4 .m.m3.m.o41>.N&&n911&&.m3.m.o41>.N&&nR4m5.m.m3.m5o41>.N&&n91>4 .m.m3.m.o41>.N&&n911&&.m3.m.o41>.N&&n911&&G&&n91&&G&&nG&&n91&&G&&n9911&&G&&n91&&G&&nG&&n91&&G&&n9";
    assert_eq!(eval(found), "error");
}

/// A flat chain of 1000 `||` (which HTCondor parses; issue 12) parses,
/// compiles and evaluates on a 2 MiB stack. HTCondor's evaluation fails:
/// the innermost `||` is 1000 operations deep, past its 400 levels, and
/// fails before its operands (so does ours, ERROR at the top).
#[test]
fn chain_of_1000_or_evaluates() {
    let chain = (0..=1000)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(" || ");
    assert_eq!(eval(&chain), "error");
    let chain = (0..=1000)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(" || ")
        + " || true";
    assert_eq!(eval(&chain), "error");
    // Within the limit the chain has its value.
    let chain = (0..=300)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(" || ")
        + " || true";
    assert_eq!(eval(&chain), "true");
}

/// As many brackets and open conditionals as the parser allows at once
/// compile and evaluate on a 2 MiB stack.
#[test]
fn deepest_allowed_input_evaluates() {
    let options = classad::syntax::ParseOptions::default();
    let source = format!(
        "{}{}1{}",
        "[a = ".repeat(options.max_nesting - 1),
        "x ?: ".repeat(options.max_conditionals),
        "]".repeat(options.max_nesting - 1)
    );
    // Deeper than HTCondor's parser goes: parsed without that bound, so
    // that the stack-safety bounds are what is reached.
    let value = eval_unbounded(&source);
    assert!(!value.starts_with("parse error"), "{value}");
    // Every operation is a level of depth in HTCondor's evaluation: deeper
    // than 400 it fails (the oracle: 400 `-` are 1, 401 fail).
    let chain = format!("{}1", "- ".repeat(options.max_depth - 1));
    assert_eq!(eval_unbounded(&chain), "error");
    assert!(
        eval(&chain).starts_with("parse error"),
        "HTCondor's parser bound"
    );
    assert_eq!(eval(&format!("{}1", "- ".repeat(400))), "1");
    assert_eq!(eval(&format!("{}1", "- ".repeat(401))), "error");
}

/// A selection chain far longer than any depth bound (HTCondor's parser
/// reads one in a loop; its evaluation makes a selection reached at the
/// depth limit ERROR, without its base: `isError(x.y.y...)` with 60,000
/// links is true there). Every pass over the tree walks such a chain in a
/// loop: parse, compile, evaluate, unparse, print, clone, compare, drop,
/// the ClassAd API's reference walks, on a 2 MiB stack (known_bugs.txt
/// class 46).
#[test]
fn long_selection_chain_is_no_deeper_than_its_base() {
    let n = 200_000;
    let chain = format!("x{}", ".y".repeat(n));
    let source = format!("isError({chain})");
    assert_eq!(eval(&source), "true");
    let source = format!("[a = {chain}; b = isError(a)].b");
    assert_eq!(eval(&source), "true");
    // Behind another operand too, and with MY at its root.
    let source = format!("isError(1 + ({chain}))");
    assert_eq!(eval(&source), "true");
    let source = format!("isError(MY{})", ".y".repeat(n));
    assert_eq!(eval(&source), "true");
    let text = chain.clone();
    on_small_stack(move || {
        let expr = classad::syntax::parse_expression(&text).expect("parses");
        // (No assert_eq!: a failure would print the whole chain.)
        assert!(classad::syntax::unparse(&expr) == text, "unparse");
        assert!(classad::syntax::unparse_old(&expr) == text, "unparse_old");
        let copy = expr.clone();
        assert!(copy == expr);
        let ad_text = format!("[a = {text}; b = 1]");
        let ad: classad::ClassAd = ad_text.parse().expect("ad parses");
        let printed = ad.to_string();
        assert!(printed.contains(&text), "printed ad keeps the chain");
        assert!(ad.to_old().contains(&text));
        assert!(ad.to_json().contains(&text));
        assert!(ad.to_xml().contains(&text));
        // HTCondor's external references name the whole chain.
        let refs = ad.external_refs("a").expect("refs");
        assert!(refs == vec![text.clone()], "external refs");
        let flat = ad.flatten_expr(&expr);
        assert!(classad::syntax::unparse(&flat) == text, "flatten");
        let copy = ad.clone();
        assert_eq!(copy.evaluate("b"), ad.evaluate("b"));
        assert!(matches!(ad.evaluate("a"), classad::Value::Error));
    });
}
