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

/// A double as C's `(long long)` cast gives it on x86-64: truncation, and
/// `i64::MIN` for NaN and values outside the range.
pub(crate) fn c_double_to_i64(value: f64) -> i64 {
    // 2^63 is exactly representable; every double below it and at or above
    // -2^63 truncates into range.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if value.is_nan() || !(-LIMIT..LIMIT).contains(&value) {
        i64::MIN
    } else {
        value as i64
    }
}

/// HTCondor's `convertValueToRealValue`: the number a value stands for, or
/// `None` when it has none.
pub(crate) fn to_real(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Str(s) => parse_c_double(s).map(|(v, _)| v),
        // A relative time counts in whole seconds here (HTCondor reads it
        // as a `time_t`).
        Value::RelTime(r) => Some(c_double_to_i64(r.trunc()) as f64),
        Value::AbsTime(t) => Some(t.secs as f64),
        Value::Undefined | Value::Error | Value::List(_) | Value::LazyList(_) | Value::Ad(_) => {
            None
        }
    }
}

/// C's `strtod`: skips leading white space and reads the longest prefix
/// that is a number (decimal, `0x` hexadecimal, `inf`, `infinity`, `nan`,
/// `nan(...)`). Returns the value and the number of bytes read, or `None`
/// when no number starts the text.
pub(crate) fn parse_c_double(text: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    while i < text.len() && is_c_space(text[i]) {
        i += 1;
    }
    let start = i;
    let negative = match text.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = |v: f64| if negative { -v } else { v };
    let rest = &text[i..];
    if starts_with_ignore_case(rest, b"inf") {
        let len = if starts_with_ignore_case(rest, b"infinity") {
            8
        } else {
            3
        };
        return Some((sign(f64::INFINITY), i + len));
    }
    if starts_with_ignore_case(rest, b"nan") {
        let mut len = 3;
        if rest.get(3) == Some(&b'(') {
            let mut j = 4;
            while j < rest.len() && (rest[j].is_ascii_alphanumeric() || rest[j] == b'_') {
                j += 1;
            }
            if rest.get(j) == Some(&b')') {
                len = j + 1;
            }
        }
        return Some((sign(f64::NAN), i + len));
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((value, len)) = parse_hex_float(&rest[2..]) {
            return Some((sign(value), i + 2 + len));
        }
        // "0x" without hex digits reads as the "0".
        return Some((sign(0.0), i + 1));
    }
    // Decimal: digits [. digits] [e [sign] digits], at least one digit.
    let mut j = 0;
    let mut digits = 0;
    while j < rest.len() && rest[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if j < rest.len() && rest[j] == b'.' {
        j += 1;
        while j < rest.len() && rest[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if j < rest.len() && (rest[j] | 0x20) == b'e' {
        let mut k = j + 1;
        if k < rest.len() && (rest[k] == b'+' || rest[k] == b'-') {
            k += 1;
        }
        if k < rest.len() && rest[k].is_ascii_digit() {
            while k < rest.len() && rest[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // The prefix is ASCII digits, '.', 'e' and signs: valid UTF-8, and a
    // form Rust's parser reads (it rounds correctly, as glibc does).
    let literal = std::str::from_utf8(&text[start..i + j]).ok()?;
    let literal = literal.strip_suffix('.').unwrap_or(literal);
    let value = literal.parse::<f64>().ok()?;
    Some((value, i + j))
}

/// The hexadecimal part of a `strtod` number after `0x`: hex digits with an
/// optional point and an optional binary exponent `p[sign]digits`.
fn parse_hex_float(text: &[u8]) -> Option<(f64, usize)> {
    let mut j = 0;
    let mut mantissa = 0.0f64;
    let mut digits = 0;
    let mut scale = 0i64;
    while j < text.len() && text[j].is_ascii_hexdigit() {
        mantissa = mantissa * 16.0 + f64::from(hex_value(text[j]));
        j += 1;
        digits += 1;
    }
    if j < text.len() && text[j] == b'.' {
        j += 1;
        while j < text.len() && text[j].is_ascii_hexdigit() {
            mantissa = mantissa * 16.0 + f64::from(hex_value(text[j]));
            scale -= 4;
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if j < text.len() && (text[j] | 0x20) == b'p' {
        let mut k = j + 1;
        let mut negative = false;
        if k < text.len() && (text[k] == b'+' || text[k] == b'-') {
            negative = text[k] == b'-';
            k += 1;
        }
        if k < text.len() && text[k].is_ascii_digit() {
            let mut exponent = 0i64;
            while k < text.len() && text[k].is_ascii_digit() {
                exponent = (exponent * 10 + i64::from(text[k] - b'0')).min(100_000);
                k += 1;
            }
            scale += if negative { -exponent } else { exponent };
            j = k;
        }
    }
    let scale = i32::try_from(scale.clamp(-100_000, 100_000)).unwrap_or(0);
    Some((mantissa * 2f64.powi(scale), j))
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        _ => (b | 0x20) - b'a' + 10,
    }
}

/// C's `isspace` in the "C" locale.
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn starts_with_ignore_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `floor`, `ceiling`/`ceil`, `round`: an integer stays; anything else is
/// converted to real, rounded, and cast as C casts.
fn round_with(value: &Value, rounding: fn(f64) -> f64) -> Value {
    match value {
        Value::Int(i) => Value::Int(*i),
        other => to_real(other).map_or(Value::Error, |r| Value::Int(c_double_to_i64(rounding(r)))),
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
        return Value::Int(c_double_to_i64(power + 0.5));
    }
    match (to_real(&args[0]), to_real(&args[1])) {
        (Some(base), Some(exponent)) => Value::Real(base.powf(exponent)),
        _ => Value::Error,
    }
}

/// `quantize(a, b)`: the smallest multiple of `b` at least `a`; with a list
/// `b`, the first element at least `a` (returned as it is), else multiples
/// of the last element.
fn quantize(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    let arg = &args[0];
    let Some(value) = to_real(arg) else {
        return Value::Error;
    };
    let (base, real_base) = match &args[1] {
        Value::List(items) => {
            let mut last = (Value::Real(0.0), 0.0);
            for item in items.iter() {
                let Some(r) = to_real(item) else {
                    return Value::Error;
                };
                if r >= value {
                    return item.clone();
                }
                last = (item.clone(), r);
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
        Value::Int(limit) if *limit > 0 => {
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
