//! Conversions: `int`, `real`, `string`, `bool` (spec 003, "Predefined
//! Functions"), and the value-to-text rules every string function shares.
//!
//! HTCondor converts through C: strings are read with `strtod` (so
//! `int("12abc")` is 12, `int("0x10")` is 16, `real("1e3x")` is 1000), a
//! double becomes an integer the way an x86 truncating conversion does
//! (out of range or NaN gives the minimum 64-bit integer), and a relative
//! time is read as a 32-bit whole number of seconds before it is used as a
//! number or as text.

use crate::builtin;
use classad_syntax::Expr;
use classad_syntax::unparse::{htcondor_text_bytes, unparse_htcondor, unparse_htcondor_pretty};
use classad_vm::print::{Style, write_value_as};
use classad_vm::{Builtin, CallContext, Value};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("int", 1, 1, true, |_, a| to_int(&a[0])),
        builtin("real", 1, 1, true, |_, a| to_real(&a[0])),
        crate::builtin("string", 1, 1, true, to_string),
        builtin("bool", 1, 1, true, |_, a| to_bool(&a[0])),
    ]
}

/// `int(x)`.
fn to_int(value: &Value) -> Value {
    match value {
        Value::Undefined => Value::Undefined,
        Value::Bool(b) => Value::Int(i64::from(*b)),
        Value::Int(i) => Value::Int(*i),
        Value::Real(r) | Value::RelTimeLiteral(r) => Value::Int(double_to_i64(*r)),
        Value::AbsTime(t) => Value::Int(t.secs),
        Value::RelTime(r) => Value::Int(rel_secs(*r)),
        Value::Str(s) => c_strtod(s).map_or(Value::Error, |r| Value::Int(double_to_i64(r))),
        Value::Error
        | Value::List(_)
        | Value::SharedList(_)
        | Value::LazyList(_)
        | Value::Ad(_) => Value::Error,
    }
}

/// `real(x)`.
fn to_real(value: &Value) -> Value {
    match value {
        Value::Undefined => Value::Undefined,
        Value::Bool(b) => Value::Real(f64::from(u8::from(*b))),
        Value::Int(i) => Value::Real(*i as f64),
        Value::Real(r) | Value::RelTimeLiteral(r) => Value::Real(*r),
        Value::AbsTime(t) => Value::Real(t.secs as f64),
        Value::RelTime(r) => Value::Real(rel_secs(*r) as f64),
        Value::Str(s) => c_strtod(s).map_or(Value::Error, Value::Real),
        Value::Error
        | Value::List(_)
        | Value::SharedList(_)
        | Value::LazyList(_)
        | Value::Ad(_) => Value::Error,
    }
}

/// `string(x)`.
fn to_string(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if !crate::budget::reserve_text(context, args) {
        return Value::Error;
    }
    match to_text(&args[0]) {
        Ok(text) => Value::Str(text.into()),
        Err(exceptional) => exceptional,
    }
}

/// `bool(x)`: numbers are true when non-zero, the strings `"true"` and
/// `"false"` (any case, nothing around them) are read, other strings are
/// UNDEFINED; absolute times, lists and ads are ERROR.
fn to_bool(value: &Value) -> Value {
    match value {
        Value::Undefined => Value::Undefined,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::Real(r) | Value::RelTimeLiteral(r) => Value::Bool(*r != 0.0),
        Value::RelTime(r) => Value::Bool(rel_secs(*r) != 0),
        Value::Str(s) => {
            let s = c_str(s);
            if s.eq_ignore_ascii_case(b"true") {
                Value::Bool(true)
            } else if s.eq_ignore_ascii_case(b"false") {
                Value::Bool(false)
            } else {
                Value::Undefined
            }
        }
        Value::Error
        | Value::AbsTime(_)
        | Value::List(_)
        | Value::SharedList(_)
        | Value::LazyList(_)
        | Value::Ad(_) => Value::Error,
    }
}

