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
            // Whole seconds that fit in 32 bits as an integer; anything else
            // as a real, because HTCondor reads `relTime(N)` of an integer
            // (and `relTime("D+HH:MM:SS")`) through a C int, but keeps a real.
            if r.fract() == 0.0 && r.abs() < 2_147_483_648.0 {
                let _ = write!(out, "relTime({})", *r as i64);
            } else {
                let _ = write!(out, "relTime({})", format_real_new(*r));
            }
        }
        Value::List(items) | Value::SharedList(items) => {
            out.push_str("{ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push_str(" }");
        }
        Value::LazyList(list) => {
            // Only a list that contains itself stays lazy: written as its
            // elements' expressions, as HTCondor writes every list.
            out.push_str("{ ");
            for (i, item) in list.items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&classad_syntax::unparse(&item.source));
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

/// Reads an absolute time as HTCondor's `absTime("...")` does: ISO 8601
/// date `YYYY[-]MM[-]DD`, optionally followed by `T` or a space and a time
/// `HH[:]MM[[:]SS]`, and a zone `Z`, `±HH[:]MM` (no zone: UTC). Out-of-range
/// fields carry over as C's `mktime` does (month 13 is January next year).
pub fn parse_abs_time(text: &str) -> Option<AbsTime> {
    let mut cursor = Cursor::new(text.trim_start());
    let year = cursor.digits(4)?;
    cursor.skip(b'-');
    let month = cursor.digits(2)?;
    cursor.skip(b'-');
    let day = cursor.digits(2)?;
    let (mut hour, mut minute, mut second) = (0, 0, 0);
    let had_separator = cursor.skip(b'T') || cursor.skip(b' ');
    if had_separator {
        cursor.skip(b':');
    }
    if cursor.peek_digit() {
        hour = cursor.digits(2)?;
        cursor.skip(b':');
        minute = cursor.digits(2)?;
        if cursor.skip(b':') || cursor.peek_digit() {
            second = cursor.digits(2)?;
        }
    }
    while cursor.skip(b' ') {}
    let offset = match cursor.next() {
        None => 0,
        Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let hours = cursor.digits(2)?;
            cursor.skip(b':');
            let minutes = cursor.digits(2)?;
            let offset = hours * 3600 + minutes * 60;
            if sign == b'-' { -offset } else { offset }
        }
        Some(_) => return None,
    };
    if !cursor.at_end() {
        return None;
    }
    let months = year * 12 + month - 1;
    let days =
        days_from_civil(months.div_euclid(12), (months.rem_euclid(12) + 1) as u32, 1) + day - 1;
    let local = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some(AbsTime {
        secs: local - offset,
        offset: i32::try_from(offset).ok()?,
    })
}

/// Reads a relative time as HTCondor's `relTime("...")` does:
/// `[+|-][D+][[HH:]MM:]SS[.fff]` (fields may exceed their range: `90:00` is
/// 90 minutes), or numbers with units `d h m s` (`1d2h`, `5s`).
pub fn parse_rel_time(text: &str) -> Option<f64> {
    let text = text.trim();
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    let total = if body.bytes().any(|b| b.is_ascii_alphabetic()) {
        parse_rel_time_units(body)?
    } else {
        let (days, clock) = match body.split_once('+') {
            Some((d, c)) => (parse_whole(d.trim())?, c.trim()),
            None => (0.0, body),
        };
        let fields: Vec<&str> = clock.split(':').collect();
        if fields.len() > 3 {
            return None;
        }
        let mut seconds = 0.0;
        for (i, field) in fields.iter().enumerate() {
            let value = if i + 1 == fields.len() {
                parse_decimal(field.trim())?
            } else {
                parse_whole(field.trim())?
            };
            seconds = seconds * 60.0 + value;
        }
        days * 86_400.0 + seconds
    };
    Some(if negative { -total } else { total })
}

/// Numbers with units `d h m s`: whole days, hours and minutes; seconds
/// (with `s` or no unit, last) may have a fraction; a unit without a number
/// counts 0 (HTCondor reads `relTime("s")` as 0 and `"2h4.5"` as 7204.5).
fn parse_rel_time_units(text: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut rest = text.trim();
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        rest = rest[number_len..].trim_start();
        let unit = rest.chars().next().map(|c| c.to_ascii_lowercase());
        let scale = match unit {
            Some('d') => 86_400.0,
            Some('h') => 3600.0,
            Some('m') => 60.0,
            Some('s') | None => 1.0,
            Some(_) => return None,
        };
        let value = match (number.is_empty(), scale == 1.0) {
            (true, _) => 0.0,
            (false, true) => parse_decimal(number)?,
            (false, false) => parse_whole(number)?,
        };
        total += value * scale;
        if unit.is_none() {
            break;
        }
        rest = rest[1..].trim_start();
    }
    Some(total)
}

fn parse_whole(text: &str) -> Option<f64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_decimal(text: &str) -> Option<f64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A byte cursor for the time parsers.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    fn digits(&mut self, n: usize) -> Option<i64> {
        let field = self.bytes.get(self.at..self.at + n)?;
        if !field.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.at += n;
        Some(field.iter().fold(0, |v, d| v * 10 + i64::from(d - b'0')))
    }

    fn skip(&mut self, byte: u8) -> bool {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn peek_digit(&self) -> bool {
        self.bytes.get(self.at).is_some_and(u8::is_ascii_digit)
    }

    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn at_end(&self) -> bool {
        self.at >= self.bytes.len()
    }
}
