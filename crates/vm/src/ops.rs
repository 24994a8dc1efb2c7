//! Operator semantics, exactly as HTCondor 25 evaluates them.
//!
//! The rules (checked against the oracle; tables in docs/semantics.md):
//!
//! * Strict operators (all but `&&`, `||`, `?:`, `is`, `isnt`): an ERROR
//!   operand gives ERROR (left first), then an UNDEFINED operand gives
//!   UNDEFINED, before any type is looked at.
//! * Arithmetic promotes booleans to integers and integers to reals;
//!   integer `/` and `%` truncate toward zero, by zero is ERROR, and
//!   `MIN / -1` is MAX (`MIN % -1` is 0), as HTCondor guards them; integer
//!   overflow wraps. Real `%` is ERROR, and a real result of +infinity is
//!   ERROR (HTCondor checks `HUGE_VAL` only, so -infinity and NaN stay).
//! * Time: absolute ± relative (whole seconds, truncated to 32 bits as
//!   HTCondor's `(int)` cast does), absolute − absolute, relative ± relative,
//!   relative × or ÷ a number, a number × relative; anything else is ERROR.
//! * Comparisons `< <= > >= == !=`: numbers after promotion (booleans as
//!   0/1), strings case-insensitively, absolute times by instant, relative
//!   times; a string against a non-string, lists and ads are ERROR.
//! * `is`/`isnt`: never UNDEFINED; false when the types differ (no
//!   promotion), strings case-sensitive, absolute times by instant and zone.
//! * Bitwise operators take integers only (not booleans). Shift counts
//!   behave as HTCondor's C++ does on x86-64: `<<` and a non-negative `>>`
//!   use the count modulo 64; `>>` of a negative number shifts
//!   `min(count, 64)` times with sign fill (no shift for a negative count);
//!   `>>>` of a negative number shifts once, clears the sign bit, then
//!   shifts `(count - 1)` modulo 64.
//! * Unary `-` takes numbers and relative times (not booleans); unary `+`
//!   passes numbers, relative times, UNDEFINED and ERROR; `!` takes truth
//!   values (numbers count: non-zero is true); `~` integers only.

use crate::value::{AbsTime, Value};
use classad_syntax::{BinaryOp, UnaryOp};
use std::cmp::Ordering;

/// The truth value of a value as HTCondor's `IsBooleanValueEquiv` sees it:
/// booleans, and numbers (non-zero is true, NaN is true).
#[inline]
pub fn truth(value: &Value) -> Option<bool> {
    match *value {
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        Value::Real(r) => Some(r != 0.0),
        _ => None,
    }
}

/// Applies a prefix operator.
pub fn unary(op: UnaryOp, value: Value) -> Value {
    match op {
        UnaryOp::Plus => match value {
            Value::Int(_)
            | Value::Real(_)
            | Value::RelTime(_)
            | Value::Undefined
            | Value::Error => value,
            _ => Value::Error,
        },
        // HTCondor does not apply its +infinity check to unary minus.
        UnaryOp::Minus => match value {
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            Value::Real(r) => Value::Real(-r),
            Value::RelTime(r) => Value::RelTime(-r),
            Value::Undefined | Value::Error => value,
            _ => Value::Error,
        },
        UnaryOp::Not => match value {
            Value::Undefined | Value::Error => value,
            other => match truth(&other) {
                Some(b) => Value::Bool(!b),
                None => Value::Error,
            },
        },
        UnaryOp::BitNot => match value {
            Value::Int(i) => Value::Int(!i),
            Value::Undefined | Value::Error => value,
            _ => Value::Error,
        },
    }
}

/// Applies an infix operator to two evaluated operands. `&&` and `||` are
/// here for constant folding; the VM short-circuits them.
pub fn binary(op: BinaryOp, left: Value, right: Value) -> Value {
    match op {
        BinaryOp::And => logical_and(left, right),
        BinaryOp::Or => logical_or(left, right),
        BinaryOp::Is => identical(&left, &right),
        BinaryOp::Isnt => match identical(&left, &right) {
            Value::Bool(b) => Value::Bool(!b),
            other => other,
        },
        _ => {
            if left.is_error() || right.is_error() {
                return Value::Error;
            }
            if left.is_undefined() || right.is_undefined() {
                return Value::Undefined;
            }
            match op {
                BinaryOp::Add
                | BinaryOp::Subtract
                | BinaryOp::Multiply
                | BinaryOp::Divide
                | BinaryOp::Modulo => arithmetic(op, left, right),
                BinaryOp::Equal
                | BinaryOp::NotEqual
                | BinaryOp::Less
                | BinaryOp::LessEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterEqual => compare(op, &left, &right),
                _ => bitwise(op, &left, &right),
            }
        }
    }
}

/// Whether `&&` is decided by its left operand alone: false (or a number
/// equal to zero) gives false, and ERROR gives ERROR without evaluating
/// the right side (HTCondor 25.14: `false is (error && a1)` is false where
/// `a1` is a chain of references past the depth limit, and `error &&
/// self["x"]` inside `x` does not recurse; UNDEFINED and values of other
/// types still evaluate the right side).
#[inline]
pub fn and_short_circuit(left: &Value) -> Option<Value> {
    if left.is_error() {
        return Some(Value::Error);
    }
    match truth(left) {
        Some(false) => Some(Value::Bool(false)),
        _ => None,
    }
}