/// A value as text, as `string()`, `strcat` and the comparison functions
/// convert it: strings as they are, numbers and booleans as literals
/// (reals always `%.15E`: this text is a value, so it is HTCondor's bytes,
/// not text chosen to read back), absolute times as
/// `YYYY-MM-DDTHH:MM:SS±HH:MM`, relative times as `[-][D+][HH:][MM:]SS`,
/// lists and ads as HTCondor unparses them ([`Style::HTCONDOR`]): a list as
/// written, not evaluated (`{ a + 1 }`), an ad's attributes in HTCondor's
/// order. UNDEFINED and ERROR cannot be converted and come back as `Err`.
pub(crate) fn to_text(value: &Value) -> Result<Vec<u8>, Value> {
    let mut out = String::new();
    match value {
        Value::Undefined => return Err(Value::Undefined),
        Value::Error => return Err(Value::Error),
        Value::Str(s) => return Ok(s.to_vec()),
        Value::AbsTime(t) => classad_syntax::time::write_abs_time(t.secs, t.offset, &mut out),
        Value::RelTime(r) => classad_syntax::time::write_rel_time_value(*r, &mut out),
        other => write_value_as(other, Style::HTCONDOR, &mut out),
    }
    Ok(htcondor_text_bytes(out))
}

/// An expression as HTCondor writes it when it becomes a value (a list or
/// ad turned into a string, `unparse()`): see
/// [`classad_syntax::unparse::unparse_htcondor`].
pub(crate) fn htcondor_bytes(expr: &Expr, pretty: bool) -> Vec<u8> {
    htcondor_text_bytes(if pretty {
        unparse_htcondor_pretty(expr)
    } else {
        unparse_htcondor(expr)
    })
}

/// A relative time's seconds as HTCondor reads them for conversion: a
/// truncating conversion to a 32-bit integer (out of range or NaN gives
/// the minimum 32-bit integer).
pub(crate) fn rel_secs(secs: f64) -> i64 {
    i64::from(c_double_to_i32(secs))
}

