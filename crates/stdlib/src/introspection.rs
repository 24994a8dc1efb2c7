//! Functions that look at expressions rather than values: `eval`,
//! `unparse`, `unresolved`, `debug`, `evalInEachContext`, `countMatches`
//! (spec 003, "Predefined Functions"; HTCondor registers the last two).
//! All take their arguments unevaluated ([`crate::lazy_builtin`]).

use crate::lazy_builtin;
use classad_syntax::{Expr, ExprKind};
use classad_vm::ops::truth;
use classad_vm::{AdRef, Builtin, CallContext, LazyArg, Program, Symbol, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        lazy_builtin("eval", 1, 1, eval),
        lazy_builtin("unparse", 1, 1, unparse),
        lazy_builtin("unresolved", 1, 2, unresolved),
        lazy_builtin("debug", 1, 1, debug),
        lazy_builtin("evalInEachContext", 2, 2, eval_in_each_context),
        lazy_builtin("countMatches", 2, 2, count_matches),
    ]
}

/// Steps charged for each `eval` of a string, besides its bytes.
const EVAL_STEPS: u64 = 2_000;

/// Steps charged for each ad `evalInEachContext` and `countMatches`
/// evaluate in: finding the list and entering the ad cost tens of
/// instructions' worth, and a self-referential call
/// (`[a = countMatches(a, {[], []})].a`) makes 2^depth of them, which ran
/// for seconds within the step budget when only instructions counted.
const CONTEXT_STEPS: u64 = 64;

/// `eval(s)`: `s` parsed as an expression and evaluated where the call
/// is; a value that is not a string is returned as it is; UNDEFINED, ERROR
/// and text that does not parse are ERROR.
fn eval(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let value = context.evaluate_as_written(&args[0].program);
    let text = match value {
        Value::Str(text) => text,
        Value::Undefined | Value::Error => return Value::Error,
        other => return other,
    };
    // Reading and compiling the text: about a thousand instructions' worth
    // plus some per byte (an `eval` of a string that evaluates itself
    // twice would otherwise parse for ever within the step budget).
    if !context.charge(EVAL_STEPS + 32 * text.len() as u64) {
        return Value::Error;
    }
    let Ok(expr) = classad_syntax::parse_expression(&String::from_utf8_lossy(&text)) else {
        return Value::Error;
    };
    let registry = crate::shared_registry();
    match classad_compiler::Compiler::new(&registry).compile(&expr) {
        Ok(program) => context.evaluate_as_written(&program),
        Err(_) => Value::Error,
    }
}

/// The source of the attribute an argument refers to: `name` through the
/// scope chain, `base.name` in the ad `base` evaluates to. `Err(())` when
/// the argument is not an attribute reference (which is ERROR).
fn referenced_source(
    context: &mut CallContext<'_>,
    arg: &LazyArg,
) -> Result<Option<Arc<Expr>>, ()> {
    match &arg.source.kind {
        ExprKind::Attribute(name) => Ok(context.attribute_source(name.as_str())),
        ExprKind::Select { base, name } => {
            let registry = crate::shared_registry();
            let Ok(program) = classad_compiler::Compiler::new(&registry).compile(base) else {
                return Ok(None);
            };
            match context.evaluate(&program) {
                Value::Ad(ad) => {
                    let mut current = Some(&ad);
                    while let Some(scope) = current {
                        if let Some(attribute) = scope.body.get(name.as_str()) {
                            return Ok(Some(attribute.source.clone()));
                        }
                        current = scope.parent.as_ref();
                    }
                    Ok(None)
                }
                _ => Ok(None),
            }
        }
        _ => Err(()),
    }
}

/// `unparse(attr)`: as HTCondor does it, the reference itself is written
/// out (`a`, `b.c`, `.d`) and that text is looked up as a name in the ad
/// the call is evaluated in (not the ads around it): the expression of the
/// attribute so named, as HTCondor's pretty unparser writes it, or `""`.
/// So `[a = 1 + 2; b = unparse(a)].b` is `"1 + 2"` but
/// `unparse([a = 1 + 2].a)` is `""`. An argument that is not a reference
/// is ERROR.
fn unparse(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    match &args[0].source.kind {
        ExprKind::Attribute(_) | ExprKind::RootAttribute(_) | ExprKind::Select { .. } => {
            let name = classad_syntax::unparse::unparse_htcondor(&args[0].source);
            match context.scope.body.get(&name) {
                Some(attribute) => {
                    Value::string(crate::convert::htcondor_text(&attribute.source, true))
                }
                None => Value::string(""),
            }
        }
        _ => Value::Error,
    }
}

