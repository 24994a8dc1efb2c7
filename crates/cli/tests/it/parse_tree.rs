//! `classad parse` prints a tree a person reads: one node a line, indented
//! under its parent, with the byte span it was read from, then the
//! canonical unparse in both syntaxes. Snapshots in `snapshots/`.

use crate::common;

use common::classad;

fn parse(args: &[&str]) -> String {
    let out = classad(["parse"].iter().chain(args));
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn operators_selection_and_literals() {
    insta::assert_snapshot!(parse(&["TARGET.Memory >= 1024 && Owner == \"alice\""]));
}

#[test]
fn calls_lists_ads_and_conditionals() {
    insta::assert_snapshot!(parse(&[
        "ifThenElse(x ?: 2, {1, 2.5, undefined}[0], [a = 1; 'b c' = .root.y]) ? -(z) : error"
    ]));
}

#[test]
fn arguments_are_joined_and_a_leading_dash_follows_two_dashes() {
    insta::assert_snapshot!(parse(&["--", "-x", "*", "2"]));
}

#[test]
fn a_bad_expression_is_reported_with_its_position() {
    let out = classad(["parse", "1 +"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<argument>:1:"));
    assert!(out.stdout.is_empty());
}

/// A selection chain is as long as its text (HTCondor's parser reads it in
/// a loop): its tree is a line a link, indented no deeper than 100 levels,
/// so the output stays linear in the text.
#[test]
fn a_long_selection_chain_prints_a_line_a_link() {
    let n = 50_000;
    let chain = format!("x{}", ".y".repeat(n));
    let out = parse(&[&chain]);
    let tree: Vec<&str> = out
        .lines()
        .take_while(|l| !l.starts_with("unparse:"))
        .collect();
    assert_eq!(tree.len(), n + 1, "one line a link and one for x");
    assert!(tree[0].starts_with("select .y"));
    assert!(
        tree[n]
            .trim_start()
            .starts_with(&format!("[{n}] attribute x"))
    );
    let widest = tree.iter().map(|l| l.len()).max().unwrap_or(0);
    assert!(widest < 300, "indentation is bounded: {widest}");
}
