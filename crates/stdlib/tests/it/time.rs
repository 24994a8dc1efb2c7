//! Time functions: absTime, currentTime, dayTime, formatTime, getDay*,
//! getDays, getHours, getMinutes, getMonth, getSeconds, getYear, interval,
//! relTime, splitTime, time, timeZoneOffset.
//!
//! Expected values agree with HTCondor 25.14 (checked with the oracle;
//! `tests/corpus/functions_time.txt` holds more). Results in the local
//! zone need `TZ=UTC`: a test run under another zone re-runs itself in a
//! child process with `TZ=UTC`. The clock is injected (`Vm::set_clock`).

use classad::{Value, Vm, compile, empty_ad, syntax::parse_expression};
use std::process::Command;

/// 2020-09-13T12:26:40.25Z, a Sunday.
const NOW: f64 = 1_600_000_000.25;

fn eval_at(expr: &str, clock: fn() -> f64) -> Value {
    let program = compile(&parse_expression(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}")))
        .unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    let mut vm = Vm::default();
    vm.set_clock(clock);
    vm.evaluate(&program, &empty_ad())
}

fn check(cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        let value = eval_at(expr, || NOW);
        assert_eq!(format!("{value:?}"), *expected, "{expr}");
    }
}

/// The name of test `name` of this module as the test binary knows it:
/// with its module's path in the binary (`time::abs_time` in `tests/it`).
fn full_name(name: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_string(),
    }
}

