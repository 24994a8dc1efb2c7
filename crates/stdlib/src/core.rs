//! Type predicates, conversions, and the basic string and list functions
//! (spec 003, "Predefined Functions").

use crate::builtin;
use classad_vm::ops;
use classad_vm::{Builtin, CallContext, Value};
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
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
            Value::Bool(matches!(a[0], Value::List(_)))
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
        builtin("strcat", 0, u16::MAX, true, strcat),
        builtin("size", 1, 1, true, size),
        builtin("toUpper", 1, 1, true, |_, a| {
            map_string(&a[0], |s| s.to_ascii_uppercase())
        }),
        builtin("toLower", 1, 1, true, |_, a| {
            map_string(&a[0], |s| s.to_ascii_lowercase())
        }),
        builtin("member", 2, 2, true, |_, a| member(&a[0], &a[1], false)),
        builtin("identicalMember", 2, 2, true, |_, a| {
            member(&a[0], &a[1], true)
        }),
        builtin("real", 1, 1, true, to_real),
    ]
}

/// The text of a scalar as `strcat` and `string` write it.
fn scalar_text(value: &Value) -> Option<Vec<u8>> {
    Some(match value {
        Value::Str(s) => s.to_vec(),
        Value::Undefined | Value::Error | Value::List(_) | Value::Ad(_) => return None,
        other => classad_vm::print::value_to_string(other).into_bytes(),
    })
}

fn strcat(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    let mut out = Vec::new();
    for arg in args {
        match arg {
            Value::Error => return Value::Error,
            Value::Undefined => return Value::Undefined,
            _ => match scalar_text(arg) {
                Some(text) => out.extend_from_slice(&text),
                None => return Value::Error,
            },
        }
    }
    Value::Str(Arc::from(out))
}

fn size(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Str(s) => Value::Int(s.len() as i64),
        Value::List(l) => Value::Int(l.len() as i64),
        Value::Ad(ad) => Value::Int(ad.body.len() as i64),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

fn map_string(value: &Value, f: fn(&[u8]) -> Vec<u8>) -> Value {
    match value {
        Value::Str(s) => Value::Str(Arc::from(f(s))),
        Value::Undefined => Value::Undefined,
        Value::Error | Value::List(_) | Value::Ad(_) => Value::Error,
        other => match scalar_text(other) {
            Some(text) => Value::Str(Arc::from(f(&text))),
            None => Value::Error,
        },
    }
}

fn member(item: &Value, list: &Value, identical: bool) -> Value {
    let Value::List(items) = list else {
        return if list.is_undefined() {
            Value::Undefined
        } else {
            Value::Error
        };
    };
    if item.is_undefined() && !identical {
        return Value::Undefined;
    }
    if matches!(item, Value::Error | Value::List(_) | Value::Ad(_)) {
        return Value::Error;
    }
    for element in items.iter() {
        let equal = if identical {
            ops::identical(item, element)
        } else {
            ops::binary(
                classad_syntax::BinaryOp::Equal,
                item.clone(),
                element.clone(),
            )
        };
        if let Value::Bool(true) = equal {
            return Value::Bool(true);
        }
    }
    Value::Bool(false)
}

fn to_real(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Int(i) => Value::Real(*i as f64),
        Value::Real(r) => Value::Real(*r),
        Value::Bool(b) => Value::Real(f64::from(u8::from(*b))),
        Value::RelTime(r) => Value::Real(*r),
        Value::AbsTime(t) => Value::Real(t.secs as f64),
        Value::Str(s) => {
            let text = String::from_utf8_lossy(s);
            let text = text.trim();
            match text.to_ascii_lowercase().as_str() {
                "inf" | "+inf" | "infinity" => Value::Real(f64::INFINITY),
                "-inf" | "-infinity" => Value::Real(f64::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Value::Real(f64::NAN),
                _ => text.parse::<f64>().map_or(Value::Error, Value::Real),
            }
        }
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}
