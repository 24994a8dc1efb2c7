//! Values as ClassAd literals in new syntax (what `classad eval` prints),
//! and the time formats read by `absTime` and `relTime`.

use crate::value::{AbsTime, Value};
use classad_syntax::unparse::{
    format_real_htcondor, format_real_new, unparse, unparse_htcondor, write_name,
    write_string_literal,
};
use classad_syntax::{AdExpr, Expr, ExprKind};
use std::fmt::Write;

/// Whose literal a value is written as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Style {
    /// Ours, which reads back to the same value: reals `%.15E` or 17
    /// digits, relative times in seconds, expressions in our new syntax.
    Exact,
    /// HTCondor's unparser's (`repr` of a simplified `classad2.ExprTree`):
    /// reals `%.15E`, relative times as `relTime("[D+]HH:MM:SS")`, the
    /// expressions of lazy lists and ads as HTCondor writes them, an ad's
    /// attributes in its order.
    Htcondor,
}

/// The value as a one-line new-syntax literal: lists with their evaluated
/// elements, ads with their attributes' expressions as written.
pub fn value_to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// Appends the literal form of `value`.
pub fn write_value(value: &Value, out: &mut String) {
    write_value_as(value, Style::Exact, out);
}

/// Appends the literal form of `value` in `style`.
pub fn write_value_as(value: &Value, style: Style, out: &mut String) {
    let expression = match style {
        Style::Exact => unparse,
        Style::Htcondor => unparse_htcondor,
    };
    match value {
        Value::Undefined => out.push_str("undefined"),
        Value::Error => out.push_str("error"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) => out.push_str(&match style {
            Style::Exact => format_real_new(*r),
            Style::Htcondor => format_real_htcondor(*r),
        }),
        Value::Str(s) => write_string_literal(s, out),
        Value::AbsTime(t) => {
            let text = format_abs_time(*t);
            // Where HTCondor's reader would not read the text back (an
            // offset of a fraction of a minute or of 100 hours or more, a
            // year outside 0..=9999, the instant mktime reports as -1),
            // the seconds and offset.
            if parse_abs_time(text.as_bytes()) == Some(*t) {
                out.push_str("absTime(\"");
                out.push_str(&text);
                out.push_str("\")");
            } else {
                let _ = write!(out, "absTime({}, {})", t.secs, t.offset);
            }
        }
        Value::RelTime(r) if style == Style::Htcondor => {
            out.push_str("relTime(\"");
            classad_syntax::time::write_rel_time(*r, out);
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
                write_value_as(item, style, out);
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
                out.push_str(&expression(&item.source));
            }
            out.push_str(" }");
        }
        Value::Ad(ad) if style == Style::Htcondor => {
            // The whole ad through HTCondor's unparser, which orders it.
            let mut body = AdExpr::new();
            for attribute in ad.body.attributes() {
                body.insert(attribute.name.clone(), (*attribute.source).clone());
            }
            out.push_str(&unparse_htcondor(&Expr::new(ExprKind::Ad(Box::new(body)))));
        }
        Value::Ad(ad) => {
            out.push_str("[ ");
            for (i, attribute) in ad.body.attributes().iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                write_name(&attribute.name, out);
                out.push_str(" = ");
                out.push_str(&unparse(&attribute.source));
            }
            out.push_str(" ]");
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS+HH:MM` in the time's own zone, the offset signed
/// as HTCondor signs it (`+` only east of UTC: `-00:00`), the year in four
/// digits so that the text reads back.
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
        if t.offset > 0 { '+' } else { '-' },
        offset / 3600,
        offset / 60 % 60
    )
}

pub use classad_syntax::time::{civil_from_days, days_from_civil};

/// Reads an absolute time as HTCondor's `absTime("...")` of a literal
/// string does ([`classad_syntax::time::read_abs_time`]).
pub fn parse_abs_time(text: &[u8]) -> Option<AbsTime> {
    classad_syntax::time::read_abs_time(text).map(|(secs, offset)| AbsTime { secs, offset })
}

/// Reads a relative time as HTCondor's `relTime("...")` of a literal
/// string does ([`classad_syntax::time::read_rel_time`]).
pub fn parse_rel_time(text: &[u8]) -> Option<f64> {
    classad_syntax::time::read_rel_time(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value, style: Style) -> String {
        let mut out = String::new();
        write_value_as(value, style, &mut out);
        out
    }

    #[test]
    fn the_htcondor_style_writes_reals_and_relative_times_as_its_unparser() {
        // `repr(classad2.ExprTree("relTime(-3)").simplify())` and of 2.5.
        let values = Value::List(vec![Value::RelTime(-3.0), Value::Real(2.5)].into());
        assert_eq!(
            text(&values, Style::Htcondor),
            "{ relTime(\"-03\"),2.500000000000000E+00 }"
        );
    }
}