/// `unresolved(attr)`: the attributes the expression of `attr` refers to
/// that are not defined, comma-separated: unscoped and `MY.` names first,
/// then `TARGET.` names, each group sorted as HTCondor's `std::set` sorts.
///
/// `unresolved(attr, pattern)`: whether any of those names matches the
/// regular expression `pattern`.
fn unresolved(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let pattern = match args.get(1).map(|arg| context.evaluate(&arg.program)) {
        None => None,
        Some(Value::Str(pattern)) => Some(pattern),
        Some(Value::Undefined) => return Value::Undefined,
        Some(_) => return Value::Error,
    };
    let source = match referenced_source(context, &args[0]) {
        Ok(Some(source)) => source,
        Ok(None) => return Value::string(""),
        Err(()) => return Value::Error,
    };
    let mut own = BTreeSet::new();
    let mut target = BTreeSet::new();
    collect_references(&source, &mut own, &mut target);
    let own: Vec<&String> = own
        .iter()
        .filter(|name| context.attribute_source(name).is_none())
        .collect();
    let names: Vec<&str> = own
        .into_iter()
        .chain(target.iter())
        .map(String::as_str)
        .collect();
    match pattern {
        None => Value::string(names.join(",")),
        Some(pattern) => {
            let mut any = false;
            for name in names {
                match crate::regex::matches_anywhere(context, &pattern, name.as_bytes()) {
                    Some(true) => any = true,
                    Some(false) => {}
                    None => return Value::Error,
                }
            }
            Value::Bool(any)
        }
    }
}

fn collect_references(expr: &Expr, own: &mut BTreeSet<String>, target: &mut BTreeSet<String>) {
    match &expr.kind {
        ExprKind::Attribute(name) => {
            own.insert(name.as_str().to_string());
        }
        ExprKind::Select { base, name } => match &base.kind {
            ExprKind::Attribute(b) if b.eq_ignore_case("target") => {
                target.insert(name.as_str().to_string());
            }
            ExprKind::Attribute(b) if b.eq_ignore_case("my") => {
                own.insert(name.as_str().to_string());
            }
            _ => collect_references(base, own, target),
        },
        _ => expr.for_each_child(|child| collect_references(child, own, target)),
    }
}

/// `debug(expr)`: the value of `expr`; with `CLASSAD_DEBUG` set in the
/// environment, the expression and its value are written to stderr.
fn debug(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let value = context.evaluate(&args[0].program);
    if std::env::var_os("CLASSAD_DEBUG").is_some() {
        eprintln!(
            "debug: {} => {}",
            classad_syntax::unparse(&args[0].source),
            classad_vm::print::value_to_string(&value)
        );
    }
    value
}

/// What HTCondor's `AttributeReference::Deref` finds for the first
/// argument of `evalInEachContext` and `countMatches`.
enum Found {
    /// An attribute's definition and the ad it is written in: its
    /// expression is evaluated in each ad.
    Definition(Arc<Program>, AdRef),
    /// A value (an ad for `self`, `parent`, `root`; a list for a selection
    /// over a list): the same in each ad.
    Value(Value),
    /// Nothing: the argument itself is evaluated in each ad.
    Nothing,
}

/// `name` looked up as HTCondor's `ClassAd::LookupInScope` does from
/// `start`: each ad outward, the special names taken at the first ad that
/// lacks the name. Returns what was found and the ad the lookup ended in,
/// which HTCondor leaves as the current ad of the caller's evaluation.
fn lookup_in_scope(start: &AdRef, name: &str, root: &AdRef) -> (Found, AdRef) {
    let symbol = Symbol::transient(name);
    let mut current = start.clone();
    loop {
        if let Some(slot) = current.body.slot(&symbol) {
            let program = current.body.attribute(slot).program.clone();
            return (Found::Definition(program, current.clone()), current);
        }
        let parent = if Arc::ptr_eq(&current, root) {
            None
        } else {
            current.parent.clone()
        };
        let special = match symbol.as_str() {
            "self" | "my" => Some(Some(Value::Ad(current.clone()))),
            "parent" => Some(parent.clone().map(Value::Ad)),
            "root" | "toplevel" => Some(Some(Value::Ad(root.clone()))),
            _ => None,
        };
        match (special, parent) {
            (Some(Some(value)), _) => return (Found::Value(value), current),
            (Some(None), _) | (None, None) => return (Found::Nothing, current),
            (None, Some(parent)) => current = parent,
        }
    }
}

