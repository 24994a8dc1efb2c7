//! Time functions (spec 003, "Predefined Functions": `time`, `formatTime`,
//! `interval`, `absTime`, `relTime`; spec 004, "Time Queries" and
//! "Absolute/Relative Time Component Extraction": `currentTime`,
//! `timeZoneOffset`, `dayTime`, `getYear` ... `getSeconds`, `getDays`;
//! and HTCondor's `splitTime`).
//!
//! HTCondor computes these with C: `localtime_r`, `gmtime_r`, `strftime`
//! (glibc, C locale) and 32-bit `int` conversions in places. We follow it
//! value for value where that is defined behaviour (see
//! `docs/functions/time.md`), with 64-bit calendar arithmetic that never
//! overflows. The local zone is the process's `TZ` ([`zone`]); the clock is
//! read only through [`CallContext::now`], so tests inject it.

use crate::builtin;
use crate::convert::{c_strtod, double_to_i64};
use classad_compiler::Compiler;
use classad_syntax::ast::{AdExpr, Expr, Literal, Name};
use classad_vm::print::{civil_from_days, days_from_civil, parse_abs_time, parse_rel_time};
use classad_vm::{
    AbsTime, AdRef, AdValue, Arguments, Builtin, CallContext, Registry, StopTest, Stops, Value,
};
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    // Time literals without an offset are read in the local zone.
    classad_syntax::time::set_local_zone(|utc| zone::local().offset_and_dst(utc));
    vec![
        builtin("absTime", 0, 2, false, abs_time),
        // Not folded while compiling: a string's value depends on options.
        builtin("relTime", 1, 1, false, rel_time),
        builtin("time", 0, 0, false, epoch_time),
        builtin("currentTime", 0, 0, false, current_time),
        builtin("timeZoneOffset", 0, 0, false, time_zone_offset),
        builtin("dayTime", 0, 0, false, day_time),
        // Absolute times are read in the local zone, so these depend on TZ.
        builtin("getYear", 1, 1, false, |_, a| get_field(Field::Year, &a[0])),
        builtin("getMonth", 1, 1, false, |_, a| {
            get_field(Field::Month, &a[0])
        }),
        builtin("getDayOfYear", 1, 1, false, |_, a| {
            get_field(Field::DayOfYear, &a[0])
        }),
        builtin("getDayOfMonth", 1, 1, false, |_, a| {
            get_field(Field::DayOfMonth, &a[0])
        }),
        builtin("getDayOfWeek", 1, 1, false, |_, a| {
            get_field(Field::DayOfWeek, &a[0])
        }),
        builtin("getDays", 1, 1, true, |_, a| get_field(Field::Days, &a[0])),
        builtin("getHours", 1, 1, false, |_, a| {
            get_field(Field::Hours, &a[0])
        }),
        builtin("getMinutes", 1, 1, false, |_, a| {
            get_field(Field::Minutes, &a[0])
        }),
        builtin("getSeconds", 1, 1, false, |_, a| {
            get_field(Field::Seconds, &a[0])
        }),
        builtin("splitTime", 1, 1, false, split_time),
        // HTCondor's stops when its first argument is no time, never
        // evaluating the format.
        builtin("formatTime", 0, 2, false, format_time).with_arguments(Arguments {
            notes_failures: true,
            stops: Stops::Leading(&[StopTest::NotTime]),
            one_level_deeper: false,
            probes_last: None,
        }),
        builtin("interval", 1, 1, true, interval),
    ]
}

