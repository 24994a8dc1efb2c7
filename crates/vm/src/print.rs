//! Values as ClassAd literals in new syntax (what `classad eval` prints),
//! and the time formats read by `absTime` and `relTime`.

use crate::value::{AbsTime, Value};
use classad_syntax::unparse::{format_real_new, write_name, write_string_literal};
use std::fmt::Write;

/// The value as a one-line new-syntax literal: lists with their evaluated
/// elements, ads with their attributes' expressions as written.
pub fn value_to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// Appends the literal form of `value`.
pub fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Undefined => out.push_str("undefined"),
        Value::Error => out.push_str("error"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) => out.push_str(&format_real_new(*r)),
        Value::Str(s) => write_string_literal(s, out),
        Value::AbsTime(t) => {
            out.push_str("absTime(\"");
            out.push_str(&format_abs_time(*t));
            out.push_str("\")");
        }
        Value::RelTime(r) => {
            if r.fract() == 0.0 && r.abs() < 1e15 {
                let _ = write!(out, "relTime({})", *r as i64);
            } else {
                let _ = write!(out, "relTime({})", format_real_new(*r));
            }
        }
        Value::List(items) => {
            out.push_str("{ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push_str(" }");
        }
        Value::Ad(ad) => {
            out.push_str("[ ");
            for (i, attribute) in ad.body.attributes().iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                write_name(&attribute.name, out);
                out.push_str(" = ");
                out.push_str(&classad_syntax::unparse(&attribute.source));
            }
            out.push_str(" ]");
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS+HH:MM` in the time's own zone.
pub fn format_abs_time(t: AbsTime) -> String {
    let local = t.secs + i64::from(t.offset);
    let days = local.div_euclid(86_400);
    let secs_of_day = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let offset = t.offset.unsigned_abs();
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{}{:02}:{:02}",
        secs_of_day / 3600,
        secs_of_day / 60 % 60,
        secs_of_day % 60,
        if t.offset < 0 { '-' } else { '+' },
        offset / 3600,
        offset / 60 % 60
    )
}

/// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a civil date (inverse of [`civil_from_days`]).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Reads `YYYY-MM-DD[T ]HH:MM[:SS]` with an optional zone `Z`, `±HH:MM`
/// or `±HHMM` (no zone: UTC).
pub fn parse_abs_time(text: &str) -> Option<AbsTime> {
    let text = text.trim();
    let b = text.as_bytes();
    let num = |s: &str| s.parse::<i64>().ok();
    if b.len() < 16 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b' ') {
        return None;
    }
    let year = num(&text[0..4])?;
    let month = num(&text[5..7])?;
    let day = num(&text[8..10])?;
    let hour = num(&text[11..13])?;
    let minute = num(text.get(14..16)?)?;
    let mut rest = &text[16..];
    let mut second = 0;
    if let Some(r) = rest.strip_prefix(':') {
        second = num(r.get(0..2)?)?;
        rest = &r[2..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        zone => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 {
                return None;
            }
            sign * (num(&digits[0..2])? * 3600 + num(&digits[2..4])? * 60)
        }
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month as u32, day as u32);
    let local = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(AbsTime {
        secs: local - offset,
        offset: offset as i32,
    })
}

/// Reads a relative time as the spec writes it.
pub fn parse_rel_time(text: &str) -> Option<f64> {
    let text = text.trim();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (days, clock) = match text.split_once('+') {
        Some((d, c)) => (d.trim().parse::<f64>().ok()?, c),
        None => (0.0, text),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut seconds = 0.0;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let value: f64 = part.trim().parse().ok()?;
        if !last && value.fract() != 0.0 {
            return None;
        }
        seconds = seconds * 60.0 + value;
    }
    let total = days * 86_400.0 + seconds;
    Some(if negative { -total } else { total })
}
