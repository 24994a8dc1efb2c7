//! Math: `floor ceiling ceil round pow quantize random` (spec 003,
//! "Predefined Functions"; rules as HTCondor 25.14 implements them, see
//! `docs/functions/math.md`).
//!
//! A non-integer argument goes through HTCondor's conversion to real:
//! booleans are 0/1, strings are read as C's `strtod` reads a prefix
//! (`"4.5x"` is 4.5, `"0x10"` is 16, `""` fails), absolute and relative
//! times are their seconds; UNDEFINED, ERROR, lists and ads fail, and the
//! function is ERROR (these functions are not strict on UNDEFINED: they
//! turn it into ERROR). A double converted to an integer follows x86-64
//! C: NaN and anything out of the i64 range become `i64::MIN`.

use crate::builtin;
use crate::convert::{c_strtod, double_to_i64};
use classad_vm::{Builtin, CallContext, Value};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("floor", 1, 1, true, |_, a| round_with(&a[0], f64::floor)),
        builtin("ceiling", 1, 1, true, |_, a| round_with(&a[0], f64::ceil)),
        builtin("ceil", 1, 1, true, |_, a| round_with(&a[0], f64::ceil)),
        builtin("round", 1, 1, true, |_, a| {
            round_with(&a[0], f64::round_ties_even)
        }),
        builtin("pow", 2, 2, true, pow),
        builtin("quantize", 2, 2, true, quantize),
        builtin("random", 0, 1, false, random),
    ]
}

/// HTCondor's `convertValueToRealValue`: the number a value stands for, or
/// `None` when it has none.
pub(crate) fn to_real(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) | Value::RelTimeLiteral(r) => Some(*r),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Str(s) => c_strtod(s),
        // A relative time counts in whole seconds here, read as a C `int`
        // (`floor(relTime(1e10))` is the minimum `int`, as `int()` gives).
        Value::RelTime(r) => Some(crate::convert::rel_secs(*r) as f64),
        Value::AbsTime(t) => Some(t.secs as f64),
        Value::Undefined
        | Value::Error
        | Value::List(_)
        | Value::SharedList(_)
        | Value::LazyList(_)
        | Value::Ad(_) => None,
    }
}

/// `floor`, `ceiling`/`ceil`, `round`: an integer stays; anything else is
/// converted to real, rounded, and cast as C casts.
fn round_with(value: &Value, rounding: fn(f64) -> f64) -> Value {
    match value {
        Value::Int(i) => Value::Int(*i),
        other => to_real(other).map_or(Value::Error, |r| Value::Int(double_to_i64(rounding(r)))),
    }
}

/// `pow(base, exponent)`: integer when both are integers and the exponent
/// is not negative (computed in doubles, rounded half up, cast as C casts);
/// otherwise a real.
fn pow(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    if let (Value::Int(base), Value::Int(exponent)) = (&args[0], &args[1])
        && *exponent >= 0
    {
        let power = (*base as f64).powf(*exponent as f64);
        return Value::Int(double_to_i64(power + 0.5));
    }
    match (to_real(&args[0]), to_real(&args[1])) {
        (Some(base), Some(exponent)) => Value::Real(base.powf(exponent)),
        _ => Value::Error,
    }
}

/// `quantize(a, b)`: the smallest multiple of `b` at least `a`; with a list
/// `b`, the first element at least `a` (returned as it is), else multiples
/// of the last element. The list's elements are evaluated as the walk
/// reaches them, as HTCondor's `doMath2` does: it stops at the first
/// element at least `a` or not a number (ERROR), and an element whose
/// evaluation fails fails the call.
fn quantize(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let arg = &args[0];
    let Some(value) = to_real(arg) else {
        return Value::Error;
    };
    let (base, real_base) = match &args[1] {
        list @ (Value::List(_) | Value::SharedList(_) | Value::LazyList(_)) => {
            let mut last = (Value::Real(0.0), 0.0);
            let mut i = 0;
            while let Some(item) = context.list_element(list, i, true) {
                i += 1;
                let Ok(item) = item else {
                    return Value::Error;
                };
                let Some(r) = to_real(&item) else {
                    return Value::Error;
                };
                if r >= value {
                    return item;
                }
                last = (item, r);
            }
            last
        }
        other => match to_real(other) {
            Some(r) => (other.clone(), r),
            None => return Value::Error,
        },
    };
    if let Value::Int(int_base) = base {
        if int_base == 0 {
            arg.clone()
        } else if let Value::Int(int_value) = arg {
            Value::Int(
                int_value
                    .wrapping_add(int_base)
                    .wrapping_sub(1)
                    .wrapping_div(int_base)
                    .wrapping_mul(int_base),
            )
        } else {
            let b = int_base as f64;
            Value::Real((value / b).ceil() * b)
        }
    } else if (-1e-8..=1e-8).contains(&real_base) {
        arg.clone()
    } else {
        Value::Real((value / real_base).ceil() * real_base)
    }
}

/// The next 64 random bits from the VM's state (SplitMix64), so that a
/// seeded VM gives a reproducible sequence.
fn next_random(context: &mut CallContext<'_>) -> u64 {
    let state = context.vm.random_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    context.vm.random_state = state;
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `random([x])`: an integer in `[0, x)` for an integer `x`, a real in
/// `[0, x)` for a real `x` (1.0 without an argument); ERROR for anything
/// else, and for `x <= 0` (where HTCondor fails to evaluate).
fn random(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    match args.first().unwrap_or(&Value::Real(1.0)) {
        // HTCondor reads the limit as a C int (the low 32 bits, so
        // `random(-4294967291)` draws below 5) and fails to evaluate when
        // that is not positive; the corrections keep the 64-bit limit.
        Value::Int(limit) => {
            let limit = if context.vm.options().corrections {
                *limit
            } else {
                i64::from(*limit as i32)
            };
            if limit <= 0 {
                return Value::Error;
            }
            let bits = next_random(context);
            let pick = (u128::from(bits) * u128::from(limit.unsigned_abs())) >> 64;
            Value::Int(i64::try_from(pick).unwrap_or(0))
        }
        Value::Real(limit) if limit.is_nan() || *limit > 0.0 => {
            let fraction = (next_random(context) >> 11) as f64 / (1u64 << 53) as f64;
            Value::Real(limit * fraction)
        }
        _ => Value::Error,
    }
}
