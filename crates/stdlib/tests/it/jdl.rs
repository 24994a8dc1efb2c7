//! The JDL dialect's functions (spec 004): InDays, InHours, InMinutes,
//! InSeconds, IsMember, MakeAbsTime, MakeDate, MakeRelTime. They exist
//! only in `jdl_registry()`; the standard registry does not have them.

use classad::{Value, Vm, compiler::Compiler, empty_ad, stdlib, syntax::parse_expression};
use std::process::Command;

/// 2020-09-13T12:26:40Z.
const NOW: f64 = 1_600_000_000.0;

fn eval(expr: &str) -> Value {
    let registry = stdlib::jdl::jdl_registry();
    let tree = parse_expression(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    let program = Compiler::new(&registry)
        .compile(&tree)
        .unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    let mut vm = Vm::default();
    vm.set_clock(|| NOW);
    vm.evaluate(&program, &empty_ad())
}

fn check(cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        assert_eq!(format!("{:?}", eval(expr)), *expected, "{expr}");
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

/// Runs test `name` in a child process with `TZ=UTC` unless this one is.
fn in_utc(name: &str) -> bool {
    if std::env::var("TZ").as_deref() == Ok("UTC") {
        return true;
    }
    let exe = std::env::current_exe().expect("test executable");
    let output = Command::new(exe)
        .args(["--exact", &full_name(name)])
        .env("TZ", "UTC")
        .output()
        .expect("run child test");
    assert!(
        output.status.success() && String::from_utf8_lossy(&output.stdout).contains("1 passed"),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

#[test]
fn default_registry_lacks_them() {
    let standard = stdlib::standard_registry();
    for name in [
        "MakeDate",
        "MakeAbsTime",
        "MakeRelTime",
        "InDays",
        "InHours",
        "InMinutes",
        "InSeconds",
        "IsMember",
    ] {
        assert!(standard.get(name).is_none(), "{name}");
        assert!(stdlib::jdl::jdl_registry().get(name).is_some(), "{name}");
    }
    assert_eq!(
        stdlib::jdl::jdl_registry().len(),
        standard.len() + stdlib::jdl::jdl_builtins().len()
    );
    assert!(matches!(
        classad::evaluate_str("InDays(relTime(86400))"),
        Ok(Value::Error)
    ));
}

#[test]
fn in_days() {
    check(&[
        ("InDays(relTime(129600))", "1.500000000000000E+00"),
        ("InDays(absTime(86400, 3600))", "1.000000000000000E+00"),
        ("InDays(5)", "error"),
        ("InDays(undefined)", "undefined"),
    ]);
}

#[test]
fn in_hours() {
    check(&[
        ("InHours(relTime(-5400))", "-1.500000000000000E+00"),
        ("InHours(\"1\")", "error"),
    ]);
}

#[test]
fn in_minutes() {
    check(&[
        ("InMinutes(relTime(90))", "1.500000000000000E+00"),
        ("InMinutes(error)", "error"),
    ]);
}

#[test]
fn in_seconds() {
    check(&[
        ("InSeconds(relTime(0.25))", "2.500000000000000E-01"),
        (
            "InSeconds(absTime(\"2020-01-01T00:00:00Z\"))",
            "1.577836800000000E+09",
        ),
    ]);
}

#[test]
fn is_member() {
    check(&[
        ("IsMember(1, {1, 2})", "true"),
        ("IsMember(1, {1.0})", "false"),
        ("IsMember(\"a\", {\"A\"})", "false"),
        ("IsMember(undefined, {1, undefined})", "true"),
        ("IsMember(error, {error})", "true"),
        ("IsMember(3, {})", "false"),
        ("IsMember(1, undefined)", "undefined"),
        ("IsMember(1, \"x\")", "error"),
    ]);
}

#[test]
fn make_abs_time() {
    if !in_utc("make_abs_time") {
        return;
    }
    check(&[
        ("MakeAbsTime(0)", r#"absTime("1970-01-01T00:00:00-00:00")"#),
        (
            "MakeAbsTime(8589934592)",
            r#"absTime("2242-03-16T12:56:32-00:00")"#,
        ),
        (
            "MakeAbsTime(1.9)",
            r#"absTime("1970-01-01T00:00:01-00:00")"#,
        ),
        ("MakeAbsTime(real(\"INF\"))", "error"),
        ("MakeAbsTime(\"0\")", "error"),
        ("MakeAbsTime(undefined)", "undefined"),
    ]);
}

#[test]
fn make_date() {
    if !in_utc("make_date") {
        return;
    }
    check(&[
        (
            "MakeDate(2, 29, 2020)",
            r#"absTime("2020-02-29T00:00:00-00:00")"#,
        ),
        (
            "MakeDate(\"jan\", 1, 1999)",
            r#"absTime("1999-01-01T00:00:00-00:00")"#,
        ),
        (
            "MakeDate(\"December\", 31, 1969)",
            r#"absTime("1969-12-31T00:00:00-00:00")"#,
        ),
        (
            "MakeDate(\"SEP\", 13)",
            r#"absTime("2020-09-13T00:00:00-00:00")"#,
        ),
        ("MakeDate(2, 30, 2020)", "error"),
        ("MakeDate(13, 1, 2020)", "error"),
        ("MakeDate(\"ja\", 1, 2020)", "error"),
        ("MakeDate(1, 1, 1e3)", "error"),
        ("MakeDate(1, 1, 9223372036854775807)", "error"),
        ("MakeDate(1, undefined, 2020)", "undefined"),
    ]);
}

#[test]
fn make_rel_time() {
    check(&[
        ("MakeRelTime(90061)", "relTime(90061)"),
        ("MakeRelTime(-1.5)", "relTime(-1.500000000000000E+00)"),
        ("MakeRelTime(true)", "error"),
        ("MakeRelTime(undefined)", "undefined"),
    ]);
}