/// Whether `||` is decided by its left operand alone: true (or a nonzero
/// number) gives true, ERROR gives ERROR (as for `&&`).
#[inline]
pub fn or_short_circuit(left: &Value) -> Option<Value> {
    if left.is_error() {
        return Some(Value::Error);
    }
    match truth(left) {
        Some(true) => Some(Value::Bool(true)),
        _ => None,
    }
}

/// Operand of `&&`/`||` after HTCondor's coercion: a truth value,
/// UNDEFINED, ERROR, or `None` for any other type (which makes ERROR).
fn logical_operand(value: &Value) -> Option<Value> {
    match value {
        Value::Undefined | Value::Error | Value::Bool(_) => Some(value.clone()),
        other => truth(other).map(Value::Bool),
    }
}

/// `left && right` with both evaluated (the truth table of spec 003).
pub fn logical_and(left: Value, right: Value) -> Value {
    if let Some(v) = and_short_circuit(&left) {
        return v;
    }
    let (Some(l), Some(r)) = (logical_operand(&left), logical_operand(&right)) else {
        return Value::Error;
    };
    match (l, r) {
        (Value::Bool(false), _) => Value::Bool(false),
        (Value::Error, _) => Value::Error,
        (Value::Bool(true), r) => r,
        // left is UNDEFINED
        (_, Value::Bool(false)) => Value::Bool(false),
        (_, Value::Bool(true)) => Value::Undefined,
        (_, r) => r,
    }
}

/// `left || right` with both evaluated.
pub fn logical_or(left: Value, right: Value) -> Value {
    if let Some(v) = or_short_circuit(&left) {
        return v;
    }
    let (Some(l), Some(r)) = (logical_operand(&left), logical_operand(&right)) else {
        return Value::Error;
    };
    match (l, r) {
        (Value::Bool(true), _) => Value::Bool(true),
        (Value::Error, _) => Value::Error,
        (Value::Bool(false), r) => r,
        (_, Value::Bool(true)) => Value::Bool(true),
        (_, Value::Bool(false)) => Value::Undefined,
        (_, r) => r,
    }
}

/// `=?=`: same type and same value; strings case-sensitive. Two lists or
/// two ads are ERROR, as HTCondor compares no aggregates.
pub fn identical(left: &Value, right: &Value) -> Value {
    Value::Bool(match (left, right) {
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Real(a), Value::Real(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::AbsTime(a), Value::AbsTime(b)) => a == b,
        (Value::RelTime(a), Value::RelTime(b)) => a == b,
        // HTCondor has two list types: a list literal's, and the shared
        // list that functions (`split`) and `ad["name"]` hand back. Two
        // lists of one type are ERROR, of different types not identical.
        (
            Value::SharedList(_) | Value::List(_) | Value::LazyList(_),
            Value::SharedList(_) | Value::List(_) | Value::LazyList(_),
        ) => {
            if shared_list(left) == shared_list(right) {
                return Value::Error;
            }
            false
        }
        // HTCondor's value of `ad["name"]` is of another type (a shared ad)
        // than an ad literal's.
        (Value::Ad(a), Value::Ad(b)) if a.detached != b.detached => false,
        (Value::Ad(_), Value::Ad(_)) => return Value::Error,
        _ => false,
    })
}

/// Whether a list value is HTCondor's shared list (made by a function, or
/// taken by `ad["name"]`, whose scope is detached) rather than a literal's.
fn shared_list(value: &Value) -> bool {
    match value {
        Value::SharedList(_) => true,
        Value::LazyList(list) => list.shared,
        _ => false,
    }
}

/// A number after promotion of booleans.
#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    Real(f64),
}

fn number(value: &Value) -> Option<Number> {
    match *value {
        Value::Int(i) => Some(Number::Int(i)),
        Value::Bool(b) => Some(Number::Int(i64::from(b))),
        Value::Real(r) => Some(Number::Real(r)),
        _ => None,
    }
}

fn arithmetic(op: BinaryOp, left: Value, right: Value) -> Value {
    if matches!(left, Value::AbsTime(_) | Value::RelTime(_))
        || matches!(right, Value::AbsTime(_) | Value::RelTime(_))
    {
        return time_arithmetic(op, &left, &right);
    }
    let (Some(a), Some(b)) = (number(&left), number(&right)) else {
        return Value::Error;
    };
    match (a, b) {
        (Number::Int(a), Number::Int(b)) => integer_arithmetic(op, a, b),
        (a, b) => real_arithmetic(op, as_real(a), as_real(b)),
    }
}

fn as_real(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Real(r) => r,
    }
}

