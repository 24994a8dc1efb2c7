//! A function a program registers declares how its arguments are
//! evaluated (`Builtin::arguments`) as the standard ones do: which
//! argument values stop it before its later arguments, and whether it
//! reads their failures. The compiler reads only the registry.

use classad::vm::{Arguments, Builtin, CallContext, Function, Registry, StopTest, Stops, Value};

/// The first UNDEFINED or ERROR argument, or one whose evaluation failed
/// (as HTCondor's `strcat` stops), else the last.
fn first_exceptional(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    for (i, arg) in args.iter().enumerate() {
        if context.argument_failed(i) {
            return context.stop_at(i, Value::Error);
        }
        if matches!(arg, Value::Undefined | Value::Error) {
            return context.stop_at(i, arg.clone());
        }
    }
    args.last().cloned().unwrap_or(Value::Undefined)
}

fn registry(arguments: Arguments) -> Registry {
    let mut functions = classad::stdlib::standard_registry();
    functions
        .register(
            Builtin {
                name: "firstExceptional",
                min_args: 1,
                max_args: u16::MAX,
                pure: true,
                function: Function::StrictKeepingLists(first_exceptional),
                arguments: Arguments::EAGER,
            }
            .with_arguments(arguments),
        )
        .expect("a new name");
    functions
}

fn evaluate(functions: &Registry, source: &str) -> Value {
    let expr = classad::syntax::parse_expression(source).expect("an expression");
    let program = classad::compile_with(functions, &expr).expect("compiles");
    classad::Vm::default().evaluate(&program, &classad::empty_ad())
}

fn disasm(functions: &Registry, source: &str) -> String {
    let expr = classad::syntax::parse_expression(source).expect("an expression");
    classad::compile_with(functions, &expr)
        .expect("compiles")
        .disassemble()
}

const STOPPING: Arguments = Arguments {
    notes_failures: true,
    stops: Stops::Each {
        test: StopTest::Exceptional,
        min_args: 0,
    },
    one_level_deeper: false,
    probes_last: None,
};

// `B.b` fails at the depth limit (a list that selects from itself).
const STOPS_BEFORE_A_FAILURE: &str =
    "[A = isUndefined(firstExceptional(U, B.b)); B = {B.b}; U = undefined].A";

#[test]
fn a_declared_stop_skips_the_later_arguments() {
    let stopping = registry(STOPPING);
    assert!(matches!(
        evaluate(&stopping, STOPS_BEFORE_A_FAILURE),
        Value::Bool(true)
    ));
    // Without the declaration `B.b` is evaluated and its failure fails
    // the call.
    let eager = registry(Arguments::EAGER);
    assert!(!matches!(
        evaluate(&eager, STOPS_BEFORE_A_FAILURE),
        Value::Bool(true)
    ));
}

/// Which arguments' evaluation failed, as a string of 0s and 1s; their
/// failures forgotten (as `userHome` ignores them).
fn failed_arguments(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let failed: String = (0..args.len())
        .map(|i| if context.argument_failed(i) { '1' } else { '0' })
        .collect();
    context.keep_failures_of(0);
    Value::string(failed)
}

#[test]
fn notes_find_the_failed_argument_across_constants() {
    let mut functions = classad::stdlib::standard_registry();
    functions
        .register(Builtin {
            name: "failedArguments",
            min_args: 0,
            max_args: u16::MAX,
            pure: false,
            function: Function::StrictKeepingLists(failed_arguments),
            arguments: Arguments {
                notes_failures: true,
                ..Arguments::EAGER
            },
        })
        .expect("a new name");
    // Constants need no note of their own: the failures are still found
    // where they are, and forgotten.
    for (source, expected) in [
        ("failedArguments()", ""),
        ("failedArguments(B.b)", "1"),
        ("failedArguments(\"a\", X, \"b\", B.b, \"c\", Y)", "000100"),
        ("failedArguments(B.b, \"a\", \"b\", B.b)", "1001"),
        ("failedArguments(X, \"a\", B.b, 1, 2, Y, B.b)", "0010001"),
    ] {
        let source = format!("[A = {source}; B = {{B.b}}; X = 1; Y = 2].A");
        let value = evaluate(&functions, &source);
        assert!(
            matches!(&value, Value::Str(s) if &**s == expected.as_bytes()),
            "{source}: {value:?}"
        );
    }
    // The notes of a call in an argument are its own.
    let source = "[A = failedArguments(\"a\", failedArguments(B.b, 1), B.b); B = {B.b}].A";
    let value = evaluate(&functions, source);
    assert!(
        matches!(&value, Value::Str(s) if &**s == b"001"),
        "{value:?}"
    );
    // A stop pads the arguments never evaluated: they did not fail.
    let stopping = registry(STOPPING);
    let source = "[A = firstExceptional(\"a\", X, \"b\", Y, \"c\"); X = 1; Y = 2].A";
    assert!(matches!(evaluate(&stopping, source), Value::Str(s) if &*s == b"c"));
}

#[test]
fn the_compiler_lays_out_what_the_registry_declares() {
    let stopping = disasm(&registry(STOPPING), "firstExceptional(X, \"@\", Y)");
    assert!(stopping.contains("stop if exceptional"), "{stopping}");
    assert!(stopping.contains("call_noted"), "{stopping}");
    let eager = disasm(&registry(Arguments::EAGER), "firstExceptional(X, \"@\", Y)");
    assert!(!eager.contains("note_args"), "{eager}");
    assert!(!eager.contains("call_noted"), "{eager}");
}
