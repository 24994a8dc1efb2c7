//! Values as ClassAd literals in new syntax (what `classad eval` prints),
//! and the time formats read by `absTime` and `relTime`.

use crate::value::{AbsTime, Value};
use classad_syntax::time::{write_abs_time, write_rel_time, write_rel_time_value};
use classad_syntax::unparse::{
    format_real_htcondor, format_real_new, htcondor_order, unparse, unparse_htcondor, write_name,
    write_string_literal,
};
use std::fmt::Write;

/// How a value is written. Two styles are used: [`Style::EXACT`], ours,
/// whose text reads back to the same value (what `classad eval --batch`
/// prints), and [`Style::HTCONDOR`], the bytes HTCondor's unparser makes of
/// a value: what `string()`, `strcat` and the other string functions turn
/// a list or an ad into, and what `repr` of a simplified
/// `classad2.ExprTree` prints (`classad eval`'s output). The fields are
/// where the two differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Style {
    /// How reals are written.
    pub reals: RealForm,
    /// How absolute and relative times are written.
    pub times: TimeForm,
    /// How the expressions of lazy lists and of ads are written.
    pub expressions: ExprForm,
}

/// How a real is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RealForm {
    /// Always `%.15E` (`2.500000000000000E+00`), as HTCondor.
    Htcondor,
    /// `%.15E` when that reads back to the same double, else 17 digits.
    RoundTrip,
}

/// How absolute and relative times are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeForm {
    /// As HTCondor writes a time literal it made of a value (the elements
    /// of a list built at run time, `ExprTree.simplify`):
    /// `relTime("[-][D+][HH:][MM:]SS")` of the seconds cut to a C `int`
    /// (`relTime(1.5)` is `relTime("01")`), `absTime("Y-MM-DDTHH:MM:SS±HH:MM")`
    /// with the year unpadded and the offset cut to whole minutes, whether
    /// or not it reads back.
    HtcondorLiteral,
    /// As HTCondor's unparser writes a time value itself (the
    /// configuration's `$EVAL`): as [`TimeForm::HtcondorLiteral`] but a
    /// relative time keeps its fraction (`relTime("1.5")`). The elements of
    /// a list are literals, written as such.
    HtcondorValue,
    /// A form that reads back to the same value: `relTime(N)` of the
    /// seconds, `absTime("...")` with a four-digit year where HTCondor's
    /// reader reads that text back, else `absTime(secs, offset)`.
    RoundTrip,
}

/// How the expressions inside a list that stayed lazy, and inside an ad,
/// are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ExprForm {
    /// HTCondor's unparser, an ad's attributes in HTCondor's order.
    Htcondor,
    /// Our new-syntax unparser, attributes in the ad's order.
    Ours,
}

impl Style {
    /// Ours, which reads back to the same value.
    pub const EXACT: Style = Style {
        reals: RealForm::RoundTrip,
        times: TimeForm::RoundTrip,
        expressions: ExprForm::Ours,
    };
    /// HTCondor's unparser's, for a value taken from a list or ad or made
    /// into a literal.
    pub const HTCONDOR: Style = Style {
        reals: RealForm::Htcondor,
        times: TimeForm::HtcondorLiteral,
        expressions: ExprForm::Htcondor,
    };
    /// HTCondor's unparser's, for a value itself.
    pub const HTCONDOR_VALUE: Style = Style {
        times: TimeForm::HtcondorValue,
        ..Style::HTCONDOR
    };

    /// The style of the elements of a list: literals, in HTCondor.
    fn for_elements(self) -> Style {
        match self.times {
            TimeForm::HtcondorValue => Style::HTCONDOR,
            _ => self,
        }
    }
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
    write_value_as(value, Style::EXACT, out);
}