fn integer_arithmetic(op: BinaryOp, a: i64, b: i64) -> Value {
    match op {
        BinaryOp::Add => Value::Int(a.wrapping_add(b)),
        BinaryOp::Subtract => Value::Int(a.wrapping_sub(b)),
        BinaryOp::Multiply => Value::Int(a.wrapping_mul(b)),
        BinaryOp::Divide => match (a, b) {
            (i64::MIN, -1) => Value::Int(i64::MAX),
            (_, 0) => Value::Error,
            _ => Value::Int(a / b),
        },
        _ => match (a, b) {
            (i64::MIN, -1) => Value::Int(0),
            (_, 0) => Value::Error,
            _ => Value::Int(a % b),
        },
    }
}

fn real_arithmetic(op: BinaryOp, a: f64, b: f64) -> Value {
    let result = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Subtract => a - b,
        BinaryOp::Multiply => a * b,
        BinaryOp::Divide => a / b,
        _ => return Value::Error,
    };
    if result == f64::INFINITY {
        Value::Error
    } else {
        Value::Real(result)
    }
}

/// HTCondor adds relative seconds to an absolute time through a C `(int)`
/// cast: truncated toward zero, and wrapped to 32 bits.
fn int_cast(seconds: f64) -> i64 {
    if seconds.is_nan() {
        return i64::from(i32::MIN);
    }
    // Out-of-range conversions on x86-64 give INT_MIN.
    if seconds >= 2147483648.0 || seconds <= -2147483649.0 {
        return i64::from(i32::MIN);
    }
    seconds.trunc() as i64
}

fn time_arithmetic(op: BinaryOp, left: &Value, right: &Value) -> Value {
    use Value::{AbsTime as Abs, Int, Real, RelTime as Rel};
    match (op, left, right) {
        (BinaryOp::Add, Abs(t), Rel(r)) | (BinaryOp::Add, Rel(r), Abs(t)) => Abs(AbsTime {
            secs: t.secs.wrapping_add(int_cast(*r)),
            offset: t.offset,
        }),
        (BinaryOp::Add, Rel(a), Rel(b)) => Rel(a + b),
        (BinaryOp::Subtract, Abs(a), Abs(b)) => Rel(a.secs.wrapping_sub(b.secs) as f64),
        (BinaryOp::Subtract, Abs(t), Rel(r)) => Abs(AbsTime {
            secs: t.secs.wrapping_sub(int_cast(*r)),
            offset: t.offset,
        }),
        (BinaryOp::Subtract, Rel(a), Rel(b)) => Rel(a - b),
        (BinaryOp::Multiply, Rel(r), Int(n)) | (BinaryOp::Multiply, Int(n), Rel(r)) => {
            Rel(r * *n as f64)
        }
        (BinaryOp::Multiply, Rel(r), Real(x)) | (BinaryOp::Multiply, Real(x), Rel(r)) => Rel(r * x),
        (BinaryOp::Divide, Rel(r), Int(n)) => Rel(r / *n as f64),
        (BinaryOp::Divide, Rel(r), Real(x)) => Rel(r / x),
        _ => Value::Error,
    }
}

fn compare(op: BinaryOp, left: &Value, right: &Value) -> Value {
    let ordering = match (left, right) {
        (Value::Str(a), Value::Str(b)) => Some(compare_ignore_case(a, b)),
        (Value::Str(_), _) | (_, Value::Str(_)) => return Value::Error,
        (Value::AbsTime(a), Value::AbsTime(b)) => Some(a.secs.cmp(&b.secs)),
        (Value::RelTime(a), Value::RelTime(b)) => a.partial_cmp(b),
        _ => match (number(left), number(right)) {
            (Some(Number::Int(a)), Some(Number::Int(b))) => Some(a.cmp(&b)),
            (Some(a), Some(b)) => as_real(a).partial_cmp(&as_real(b)),
            _ => return Value::Error,
        },
    };
    // An unordered pair (NaN) satisfies only `!=`.
    Value::Bool(match ordering {
        None => op == BinaryOp::NotEqual,
        Some(o) => match op {
            BinaryOp::Equal => o == Ordering::Equal,
            BinaryOp::NotEqual => o != Ordering::Equal,
            BinaryOp::Less => o == Ordering::Less,
            BinaryOp::LessEqual => o != Ordering::Greater,
            BinaryOp::Greater => o == Ordering::Greater,
            _ => o != Ordering::Less,
        },
    })
}

/// C's `strcasecmp`: ASCII letters folded to lower case, bytes unsigned.
pub fn compare_ignore_case(a: &[u8], b: &[u8]) -> Ordering {
    let fold = |c: &u8| c.to_ascii_lowercase();
    a.iter().map(fold).cmp(b.iter().map(fold))
}

fn bitwise(op: BinaryOp, left: &Value, right: &Value) -> Value {
    let (&Value::Int(a), &Value::Int(b)) = (left, right) else {
        return Value::Error;
    };
    Value::Int(match op {
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::ShiftLeft => a.wrapping_shl(b as u32),
        BinaryOp::ShiftRight => {
            if a >= 0 {
                a.wrapping_shr(b as u32)
            } else if b <= 0 {
                a
            } else {
                a >> b.min(63)
            }
        }
        _ => {
            if a >= 0 {
                a.wrapping_shr(b as u32)
            } else {
                ((a >> 1) & i64::MAX).wrapping_shr(b.wrapping_sub(1) as u32)
            }
        }
    })
}
