//! HTCondor 25.14's depth model (issue 12, tests/gen/known_bugs.txt class
//! 1): an evaluation has 400 levels; a reference that finds an attribute
//! fails at the limit and evaluates the attribute one level deeper; a
//! selection (`base.name`, `MY.name`) is an ERROR value at the limit and
//! evaluates its base one level deeper (a failed base leaves it
//! UNDEFINED); every operation (parentheses and subscripts too) is a
//! level; a subscript reads a list's element two levels deeper; a selection
//! over a list maps its elements at its own depth; function calls are no
//! level (`strcat` and `join` one, and fail at the limit whatever their
//! arguments; `eval` evaluates its argument at its own depth and the text
//! it reads one level deeper, failing at the limit); `evalInEachContext`,
//! `countMatches` and `ad["name"]` evaluate in a new state with a depth
//! budget of its own. Each row is a chain of references
//! `a1 = a2; ...; aN = LAST` ending in a construct, for N = 392..401,
//! evaluated as `[chain].a1` (Plain) or `{[chain].a1}[0]` (Wrapped: the
//! subscript keeps a failed evaluation's value), with the oracle's values
//! (`-` where HTCondor's evaluation fails at the top: not compared).

#[derive(Clone, Copy)]
enum Form {
    Plain,
    Wrapped,
    SelfQ,
}
use Form::*;

fn chain(n: usize, last: &str, extra: &str) -> String {
    let mut s = String::from("[");
    for i in 1..n {
        s.push_str(&format!("a{i} = a{}; ", i + 1));
    }
    s.push_str(&format!("a{n} = {last}{extra}]"));
    s
}

fn eval(source: &str) -> String {
    classad::evaluate_str(source)
        .map(|v| classad::vm::print::value_to_string(&v))
        .unwrap_or_else(|e| format!("parse error: {e}"))
}