/// Whether this process runs in `tz`; if not, runs test `name` in a child
/// process with `TZ=tz` and checks it passed.
fn run_in_zone(name: &str, tz: &str) -> bool {
    if std::env::var("TZ").as_deref() == Ok(tz) {
        return true;
    }
    let exe = std::env::current_exe().expect("test executable");
    let output = Command::new(exe)
        .args(["--exact", &full_name(name), "--test-threads=1"])
        .env("TZ", tz)
        .output()
        .expect("run child test");
    assert!(
        output.status.success() && String::from_utf8_lossy(&output.stdout).contains("1 passed"),
        "{name} under TZ={tz}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

#[test]
fn abs_time() {
    if !run_in_zone("abs_time", "UTC") {
        return;
    }
    check(&[
        ("absTime()", r#"absTime("2020-09-13T12:26:40-00:00")"#),
        ("absTime(0)", r#"absTime("1970-01-01T00:00:00-00:00")"#),
        ("absTime(-5)", r#"absTime("1969-12-31T23:59:55-00:00")"#),
        (
            "absTime(100, 3600)",
            r#"absTime("1970-01-01T01:01:40+01:00")"#,
        ),
        (
            "absTime(100, 3600.7)",
            r#"absTime("1970-01-01T01:01:40+01:00")"#,
        ),
        (
            "absTime(100, relTime(-1800))",
            r#"absTime("1969-12-31T23:31:40-00:30")"#,
        ),
        // A C int: the low 32 bits of an integer, a real truncated.
        (
            "absTime(8589934592)",
            r#"absTime("1970-01-01T00:00:00-00:00")"#,
        ),
        ("absTime(1.5e10)", r#"absTime("1901-12-13T20:45:52-00:00")"#),
        (
            "absTime(relTime(100))",
            r#"absTime("1970-01-01T00:01:40-00:00")"#,
        ),
        ("absTime(100, \"x\")", "error"),
        ("absTime(100, undefined)", "error"),
        ("absTime(undefined, 5)", "undefined"),
        ("absTime(true)", "error"),
        ("absTime({1})", "error"),
    ]);
}

#[test]
fn current_time() {
    if !run_in_zone("current_time", "UTC") {
        return;
    }
    check(&[
        ("currentTime()", r#"absTime("2020-09-13T12:26:40-00:00")"#),
        ("currentTime() == absTime(1600000000)", "true"),
    ]);
}

#[test]
fn day_time() {
    if !run_in_zone("day_time", "UTC") {
        return;
    }
    check(&[("dayTime()", "relTime(44800)")]);
}

#[test]
fn fixed_offset_zone() {
    if !run_in_zone("fixed_offset_zone", "<+0530>-5:30") {
        return;
    }
    check(&[
        ("timeZoneOffset()", "relTime(19800)"),
        ("absTime(0)", r#"absTime("1970-01-01T05:30:00+05:30")"#),
        ("getHours(absTime(0, 0))", "5"),
        ("getMinutes(absTime(0, 0))", "30"),
        ("dayTime()", "relTime(64600)"),
        (
            "formatTime(0, \"%H:%M %Z %z %s\")",
            r#""05:30 +0530 +0000 0""#,
        ),
        ("splitTime(0).Offset", "19800"),
        ("splitTime(absTime(0, 0)).Hours", "0"),
    ]);
}

#[test]
fn daylight_saving_zone() {
    if !run_in_zone("daylight_saving_zone", "EST5EDT,M3.2.0,M11.1.0") {
        return;
    }
    check(&[
        ("timeZoneOffset()", "relTime(-14400)"),
        ("getHours(absTime(1600000000))", "8"),
        ("getHours(absTime(1577836800))", "19"),
        (
            "formatTime(1577836800, \"%F %T %Z\")",
            r#""2019-12-31 19:00:00 EST""#,
        ),
        ("formatTime(1600000000, \"%T\")", r#""08:26:40""#),
    ]);
}

#[test]
fn format_time() {
    if !run_in_zone("format_time", "UTC") {
        return;
    }
    check(&[
        ("formatTime()", r#""Sun Sep 13 12:26:40 2020""#),
        ("formatTime(0)", r#""Thu Jan  1 00:00:00 1970""#),
        (
            "formatTime(-1, \"%c %s\")",
            r#""Wed Dec 31 23:59:59 1969 -1""#,
        ),
        ("formatTime(1.9, \"%S\")", r#""01""#),
        (
            "formatTime(0, \"%a %A %b %B %d %H %I %j %m %M %p %S %U %w %W %x %X %y %Y %Z %%\")",
            r#""Thu Thursday Jan January 01 00 12 001 01 00 AM 00 00 4 00 01/01/70 00:00:00 70 1970 UTC %""#,
        ),
        (
            "formatTime(0, \"%e|%D|%T|%R|%r|%C|%g|%G|%V|%u|%h|%F|%k|%l|%P\")",
            r#"" 1|01/01/70|00:00:00|00:00|12:00:00 AM|19|70|1970|01|4|Jan|1970-01-01| 0|12|am""#,
        ),
        ("formatTime(0, \"%n%t\")", r#""\n\t""#),
        // Unknown conversions are copied; a lone % at the end too.
        ("formatTime(0, \"%q %Ea %+ 100%\")", r#""%q %Ea %+ 100%""#),
        // Flags and widths as glibc reads them.
        (
            "formatTime(0, \"%-d|%_d|%0e|%^a|%#b|%10Y|%_5j|%5%|%#p|%#Z\")",
            r#""1| 1|01|THU|JAN|0000001970|    1|    %|am|utc""#,
        ),
        // An absolute time shows in its own zone; %z is always +0000.
        (
            "formatTime(absTime(\"2020-01-01T10:00:00+05:00\"), \"%H %Z %z\")",
            r#""10 UTC +0000""#,
        ),
        // ISO weeks across a year boundary.
        (
            "formatTime(1609459200, \"%U %W %V %G %u %w %j\")",
            r#""00 00 53 2020 5 5 001""#,
        ),
        // Ads: missing fields are 0, Year 1900; out-of-range fields print.
        (
            "formatTime([Year=2020; Month=2; Day=30], \"%F %j %a\")",
            r#""2020-02-30 061 Sun""#,
        ),
        ("formatTime([Days=1], \"%Y|%d\")", r#""1900|00""#),
        (
            "formatTime([Year=2020; Month=13; Day=1], \"%b %p\")",
            r#""? AM""#,
        ),
        (
            "formatTime([Year=2020; Month=1; Day=1; Hours=-5], \"%H|%5H\")",
            r#""-5|-0005""#,
        ),
        (
            "formatTime([Year=-50; Month=1; Day=1], \"%C|%Y|%G|%g|%y\")",
            r#""-1|-50|-50|50|50""#,
        ),
        (
            "formatTime([Year=-1029; Month=1; Day=1], \"%a|%w\")",
            r#""?|-4""#,
        ),
        ("size(formatTime(0, \"%1022Y\"))", "1022"),
        ("formatTime(relTime(5))", "error"),
        ("formatTime(undefined)", "error"),
        ("formatTime(\"x\")", "error"),
        ("formatTime(0, undefined)", "error"),
        ("formatTime(0, 5)", "error"),
    ]);
    // Huge values and widths never panic.
    for expr in [
        "formatTime(absTime(0) + relTime(1e300))",
        "formatTime(absTime(-9223372036854775807 - 1, 0) - relTime(1e30))",
        "formatTime([Year=9223372036854775807; Month=-9223372036854775807; Day=9223372036854775807])",
        "formatTime(0, \"%99999999999999999999999Y\")",
        "getYear(absTime(0) + relTime(1e300))",
    ] {
        assert!(
            matches!(eval_at(expr, || NOW), Value::Str(_) | Value::Int(_)),
            "{expr}"
        );
    }
}

#[test]
fn get_day_of_month() {
    check(&[
        ("getDayOfMonth(absTime(1600000000))", "13"),
        ("getDayOfMonth(relTime(5))", "error"),
    ]);
}

#[test]
fn get_day_of_week() {
    check(&[
        ("getDayOfWeek(absTime(1600000000))", "0"),
        ("getDayOfWeek(5)", "error"),
    ]);
}

#[test]
fn get_day_of_year() {
    check(&[
        ("getDayOfYear(absTime(1600000000))", "256"),
        ("getDayOfYear(relTime(5))", "error"),
    ]);
}

#[test]
fn get_days() {
    check(&[
        ("getDays(relTime(90061))", "1"),
        ("getDays(relTime(-90061))", "-1"),
        // A C int: 1e15 seconds become the minimum 32-bit integer.
        ("getDays(relTime(1e15))", "-24855"),
        ("getDays(absTime(0))", "error"),
        ("getDays(undefined)", "error"),
    ]);
}

#[test]
fn get_hours() {
    if !run_in_zone("get_hours", "UTC") {
        return;
    }
    check(&[
        // The local zone, not the value's own offset.
        ("getHours(absTime(\"2020-01-01T10:00:00+05:00\"))", "5"),
        ("getHours(relTime(90061))", "1"),
        ("getHours(relTime(-3661))", "-1"),
        ("getHours(undefined)", "error"),
    ]);
}

#[test]
fn get_minutes() {
    check(&[
        ("getMinutes(relTime(-3661))", "-1"),
        ("getMinutes(relTime(59.9))", "0"),
        ("getMinutes(\"x\")", "error"),
    ]);
}

#[test]
fn get_month() {
    check(&[
        ("getMonth(absTime(1600000000))", "9"),
        ("getMonth(relTime(5))", "error"),
    ]);
}

#[test]
fn get_seconds() {
    check(&[
        ("getSeconds(absTime(-1))", "59"),
        ("getSeconds(relTime(-3661.5))", "-1"),
        ("getSeconds(relTime(59.9))", "59"),
        ("getSeconds(error)", "error"),
    ]);
}

#[test]
fn get_year() {
    check(&[
        ("getYear(absTime(1600000000))", "2020"),
        ("getYear(relTime(5))", "error"),
        ("getYear(5)", "error"),
    ]);
}

#[test]
fn interval() {
    check(&[
        ("interval(0)", r#""0""#),
        ("interval(67)", r#""1:07""#),
        // The spec's example says "17+1:02:03"; HTCondor pads the hours.
        ("interval(1472523)", r#""17+01:02:03""#),
        ("interval(-90061)", r#""-1+01:01:01""#),
        ("interval(-61)", r#""-1:01""#),
        ("interval(59.9)", r#""59""#),
        ("interval(\"1.9e3\")", r#""31:40""#),
        ("interval(true)", r#""1""#),
        ("interval(relTime(-3600.5))", r#""-1:00:00""#),
        // A C int: the low 32 bits.
        ("interval(4294967296 + 5)", r#""5""#),
        ("interval(1e30)", r#""0""#),
        ("interval(\"abc\")", "error"),
        ("interval(undefined)", "error"),
        ("interval({1})", "error"),
    ]);
}

#[test]
fn rel_time() {
    check(&[
        ("relTime(90061)", "relTime(90061)"),
        ("relTime(-5.5)", "relTime(-5.500000000000000E+00)"),
        ("relTime(absTime(100))", "relTime(100)"),
        ("relTime(4294967296 + 7)", "relTime(7)"),
        ("string(relTime(90061))", r#""1+01:01:01""#),
        ("relTime(true)", "error"),
        ("relTime(undefined)", "undefined"),
        ("relTime()", "error"),
    ]);
}

#[test]
fn split_time() {
    if !run_in_zone("split_time", "UTC") {
        return;
    }
    check(&[
        (
            "splitTime(absTime(\"2020-01-01T10:00:00+05:00\"))",
            r#"[ Type = "AbsoluteTime"; Year = 2020; Month = 1; Day = 1; Hours = 10; Minutes = 0; Seconds = 0; Offset = 18000 ]"#,
        ),
        (
            "splitTime(-1)",
            r#"[ Type = "AbsoluteTime"; Year = 1969; Month = 12; Day = 31; Hours = 23; Minutes = 59; Seconds = 59; Offset = 0 ]"#,
        ),
        ("splitTime(1.9).Seconds", "1"),
        (
            "splitTime(relTime(-90061.5))",
            r#"[ Type = "RelativeTime"; Days = -1; Hours = 1; Minutes = 1; Seconds = 1.500000000000000E+00 ]"#,
        ),
        ("splitTime(relTime(-60)).Minutes", "-1"),
        (
            "splitTime(relTime(-0.25)).Seconds",
            "-2.500000000000000E-01",
        ),
        ("splitTime(undefined)", "undefined"),
        ("splitTime(\"x\")", "error"),
        ("splitTime([a = 1])", "error"),
    ]);
}

#[test]
fn time() {
    check(&[("time()", "1600000000"), ("isInteger(time())", "true")]);
    assert!(matches!(eval_at("time()", || f64::NAN), Value::Int(0)));
    assert!(matches!(eval_at("time()", || -1.5), Value::Int(-2)));
}

#[test]
fn time_zone_offset() {
    if !run_in_zone("time_zone_offset", "UTC") {
        return;
    }
    check(&[("timeZoneOffset()", "relTime(0)")]);
}

/// The value printed as `classad eval` prints it, or `parse error` when
/// HTCondor's parser would refuse the expression (a bad time literal).
fn eval_or_refuse(expr: &str, options: classad::Options) -> String {
    let tree = parse_expression(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    match compile(&tree) {
        Err(_) => "parse error".to_string(),
        Ok(program) => {
            let mut vm = Vm::new(options);
            vm.set_clock(|| NOW);
            classad::vm::print::value_to_string(&vm.evaluate(&program, &empty_ad()))
        }
    }
}

/// Each expected value is HTCondor 25.14.1's (the oracle, `TZ=UTC`).
fn check_literals(cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        let got = eval_or_refuse(expr, classad::Options::default());
        assert_eq!(got, *expected, "{expr}");
    }
}

// relTime("...") of a literal is a real (HTCondor's parser makes it one).
#[test]
fn rel_time_literal_days_and_units() {
    check_literals(&[
        (r#"relTime("3d19:49:15")"#, "3.305550000000000E+05"),
        (r#"relTime("3D19:49:15")"#, "3.305550000000000E+05"),
        (r#"relTime("3+19:49:15")"#, "3.305550000000000E+05"),
        (r#"relTime("3 + 19:49:15")"#, "3.305550000000000E+05"),
        (r#"relTime("1+ 1m")"#, "8.646000000000000E+04"),
        (r#"relTime("1d 00:02:00.003")"#, "8.652000300000000E+04"),
        (r#"relTime("2h4.5")"#, "7.204500000000000E+03"),
        (r#"relTime("1d 1h 1m 1s")"#, "9.006100000000000E+04"),
        (r#"relTime("::5")"#, "5.000000000000000E+00"),
        (r#"relTime("-1+00:00:00")"#, "-8.640000000000000E+04"),
        (r#"relTime(".5")"#, "5.000000000000000E-01"),
        (r#"RELTIME("1m")"#, "6.000000000000000E+01"),
    ]);
}

#[test]
fn rel_time_literal_edges() {
    check_literals(&[
        (r#"relTime("1d25:61:61")"#, "1.801210000000000E+05"),
        (r#"relTime("-")"#, "-0.0"),
        (r#"relTime("")"#, "0.0"),
        (r#"relTime("s")"#, "0.0"),
        (r#"relTime("99999999999999999999d")"#, "0.0"),
        // Days, hours and minutes are summed in 32 bits.
        (r#"relTime("100000d")"#, "5.006540800000000E+07"),
        (r#"relTime("1:2:3:4")"#, "parse error"),
        (r#"relTime("1.5m")"#, "parse error"),
        (r#"relTime("1 2")"#, "parse error"),
        (r#"relTime("--5")"#, "parse error"),
        (r#"relTime("1e5")"#, "parse error"),
    ]);
}

#[test]
fn abs_time_literal_lenient() {
    check_literals(&[
        (
            r#"absTime("2003/01/25")"#,
            r#"absTime("2003-01-25T00:00:00-00:00")"#,
        ),
        (
            r#"absTime("2003-1-25")"#,
            r#"absTime("2003-01-25T00:00:00-00:00")"#,
        ),
        (
            r#"absTime("2003-01-25   09:00:00 -0600")"#,
            r#"absTime("2003-01-25T09:00:00-06:00")"#,
        ),
        (
            r#"absTime("2003-01-25 09")"#,
            r#"absTime("2003-01-25T09:00:00-00:00")"#,
        ),
        (
            r#"absTime("2012-02")"#,
            r#"absTime("2012-01-31T00:00:00-00:00")"#,
        ),
        (
            r#"absTime("2012")"#,
            r#"absTime("2011-12-31T00:00:00-00:00")"#,
        ),
        (
            r#"absTime("x2003y01z25")"#,
            r#"absTime("2003-01-25T00:00:00-00:00")"#,
        ),
        (
            r#"absTime("2003-12-99T99:99:99")"#,
            r#"absTime("2004-03-12T04:40:39-00:00")"#,
        ),
        (
            r#"absTime("2003-01-25T09:00:00+99:99")"#,
            "absTime(1043122860, 362340)",
        ),
        (r#"absTime("2003-1-5")"#, "parse error"),
        (r#"absTime("201")"#, "parse error"),
        (r#"absTime("garbage")"#, "parse error"),
    ]);
}

#[test]
fn abs_time_literal_edges() {
    check_literals(&[
        (
            r#"absTime("-0001-01-01T00:00:00Z")"#,
            "absTime(\"0001-01-01T00:00:00-00:00\")",
        ),
        (
            r#"string(absTime("-0001-01-01T00:00:00Z"))"#,
            r#""1-01-01T00:00:00-00:00""#,
        ),
        // mktime's -1 is taken for an error.
        (r#"absTime("1969-12-31T23:59:59Z")"#, "parse error"),
        (r#"absTime("1969-12-31T23:59:59+01:00")"#, "parse error"),
        (
            r#"absTime("1969-12-31T23:59:58Z")"#,
            r#"absTime("1969-12-31T23:59:58-00:00")"#,
        ),
    ]);
}

#[test]
fn time_literal_unparse_canonical() {
    check_literals(&[
        (
            r#"[a = relTime("3d19:49:15"); b = unparse(a)].b"#,
            r#""relTime(\"3+19:49:15\")""#,
        ),
        (
            r#"[a = relTime("1d 00:02:00.003"); b = unparse(a)].b"#,
            r#""relTime(\"1+00:02:0.003\")""#,
        ),
        (
            r#"[a = relTime("-1.5"); b = unparse(a)].b"#,
            r#""relTime(\"-1.5\")""#,
        ),
        (
            r#"[a = relTime("-"); b = unparse(a)].b"#,
            r#""relTime(\"00\")""#,
        ),
        (
            r#"[a = relTime("24856d"); b = unparse(a)].b"#,
            r#""relTime(\"-24854+06:28:16\")""#,
        ),
        (
            r#"[a = RELTIME("3d"); b = unparse(a)].b"#,
            r#""relTime(\"3+00:00:00\")""#,
        ),
        (
            r#"[a = absTime("2003-01-25"); b = unparse(a)].b"#,
            r#""absTime(\"2003-01-25T00:00:00-00:00\")""#,
        ),
        (
            r#"[a = absTime("-0001-01-01T00:00:00Z"); b = unparse(a)].b"#,
            r#""absTime(\"1-01-01T00:00:00-00:00\")""#,
        ),
        // Not a literal: left as written.
        (
            r#"[a = relTime(("3d")); b = unparse(a)].b"#,
            r#""relTime((\"3d\"))""#,
        ),
    ]);
}

#[test]
fn run_time_time_strings() {
    check_literals(&[
        (r#"absTime(strcat("2003", "-01-25"))"#, r#""2003-01-25""#),
        (r#"absTime(strcat("x"), 3600)"#, r#""x""#),
        (r#"absTime(strcat("x"), "a")"#, "error"),
        (r#"relTime(strcat("3d"))"#, "relTime(0)"),
        (r#"relTime(strcat("x"))"#, "relTime(0)"),
        (r#"relTime(strcat("x"), 1)"#, "error"),
        (r#"relTime(("garbage"))"#, "relTime(0)"),
        (r#"[s = "3d"; r = relTime(s)].r"#, "relTime(0)"),
    ]);
    let read = classad::Options {
        read_time_strings: true,
        ..classad::Options::default()
    };
    for (expr, expected) in [
        (
            r#"absTime(strcat("2003", "-01-25"))"#,
            r#"absTime("2003-01-25T00:00:00-00:00")"#,
        ),
        (r#"absTime(strcat("x"))"#, "error"),
        (r#"relTime(strcat("3d"))"#, "relTime(259200)"),
        (r#"relTime(strcat("x"))"#, "error"),
    ] {
        assert_eq!(eval_or_refuse(expr, read), expected, "{expr}");
    }
}

#[test]
fn abs_time_offset_minus_one() {
    check_literals(&[
        // HTCondor's evaluation fails: ERROR.
        ("absTime(0, -1)", "error"),
        ("absTime(0.0, -1)", "absTime(0, -1)"),
        ("string(absTime(0, -59))", r#""1969-12-31T23:59:01-00:00""#),
        ("string(absTime(0, -60))", r#""1969-12-31T23:59:00-00:01""#),
    ]);
}

#[test]
fn format_time_modifiers() {
    check_literals(&[
        (r#"formatTime(0, "%Q%E%O%5")"#, r#""%Q%O   %5""#),
        (r#"formatTime(0, "%E%")"#, r#""%""#),
        (r#"formatTime(1e9, "u%Op")"#, r#""uAM""#),
        (r#"formatTime(2147483647, "%OG")"#, r#""2038""#),
        (r#"formatTime(0, "%Ez|%OC|%Ol")"#, r#""+0000|19|12""#),
        (r#"formatTime(0, "%Ea|%Oa|%OY")"#, r#""%Ea|%Oa|%OY""#),
    ]);
}

#[test]
fn abs_time_literal_in_local_zone() {
    if !run_in_zone("abs_time_literal_in_local_zone", "EST5EDT,M4.1.0,M10.5.0") {
        return;
    }
    check_literals(&[
        (
            r#"absTime("2003-01-25")"#,
            r#"absTime("2003-01-25T00:00:00-05:00")"#,
        ),
        (
            r#"absTime("2003-07-25")"#,
            r#"absTime("2003-07-25T00:00:00-04:00")"#,
        ),
        (
            r#"absTime("2003-07-25T12:00:00-0600")"#,
            r#"absTime("2003-07-25T12:00:00-06:00")"#,
        ),
        (
            r#"absTime("2003-04-06T02:30:00")"#,
            r#"absTime("2003-04-06T02:30:00-04:00")"#,
        ),
        (r#"absTime("1969-12-31T18:59:59")"#, "parse error"),
    ]);
}

// A selection over a list stores a relative time as HTCondor's literal:
// its whole seconds, a real where it is used, written as a relative time
// (class 2 of tests/gen/known_bugs.txt). Printed so that it reads back: the
// minimum `int`, whose text HTCondor garbles, as its seconds.
#[test]
fn rel_time_selected_over_list() {
    check_literals(&[
        ("{[a = relTime(-2.5)]}.a", r#"{ relTime("-02") }"#),
        ("{[a = relTime(90.7)]}.a[0]", "9.000000000000000E+01"),
        ("isReltime({[a = relTime(90)]}.a[0])", "false"),
        ("{[a = relTime(1e308)]}.a", r#"{ relTime("-2147483648") }"#),
        ("{[a = relTime(1e308)]}.a[0]", "-2.147483648000000E+09"),
        // What the list above prints reads back to the same real.
        (r#"relTime("-2147483648")"#, "-2.147483648000000E+09"),
        (r#"{ relTime("-02") }[0]"#, "-2.000000000000000E+00"),
        (
            "{[a = {[b = relTime(5.5)]}]}.a.b",
            r#"{ { relTime("05") } }"#,
        ),
        // A list written with a relTime keeps it.
        ("{relTime(90.5)}[0]", "relTime(9.050000000000000E+01)"),
    ]);
}

#[test]
fn abs_time_printed_so_it_reads_back() {
    check_literals(&[
        ("absTime(9223372036854775807)", "absTime(-1, 0)"),
        ("absTime(0, -59)", "absTime(0, -59)"),
        ("absTime(0, 360000)", "absTime(0, 360000)"),
        ("absTime(0, 60)", r#"absTime("1970-01-01T00:01:00+00:01")"#),
    ]);
}

#[test]
fn format_time_seconds_and_offset_padding() {
    check_literals(&[
        (r#"formatTime(0, "[%3s]")"#, r#""[  0]""#),
        (r#"formatTime(-5, "[%03s]")"#, r#""[0-5]""#),
        (r#"formatTime(0, "[%5z]")"#, r#""[    +00000]""#),
        (r#"formatTime(0, "[%_z]")"#, r#""[+   0]""#),
        (r#"formatTime(0, "[%-z]")"#, r#""[+0]""#),
        (r#"formatTime(0, "[%07z]")"#, r#""[000000+0000000]""#),
    ]);
}

#[test]
fn time_literal_message_is_one_line() {
    for byte in (1u8..0x20).chain([0x7f]) {
        let expr = format!("relTime(\"x\\{byte:03o}\")");
        let tree = parse_expression(&expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"));
        let message = compile(&tree).err().map(|e| e.to_string());
        let message = message.unwrap_or_else(|| panic!("{expr} compiled"));
        assert!(
            !message.contains(|c: char| c.is_control()),
            "{expr}: {message:?}"
        );
    }
}

// An ad a function made (`splitTime`) has no enclosing ad: `root` and
// `toplevel` selected from it are the root of the evaluation, as in
// HTCondor (found by the generated difftest, `--library`).
#[test]
fn root_of_an_ad_a_function_made_is_the_root_of_the_evaluation() {
    check(&[
        ("splitTime(absTime(-1)).root", "[  ]"),
        ("splitTime(absTime(-1)).toplevel", "[  ]"),
        ("[q = 5; r = splitTime(absTime(-1)).root].r", "[  ]"),
        ("[q = 5; r = splitTime(relTime(3)).root.q].r", "undefined"),
        ("splitTime(absTime(-1)).parent", "undefined"),
        ("splitTime(relTime(3)).self.Hours", "0"),
    ]);
}

/// Class: the weekday of far years. HTCondor counts days from year 1 in a
/// C int, so past about year 5,880,000 either way the count wraps and the
/// weekday with it (a negative `%w`, `?` for `%a`).
#[test]
fn weekday_of_far_years_wraps_as_a_c_int() {
    if !run_in_zone("weekday_of_far_years_wraps_as_a_c_int", "UTC") {
        return;
    }
    check(&[
        (
            r#"formatTime(185542587187199, "%w %a %U %j %Y")"#,
            r#""-6 ? 29 193 5881580""#,
        ),
        (r#"formatTime(1000000000000000, "%w %u")"#, r#""-5 2""#),
        (r#"formatTime(-1000000000000000, "%w %a")"#, r#""6 Sat""#),
        (r#"formatTime(67767976233316800, "%w %U")"#, r#""-4 53""#),
        (
            r#"formatTime(-185542587187200, "%w %Y")"#,
            r#""-4 -5877641""#,
        ),
    ]);
}

/// Class: the calendar fields of dates in year 0 and before (known_bugs
/// class 10, found by gen-exprs --outside). `getDayOfWeek` and the other
/// `get*` functions read glibc's `localtime_r`, proleptic Gregorian with
/// floor division (0000-01-01 a Saturday); `formatTime` recomputes the
/// weekday with HTCondor's `day_numbers`, truncating division (a Sunday,
/// and a negative `%w` the day after).
#[test]
fn calendar_fields_of_year_zero_and_before() {
    if !run_in_zone("calendar_fields_of_year_zero_and_before", "UTC") {
        return;
    }
    check(&[
        (r#"getDayOfWeek(absTime("0000-01-01T00:00:00Z"))"#, "6"),
        (r#"getDayOfWeek(absTime("+1:00"))"#, "0"),
        (r#"getDayOfWeek(absTime("0x10"))"#, "5"),
        (r#"getDayOfYear(absTime("0000-12-31T00:00:00Z"))"#, "365"),
        (
            r#"getDayOfYear(absTime("0000-01-01T00:00:00Z") - relTime(86400))"#,
            "364",
        ),
        (
            r#"getYear(absTime("0000-01-01T00:00:00Z") - relTime(2147483647))"#,
            "-69",
        ),
        (
            r#"getDayOfWeek(absTime("0000-01-01T00:00:00Z") - relTime(2147483647))"#,
            "0",
        ),
        (
            r#"formatTime(absTime("0000-01-01T00:00:00Z"), "%w %a %j")"#,
            r#""0 Sun 001""#,
        ),
        (
            r#"formatTime(absTime("0000-01-02T00:00:00Z"), "%w %a %u")"#,
            r#""-6 ? 1""#,
        ),
    ]);
}