/// HTCondor's dereference of an attribute reference (`name`, `.name`,
/// `base.name`), and the ad its lookup leaves current.
fn dereference(context: &mut CallContext<'_>, source: &Expr) -> (Found, AdRef) {
    let here = context.scope.clone();
    let root = here.root();
    match &source.kind {
        ExprKind::Attribute(name) => {
            let (found, current) = lookup_in_scope(&here, name.as_str(), &root);
            match (found, context.target().cloned()) {
                (Found::Nothing, Some(target)) => {
                    let target_root = target.root();
                    lookup_in_scope(&target, name.as_str(), &target_root)
                }
                (found, _) => (found, current),
            }
        }
        ExprKind::RootAttribute(name) => lookup_in_scope(&root, name.as_str(), &root),
        ExprKind::Select { base, name } => {
            let registry = crate::shared_registry();
            let Ok(program) = classad_compiler::Compiler::new(&registry).compile(base) else {
                return (Found::Nothing, here);
            };
            match context.evaluate_as_written(&program) {
                Value::Ad(ad) => lookup_in_scope(&ad, name.as_str(), &root),
                Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
                    let Ok(program) = classad_compiler::Compiler::new(&registry).compile(source)
                    else {
                        return (Found::Nothing, here);
                    };
                    (Found::Value(context.evaluate(&program)), here)
                }
                _ => (Found::Nothing, here),
            }
        }
        _ => (Found::Nothing, here),
    }
}

/// The elements of the second argument of `evalInEachContext` and
/// `countMatches`, each evaluated with `current` as the ad lookups start
/// from, or the value to return instead (`Err(None)` for UNDEFINED).
fn ad_list(
    context: &mut CallContext<'_>,
    arg: &LazyArg,
    current: &AdRef,
) -> Result<Vec<Value>, Option<Value>> {
    // A list literal's elements are evaluated one by one (ad literals keep
    // the ad they were written in); anything else is evaluated first.
    let scope = context.scope.clone();
    let list = if matches!(arg.source.kind, ExprKind::List(_)) {
        context.evaluate_argument_in(&arg.program, &scope)
    } else {
        context.evaluate_argument_in(&arg.program, current)
    };
    match list {
        Value::Undefined => Err(None),
        list => context
            .list_elements_in(&list, current)
            .ok_or(Some(Value::Error)),
    }
}

/// `expr` (what [`dereference`] found for it) evaluated in `ad`.
fn evaluate_in_ad(
    context: &mut CallContext<'_>,
    found: &Found,
    arg: &LazyArg,
    item: &Value,
) -> Value {
    let ad = match item {
        Value::Ad(ad) => ad,
        Value::Undefined => return Value::Undefined,
        _ => return Value::Error,
    };
    if !context.charge(CONTEXT_STEPS) {
        return Value::Error;
    }
    match found {
        Found::Definition(program, written_in) => {
            context.evaluate_in_context(program, ad, written_in)
        }
        Found::Value(value) => value.clone(),
        Found::Nothing => {
            let written_in = context.scope.clone();
            context.evaluate_in_context(&arg.program, ad, &written_in)
        }
    }
}

/// `evalInEachContext(expr, ads)`: `expr` evaluated in each ad of the
/// list; an element that is not an ad gives ERROR in its place (UNDEFINED
/// for an UNDEFINED one). When `expr` is a reference to an attribute, the
/// attribute's expression is what is evaluated in each ad, as HTCondor
/// does (`[t = P > 2; l = {[P = 1], [P = 5]}; r = evalInEachContext(t, l)].r`
/// is `{ false, true }`). HTCondor's lookup of that attribute leaves its
/// evaluation in the ad where the lookup ended, and the list is found from
/// there.
fn eval_in_each_context(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let (found, current) = dereference(context, &args[0].source);
    let items = match ad_list(context, &args[1], &current) {
        Ok(items) => items,
        Err(value) => return value.unwrap_or(Value::Undefined),
    };
    // HTCondor stores each value as a literal: a relative time becomes its
    // whole seconds, a real (`evalInEachContext(relTime(90.7), {[a = 1]})`
    // is `{ 90.0 }`).
    let values: Vec<Value> = items
        .iter()
        .map(|item| {
            classad_vm::interp::selected_literal(evaluate_in_ad(context, &found, &args[0], item))
        })
        .collect();
    Value::SharedList(values.into())
}

/// `countMatches(expr, ads)`: how many ads of the list `expr` is true in
/// (an UNDEFINED list has none), `expr` dereferenced as in
/// [`eval_in_each_context`].
fn count_matches(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let (found, current) = dereference(context, &args[0].source);
    let items = match ad_list(context, &args[1], &current) {
        Ok(items) => items,
        Err(value) => return value.unwrap_or(Value::Int(0)),
    };
    let mut count = 0;
    for item in &items {
        if matches!(item, Value::Ad(_))
            && truth(&evaluate_in_ad(context, &found, &args[0], item)) == Some(true)
        {
            count += 1;
        }
    }
    Value::Int(count)
}
