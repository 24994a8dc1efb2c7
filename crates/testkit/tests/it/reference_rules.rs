//! The reference evaluator on its own, against HTCondor's answers (each
//! expected value below is the oracle's, `classad2` 25.14.1), so that the
//! VM and the reference cannot agree on a wrong rule unnoticed.

use classad_testkit::reference::{RefOptions, Reference};

fn eval_with(options: RefOptions, text: &str) -> String {
    let expr = classad_syntax::parse_expression(text).expect("parses");
    let mut reference = Reference::new(options);
    let value = reference.evaluate(&expr).expect("evaluates");
    format!("{value:?}")
}

fn check(cases: &[(&str, &str)], options: RefOptions) {
    let cases: Vec<(String, String)> = cases
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    // The reference recurses: a large stack.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            for (text, expected) in cases {
                assert_eq!(eval_with(options, &text), expected, "{text}");
            }
        })
        .expect("thread")
        .join()
        .expect("no panic");
}

#[test]
fn lists_are_lazy() {
    check(
        &[
            ("[a = {a[1] + 1, 3}].a[0]", "4"),
            ("[a = {a}].a", "{ { a } }"),
            ("[a = {a}].a[0]", "{ { a } }"),
            ("[a = {a[0]}].a[0]", "error"),
            ("size([a = {a, a}].a)", "2"),
            ("[a = 17; c = {1, 3 * a}].c[1]", "51"),
            ("{1 + 2, x}", "{ 3,undefined }"),
            ("{[a = 1], [a = 2]}.a", "{ 1,2 }"),
            ("{{[a = 1]}}.a", "{ { 1 } }"),
            ("[a = {a || true}].a[0]", "error"),
        ],
        RefOptions::default(),
    );
}

#[test]
fn string_prints_lists_as_written() {
    check(
        &[
            ("string({1 + 2})", "\"{ 1 + 2 }\""),
            ("string({x, 1})", "\"{ x,1 }\""),
            ("string({1, 2})", "\"{ 1,2 }\""),
        ],
        RefOptions::default(),
    );
}

#[test]
fn scoping() {
    check(
        &[
            ("[toplevel = [c = 1]].toplevel.toplevel", "[  ]"),
            (".my", "[  ]"),
            (".self", "[  ]"),
            (".root", "[  ]"),
            ("[a = .self].a", "[  ]"),
            ("[a = 1; b = MY.parent].b", "[  ]"),
            ("[a = 1; b = MY.self].b", "[ a = 1; b = MY.self ]"),
            ("[target = 5; b = [c = target]].b.c", "5"),
            ("[target = [y = 5]; b = [c = TARGET.y]].b.c", "5"),
            ("[target = 5; b = [c = TARGET.y]].b.c", "error"),
            (
                "[parent = 7; b = [c = parent]].b.c",
                "[ 'parent' = 7; b = [ c = 'parent' ] ]",
            ),
            ("[a = 1; b = [a = 2; c = parent.a]].b.c", "1"),
            ("[a = 1; MY = 5; b = MY.a].b", "error"),
            ("[a = 1; b = [c = 2]].b.a", "1"),
            ("[self = 5; b = [c = self]].b.c", "[ c = self ]"),
            ("parent", "undefined"),
            ("TARGET", "undefined"),
            ("CurrentTime", "1700000000"),
            ("[a = 1].CurrentTime", "1700000000"),
        ],
        RefOptions::default(),
    );
}

#[test]
fn strict_scoping() {
    let strict = RefOptions {
        strict: true,
        ..RefOptions::default()
    };
    check(
        &[
            ("MY", "undefined"),
            ("[a = 1; b = MY.a].b", "undefined"),
            ("[my = [a = 2]; b = [c = MY.a]].b.c", "2"),
            ("self", "[  ]"),
            ("CurrentTime", "undefined"),
            ("[a = 1].CurrentTime", "undefined"),
        ],
        strict,
    );
}

/// Class 32 (issue 12): an ad or a list that a subscript takes out of a
/// list taken by `ad["name"]` was freed with that list in HTCondor and
/// reads emptied.
#[test]
fn an_element_of_a_list_taken_by_subscript_reads_emptied() {
    check(
        &[
            ("[y = {[c = 1]}][\"y\"][0][\"c\"]", "undefined"),
            ("[y = {[c = 1]}][\"y\"][0].c", "undefined"),
            ("size([y = {[c = 1], [d = 2]}][\"y\"][1])", "0"),
            ("[y = {{1, 2}}][\"y\"][0][1]", "error"),
            ("size([y = {{z}}; z = 1][\"y\"][0])", "0"),
            ("[y = {([c = 1])}][\"y\"][0][\"c\"]", "undefined"),
            ("[y = {[c = 1].self}][\"y\"][0][\"c\"]", "undefined"),
            ("[y = {[c = 1]}].y[0][\"c\"]", "1"),
        ],
        RefOptions::default(),
    );
}
