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
    assert_eq!(x.body.attributes()[0].name.as_str(), "A");
    assert_eq!(y.body.attributes()[0].name.as_str(), "a");
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
    assert_eq!(compiled.body.attributes()[0].name.as_str(), "X");
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
            assert_eq!(definition.name().as_str(), name.as_str());
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
