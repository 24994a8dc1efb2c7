//! A pool's compile cache (`CompileCache::for_pool`): ads that define a
//! name to the same expression share one definition, ads with the same
//! names share one layout, and sharing never changes a value.

use classad::compiler::CompileCache;
use classad::syntax::{Expr, ExprKind, Literal, Name, parse_ad};
use classad::vm::Symbol;
use classad::{AdRef, Value, Vm};
use std::sync::Arc;

fn compile(cache: &CompileCache, text: &str) -> AdRef {
    classad::ad_from_ast_cached(cache, &parse_ad(text).expect("parses")).expect("compiles")
}

fn value(ad: &AdRef, name: &str) -> Value {
    Vm::default().evaluate_attribute(ad, &Symbol::new(name), None)
}

fn shared(x: &AdRef, y: &AdRef, name: &str) -> bool {
    let symbol = Symbol::new(name);
    let (i, j) = (x.body.slot(&symbol).unwrap(), y.body.slot(&symbol).unwrap());
    Arc::ptr_eq(
        &x.body.attributes()[i as usize],
        &y.body.attributes()[j as usize],
    )
}

#[test]
fn ads_share_repeated_definitions_and_layouts() {
    let cache = CompileCache::for_pool();
    let x = compile(&cache, r#"[a = 1; b = a + 1; n = "x"; r = 2.5]"#);
    let y = compile(&cache, r#"[a = 1; b = a + 1; n = "y"; r = 2.5]"#);
    assert!(shared(&x, &y, "a"));
    assert!(shared(&x, &y, "b"));
    assert!(shared(&x, &y, "r"));
    assert!(!shared(&x, &y, "n"));
    assert!(Arc::ptr_eq(x.body.layout(), y.body.layout()));
    assert!(matches!(value(&y, "b"), Value::Int(2)));
    assert!(matches!(value(&y, "n"), Value::Str(s) if &*s == b"y"));
    // a, b and r once, n twice.
    assert_eq!(cache.definitions(), 5);
}

#[test]
fn definitions_that_read_their_ad_are_shared_only_within_a_layout() {
    let cache = CompileCache::for_pool();
    let x = compile(&cache, "[a = 1; b = a + 1]");
    let y = compile(&cache, "[b = a + 1; a = 5]");
    assert!(!shared(&x, &y, "b"));
    assert!(matches!(value(&x, "b"), Value::Int(2)));
    assert!(matches!(value(&y, "b"), Value::Int(6)));
}

#[test]
fn names_and_literals_are_shared_only_when_identical() {
    let cache = CompileCache::for_pool();
    let x = compile(&cache, "[A = 1; z = 0.0; s = \"a\"]");
    let y = compile(&cache, "[a = 1; z = -0.0; s = \"A\"]");
    assert!(!shared(&x, &y, "a"));
    assert!(!shared(&x, &y, "z"));
    assert!(!shared(&x, &y, "s"));
    assert_eq!(x.body.attributes()[0].name.to_str().unwrap(), "A");
    assert_eq!(y.body.attributes()[0].name.to_str().unwrap(), "a");
    assert!(matches!(value(&y, "z"), Value::Real(r) if r.is_sign_negative()));
    assert!(matches!(value(&x, "z"), Value::Real(r) if r.is_sign_positive()));
}

#[test]
fn threads_share_one_cache() {
    let cache = CompileCache::for_pool();
    let text = "[Requirements = TARGET.Memory > 1024 && Cpus >= 1; Cpus = 4]";
    let (x, y) = std::thread::scope(|scope| {
        let x = scope.spawn(|| compile(&cache, text));
        let y = scope.spawn(|| compile(&cache, text));
        (x.join().unwrap(), y.join().unwrap())
    });
    assert!(shared(&x, &y, "Requirements"));
    assert!(shared(&x, &y, "Cpus"));
}

#[test]
fn a_name_given_twice_keeps_the_last_definition_in_the_first_place() {
    // An AdExpr changed by hand can hold a name twice; the compiler then
    // builds the body one definition at a time.
    let mut ad = parse_ad("[x = 1; y = 2]").unwrap();
    ad.attributes.push((
        Name::new("X"),
        Expr::new(ExprKind::Literal(Literal::Integer(3))),
    ));
    let cache = CompileCache::for_pool();
    let compiled = classad::ad_from_ast_cached(&cache, &ad).unwrap();
    assert_eq!(compiled.body.len(), 2);
    assert!(matches!(value(&compiled, "x"), Value::Int(3)));
    assert_eq!(compiled.body.attributes()[0].name.to_str().unwrap(), "X");
}

#[test]
fn a_new_name_in_a_copy_leaves_the_shared_layout_alone() {
    let cache = CompileCache::for_pool();
    let x = compile(&cache, "[a = 1; b = 2]");
    let y = compile(&cache, "[a = 1; b = 2]");
    let mut body = (*y.body).clone();
    let extra = classad::compile(&Expr::new(ExprKind::Literal(Literal::Integer(7)))).unwrap();
    body.insert(classad::vm::Attribute {
        name: Name::new("c"),
        source: Arc::new(Expr::new(ExprKind::Literal(Literal::Integer(7)))),
        program: Arc::new(extra),
    });
    assert_eq!(body.len(), 3);
    assert_eq!(x.body.len(), 2);
    assert_eq!(x.body.layout().len(), 2);
    assert!(x.body.slot(&Symbol::new("c")).is_none());
    assert_eq!(body.slot(&Symbol::new("c")), Some(2));
}

#[test]
fn a_literal_made_from_its_value_is_the_literal_as_parsed() {
    // Literal definitions keep only their value; the tree and program made
    // from it on demand must be those the parser and compiler give.
    let text = r#"[a = 1; b = -2.5; c = "x\"y\\z"; d = TRUE; e = undefined; f = error; g = 1e300; h = -0.0; i = "\377"]"#;
    let parsed = parse_ad(text).unwrap();
    for ad in [
        compile(&CompileCache::for_pool(), text),
        classad::ad_from_ast(&parsed).unwrap(),
    ] {
        for (definition, (name, expr)) in ad.body.attributes().iter().zip(&parsed.attributes) {
            assert_eq!(definition.name().to_str().unwrap(), name.to_str().unwrap());
            assert!(definition.constant().is_some(), "{name:?}");
            assert_eq!(*definition.source, *expr, "{name:?}");
            assert_eq!(
                classad::syntax::unparse(&definition.source),
                classad::syntax::unparse(expr)
            );
            let expected = classad::compile(expr).unwrap();
            assert_eq!(
                definition.program.disassemble_all(),
                expected.disassemble_all(),
                "{name:?}"
            );
        }
    }
}

/// Regression: `false` and `1` hashed alike (the hasher widens a byte and
/// an integer to the same word), so once `b = false` held the entry, every
/// ad defining `b = 1` got a definition of its own.
#[test]
fn literals_of_different_kinds_do_not_share_an_entry() {
    let cache = CompileCache::for_pool();
    let _ = compile(&cache, "[b = false]");
    let x = compile(&cache, "[b = 1]");
    let y = compile(&cache, "[b = 1]");
    assert!(shared(&x, &y, "b"));
    let parse = |text: &str| classad::syntax::parse_expression(text).unwrap();
    let kinds = [
        "false",
        "true",
        "1",
        "0",
        "1.0",
        "\"\"",
        "undefined",
        "error",
    ];
    for a in kinds {
        for b in kinds {
            let (ha, hb) = (
                classad::compiler::expression_hash(&parse(a)),
                classad::compiler::expression_hash(&parse(b)),
            );
            assert_eq!(a == b, ha == hb, "{a} and {b}");
        }
    }
}

/// Ads of different layouts share a definition whose names have the same
/// slots in both (its program is the same), and only those.
#[test]
fn definitions_are_shared_between_layouts_that_give_their_names_the_same_slots() {
    let cache = CompileCache::for_pool();
    // `a` in slot 0 in both; `z` only in y, after it.
    let x = compile(&cache, "[a = 1; b = a + 1; c = TARGET.d > 2]");
    let y = compile(&cache, "[a = 5; b = a + 1; c = TARGET.d > 2; z = 0]");
    assert!(!Arc::ptr_eq(x.body.layout(), y.body.layout()));
    assert!(shared(&x, &y, "b"));
    assert!(shared(&x, &y, "c"));
    assert!(matches!(value(&x, "b"), Value::Int(2)));
    assert!(matches!(value(&y, "b"), Value::Int(6)));
    // `a` in slot 1: a program of its own.
    let w = compile(&cache, "[z = 0; a = 7; b = a + 1]");
    assert!(!shared(&x, &w, "b"));
    assert!(matches!(value(&w, "b"), Value::Int(8)));
    // A name that one layout has and the other does not (read by name
    // at run time in one, by slot in the other): not shared.
    let u = compile(&cache, "[b = a + 1]");
    let v = compile(&cache, "[b = a + 1; q = 1]");
    assert!(shared(&u, &v, "b"));
    assert!(!shared(&u, &x, "b"));
    assert!(matches!(value(&u, "b"), Value::Undefined));
    // The names inside a list and a nested ad count too.
    let l1 = compile(&cache, "[a = 1; l = {a, 2 * a}; n = [p = a]]");
    let l2 = compile(&cache, "[a = 3; l = {a, 2 * a}; n = [p = a]; z = 1]");
    let l3 = compile(&cache, "[z = 1; a = 4; l = {a, 2 * a}; n = [p = a]]");
    assert!(shared(&l1, &l2, "l"));
    assert!(!shared(&l1, &l3, "l"));
    let list = |ad: &AdRef| match value(ad, "l") {
        Value::List(items) => items.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(list(&l2), ["3", "6"]);
    assert_eq!(list(&l3), ["4", "8"]);
    // One definition by slots for b in x and y, one in w, one in u and v.
    let programs = |ads: &[&AdRef], name: &str| {
        let mut seen: Vec<*const _> = ads
            .iter()
            .map(|ad| {
                Arc::as_ptr(
                    &ad.body.attributes()[ad.body.slot(&Symbol::new(name)).unwrap() as usize],
                )
            })
            .collect();
        seen.sort();
        seen.dedup();
        seen.len()
    };
    assert_eq!(programs(&[&x, &y, &w, &u, &v], "b"), 3);
}

/// Regression for the table of literal definitions, which keeps only the
/// pointers and hashes a definition again from its value when it grows:
/// that hash must be the one the literal was looked up by, or a literal
/// kept before the table grew is not found after.
#[test]
fn literals_are_found_after_the_table_grows() {
    let cache = CompileCache::for_pool();
    let text = |i: usize| {
        format!(
            r#"[i = {i}; r = {i}.5; s = "v{i}"; t = {}; u = undefined; e = error]"#,
            i.is_multiple_of(2)
        )
    };
    let first: Vec<AdRef> = (0..3000).map(|i| compile(&cache, &text(i))).collect();
    for (i, x) in first.iter().enumerate() {
        let y = compile(&cache, &text(i));
        for name in ["i", "r", "s", "t", "u", "e"] {
            assert!(shared(x, &y, name), "{name} of ad {i}");
        }
    }
    // 3,000 each of i, r and s, two of t, one each of u and e.
    assert_eq!(cache.definitions(), 3 * 3000 + 2 + 2);
}

/// A cache made at the size of a text shares as one grown to it does.
#[test]
fn a_cache_made_for_a_text_size_shares_as_one_that_grows() {
    for cache in [
        CompileCache::for_pool_of(0),
        CompileCache::for_pool_of(10 << 20),
    ] {
        let x = compile(&cache, r#"[a = 1; b = a + 1; n = "x"; r = 2.5]"#);
        let y = compile(&cache, r#"[a = 1; b = a + 1; n = "y"; r = 2.5]"#);
        assert!(shared(&x, &y, "a"));
        assert!(shared(&x, &y, "b"));
        assert!(!shared(&x, &y, "n"));
        assert_eq!(cache.definitions(), 5);
    }
}
