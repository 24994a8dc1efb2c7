//! Type predicates, list membership and comparison, `size`, and the
//! fallback of `ifThenElse` (spec 003, "Predefined Functions").

use crate::builtin;
use classad_syntax::BinaryOp;
use classad_vm::ops;
use classad_vm::{Arguments, Builtin, CallContext, StopTest, Stops, Value};

/// How `anyCompare` and `allCompare` evaluate their arguments (see
/// `list_compare`).
const LIST_COMPARE_ARGUMENTS: Arguments = Arguments {
    notes_failures: true,
    stops: Stops::Leading(&[StopTest::NotOperator, StopTest::NotList]),
    one_level_deeper: false,
    probes_last: None,
};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        // The type predicates look at the value only: a list's elements
        // are not evaluated (HTCondor's isType does not), so one whose
        // evaluation fails leaves `isList(B)` true (`[A = isList(B); B =
        // {B.b}].A`, seed 978 --wild).
        builtin("isUndefined", 1, 1, true, |_, a| {
            Value::Bool(a[0].is_undefined())
        }),
        builtin("isError", 1, 1, true, |_, a| Value::Bool(a[0].is_error())),
        builtin("isString", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::Str(_)))
        }),
        builtin("isInteger", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::Int(_)))
        }),
        builtin("isReal", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::Real(_)))
        }),
        builtin("isBoolean", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::Bool(_)))
        }),
        builtin("isList", 1, 1, true, |_, a| {
            Value::Bool(matches!(
                a[0],
                Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
            ))
        }),
        builtin("isClassAd", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::Ad(_)))
        }),
        builtin("isAbsTime", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::AbsTime(_)))
        }),
        builtin("isRelTime", 1, 1, true, |_, a| {
            Value::Bool(matches!(a[0], Value::RelTime(_)))
        }),
        // The list is walked element by element, each evaluated as it is
        // reached (see `member`).
        builtin("member", 2, 2, true, |c, a| member(c, &a[0], &a[1], false)),
        builtin("identicalMember", 2, 2, true, |c, a| {
            member(c, &a[0], &a[1], true)
        }),
        // Lists kept as they come: a list an element or the third argument
        // evaluates to keeps its kind (a literal's or a function's), which
        // `is`/`isnt` tell apart (`allCompare("isnt", {split("a")}, {1})`
        // is true in HTCondor).
        // HTCondor's stop at an operator that is no string, then at a list
        // that is no list, never evaluating the rest.
        crate::builtin("anyCompare", 3, 3, true, |c, a| list_compare(c, a, false))
            .with_arguments(LIST_COMPARE_ARGUMENTS),
        crate::builtin("allCompare", 3, 3, true, |c, a| list_compare(c, a, true))
            .with_arguments(LIST_COMPARE_ARGUMENTS),
        // HTCondor counts a list's elements without evaluating them.
        builtin("size", 1, 1, true, size),
        // The compiler compiles the three-argument form inline (its branches
        // are lazy); every other arity is ERROR. This entry is the strict
        // fallback for callers that reach the function directly.
        builtin("ifThenElse", 3, 3, true, if_then_else),
    ]
}

/// `size(x)`: bytes of a string, elements of a list, attributes of an ad.
fn size(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Str(s) => Value::Int(s.len() as i64),
        Value::List(l) | Value::SharedList(l) => Value::Int(l.len() as i64),
        Value::LazyList(l) => Value::Int(l.items.len() as i64),
        Value::Ad(ad) => Value::Int(ad.body.len() as i64),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `member(x, list)` (by `==`) and `identicalMember(x, list)` (by `=?=`).
///
/// Checked in this order: an UNDEFINED list (or, for `member`, an UNDEFINED
/// item) gives UNDEFINED; a list argument that is not a list, or an item
/// that is a list or an ad, gives ERROR; for `member`, an ERROR item gives
/// ERROR. Then the elements are evaluated one by one, as HTCondor walks
/// the list: true as soon as one element compares true (the rest are not
/// evaluated), else false (comparisons that are UNDEFINED or ERROR count
/// as not equal).
fn member(context: &mut CallContext<'_>, item: &Value, list: &Value, identical: bool) -> Value {
    if list.is_undefined() || (!identical && item.is_undefined()) {
        return Value::Undefined;
    }
    if !matches!(
        list,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
    ) {
        return Value::Error;
    }
    if matches!(
        item,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_) | Value::Ad(_)
    ) || (!identical && item.is_error())
    {
        return Value::Error;
    }
    let op = if identical {
        BinaryOp::Is
    } else {
        BinaryOp::Equal
    };
    let item_bytes = item.as_str_bytes().map_or(0, <[u8]>::len);
    let mut i = 0;
    while let Some(element) = context.list_element(list, i, true) {
        i += 1;
        // An element whose evaluation fails fails the call (HTCondor's
        // testMember returns false there).
        let Ok(element) = element else {
            return Value::Error;
        };
        if !charge_comparison(context, &element, item_bytes) {
            return Value::Error;
        }
        if matches!(ops::binary(op, element, item.clone()), Value::Bool(true)) {
            return Value::Bool(true);
        }
    }
    Value::Bool(false)
}