/// Appends the literal form of `value` in `style`.
pub fn write_value_as(value: &Value, style: Style, out: &mut String) {
    let expression = match style.expressions {
        ExprForm::Ours => unparse,
        ExprForm::Htcondor => unparse_htcondor,
    };
    match value {
        Value::Undefined => out.push_str("undefined"),
        Value::Error => out.push_str("error"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Real(r) => out.push_str(&match style.reals {
            RealForm::RoundTrip => format_real_new(*r),
            RealForm::Htcondor => format_real_htcondor(*r),
        }),
        Value::Str(s) => write_string_literal(s, out),
        Value::AbsTime(t) => match style.times {
            TimeForm::HtcondorLiteral | TimeForm::HtcondorValue => {
                out.push_str("absTime(\"");
                write_abs_time(t.secs, t.offset, out);
                out.push_str("\")");
            }
            TimeForm::RoundTrip => {
                let text = format_abs_time(*t);
                // Where HTCondor's reader would not read the text back (an
                // offset of a fraction of a minute or of 100 hours or more,
                // a year outside 0..=9999, the instant mktime reports as
                // -1), the seconds and offset.
                if parse_abs_time(text.as_bytes()) == Some(*t) {
                    out.push_str("absTime(\"");
                    out.push_str(&text);
                    out.push_str("\")");
                } else {
                    let _ = write!(out, "absTime({}, {})", t.secs, t.offset);
                }
            }
        },
        Value::RelTime(r) => match style.times {
            TimeForm::HtcondorLiteral => {
                out.push_str("relTime(\"");
                write_rel_time_value(*r, out);
                out.push_str("\")");
            }
            TimeForm::HtcondorValue => {
                out.push_str("relTime(\"");
                write_rel_time(*r, out);
                out.push_str("\")");
            }
            TimeForm::RoundTrip => {
                // Whole seconds that fit in 32 bits as an integer; anything
                // else as a real, because HTCondor reads `relTime(N)` of an
                // integer (and `relTime("D+HH:MM:SS")`) through a C int, but
                // keeps a real.
                if r.fract() == 0.0 && r.abs() < 2_147_483_648.0 {
                    let _ = write!(out, "relTime({})", *r as i64);
                } else {
                    let _ = write!(out, "relTime({})", format_real_new(*r));
                }
            }
        },
        Value::RelTimeLiteral(secs) => match style.times {
            TimeForm::HtcondorLiteral | TimeForm::HtcondorValue => {
                out.push_str("relTime(\"");
                write_rel_time_value(*secs, out);
                out.push_str("\")");
            }
            TimeForm::RoundTrip => write_rel_time_literal(*secs, out),
        },
        Value::List(items) | Value::SharedList(items) => {
            out.push_str("{ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value_as(item, style.for_elements(), out);
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
        Value::Ad(ad) => {
            let attributes = ad.body.attributes().iter();
            let attributes = attributes.map(|a| (a.name.as_bytes(), a));
            let ordered = match style.expressions {
                ExprForm::Htcondor => htcondor_order(attributes),
                ExprForm::Ours => attributes.collect(),
            };
            out.push_str("[ ");
            for (i, (_, attribute)) in ordered.into_iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                write_name(&attribute.name, out);
                out.push_str(" = ");
                out.push_str(&expression(&attribute.source));
            }
            out.push_str(" ]");
        }
    }
}

/// A relative time's literal ([`Value::RelTimeLiteral`]) as text that
/// reads back to the same value, a real that is written as a relative
/// time: `relTime("...")` of [`rel_time_literal_text`], or the real itself
/// where the seconds are not whole (HTCondor never makes such a literal).
pub fn write_rel_time_literal(secs: f64, out: &mut String) {
    match rel_time_literal_text(secs) {
        Some(text) => {
            out.push_str("relTime(\"");
            out.push_str(&text);
            out.push_str("\")");
        }
        None => out.push_str(&format_real_new(secs)),
    }
}

/// The string of a `relTime("...")` that reads back to `secs` seconds:
/// HTCondor's `[-][D+][HH:][MM:]SS` where that reads back (every whole
/// number of seconds in a C `int` but its minimum, whose text HTCondor
/// garbles), else the seconds; `None` if they are not a whole number.
///
/// ```
/// use classad_vm::print::rel_time_literal_text;
/// assert_eq!(rel_time_literal_text(61.0).as_deref(), Some("01:01"));
/// assert_eq!(rel_time_literal_text(-2147483648.0).as_deref(), Some("-2147483648"));
/// assert_eq!(rel_time_literal_text(1.5), None);
/// ```
pub fn rel_time_literal_text(secs: f64) -> Option<String> {
    if secs.fract() != 0.0 || secs.abs() >= 9.0e15 {
        return None;
    }
    if secs > -2_147_483_648.0 && secs < 2_147_483_648.0 {
        let mut text = String::new();
        write_rel_time_value(secs, &mut text);
        Some(text)
    } else {
        Some(format!("{}", secs as i64))
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
            text(&values, Style::HTCONDOR),
            "{ relTime(\"-03\"),2.500000000000000E+00 }"
        );
    }

    #[test]
    fn the_htcondor_style_writes_time_values_as_htcondor_not_to_read_back() {
        // `string(evalInEachContext(P, {[P = relTime(1.5)], ...}))` and
        // `repr` of the simplified values, in HTCondor 25.14 (TZ=UTC).
        let abs = |secs, offset| Value::AbsTime(AbsTime { secs, offset });
        let values = Value::List(
            vec![
                Value::RelTime(1.5),
                Value::RelTime(-0.25),
                Value::RelTime(1e10),
                abs(0, 30),
                abs(-62_135_596_800, 0),
                abs(0, 360_000),
            ]
            .into(),
        );
        assert_eq!(
            text(&values, Style::HTCONDOR),
            "{ relTime(\"01\"),relTime(\"00\"),relTime(\"--24855+-3:-14:-8\"),\
             absTime(\"1970-01-01T00:00:30+00:00\"),absTime(\"1-01-01T00:00:00-00:00\"),\
             absTime(\"1970-01-05T04:00:00+100:00\") }"
        );
    }

    // Class 2 of tests/gen/known_bugs.txt: the literal HTCondor stores for
    // a relative time in a list of values is written as a relative time of
    // its whole seconds (`string(evalInEachContext(P, {[P = relTime(61.5)]}))`
    // is `"{ relTime(\"01:01\") }"` in HTCondor 25.14); ours reads back, so
    // the minimum `int`, which HTCondor garbles, is written as its seconds.
    #[test]
    fn a_relative_time_literal_is_written_as_a_relative_time() {
        let values = Value::List(
            vec![
                Value::RelTimeLiteral(61.0),
                Value::RelTimeLiteral(-3.0),
                Value::RelTimeLiteral(90061.0),
                Value::RelTimeLiteral(-2_147_483_648.0),
            ]
            .into(),
        );
        assert_eq!(
            text(&values, Style::HTCONDOR),
            "{ relTime(\"01:01\"),relTime(\"-03\"),relTime(\"1+01:01:01\"),\
             relTime(\"--24855+-3:-14:-8\") }"
        );
        assert_eq!(
            text(&values, Style::HTCONDOR_VALUE),
            text(&values, Style::HTCONDOR)
        );
        assert_eq!(
            text(&values, Style::EXACT),
            "{ relTime(\"01:01\"),relTime(\"-03\"),relTime(\"1+01:01:01\"),\
             relTime(\"-2147483648\") }"
        );
        // Not a whole number (HTCondor never makes one): the real.
        assert_eq!(
            text(&Value::RelTimeLiteral(1.5), Style::EXACT),
            "1.500000000000000E+00"
        );
    }
}