/// x86's truncating double-to-int32 conversion.
fn c_double_to_i32(x: f64) -> i32 {
    if x > -2_147_483_649.0 && x < 2_147_483_648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// x86's truncating double-to-int64 conversion: out of range or NaN gives
/// the minimum 64-bit integer (`int(1e30)`, `int(real("NaN"))`).
pub(crate) fn double_to_i64(x: f64) -> i64 {
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// The bytes of a string up to its first NUL, as C functions see it.
pub(crate) fn c_str(bytes: &[u8]) -> &[u8] {
    bytes
        .iter()
        .position(|&b| b == 0)
        .map_or(bytes, |end| &bytes[..end])
}

/// C's `isspace` in the C locale.
pub(crate) fn c_isspace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtod` on the longest readable prefix: leading white space, a
/// sign, then `inf`/`infinity`, `nan`, a hexadecimal float (`0x1.8p3`) or
/// a decimal one. `None` when no number starts the text.
pub(crate) fn c_strtod(text: &[u8]) -> Option<f64> {
    let text = c_str(text);
    let mut i = 0;
    while i < text.len() && c_isspace(text[i]) {
        i += 1;
    }
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
    let rest = &text[i..];
    let starts =
        |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    let magnitude = if starts(b"inf") {
        f64::INFINITY
    } else if starts(b"nan") {
        f64::NAN
    } else if let Some(value) = hex_float(rest) {
        value
    } else {
        decimal_float(rest)?
    };
    Some(if negative { -magnitude } else { magnitude })
}

fn decimal_float(text: &[u8]) -> Option<f64> {
    let digits = |from: usize| {
        text[from.min(text.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let whole = digits(0);
    let mut end = whole;
    let mut fraction = 0;
    if text.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        end += 1 + fraction;
    }
    if whole + fraction == 0 {
        return None;
    }
    let mantissa_end = if fraction == 0 && whole < end {
        // "5." reads as "5"
        whole
    } else {
        end
    };
    let mut number = String::from_utf8_lossy(&text[..mantissa_end]).into_owned();
    if matches!(text.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(text.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exponent_digits = digits(j);
        if exponent_digits > 0 {
            number.push('e');
            number.push_str(&String::from_utf8_lossy(
                &text[end + 1..j + exponent_digits],
            ));
        }
    }
    number.parse().ok()
}

fn hex_float(text: &[u8]) -> Option<f64> {
    if text.len() < 3 || text[0] != b'0' || !matches!(text[1], b'x' | b'X') {
        return None;
    }
    let body = &text[2..];
    let hex = |b: u8| (b as char).to_digit(16);
    let starts_number = match body.first() {
        Some(&b) if hex(b).is_some() => true,
        Some(b'.') => body.get(1).is_some_and(|&b| hex(b).is_some()),
        _ => false,
    };
    if !starts_number {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut exponent: i64 = 0;
    let mut sticky = false;
    let mut i = 0;
    let mut seen_point = false;
    while let Some(&b) = body.get(i) {
        if b == b'.' && !seen_point {
            seen_point = true;
        } else if let Some(d) = hex(b) {
            if mantissa < (1 << 56) {
                mantissa = mantissa * 16 + u64::from(d);
                if seen_point {
                    exponent -= 4;
                }
            } else {
                sticky |= d != 0;
                if !seen_point {
                    exponent += 4;
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    if matches!(body.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let negative = match body.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let start = j;
        let mut value: i64 = 0;
        while let Some(d) = body.get(j).filter(|b| b.is_ascii_digit()) {
            value = value.saturating_mul(10).saturating_add(i64::from(d - b'0'));
            j += 1;
        }
        if j > start {
            exponent = exponent.saturating_add(if negative { -value } else { value });
        }
    }
    if sticky {
        mantissa |= 1;
    }
    Some(ldexp(mantissa as f64, exponent))
}

/// `x * 2^e` without intermediate overflow.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    if x == 0.0 {
        return x;
    }
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
        if x.is_infinite() {
            return x;
        }
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
        if x == 0.0 {
            return x;
        }
    }
    x * 2f64.powi(e as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_prefixes() {
        assert_eq!(c_strtod(b"12abc"), Some(12.0));
        assert_eq!(c_strtod(b"  -7.5e1x"), Some(-75.0));
        assert_eq!(c_strtod(b"1e"), Some(1.0));
        assert_eq!(c_strtod(b"5."), Some(5.0));
        assert_eq!(c_strtod(b".5"), Some(0.5));
        assert_eq!(c_strtod(b"0x10"), Some(16.0));
        assert_eq!(c_strtod(b"0x1.8p1"), Some(3.0));
        assert_eq!(c_strtod(b"0xg"), Some(0.0));
        assert_eq!(c_strtod(b"0x1p-1074"), Some(f64::from_bits(1)));
        assert_eq!(c_strtod(b"."), None);
        assert_eq!(c_strtod(b"+-1"), None);
        assert_eq!(c_strtod(b""), None);
        assert!(c_strtod(b"infinit").is_some_and(f64::is_infinite));
        assert!(c_strtod(b"nan(1)").is_some_and(f64::is_nan));
    }

    #[test]
    fn times_as_text() {
        // `string(relTime(N))` and `string(absTime(0, offset))` in HTCondor.
        let text = |value: Value| String::from_utf8(to_text(&value).unwrap()).unwrap();
        assert_eq!(text(Value::RelTime(0.0)), "00");
        assert_eq!(text(Value::RelTime(90.0)), "01:30");
        assert_eq!(text(Value::RelTime(-90.0)), "-01:30");
        assert_eq!(text(Value::RelTime(3600.0)), "01:00:00");
        assert_eq!(text(Value::RelTime(90061.0)), "1+01:01:01");
        assert_eq!(text(Value::RelTime(2.9)), "02");
        assert_eq!(text(Value::RelTime(-2_147_483_648.0)), "--24855+-3:-14:-8");
        let t = classad_vm::AbsTime { secs: 0, offset: 0 };
        assert_eq!(text(Value::AbsTime(t)), "1970-01-01T00:00:00-00:00");
        let t = classad_vm::AbsTime {
            secs: 0,
            offset: 5400,
        };
        assert_eq!(text(Value::AbsTime(t)), "1970-01-01T01:30:00+01:30");
    }
}