const CASES: &[(&str, &str, Form, [&str; 10])] = &[
    (
        "7",
        "",
        Plain,
        ["7", "7", "7", "7", "7", "7", "7", "7", "7", "-"],
    ),
    (
        "7",
        "",
        Wrapped,
        ["7", "7", "7", "7", "7", "7", "7", "error", "error", "error"],
    ),
    (
        "z.q",
        "; z = [q = 1]",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "-", "error", "-"],
    ),
    (
        "z.q",
        "; z = [q = 1]",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "1",
            "1",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "self.q",
        "; q = 1",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "1",
            "1",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "MY.q",
        "; q = 1",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "1",
            "1",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        ".q",
        "; q = 1",
        Wrapped,
        [
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "self",
        "; q = 1",
        SelfQ,
        [
            "1",
            "1",
            "1",
            "1",
            "1",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
        ],
    ),
    (
        "{7}[0]",
        "",
        Wrapped,
        [
            "7", "7", "7", "7", "7", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "{[q = 1]}.q",
        "",
        Wrapped,
        [
            "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "error", "error", "error",
            "error",
        ],
    ),
    (
        "{z}.q",
        "; z = [q = 1]",
        Wrapped,
        [
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "sum({z})",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "1", "error", "error", "error", "error",
        ],
    ),
    (
        "size({z})",
        "; z = 1",
        Wrapped,
        ["1", "1", "1", "1", "1", "1", "1", "error", "error", "error"],
    ),
    (
        "{z}[0].q",
        "; z = [q = 1]",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "error",
            "error",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "{{z}}.q",
        "; z = [q = 1]",
        Wrapped,
        [
            "{ { 1 } }",
            "{ { 1 } }",
            "{ { 1 } }",
            "{ { 1 } }",
            "{ { 1 } }",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "eval(\"z\")",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "member(1, {z})",
        "; z = 1",
        Wrapped,
        [
            "true", "true", "true", "true", "true", "true", "error", "error", "error", "error",
        ],
    ),
    (
        "ifThenElse(true, z, 2)",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "1", "error", "error", "error", "error",
        ],
    ),
    (
        "[y = parent.z].y",
        "; z = 1",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "1",
            "undefined",
            "error",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "{[q = z]}[0].q",
        "; z = 1",
        Wrapped,
        [
            "1",
            "1",
            "1",
            "1",
            "error",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "z",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "1", "error", "error", "error", "error",
        ],
    ),
    (
        "z + 0",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "(z)",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "int(z)",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "1", "error", "error", "error", "error",
        ],
    ),
    (
        "true ? z : 2",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "({7}[0])",
        "",
        Wrapped,
        [
            "7", "7", "7", "7", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "{z}[0]",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "{{7}}[0][0]",
        "",
        Wrapped,
        [
            "7", "7", "7", "7", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "{7}[0]",
        "",
        Plain,
        ["7", "7", "7", "7", "7", "7", "7", "error", "-", "-"],
    ),
    (
        "{z}[0]",
        "; z = 1",
        Plain,
        ["1", "1", "1", "1", "1", "1", "error", "error", "-", "-"],
    ),
    (
        "!z",
        "; z = true",
        Wrapped,
        [
            "false", "false", "false", "false", "false", "error", "error", "error", "error",
            "error",
        ],
    ),
    (
        "-z",
        "; z = 1",
        Wrapped,
        [
            "-1", "-1", "-1", "-1", "-1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "z && true",
        "; z = true",
        Wrapped,
        [
            "true", "true", "true", "true", "true", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "false && z",
        "; z = true",
        Wrapped,
        [
            "false", "false", "false", "false", "false", "false", "error", "error", "error",
            "error",
        ],
    ),
    (
        "z ?: 2",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "z is 1",
        "; z = 1",
        Wrapped,
        [
            "true", "true", "true", "true", "true", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "1 + 2",
        "",
        Wrapped,
        [
            "3", "3", "3", "3", "3", "3", "error", "error", "error", "error",
        ],
    ),
    (
        "1 + 2",
        "",
        Plain,
        ["3", "3", "3", "3", "3", "3", "3", "3", "-", "-"],
    ),
    (
        "(1)",
        "",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "1", "-", "-"],
    ),
    (
        "-1",
        "",
        Plain,
        ["-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-"],
    ),
    (
        "- 1",
        "",
        Plain,
        ["-1", "-1", "-1", "-1", "-1", "-1", "-1", "-1", "-", "-"],
    ),
    (
        "true ? 1 : 2",
        "",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "1", "-", "-"],
    ),
    (
        "undefined ?: 2",
        "",
        Plain,
        ["2", "2", "2", "2", "2", "2", "2", "2", "-", "-"],
    ),
    (
        "false && true",
        "",
        Plain,
        [
            "false", "false", "false", "false", "false", "false", "false", "false", "-", "-",
        ],
    ),
    (
        "strcat(z)",
        "; z = \"a\"",
        Wrapped,
        [
            "-", "-", "-", "-", "-", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "join(\",\", z)",
        "; z = \"a\"",
        Wrapped,
        [
            "-", "-", "-", "-", "-", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "strcat({z})",
        "",
        Wrapped,
        [
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "join(\",\", {z})",
        "",
        Wrapped,
        [
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "evalInEachContext(q, {[q = r; r = 1]})",
        "",
        Wrapped,
        [
            "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "error", "error",
            "error",
        ],
    ),
    (
        "evalInEachContext(q, {[q = 1]})[0]",
        "",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "countMatches(q, {[q = true]})",
        "",
        Wrapped,
        ["1", "1", "1", "1", "1", "1", "1", "error", "error", "error"],
    ),
    (
        "int(1)",
        "",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "1", "1", "-"],
    ),
    (
        "size({z})",
        "; z = 1",
        Wrapped,
        ["1", "1", "1", "1", "1", "1", "1", "error", "error", "error"],
    ),
    (
        "TARGET.q",
        "; q = 1",
        Wrapped,
        [
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "{[q = z]}.q",
        "; z = 1",
        Wrapped,
        [
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "w[\"q\"]",
        "; w = [q = z]; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "w[\"q\"]",
        "; w = [q = z]; z = 1",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "-", "-", "-"],
    ),
    (
        "{[q = z]}.q",
        "; z = 1",
        Plain,
        [
            "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "{ 1 }", "-", "error", "-",
        ],
    ),
    (
        "{ {[q = 1]} }[0].q",
        "",
        Wrapped,
        [
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "{ 1 }",
            "error",
            "undefined",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "{z}[0]",
        "; z = [q = 1]",
        Wrapped,
        [
            "-", "-", "-", "-", "error", "error", "error", "error", "error", "error",
        ],
    ),
    // eval: the argument at the call's depth, the text it reads one
    // level deeper, failing at the limit (known_bugs class 8); ad["name"]
    // in a new state with a depth budget of its own.
    (
        "eval(w)",
        "; w = \"z\"; z = 1",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "-", "-", "-"],
    ),
    (
        "eval(w)",
        "; w = \"z\"; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "eval(\"strcat({z})\")",
        "",
        Plain,
        [
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "-",
            "-",
            "-",
        ],
    ),
    (
        "eval(\"strcat({z})\")",
        "",
        Wrapped,
        [
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "\"{ z }\"",
            "error",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "eval(\"strcat(z)\")",
        "; z = 1",
        Plain,
        [
            "\"1\"", "\"1\"", "\"1\"", "\"1\"", "\"1\"", "\"1\"", "-", "-", "-", "-",
        ],
    ),
    (
        "eval(\"strcat(z)\")",
        "; z = 1",
        Wrapped,
        [
            "\"1\"", "\"1\"", "\"1\"", "\"1\"", "error", "error", "error", "error", "error",
            "error",
        ],
    ),
    (
        "eval(\"eval(\\\"z\\\")\")",
        "; z = 1",
        Plain,
        ["1", "1", "1", "1", "1", "1", "-", "-", "-", "-"],
    ),
    (
        "eval(\"eval(\\\"z\\\")\")",
        "; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "w[\"q\"]",
        "; w = [q = eval(\"z\")]; z = 1",
        Plain,
        ["1", "1", "1", "1", "1", "1", "1", "-", "-", "-"],
    ),
    (
        "w[\"q\"]",
        "; w = [q = eval(\"z\")]; z = 1",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "strcat(eval(\"z\"))",
        "; z = 1",
        Plain,
        [
            "\"1\"", "\"1\"", "\"1\"", "\"1\"", "\"1\"", "\"1\"", "-", "-", "-", "-",
        ],
    ),
    (
        "strcat(eval(\"z\"))",
        "; z = 1",
        Wrapped,
        [
            "\"1\"", "\"1\"", "\"1\"", "\"1\"", "error", "error", "error", "error", "error",
            "error",
        ],
    ),
    (
        "eval(\"- z\")",
        "; z = 1",
        Plain,
        ["-1", "-1", "-1", "-1", "-1", "-1", "-", "-", "-", "-"],
    ),
    (
        "eval(\"- z\")",
        "; z = 1",
        Wrapped,
        [
            "-1", "-1", "-1", "-1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    // A constant condition (or UNDEFINED left side of ?:) folded with the
    // branch it picks fails where its parentheses would (seed 1143).
    (
        "((true)) ? 1 : 2",
        "",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "ifThenElse(((true)), 1, 2)",
        "",
        Wrapped,
        [
            "1", "1", "1", "1", "1", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "((undefined)) ?: 1",
        "",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "((undefined)) ?: z.q",
        "; z = [q = 1]",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    // Parentheses past the limit fail before their operand, whatever it
    // is: a name found or not, an ad or list literal (huntE).
    (
        "((x))",
        "",
        Wrapped,
        [
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "error",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
    (
        "((x)) ?: 1",
        "",
        Wrapped,
        [
            "1", "1", "1", "1", "error", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "(([]))",
        "",
        Wrapped,
        [
            "[  ]", "[  ]", "[  ]", "[  ]", "[  ]", "error", "error", "error", "error", "error",
        ],
    ),
    (
        "(({1, x}))",
        "",
        Wrapped,
        [
            "{ 1,undefined }",
            "{ 1,undefined }",
            "{ 1,undefined }",
            "{ 1,undefined }",
            "{ 1,undefined }",
            "error",
            "error",
            "error",
            "error",
            "error",
        ],
    ),
];

#[test]
fn depth_limits_match_htcondor() {
    let mut wrong = Vec::new();
    for (last, extra, form, expected) in CASES {
        for (i, want) in expected.iter().enumerate() {
            if *want == "-" {
                continue;
            }
            let n = 392 + i;
            let source = match form {
                Plain => format!("{}.a1", chain(n, last, extra)),
                Wrapped => format!("{{{}.a1}}[0]", chain(n, last, extra)),
                SelfQ => format!("{{{}.a1.q}}[0]", chain(n, last, extra)),
            };
            let got = eval(&source);
            if got != *want {
                wrong.push(format!("{last:?} at {n}: {got}, HTCondor {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A selection inside operations, reached one level or more past the
/// limit, fails with the operation around it that was at the limit: only a
/// selection exactly at the limit is an ERROR value that lets the lists
/// around it be made (gen-exprs seed 801, `[A = {1 ? (A.A ?: true) :
/// false}].A`). Each row is `([A = {X}].A)[0]` with X the inner expression
/// in k = 0..16 parentheses, and the oracle's value: lists nested so deep
/// around the leaf (0: the leaf alone).
#[test]
fn selection_past_the_limit_fails_with_its_operation() {
    const ROWS: &[(&str, [(usize, &str); 16])] = &[
        (
            "A.A",
            [
                (0, "undefined"),
                (0, "error"),
                (132, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (56, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
            ],
        ),
        (
            "A.A ?: true",
            [
                (0, "error"),
                (132, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (56, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
            ],
        ),
        (
            "1 ? A.A : 2",
            [
                (0, "error"),
                (132, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (56, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
                (0, "error"),
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (inner, expected) in ROWS {
        for (k, (lists, leaf)) in expected.iter().enumerate() {
            let source = format!(
                "([ A = {{ {}{inner}{} }} ].A)[0]",
                "(".repeat(k),
                ")".repeat(k)
            );
            let got = eval(&source);
            let want = format!("{}{leaf}{}", "{ ".repeat(*lists), " }".repeat(*lists));
            if got != want {
                wrong.push(format!("{source}: {got:.60}, HTCondor {want:.60}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `ad["name"]` evaluates the attribute in a new evaluation state with a
/// depth budget of its own (HTCondor's `ClassAd::EvaluateAttr` makes a
/// fresh `EvalState`): a chain of N references ending in `w["q"]`, where
/// `q` is itself a chain of M references, for N = 392..401 (rows) and
/// M = 396..401 (columns), with the oracle's values (`-`: HTCondor's
/// evaluation fails at the top, not compared).
#[test]
fn subscript_by_name_has_a_depth_budget_of_its_own() {
    const ROWS: [[&str; 6]; 10] = [
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["1", "1", "1", "1", "1", "error"],
        ["-", "-", "-", "-", "-", "-"],
        ["-", "-", "-", "-", "-", "-"],
        ["-", "-", "-", "-", "-", "-"],
    ];
    let mut wrong = Vec::new();
    for (i, row) in ROWS.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            if *want == "-" {
                continue;
            }
            let (n, m) = (392 + i, 396 + j);
            let mut inner = String::new();
            for k in 1..m {
                inner.push_str(&format!("b{k} = b{}; ", k + 1));
            }
            inner.push_str(&format!("b{m} = 1"));
            let source = format!(
                "{}.a1",
                chain(n, "w[\"q\"]", &format!("; w = [q = b1; {inner}]"))
            );
            let got = eval(&source);
            if got != *want {
                wrong.push(format!("N = {n}, M = {m}: {got}, HTCondor {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `eval` as one link of a chain of N references ending in `strcat({z})`
/// (known_bugs class 8, gen-exprs --mutate seed 998): HTCondor evaluates
/// `eval`'s argument at the call's own depth, so the link costs no level
/// and `strcat` answers `"{ z }"` where it would without the `eval`; the
/// text read back is the list `{ z }`. The link is the second or the
/// last but one, for N = 392..401.
#[test]
fn eval_link_costs_no_level() {
    const ROWS: &[(&str, Form, [&str; 10])] = &[
        (
            "2",
            Plain,
            [
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "-",
                "-",
            ],
        ),
        (
            "2",
            Wrapped,
            [
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "error",
                "error",
                "error",
                "error",
            ],
        ),
        (
            "n-1",
            Plain,
            [
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "-",
                "-",
            ],
        ),
        (
            "n-1",
            Wrapped,
            [
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "{ undefined }",
                "error",
                "error",
                "error",
                "error",
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (position, form, expected) in ROWS {
        for (i, want) in expected.iter().enumerate() {
            if *want == "-" {
                continue;
            }
            let n = 392 + i;
            let at = if *position == "2" { 2 } else { n - 1 };
            let mut source = String::from("[");
            for k in 1..n {
                if k == at {
                    source.push_str(&format!("a{k} = eval(a{}); ", k + 1));
                } else {
                    source.push_str(&format!("a{k} = a{}; ", k + 1));
                }
            }
            source.push_str(&format!("a{n} = strcat({{z}})].a1"));
            let source = match form {
                Wrapped => format!("{{{source}}}[0]"),
                _ => source,
            };
            let got = eval(&source);
            if got != *want {
                wrong.push(format!("eval at {at} of {n}: {got}, HTCondor {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// HTCondor's strcat, join, formatTime, anyCompare and mergeEnvironment
/// stop at an argument that decides the answer and never evaluate the
/// rest; userHome and stringListsIntersect ignore whether an argument's
/// evaluation failed. A later argument failing at the depth limit (`B.b`
/// selects from the list that holds it) then does not fail the call, so
/// `isError` answers (an evaluation that fails is "error" at the top).
#[test]
fn arguments_never_evaluated_do_not_fail_the_call() {
    let cases = [
        ("isError(strcat(1/0.0, B.b))", "true"),
        ("isUndefined(strcat(undefined, B.b))", "true"),
        ("isError(strcat(\"a\", B.b, 1/0.0))", "error"),
        ("isError(join(1/0.0, B.b))", "true"),
        ("isError(join(undefined, B.b))", "error"),
        ("isError(formatTime(\"x\", B.b))", "true"),
        ("isError(formatTime(0, B.b))", "error"),
        ("isError(anyCompare(\"x\", B.b, B.b))", "true"),
        ("isError(anyCompare(\"<\", {1}, B.b))", "error"),
        ("isError(mergeEnvironment(1, B.b))", "true"),
        ("isError(userHome(\"nobody\", B.b))", "false"),
        ("isError(stringListsIntersect(\"a\", B.b))", "true"),
    ];
    for (call, want) in cases {
        let source = format!("[A = {call}; B = {{B.b}}].A");
        assert_eq!(eval(&source), want, "{source}");
    }
}
