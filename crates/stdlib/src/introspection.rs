//! Functions that look at expressions rather than values: `eval`,
//! `unparse`, `unresolved`, `debug`, `evalInEachContext`, `countMatches`
//! (spec 003, "Predefined Functions"; HTCondor registers the last two).
//! All take their arguments unevaluated ([`crate::lazy_builtin`]).

use crate::lazy_builtin;
use classad_syntax::{Expr, ExprKind};
use classad_vm::ops::truth;
use classad_vm::{Builtin, CallContext, LazyArg, Value};
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

/// `eval(s)`: `s` parsed as an expression and evaluated where the call
/// is; a value that is not a string is returned as it is; UNDEFINED, ERROR
/// and text that does not parse are ERROR.
fn eval(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let value = context.evaluate(&args[0].program);
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
        Ok(program) => context.evaluate(&program),
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

/// `unparse(attr)`: the expression of the attribute, as HTCondor's
/// (pretty) unparser writes it; `""` when there is no such attribute.
fn unparse(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    match referenced_source(context, &args[0]) {
        Ok(Some(source)) => Value::string(classad_syntax::unparse_pretty(&source)),
        Ok(None) => Value::string(""),
        Err(()) => Value::Error,
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

/// The ads of the second argument, or the value to return instead.
fn ad_list(context: &mut CallContext<'_>, arg: &LazyArg) -> Result<Arc<[Value]>, Value> {
    match context.evaluate(&arg.program) {
        Value::List(items) => Ok(items),
        Value::Undefined => Err(Value::Undefined),
        _ => Err(Value::Error),
    }
}

/// `evalInEachContext(expr, ads)`: `expr` evaluated in each ad of the
/// list; an element that is not an ad gives ERROR in its place.
fn eval_in_each_context(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let items = match ad_list(context, &args[1]) {
        Ok(items) => items,
        Err(value) => return value,
    };
    let values: Vec<Value> = items
        .iter()
        .map(|item| match item {
            Value::Ad(ad) => context.evaluate_in(&args[0].program, ad),
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        })
        .collect();
    Value::List(values.into())
}

/// `countMatches(expr, ads)`: how many ads of the list `expr` is true in
/// (an UNDEFINED list has none).
fn count_matches(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let items = match ad_list(context, &args[1]) {
        Ok(items) => items,
        Err(Value::Undefined) => return Value::Int(0),
        Err(value) => return value,
    };
    let mut count = 0;
    for item in items.iter() {
        if let Value::Ad(ad) = item
            && truth(&context.evaluate_in(&args[0].program, ad)) == Some(true)
        {
            count += 1;
        }
    }
    Value::Int(count)
}