/// x86's truncating double-to-int32 conversion, as C's `(int) x`: out of
/// range or NaN gives the minimum 32-bit integer.
pub(crate) fn c_double_to_i32(x: f64) -> i32 {
    if x > -2_147_483_649.0 && x < 2_147_483_648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// The current time in whole seconds.
pub(crate) fn now_secs(context: &CallContext<'_>) -> i64 {
    let now = context.now();
    // `as` saturates and maps NaN to 0: no panic on a strange clock.
    now.floor() as i64
}

/// An absolute time at `secs` in the local zone.
pub(crate) fn local_abs_time(secs: i64) -> AbsTime {
    AbsTime {
        secs,
        offset: zone::local().offset_at(secs),
    }
}

/// `absTime()`: now; `absTime(t [, z])`; `absTime("ISO 8601")`.
///
/// As HTCondor's `convTime`: an integer `t` or `z` is read as a C `int`
/// (its low 32 bits), a real one truncated to `int`, a relative time `z`
/// as its whole seconds; a `z` of another type (UNDEFINED included) is
/// ERROR, checked before `t`. Without `z` the offset is the local zone's.
fn abs_time(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let Some(first) = args.first() else {
        return Value::AbsTime(local_abs_time(now_secs(context)));
    };
    let offset = match args.get(1) {
        None => None,
        Some(Value::Int(o)) => Some(*o as i32),
        Some(Value::Real(o)) => Some(c_double_to_i32(*o)),
        Some(Value::RelTime(o)) => Some(c_double_to_i32(*o)),
        Some(_) => return Value::Error,
    };
    let at = |secs: i64| {
        Value::AbsTime(match offset {
            Some(offset) => AbsTime { secs, offset },
            None => local_abs_time(secs),
        })
    };
    match first {
        // HTCondor's evaluation fails (ERROR) on an offset of -1, which
        // it takes for mktime's error mark, but only on this path.
        Value::Int(_) if offset == Some(-1) => Value::Error,
        Value::Int(secs) => at(i64::from(*secs as i32)),
        Value::Real(secs) => at(i64::from(c_double_to_i32(*secs))),
        Value::RelTime(secs) => at(i64::from(c_double_to_i32(*secs))),
        Value::AbsTime(t) => Value::AbsTime(*t),
        // HTCondor reads a literal string while parsing; one computed at
        // run time falls through its conversion unread and comes back as
        // it is (after the offset is checked).
        Value::Str(text) if context.vm.options().read_time_strings => {
            // As the absolute time it reads as, whose offset `z` leaves.
            parse_abs_time(text).map_or(Value::Error, Value::AbsTime)
        }
        Value::Str(_) => first.clone(),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `relTime(t)`: an integer read as a C `int`, a real kept, an absolute
/// time's seconds. A string computed at run time is a relative time of 0,
/// as in HTCondor (whose conversion reads it as an absolute time of 0),
/// unless [`classad_vm::Options::read_time_strings`] asks to read it.
fn rel_time(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    match &args[0] {
        Value::Int(i) => Value::RelTime(f64::from(*i as i32)),
        Value::Real(r) => Value::RelTime(*r),
        Value::RelTime(r) => Value::RelTime(*r),
        Value::AbsTime(t) => Value::RelTime(t.secs as f64),
        Value::Str(text) if context.vm.options().read_time_strings => {
            parse_rel_time(text).map_or(Value::Error, Value::RelTime)
        }
        Value::Str(_) => Value::RelTime(0.0),
        Value::Undefined => Value::Undefined,
        _ => Value::Error,
    }
}

/// `time()`: seconds since the epoch.
fn epoch_time(context: &mut CallContext<'_>, _: &[Value]) -> Value {
    Value::Int(now_secs(context))
}

/// `currentTime()`: now, as an absolute time in the local zone.
fn current_time(context: &mut CallContext<'_>, _: &[Value]) -> Value {
    Value::AbsTime(local_abs_time(now_secs(context)))
}

/// `timeZoneOffset()`: the local zone's offset from UTC now (daylight
/// saving included), as a relative time.
fn time_zone_offset(context: &mut CallContext<'_>, _: &[Value]) -> Value {
    let now = now_secs(context);
    Value::RelTime(f64::from(zone::local().offset_at(now)))
}

/// `dayTime()`: the local time of day, as a relative time since midnight.
fn day_time(context: &mut CallContext<'_>, _: &[Value]) -> Value {
    let t = local_abs_time(now_secs(context));
    let local = t.secs.saturating_add(i64::from(t.offset));
    Value::RelTime(local.rem_euclid(86_400) as f64)
}

/// Broken-down time, as C's `struct tm` but with the year itself and
/// 64-bit fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tm {
    year: i64,
    /// 0..=11 when in range.
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    /// 0..=6, Sunday 0, when in range.
    wday: i64,
    /// 0..=365 when in range.
    yday: i64,
}

/// The civil time of `local` seconds (UTC plus the zone offset), as
/// glibc's `gmtime_r`/`localtime_r` break it down: the proleptic Gregorian
/// calendar with floor division, so a date before year 1 has the weekday
/// and day of the year that calendar gives it (0000-01-01 is a Saturday).
/// `getDayOfWeek` and the other `get*` functions read these fields.
fn civil(local: i64) -> Tm {
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (year, month, mday) = civil_from_days(days);
    let jan1 = days_from_civil(year, 1, 1);
    Tm {
        year,
        mon: i64::from(month) - 1,
        mday: i64::from(mday),
        hour: secs / 3600,
        min: secs / 60 % 60,
        sec: secs % 60,
        // 1970-01-01 was a Thursday.
        wday: (days.rem_euclid(7) + 4) % 7,
        yday: days - jan1,
    }
}

/// The civil time of `local` seconds with the weekday and day of the year
/// recomputed by HTCondor's `day_numbers` from year, month and day, as
/// `formatTime` does after splitting its time into an ad (so 0000-01-01 is
/// a Sunday there, where `getDayOfWeek` says Saturday).
fn civil_day_numbers(local: i64) -> Tm {
    let mut tm = civil(local);
    let (wday, yday) = day_numbers(tm.year, tm.mon + 1, tm.mday);
    tm.wday = wday;
    tm.yday = yday;
    tm
}

/// HTCondor's `day_numbers`, which only `formatTime` uses: weekday and day
/// of the year of a (possibly out-of-range) date, with C's truncating
/// division, so that dates before year 1 get a negative weekday as they do
/// in HTCondor's `formatTime` (its `get*` functions use glibc). Its arithmetic is
/// C `int`: past about year 5,880,000 (either way) the day count wraps, and
/// the weekday with it (`formatTime(1e15, "%w")` is `-5` there).
fn day_numbers(year: i64, month: i64, day: i64) -> (i64, i64) {
    let (year, month, day) = (year as i32, month as i32, day as i32);
    let fixed = fixed_from_gregorian(year, month, day);
    let jan1 = fixed_from_gregorian(year, 1, 1);
    (i64::from(fixed % 7), i64::from(fixed.wrapping_sub(jan1)))
}

fn fixed_from_gregorian(year: i32, month: i32, day: i32) -> i32 {
    let leap = year % 4 == 0 && ![100, 200, 300].contains(&(year % 400));
    let adjustment = if month <= 2 {
        0
    } else if leap {
        -1
    } else {
        -2
    };
    let y = year.wrapping_sub(1);
    y.wrapping_mul(365)
        .wrapping_add(y / 4)
        .wrapping_sub(y / 100)
        .wrapping_add(y / 400)
        .wrapping_add(month.wrapping_mul(367).wrapping_sub(362) / 12)
        .wrapping_add(adjustment)
        .wrapping_add(day)
}

#[derive(Clone, Copy)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

/// `getYear(t)` ... `getSeconds(t)`, `getDays(r)`. An absolute time is
/// broken down in the local zone (as HTCondor's `localtime_r`, whatever
/// the value's own offset); a relative time's whole seconds (a C `int`)
/// are split with truncating division, so negative times give negative
/// fields. Any other argument, UNDEFINED included, is ERROR.
fn get_field(field: Field, arg: &Value) -> Value {
    match arg {
        Value::AbsTime(t) => {
            let local = local_abs_time(t.secs);
            let tm = civil(local.secs.saturating_add(i64::from(local.offset)));
            Value::Int(match field {
                Field::Year => tm.year,
                Field::Month => tm.mon + 1,
                Field::DayOfYear => tm.yday,
                Field::DayOfMonth => tm.mday,
                Field::DayOfWeek => tm.wday,
                Field::Hours => tm.hour,
                Field::Minutes => tm.min,
                Field::Seconds => tm.sec,
                Field::Days => return Value::Error,
            })
        }
        Value::RelTime(r) => {
            let secs = i64::from(c_double_to_i32(*r));
            Value::Int(match field {
                Field::Days => secs / 86_400,
                Field::Hours => secs % 86_400 / 3600,
                Field::Minutes => secs % 3600 / 60,
                Field::Seconds => secs % 60,
                _ => return Value::Error,
            })
        }
        _ => Value::Error,
    }
}

/// The pieces of a time as HTCondor's `splitTime` gives them.
enum Split {
    Abs(AbsTime),
    Rel(f64),
    Ad(AdRef),
}

/// HTCondor's `doSplitTime`: an integer is epoch seconds in the local
/// zone, a real is truncated to a C `int` first.
fn to_split(value: &Value) -> Option<Split> {
    match value {
        Value::Int(secs) => Some(Split::Abs(local_abs_time(*secs))),
        Value::Real(secs) => Some(Split::Abs(local_abs_time(i64::from(c_double_to_i32(
            *secs,
        ))))),
        Value::AbsTime(t) => Some(Split::Abs(*t)),
        Value::RelTime(r) => Some(Split::Rel(*r)),
        Value::Ad(ad) => Some(Split::Ad(ad.clone())),
        _ => None,
    }
}

/// The fields of a relative time as `splitTime` gives them: the magnitude
/// split into days, hours, minutes (C `int`s) and seconds with the
/// fraction; the sign goes on the first nonzero of days, hours, minutes,
/// else on the seconds.
fn split_rel(r: f64) -> (i64, i64, i64, f64) {
    let negative = r < 0.0;
    let r = if negative { -r } else { r };
    let whole = i64::from(c_double_to_i32(r));
    let (mut days, mut hours, mut minutes) =
        (whole / 86_400, whole % 86_400 / 3600, whole % 3600 / 60);
    let mut seconds = (whole % 60) as f64 + (r - r.floor());
    if negative {
        if days > 0 {
            days = -days;
        } else if hours > 0 {
            hours = -hours;
        } else if minutes > 0 {
            minutes = -minutes;
        } else {
            seconds = -seconds;
        }
    }
    (days, hours, minutes, seconds)
}

/// An ad of literal attributes.
fn literal_ad(attributes: Vec<(&str, Literal)>) -> Value {
    let mut ad = AdExpr::new();
    for (name, literal) in attributes {
        ad.insert(Name::new(name), Expr::literal(literal));
    }
    // Literals need no functions.
    match Compiler::new(&Registry::new()).compile_ad(&ad) {
        Ok(body) => Value::Ad(AdValue::top_level(Arc::new(body))),
        Err(_) => Value::Error,
    }
}

/// `splitTime(t)`: an ad of the pieces of an absolute time (in its own
/// zone: `Type`, `Year`, `Month`, `Day`, `Hours`, `Minutes`, `Seconds`,
/// `Offset`) or of a relative time (`Type`, `Days`, `Hours`, `Minutes`,
/// `Seconds` as a real). An integer or real is an absolute time. An ad is
/// ERROR; UNDEFINED is UNDEFINED.
fn split_time(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match (&args[0], to_split(&args[0])) {
        (Value::Undefined, _) => Value::Undefined,
        (_, Some(Split::Abs(t))) => {
            let tm = civil(t.secs.saturating_add(i64::from(t.offset)));
            literal_ad(vec![
                ("Type", Literal::String(b"AbsoluteTime".as_slice().into())),
                ("Year", Literal::Integer(tm.year)),
                ("Month", Literal::Integer(tm.mon + 1)),
                ("Day", Literal::Integer(tm.mday)),
                ("Hours", Literal::Integer(tm.hour)),
                ("Minutes", Literal::Integer(tm.min)),
                ("Seconds", Literal::Integer(tm.sec)),
                ("Offset", Literal::Integer(i64::from(t.offset))),
            ])
        }
        (_, Some(Split::Rel(r))) => {
            let (days, hours, minutes, seconds) = split_rel(r);
            literal_ad(vec![
                ("Type", Literal::String(b"RelativeTime".as_slice().into())),
                ("Days", Literal::Integer(days)),
                ("Hours", Literal::Integer(hours)),
                ("Minutes", Literal::Integer(minutes)),
                ("Seconds", Literal::Real(seconds)),
            ])
        }
        _ => Value::Error,
    }
}

/// `formatTime([t [, format]])`: `strftime` of `t` (default now) with
/// `format` (default `%c`). `t` is an integer or real (epoch seconds,
/// shown in the local zone), an absolute time (shown in its own zone) or
/// an ad with the fields of `splitTime` (missing or non-integer fields are
/// 0; `Month` 1 and `Year` 1900 when missing). A relative time, UNDEFINED
/// or a non-string format is ERROR.
fn format_time(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let tm = match args.first() {
        None => {
            let t = local_abs_time(now_secs(context));
            civil(t.secs.saturating_add(i64::from(t.offset)))
        }
        // HTCondor evaluates the format only once the first argument is
        // a time (`CallContext::stop_at`).
        Some(Value::RelTime(_)) => return context.stop_at(0, Value::Error),
        Some(value) => match to_split(value) {
            None => return context.stop_at(0, Value::Error),
            Some(Split::Abs(t)) => civil_day_numbers(t.secs.saturating_add(i64::from(t.offset))),
            Some(Split::Rel(_)) => return context.stop_at(0, Value::Error),
            Some(Split::Ad(ad)) => {
                let mut field = |name: &str| -> Option<i64> {
                    let attribute = ad.body.get(name)?;
                    let program = attribute.program.clone();
                    // A field whose evaluation fails is missing, the call
                    // going on (HTCondor's EvaluateAttrInt is false there):
                    // `formatTime([Year = B.b], "%Y")` with `B = {B.b}` is
                    // "1900".
                    match context.taking_failures(|context| context.evaluate_in(&program, &ad)) {
                        // EvaluateAttrInt reads a C int.
                        (Value::Int(i), false) => Some(i64::from(i as i32)),
                        _ => None,
                    }
                };
                let mut tm = Tm {
                    sec: field("Seconds").unwrap_or(0),
                    min: field("Minutes").unwrap_or(0),
                    hour: field("Hours").unwrap_or(0),
                    mday: field("Day").unwrap_or(0),
                    mon: field("Month").map_or(0, |m| m - 1),
                    year: field("Year").unwrap_or(1900),
                    ..Tm::default()
                };
                let (wday, yday) = day_numbers(tm.year, tm.mon + 1, tm.mday);
                tm.wday = wday;
                tm.yday = yday;
                tm
            }
        },
    };
    let format: &[u8] = match args.get(1) {
        None => b"%c",
        Some(Value::Str(format)) => format,
        Some(_) => return Value::Error,
    };
    Value::Str(strftime(crate::convert::c_str(format), &tm).into())
}

/// strftime's output buffer in HTCondor: 1024 bytes, of which at most
/// 1022 characters and the terminator are used.
const STRFTIME_MAX: usize = 1022;

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// glibc's `strftime` in the C locale, as HTCondor calls it: `tm_gmtoff`
/// and `tm_isdst` are 0, so `%z` is `+0000` and `%Z` the local zone's
/// standard abbreviation. Flags `_ - 0 ^ #`, a field width and the `E`
/// and `O` modifiers are read as glibc reads them; an unknown conversion
/// is copied as written. Output stops where HTCondor's 1024-byte buffer
/// would overflow.
fn strftime(format: &[u8], tm: &Tm) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            if out.len() + 1 > STRFTIME_MAX {
                break;
            }
            out.push(format[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&c) = format.get(i) {
            match c {
                b'_' | b'-' | b'0' => spec.pad = Some(c),
                b'^' => spec.upper = true,
                b'#' => spec.swap_case = true,
                _ => break,
            }
            i += 1;
        }
        if format.get(i).is_some_and(u8::is_ascii_digit) {
            let mut width: usize = 0;
            while let Some(&d) = format.get(i).filter(|d| d.is_ascii_digit()) {
                width = width
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                i += 1;
            }
            spec.width = Some(width);
        }
        let modifier = match format.get(i) {
            Some(&m @ (b'E' | b'O')) => {
                i += 1;
                Some(m)
            }
            _ => None,
        };
        let conversion = format.get(i).copied();
        let piece = conversion.and_then(|c| convert(c, modifier, tm));
        let piece = match piece {
            Some(piece) => {
                i += 1;
                piece
            }
            None => {
                // Copied as written from the last `%` (up to, not past, the
                // end of format): a `%` after a modifier or width starts
                // the copy itself, so `%E%` is `%`.
                let end = if conversion.is_some() { i + 1 } else { i };
                let from = if conversion == Some(b'%') { i } else { start };
                i = end;
                // glibc reads `#` on %b and %h before it finds the
                // modifier bad, so that copy is upper case.
                if spec.swap_case && matches!(conversion, Some(b'b' | b'h')) {
                    spec.upper = true;
                }
                Piece::Text(format[from..end].to_vec())
            }
        };
        let Some(text) = spec.render(piece) else {
            break;
        };
        if out.len() + text.len() > STRFTIME_MAX {
            break;
        }
        out.extend_from_slice(&text);
    }
    out
}

#[derive(Default)]
struct Spec {
    pad: Option<u8>,
    upper: bool,
    swap_case: bool,
    width: Option<usize>,
}

/// What a conversion produces before padding.
enum Piece {
    /// A number with its minimum digit count and default padding byte.
    Number { value: i64, digits: usize, pad: u8 },
    /// Text: `^` makes it upper case.
    Text(Vec<u8>),
    /// A day or month name: `^` and `#` make it upper case.
    Name(Vec<u8>),
    /// Text whose case `#` turns to lower case (`%p`, `%Z`).
    LowerableText(Vec<u8>),
    /// Text shown in lower case whatever the flags (`%P`).
    Lower(Vec<u8>),
    /// `%z` of a zero offset: glibc pads its sign and its four digits each
    /// to the field width (`%5z` is `    +00000`).
    ZoneOffset,
}

impl Spec {
    fn render(&self, piece: Piece) -> Option<Vec<u8>> {
        let width = self.width.unwrap_or(0);
        // A width past the buffer can never fit.
        if width > STRFTIME_MAX {
            return None;
        }
        let (body, zero_pad) = match piece {
            Piece::ZoneOffset => {
                let mut text = self.render(Piece::Text(b"+".to_vec()))?;
                text.extend(self.render(Piece::Number {
                    value: 0,
                    digits: 4,
                    pad: b'0',
                })?);
                return Some(text);
            }
            Piece::Number { value, digits, pad } => {
                let pad = self.pad.unwrap_or(pad);
                let magnitude = value.unsigned_abs().to_string();
                let sign = if value < 0 { "-" } else { "" };
                let len = sign.len() + magnitude.len();
                let fill = digits.saturating_sub(len);
                let mut text = Vec::with_capacity(digits.max(len));
                match pad {
                    b'-' => {}
                    b'_' => text.resize(fill, b' '),
                    _ => {
                        text.extend_from_slice(sign.as_bytes());
                        text.resize(sign.len() + fill, b'0');
                        text.extend_from_slice(magnitude.as_bytes());
                        return Some(self.widen(text, pad != b'_' && pad != b'-', value < 0));
                    }
                }
                text.extend_from_slice(sign.as_bytes());
                text.extend_from_slice(magnitude.as_bytes());
                return Some(self.widen(text, false, false));
            }
            Piece::Text(mut text) => {
                if self.upper {
                    text.make_ascii_uppercase();
                }
                (text, self.pad == Some(b'0'))
            }
            Piece::Name(mut text) => {
                if self.upper || self.swap_case {
                    text.make_ascii_uppercase();
                }
                (text, self.pad == Some(b'0'))
            }
            Piece::LowerableText(mut text) => {
                if self.swap_case {
                    text.make_ascii_lowercase();
                } else if self.upper {
                    text.make_ascii_uppercase();
                }
                (text, self.pad == Some(b'0'))
            }
            Piece::Lower(mut text) => {
                text.make_ascii_lowercase();
                (text, self.pad == Some(b'0'))
            }
        };
        Some(self.widen(body, zero_pad, false))
    }

    /// Pads `text` on the left to the field width: zeros after any sign,
    /// or spaces.
    fn widen(&self, text: Vec<u8>, zeros: bool, signed: bool) -> Vec<u8> {
        let width = self.width.unwrap_or(0);
        if text.len() >= width {
            return text;
        }
        let fill = width - text.len();
        let mut out = Vec::with_capacity(width);
        if zeros {
            let split = usize::from(signed);
            out.extend_from_slice(&text[..split]);
            out.resize(split + fill, b'0');
            out.extend_from_slice(&text[split..]);
        } else {
            out.resize(fill, b' ');
            out.extend_from_slice(&text);
        }
        out
    }
}

fn name_of(names: &[&str], index: i64, abbreviated: bool) -> Vec<u8> {
    match usize::try_from(index).ok().and_then(|i| names.get(i)) {
        Some(name) if abbreviated => name.as_bytes()[..3].to_vec(),
        Some(name) => name.as_bytes().to_vec(),
        None => b"?".to_vec(),
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// glibc's ISO 8601 week-based year and week days.
fn iso_week_days(yday: i64, wday: i64) -> i64 {
    // (-YDAY_MINIMUM / 7 + 2) * 7 with YDAY_MINIMUM = -366.
    const BIG_ENOUGH_MULTIPLE_OF_7: i64 = (366 / 7 + 2) * 7;
    yday.wrapping_sub(
        yday.wrapping_sub(wday)
            .wrapping_add(4 + BIG_ENOUGH_MULTIPLE_OF_7)
            % 7,
    )
    .wrapping_add(4 - 1)
}

/// glibc computes the week-based year in a C `int` (`tm_year + 1900`, one
/// more or less): past the ends of `int` it wraps, so the ISO year of
/// 1 January -2147483648 is 2147483647 (the oracle's answer).
fn iso_year_and_days(tm: &Tm) -> (i64, i64) {
    let mut year = c_year(tm);
    let mut days = iso_week_days(tm.yday, tm.wday);
    if days < 0 {
        year = year.wrapping_sub(1);
        days = iso_week_days(tm.yday + 365 + i64::from(is_leap(year.into())), tm.wday);
    } else {
        let d = iso_week_days(tm.yday - 365 - i64::from(is_leap(year.into())), tm.wday);
        if d >= 0 {
            year = year.wrapping_add(1);
            days = d;
        }
    }
    (year.into(), days)
}

/// glibc's `tm_year` (years since 1900, a C `int`, wrapping as the
/// `struct tm` HTCondor fills holds it).
fn c_tm_year(tm: &Tm) -> i32 {
    tm.year.wrapping_sub(1900) as i32
}

/// The year as glibc computes it in an `int`: `tm_year + 1900`, wrapping.
fn c_year(tm: &Tm) -> i32 {
    c_tm_year(tm).wrapping_add(1900)
}

/// The piece for conversion `c`, or `None` when glibc does not know it
/// (with this modifier).
fn convert(c: u8, modifier: Option<u8>, tm: &Tm) -> Option<Piece> {
    let number = |value: i64, digits: usize| Piece::Number {
        value,
        digits,
        pad: b'0',
    };
    let spaced = |value: i64, digits: usize| Piece::Number {
        value,
        digits,
        pad: b'_',
    };
    let allowed = match modifier {
        None => true,
        // Which conversions glibc reads after each modifier (the oracle's
        // answers for every letter); in the C locale the modifier changes
        // nothing.
        Some(b'E') => b"CPRTXYZcnprstuxyz".contains(&c),
        Some(_) => b"BCGHIMPRSTUVWZbdeghjklmnprstuwyz".contains(&c),
    };
    if !allowed {
        return None;
    }
    let hour12 = match tm.hour {
        0 => 12,
        h if h > 12 => h - 12,
        h => h,
    };
    let sub = |format: &str| Piece::Text(strftime(format.as_bytes(), tm));
    Some(match c {
        b'a' => Piece::Name(name_of(&WEEKDAYS, tm.wday, true)),
        b'A' => Piece::Name(name_of(&WEEKDAYS, tm.wday, false)),
        b'b' | b'h' => Piece::Name(name_of(&MONTHS, tm.mon, true)),
        b'B' => Piece::Name(name_of(&MONTHS, tm.mon, false)),
        b'c' => sub("%a %b %e %H:%M:%S %Y"),
        b'C' => number(tm.year.div_euclid(100), 1),
        b'd' => number(tm.mday, 2),
        b'D' | b'x' => sub("%m/%d/%y"),
        b'e' => spaced(tm.mday, 2),
        b'F' => sub("%Y-%m-%d"),
        b'g' => number(iso_year_and_days(tm).0.rem_euclid(100), 2),
        b'G' => number(iso_year_and_days(tm).0, 1),
        b'H' => number(tm.hour, 2),
        b'I' => number(hour12, 2),
        b'j' => number(tm.yday.wrapping_add(1), 3),
        b'k' => spaced(tm.hour, 2),
        b'l' => spaced(hour12, 2),
        b'm' => number(tm.mon.wrapping_add(1), 2),
        b'M' => number(tm.min, 2),
        b'n' => Piece::Text(b"\n".to_vec()),
        b'p' => Piece::LowerableText(if tm.hour > 11 { b"PM" } else { b"AM" }.to_vec()),
        b'P' => Piece::Lower(if tm.hour > 11 { b"pm" } else { b"am" }.to_vec()),
        b'r' => sub("%I:%M:%S %p"),
        b'R' => sub("%H:%M"),
        // glibc writes the seconds as text: padded with spaces unless the
        // `0` flag asks for zeros, which go before a sign (`%03s` of -5 is
        // `0-5`).
        b's' => Piece::Text(mktime(tm).to_string().into_bytes()),
        b'S' => number(tm.sec, 2),
        b't' => Piece::Text(b"\t".to_vec()),
        b'T' | b'X' => sub("%H:%M:%S"),
        b'u' => number((tm.wday - 1 + 7) % 7 + 1, 1),
        b'U' => number((tm.yday - tm.wday + 7) / 7, 2),
        b'V' => number(iso_year_and_days(tm).1 / 7 + 1, 2),
        b'w' => number(tm.wday, 1),
        b'W' => number((tm.yday - (tm.wday - 1 + 7) % 7 + 7) / 7, 2),
        // glibc: `(tm_year % 100 + 100) % 100`, from the `int` tm_year
        // (so -2147483648, whose tm_year wraps to 2147481748, is `48`).
        b'y' => number(i64::from(c_tm_year(tm)).rem_euclid(100), 2),
        b'Y' => number(tm.year, 1),
        b'z' => Piece::ZoneOffset,
        b'Z' => Piece::LowerableText(zone::local().standard_name().as_bytes().to_vec()),
        b'%' => Piece::Text(b"%".to_vec()),
        _ => return None,
    })
}

/// C's `mktime` of the broken-down time read as local standard time (as
/// `tm_isdst` is 0): the fields normalized, then the zone offset removed.
fn mktime(tm: &Tm) -> i64 {
    let months = tm.year.wrapping_mul(12).wrapping_add(tm.mon);
    let year = months.div_euclid(12);
    let month = months.rem_euclid(12) + 1;
    let days = classad_vm::print::days_from_civil(year, month as u32, 1)
        .wrapping_add(tm.mday)
        .wrapping_sub(1);
    let local = days
        .wrapping_mul(86_400)
        .wrapping_add(tm.hour.wrapping_mul(3600))
        .wrapping_add(tm.min.wrapping_mul(60))
        .wrapping_add(tm.sec);
    local.wrapping_sub(i64::from(zone::local().standard_offset()))
}

/// `interval(seconds)`: `[D+]H:MM:SS` with leading zero fields omitted
/// (`interval(67)` is `"1:07"`). The argument is converted as `int()`
/// does and then read as a C `int`, as HTCondor does; negative intervals
/// carry the sign on the leading field.
fn interval(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    let secs = match &args[0] {
        Value::Int(i) => *i,
        Value::Bool(b) => i64::from(*b),
        Value::Real(r) => double_to_i64(*r),
        Value::AbsTime(t) => t.secs,
        Value::RelTime(r) => i64::from(c_double_to_i32(*r)),
        Value::Str(s) => match c_strtod(s) {
            Some(r) => double_to_i64(r),
            None => return Value::Error,
        },
        _ => return Value::Error,
    };
    let total = i64::from(secs as i32);
    let days = total / 86_400;
    let hours = total % 86_400 / 3600;
    let minutes = total % 3600 / 60;
    let seconds = total % 60;
    let text = if days != 0 {
        format!(
            "{days}+{:02}:{:02}:{:02}",
            hours.abs(),
            minutes.abs(),
            seconds.abs()
        )
    } else if hours != 0 {
        format!("{hours}:{:02}:{:02}", minutes.abs(), seconds.abs())
    } else if minutes != 0 {
        format!("{minutes}:{:02}", seconds.abs())
    } else {
        format!("{seconds}")
    };
    Value::string(text)
}

/// The local time zone, from `TZ` as C's `tzset` reads it.
///
/// `TZ` unset: `/etc/localtime`. `TZ` empty: UTC. `TZ=":name"` or `"name"`:
/// the TZif file `name` (absolute, or under `/usr/share/zoneinfo`);
/// otherwise a POSIX zone string such as `EST5EDT,M3.2.0,M11.1.0` or
/// `<+0530>-5:30`. Anything unreadable is UTC. The zone is read once per
/// process. We read it ourselves (no libc): `time`'s local-offset lookup
/// refuses to work in a multi-threaded process.
pub(crate) mod zone {
    use std::sync::OnceLock;

    /// A zone: TZif transitions and/or a POSIX rule.
    #[derive(Debug, Clone, Default)]
    pub struct Zone {
        transitions: Vec<i64>,
        /// The local-time type in force from each transition.
        kinds: Vec<usize>,
        types: Vec<LocalType>,
        rule: Option<Rule>,
    }

    #[derive(Debug, Clone)]
    struct LocalType {
        offset: i32,
        dst: bool,
        name: String,
    }

    /// A POSIX `TZ` rule.
    #[derive(Debug, Clone)]
    struct Rule {
        std_name: String,
        std_offset: i32,
        dst: Option<Dst>,
    }

    #[derive(Debug, Clone)]
    struct Dst {
        offset: i32,
        start: (Date, i64),
        end: (Date, i64),
    }

    #[derive(Debug, Clone, Copy)]
    enum Date {
        /// `Jn`: day 1..=365, February 29 never counted.
        Julian1(i64),
        /// `n`: day 0..=365, February 29 counted.
        Julian0(i64),
        /// `Mm.w.d`: day `d` of week `w` (5 = last) of month `m`.
        MonthWeek(i64, i64, i64),
    }

    /// The process's local zone.
    pub fn local() -> &'static Zone {
        static LOCAL: OnceLock<Zone> = OnceLock::new();
        LOCAL.get_or_init(|| from_tz(std::env::var("TZ").ok().as_deref()))
    }

    /// The zone a `TZ` value names (`None`: unset).
    pub fn from_tz(tz: Option<&str>) -> Zone {
        let Some(tz) = tz else {
            return read_tzif("/etc/localtime").unwrap_or_default();
        };
        if tz.is_empty() {
            return Zone::default();
        }
        let name = tz.strip_prefix(':').unwrap_or(tz);
        let path = if name.starts_with('/') {
            Some(name.to_string())
        } else if !name.split('/').any(|part| part == "..") && !name.is_empty() {
            Some(format!("/usr/share/zoneinfo/{name}"))
        } else {
            None
        };
        if let Some(zone) = path.and_then(|p| read_tzif(&p)) {
            return zone;
        }
        parse_rule(name).map_or_else(Zone::default, |rule| Zone {
            rule: Some(rule),
            ..Zone::default()
        })
    }

    impl Zone {
        /// Seconds east of UTC in force at `utc`.
        pub fn offset_at(&self, utc: i64) -> i32 {
            self.type_at(utc).0
        }

        /// Offset and daylight-saving flag at `utc`.
        pub fn offset_and_dst(&self, utc: i64) -> (i32, bool) {
            self.type_at(utc)
        }

        fn type_at(&self, utc: i64) -> (i32, bool) {
            let after_last = self.transitions.last().is_none_or(|&last| utc >= last);
            if after_last && let Some(rule) = &self.rule {
                return rule.type_at(utc);
            }
            let kind = match self.transitions.partition_point(|&t| t <= utc) {
                0 => 0,
                n => self.kinds[n - 1],
            };
            self.types
                .get(kind)
                .map_or((0, false), |t| (t.offset, t.dst))
        }

        /// The standard-time offset (C's `timezone`, negated).
        pub fn standard_offset(&self) -> i32 {
            if let Some(rule) = &self.rule {
                return rule.std_offset;
            }
            self.last_standard().map_or(0, |t| t.offset)
        }

        /// The standard-time abbreviation (C's `tzname[0]`).
        pub fn standard_name(&self) -> &str {
            if let Some(rule) = &self.rule {
                return &rule.std_name;
            }
            self.last_standard().map_or("UTC", |t| t.name.as_str())
        }

        fn last_standard(&self) -> Option<&LocalType> {
            self.kinds
                .iter()
                .rev()
                .map(|&k| &self.types[k])
                .find(|t| !t.dst)
                .or_else(|| self.types.iter().find(|t| !t.dst))
        }
    }

    impl Rule {
        fn type_at(&self, utc: i64) -> (i32, bool) {
            let Some(dst) = &self.dst else {
                return (self.std_offset, false);
            };
            let local_std = utc.saturating_add(i64::from(self.std_offset));
            let (year, _, _) = classad_vm::print::civil_from_days(local_std.div_euclid(86_400));
            // Transition instants in UTC: start is in standard time, end in
            // daylight time.
            let start = day_of(dst.start.0, year)
                .saturating_mul(86_400)
                .saturating_add(dst.start.1)
                .saturating_sub(i64::from(self.std_offset));
            let end = day_of(dst.end.0, year)
                .saturating_mul(86_400)
                .saturating_add(dst.end.1)
                .saturating_sub(i64::from(dst.offset));
            let in_dst = if start <= end {
                start <= utc && utc < end
            } else {
                !(end <= utc && utc < start)
            };
            if in_dst {
                (dst.offset, true)
            } else {
                (self.std_offset, false)
            }
        }
    }

    /// Days since the epoch of a rule's date in `year`.
    fn day_of(date: Date, year: i64) -> i64 {
        use classad_vm::print::days_from_civil;
        let jan1 = days_from_civil(year, 1, 1);
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        match date {
            Date::Julian0(n) => jan1 + n,
            Date::Julian1(n) => jan1 + n - 1 + i64::from(leap && n >= 60),
            Date::MonthWeek(m, w, d) => {
                let m = m.clamp(1, 12);
                let first = days_from_civil(year, m as u32, 1);
                // 1970-01-01 was a Thursday (4).
                let first_wday = (first + 4).rem_euclid(7);
                let mut day = first + (d - first_wday).rem_euclid(7) + (w.clamp(1, 5) - 1) * 7;
                let next = if m == 12 {
                    days_from_civil(year + 1, 1, 1)
                } else {
                    days_from_civil(year, m as u32 + 1, 1)
                };
                while day >= next {
                    day -= 7;
                }
                day
            }
        }
    }

    /// Reads a POSIX `TZ` string: `std offset [dst [offset] [,start[/time],end[/time]]]`.
    fn parse_rule(text: &str) -> Option<Rule> {
        let mut s = text.as_bytes();
        let std_name = zone_name(&mut s)?;
        let std_offset = -hms(&mut s)?;
        if s.is_empty() {
            return Some(Rule {
                std_name,
                std_offset: i32::try_from(std_offset).ok()?,
                dst: None,
            });
        }
        let _dst_name = zone_name(&mut s)?;
        let dst_offset = if s
            .first()
            .is_some_and(|c| c.is_ascii_digit() || *c == b'+' || *c == b'-')
        {
            -hms(&mut s)?
        } else {
            std_offset + 3600
        };
        let (start, end) = if s.is_empty() {
            // glibc's default rule (United States since 2007).
            (
                (Date::MonthWeek(3, 2, 0), 7200),
                (Date::MonthWeek(11, 1, 0), 7200),
            )
        } else {
            s = s.strip_prefix(b",")?;
            let start = date_time(&mut s)?;
            s = s.strip_prefix(b",")?;
            let end = date_time(&mut s)?;
            (start, end)
        };
        if !s.is_empty() {
            return None;
        }
        Some(Rule {
            std_name,
            std_offset: i32::try_from(std_offset).ok()?,
            dst: Some(Dst {
                offset: i32::try_from(dst_offset).ok()?,
                start,
                end,
            }),
        })
    }

    fn zone_name(s: &mut &[u8]) -> Option<String> {
        let (name, rest) = if let Some(rest) = s.strip_prefix(b"<") {
            let close = rest.iter().position(|&c| c == b'>')?;
            (&rest[..close], &rest[close + 1..])
        } else {
            let len = s.iter().take_while(|c| c.is_ascii_alphabetic()).count();
            (&s[..len], &s[len..])
        };
        if name.len() < 3 {
            return None;
        }
        *s = rest;
        Some(String::from_utf8_lossy(name).into_owned())
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds.
    fn hms(s: &mut &[u8]) -> Option<i64> {
        let negative = match s.first() {
            Some(b'-') => {
                *s = &s[1..];
                true
            }
            Some(b'+') => {
                *s = &s[1..];
                false
            }
            _ => false,
        };
        let mut total = 0;
        for (i, scale) in [3600, 60, 1].into_iter().enumerate() {
            if i > 0 {
                match s.strip_prefix(b":") {
                    Some(rest) => *s = rest,
                    None => break,
                }
            }
            let len = s.iter().take_while(|c| c.is_ascii_digit()).take(3).count();
            if len == 0 {
                return None;
            }
            let value: i64 = std::str::from_utf8(&s[..len]).ok()?.parse().ok()?;
            total += value * scale;
            *s = &s[len..];
        }
        Some(if negative { -total } else { total })
    }

    fn number(s: &mut &[u8]) -> Option<i64> {
        let len = s.iter().take_while(|c| c.is_ascii_digit()).take(4).count();
        let value = std::str::from_utf8(&s[..len]).ok()?.parse().ok()?;
        *s = &s[len..];
        Some(value)
    }

    fn date_time(s: &mut &[u8]) -> Option<(Date, i64)> {
        let date = if let Some(rest) = s.strip_prefix(b"J") {
            *s = rest;
            Date::Julian1(number(s)?.clamp(1, 365))
        } else if let Some(rest) = s.strip_prefix(b"M") {
            *s = rest;
            let m = number(s)?;
            *s = s.strip_prefix(b".")?;
            let w = number(s)?;
            *s = s.strip_prefix(b".")?;
            let d = number(s)?;
            if !(1..=12).contains(&m) || !(1..=5).contains(&w) || d > 6 {
                return None;
            }
            Date::MonthWeek(m, w, d)
        } else {
            Date::Julian0(number(s)?.clamp(0, 365))
        };
        let time = match s.strip_prefix(b"/") {
            Some(rest) => {
                *s = rest;
                hms(s)?
            }
            None => 7200,
        };
        Some((date, time))
    }

    /// Reads a TZif file (RFC 8536), version 1 or the 64-bit data of
    /// version 2 and later with its footer rule.
    fn read_tzif(path: &str) -> Option<Zone> {
        let data = std::fs::read(path).ok()?;
        parse_tzif(&data)
    }

    fn be32(data: &[u8], at: usize) -> Option<u32> {
        Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
    }

    /// Parses TZif data.
    pub fn parse_tzif(data: &[u8]) -> Option<Zone> {
        if data.get(..4)? != b"TZif" {
            return None;
        }
        let version = *data.get(4)?;
        let counts = |at: usize| -> Option<[usize; 6]> {
            let mut c = [0usize; 6];
            for (i, slot) in c.iter_mut().enumerate() {
                *slot = be32(data, at + 20 + 4 * i)? as usize;
            }
            Some(c)
        };
        let [isut, isstd, leap, time, kinds, chars] = counts(0)?;
        let v1_len = time * 5 + kinds * 6 + chars + leap * 8 + isstd + isut;
        let (base, time_size, [isut, isstd, leap, time, kinds, chars]) = if version >= b'2' {
            let second = 44 + v1_len;
            if data.get(second..second + 4)? != b"TZif" {
                return None;
            }
            (second + 44, 8, counts(second)?)
        } else {
            (44, 4, [isut, isstd, leap, time, kinds, chars])
        };
        let mut zone = Zone::default();
        let mut at = base;
        for _ in 0..time {
            let t = if time_size == 8 {
                i64::from_be_bytes(data.get(at..at + 8)?.try_into().ok()?)
            } else {
                i64::from(be32(data, at)? as i32)
            };
            zone.transitions.push(t);
            at += time_size;
        }
        for _ in 0..time {
            zone.kinds.push(usize::from(*data.get(at)?));
            at += 1;
        }
        let type_at = at;
        let chars_at = type_at + kinds * 6;
        let names = data.get(chars_at..chars_at + chars)?;
        for k in 0..kinds {
            let p = type_at + k * 6;
            let offset = be32(data, p)? as i32;
            let dst = *data.get(p + 4)? != 0;
            let index = usize::from(*data.get(p + 5)?);
            let name = names.get(index..).unwrap_or_default();
            let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
            zone.types.push(LocalType {
                offset,
                dst,
                name: String::from_utf8_lossy(&name[..end]).into_owned(),
            });
        }
        if zone.types.is_empty() || zone.kinds.iter().any(|&k| k >= zone.types.len()) {
            return None;
        }
        if version >= b'2' {
            let footer_at = chars_at + chars + leap * 12 + isstd + isut;
            let footer = data.get(footer_at..).unwrap_or_default();
            if let Some(rest) = footer.strip_prefix(
                b"
",
            ) && let Some(end) = rest.iter().position(|&c| c == b'\n')
            {
                zone.rule = parse_rule(&String::from_utf8_lossy(&rest[..end]));
            }
        }
        Some(zone)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn posix_rules() {
            let utc = from_tz(Some(""));
            assert_eq!(utc.offset_at(0), 0);
            let fixed = from_tz(Some("<+0530>-5:30"));
            assert_eq!(fixed.offset_at(0), 19_800);
            assert_eq!(fixed.standard_name(), "+0530");
            let us = parse_rule("EST5EDT,M3.2.0,M11.1.0").map(|rule| Zone {
                rule: Some(rule),
                ..Zone::default()
            });
            let us = us.unwrap_or_default();
            // 2021-07-01T00:00:00Z: daylight time.
            assert_eq!(us.offset_at(1_625_097_600), -4 * 3600);
            // 2021-01-01T00:00:00Z: standard time.
            assert_eq!(us.offset_at(1_609_459_200), -5 * 3600);
            // 2021-03-14T07:00:00Z is 03:00 EDT; a second before, 01:59:59 EST.
            assert_eq!(us.offset_at(1_615_705_200), -4 * 3600);
            assert_eq!(us.offset_at(1_615_705_199), -5 * 3600);
            let south = parse_rule("AEST-10AEDT,M10.1.0,M4.1.0/3").map(|rule| Zone {
                rule: Some(rule),
                ..Zone::default()
            });
            let south = south.unwrap_or_default();
            assert_eq!(south.offset_at(1_609_459_200), 11 * 3600);
            assert_eq!(south.offset_at(1_625_097_600), 10 * 3600);
            assert!(parse_rule("X5").is_none());
            assert_eq!(from_tz(Some("garbage!")).offset_at(0), 0);
        }

        #[test]
        fn tzif_files_when_present() {
            if let Some(zone) = read_tzif("/usr/share/zoneinfo/America/New_York") {
                assert_eq!(zone.offset_at(1_625_097_600), -4 * 3600);
                assert_eq!(zone.offset_at(1_609_459_200), -5 * 3600);
                // Far future: the footer rule.
                assert_eq!(zone.offset_at(4_102_444_800 + 180 * 86_400), -4 * 3600);
                assert_eq!(zone.standard_name(), "EST");
            }
            assert!(parse_tzif(b"TZif2").is_none());
            assert!(parse_tzif(b"").is_none());
        }
    }
}
