//! `absTime` and `relTime` (spec 003, "Predefined Functions": time).

use crate::builtin;
use classad_vm::print::{parse_abs_time, parse_rel_time};
use classad_vm::{AbsTime, Builtin, CallContext, Value};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("absTime", 0, 2, false, abs_time),
        builtin("relTime", 0, 1, true, rel_time),
    ]
}

/// `absTime()`: now; `absTime(seconds [, offset])`; `absTime("ISO 8601")`.
fn abs_time(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let offset = match args.get(1) {
        None => 0,
        Some(Value::Int(o)) => i32::try_from(*o).unwrap_or(0),
        Some(Value::Undefined) => return Value::Undefined,
        Some(_) => return Value::Error,
    };
    match args.first() {
        None => Value::AbsTime(AbsTime {
            secs: context.now() as i64,
            offset: 0,
        }),
        Some(Value::Int(secs)) => Value::AbsTime(AbsTime {
            secs: *secs,
            offset,
        }),
        Some(Value::Real(secs)) => Value::AbsTime(AbsTime {
            secs: *secs as i64,
            offset,
        }),
        Some(Value::AbsTime(t)) => Value::AbsTime(*t),
        Some(Value::Str(text)) => {
            parse_abs_time(&String::from_utf8_lossy(text)).map_or(Value::Error, Value::AbsTime)
        }
        Some(Value::Undefined) => Value::Undefined,
        Some(_) => Value::Error,
    }
}

/// `relTime(seconds)` or `relTime("[-][D+][HH:][MM:]SS[.fff]")`.
fn rel_time(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match args.first() {
        None => Value::RelTime(0.0),
        Some(Value::Int(i)) => Value::RelTime(*i as f64),
        Some(Value::Real(r)) => Value::RelTime(*r),
        Some(Value::RelTime(r)) => Value::RelTime(*r),
        Some(Value::Str(text)) => {
            parse_rel_time(&String::from_utf8_lossy(text)).map_or(Value::Error, Value::RelTime)
        }
        Some(Value::Undefined) => Value::Undefined,
        Some(_) => Value::Error,
    }
}