/// One step for comparing a list's element with an item of `item_bytes`
/// bytes, and the bytes a string comparison reads; false past the budget.
fn charge_comparison(context: &mut CallContext<'_>, element: &Value, item_bytes: usize) -> bool {
    let bytes = element
        .as_str_bytes()
        .map_or(0, |s| s.len().min(item_bytes));
    context.charge(1) && context.charge_bytes(bytes)
}

/// `anyCompare(op, list, x)` / `allCompare(op, list, x)`: `element op x`
/// for each element, `op` one of `< <= == != > >= is isnt` (exactly).
///
/// The operator is checked first (UNDEFINED → UNDEFINED, not a string or
/// unknown → ERROR), then the list (UNDEFINED → UNDEFINED, not a list →
/// ERROR). Walking the list, a comparison that is UNDEFINED stops the walk
/// with false (for both functions, as HTCondor does), one that is ERROR
/// (or any other non-boolean) stops it with ERROR; otherwise `anyCompare`
/// is true at the first true and `allCompare` false at the first false.
fn list_compare(context: &mut CallContext<'_>, args: &[Value], all: bool) -> Value {
    // HTCondor evaluates the list only after a valid operator, and the
    // item only after a list (`CallContext::stop_at`).
    let op = match &args[0] {
        Value::Undefined => return context.stop_at(0, Value::Undefined),
        Value::Str(s) => match &**s {
            b"<" => BinaryOp::Less,
            b"<=" => BinaryOp::LessEqual,
            b"==" => BinaryOp::Equal,
            b"!=" => BinaryOp::NotEqual,
            b">" => BinaryOp::Greater,
            b">=" => BinaryOp::GreaterEqual,
            b"is" => BinaryOp::Is,
            b"isnt" => BinaryOp::Isnt,
            _ => return context.stop_at(0, Value::Error),
        },
        _ => return context.stop_at(0, Value::Error),
    };
    if args[1].is_undefined() {
        return context.stop_at(1, Value::Undefined);
    }
    if !matches!(
        args[1],
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
    ) {
        return context.stop_at(1, Value::Error);
    }
    // Each element evaluated as the walk reaches it, as HTCondor does (the
    // walk stops at the first element that decides).
    let item_bytes = args[2].as_str_bytes().map_or(0, <[u8]>::len);
    let mut i = 0;
    while let Some(element) = context.list_element(&args[1], i, false) {
        i += 1;
        let Ok(element) = element else {
            return Value::Error;
        };
        if !charge_comparison(context, &element, item_bytes) {
            return Value::Error;
        }
        match ops::binary(op, element, args[2].clone()) {
            Value::Bool(true) if !all => return Value::Bool(true),
            Value::Bool(false) if all => return Value::Bool(false),
            Value::Bool(_) => {}
            Value::Undefined => return Value::Bool(false),
            _ => return Value::Error,
        }
    }
    Value::Bool(all)
}

/// `ifThenElse(c, a, b)` with its arguments already evaluated: `a` when
/// `c` is true or a non-zero number, `b` when false or zero, UNDEFINED
/// when `c` is UNDEFINED, ERROR for any other condition.
fn if_then_else(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    let condition = match &args[0] {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        Value::Undefined => return Value::Undefined,
        _ => return Value::Error,
    };
    args[if condition { 1 } else { 2 }].clone()
}
