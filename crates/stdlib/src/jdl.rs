//! The JDL dialect's functions (spec 004, "Function Calls": "Time
//! Construction", "Time Conversion", "List Membership") that HTCondor does
//! not have: `MakeDate`, `MakeAbsTime`, `MakeRelTime`, `InDays`,
//! `InHours`, `InMinutes`, `InSeconds`, `IsMember`.
//!
//! They are opt-in: [`jdl_registry`] is the standard registry plus these;
//! the default registry never has them (spec README: behaviour only the
//! 2001 JDL document describes is an explicit dialect, never silent).

use crate::builtin;
use crate::time::{local_abs_time, now_secs, zone};
use classad_syntax::BinaryOp;
use classad_vm::print::{civil_from_days, days_from_civil};
use classad_vm::{AbsTime, Builtin, CallContext, Registry, Value, ops};

/// The JDL functions, to add to a registry.
pub fn jdl_builtins() -> Vec<Builtin> {
    vec![
        builtin("MakeDate", 2, 3, false, make_date),
        builtin("MakeAbsTime", 1, 1, false, make_abs_time),
        builtin("MakeRelTime", 1, 1, true, make_rel_time),
        builtin("InDays", 1, 1, true, |_, a| in_units(&a[0], 86_400.0)),
        builtin("InHours", 1, 1, true, |_, a| in_units(&a[0], 3600.0)),
        builtin("InMinutes", 1, 1, true, |_, a| in_units(&a[0], 60.0)),
        builtin("InSeconds", 1, 1, true, |_, a| in_units(&a[0], 1.0)),
        builtin("IsMember", 2, 2, true, is_member),
    ]
}

/// The standard registry plus the JDL functions.
pub fn jdl_registry() -> Registry {
    let mut registry = crate::standard_registry();
    for builtin in jdl_builtins() {
        // The JDL names are not in the standard registry (checked by a test).
        registry.replace(builtin);
    }
    registry
}

const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A month from a number 1..=12 or a name, full or its first three
/// letters, in any case (as `strptime`'s `%b`).
fn month_of(value: &Value) -> Option<i64> {
    match value {
        Value::Int(m) if (1..=12).contains(m) => Some(*m),
        Value::Str(name) => {
            let name = String::from_utf8_lossy(name).trim().to_ascii_lowercase();
            MONTH_NAMES
                .iter()
                .position(|full| name.len() >= 3 && (**full == name || name == full[..3]))
                .map(|i| i as i64 + 1)
        }
        _ => None,
    }
}

fn days_in_month(year: i64, month: i64) -> i64 {
    let next = if month == 12 {
        days_from_civil(year + 1, 1, 1)
    } else {
        days_from_civil(year, month as u32 + 1, 1)
    };
    next - days_from_civil(year, month as u32, 1)
}

/// `MakeDate(month, day [, year])`: local midnight of that day as an
/// absolute time. `month` is 1..=12 or a name (`"jan"`, `"January"`);
/// the year defaults to the current local year. UNDEFINED arguments give
/// UNDEFINED; a day that is not in the month, or other types, ERROR.
fn make_date(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if args.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    let year = match args.get(2) {
        Some(Value::Int(y)) => *y,
        Some(_) => return Value::Error,
        None => {
            let now = local_abs_time(now_secs(context));
            civil_from_days(
                now.secs
                    .saturating_add(i64::from(now.offset))
                    .div_euclid(86_400),
            )
            .0
        }
    };
    let (Some(month), Value::Int(day)) = (month_of(&args[0]), &args[1]) else {
        return Value::Error;
    };
    // Years past ±1e11 would overflow seconds.
    if !(-100_000_000_000..=100_000_000_000).contains(&year)
        || !(1..=days_in_month(year, month)).contains(day)
    {
        return Value::Error;
    }
    let local = (days_from_civil(year, month as u32, *day as u32)) * 86_400;
    // Local midnight: the offset in force then (found from the standard
    // offset, then refined once across a change).
    let zone = zone::local();
    let guess = local - i64::from(zone.standard_offset());
    let offset = zone.offset_at(local - i64::from(zone.offset_at(guess)));
    Value::AbsTime(AbsTime {
        secs: local - i64::from(offset),
        offset,
    })
}

/// `MakeAbsTime(n)`: `n` seconds past the epoch (an integer, or a real
/// truncated), in the local zone.
fn make_abs_time(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Int(secs) => Value::AbsTime(local_abs_time(*secs)),
        Value::Real(secs) if secs.is_finite() => Value::AbsTime(local_abs_time(*secs as i64)),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `MakeRelTime(n)`: an interval of `n` seconds (a real keeps its
/// fraction).
fn make_rel_time(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Int(secs) => Value::RelTime(*secs as f64),
        Value::Real(secs) => Value::RelTime(*secs),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `InDays(t)` ... `InSeconds(t)`: a time in those units, as a real. An
/// absolute time counts from the epoch; a relative time is its seconds.
fn in_units(value: &Value, unit: f64) -> Value {
    match value {
        Value::AbsTime(t) => Value::Real(t.secs as f64 / unit),
        Value::RelTime(r) => Value::Real(*r / unit),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `IsMember(v, list)`: whether some element of `list` `is` `v` (`=?=`).
/// Not strict on `v`: `IsMember(undefined, {undefined})` is true. An
/// UNDEFINED list gives UNDEFINED, any other non-list ERROR. The elements
/// are evaluated as the walk reaches them, as `member` does.
fn is_member(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let list = &args[1];
    match list {
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => {
            let mut i = 0;
            while let Some(element) = context.list_element(list, i, true) {
                i += 1;
                let Ok(element) = element else {
                    return Value::Error;
                };
                if matches!(
                    ops::binary(BinaryOp::Is, element, args[0].clone()),
                    Value::Bool(true)
                ) {
                    return Value::Bool(true);
                }
            }
            Value::Bool(false)
        }
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}
