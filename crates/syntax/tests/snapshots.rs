//! Snapshot tests over the corpus in `tests/corpus/`.
//!
//! * `expressions/*.txt`: one expression a line (lines starting with `#`
//!   and blank lines are corpus comments). Each line is shown as its tree
//!   (a compact S-expression), its canonical one-line unparse, its
//!   old-syntax unparse and its pretty unparse; a line whose unparse does
//!   not read back to the same tree says so. `jdl.txt` is read in the JDL
//!   dialect, the others in the default one.
//! * `ads/*.ad`: a whole file is one ad: new syntax when it starts with
//!   `[` (after comments), else old syntax, one `Name = expr` a line.
//! * `malformed/*.txt`: one bad input a line, each shown with its
//!   rendered [`ParseError`].
//!
//! Each corpus file is one snapshot (`tests/snapshots/`).

use classad_syntax::ast::Literal;
use classad_syntax::{
    AdExpr, Dialect, Expr, ExprKind, Name, ParseError, ParseOptions, Parser, StringRules, UnaryOp,
    unparse, unparse_ad, unparse_ad_old, unparse_ad_pretty, unparse_old, unparse_pretty,
};
use std::fmt::Write;
use std::path::Path;

// ---------------------------------------------------------------------------
// The S-expression printer.

/// A compact, unambiguous S-expression of the tree (spans left out).
fn sexpr(expr: &Expr) -> String {
    let mut out = String::new();
    write_sexpr(expr, &mut out);
    out
}

fn write_bytes(bytes: &[u8], quote: u8, out: &mut String) {
    out.push(quote as char);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push(quote as char);
}

fn write_name(name: &Name, out: &mut String) {
    if name.is_plain_identifier() {
        out.push_str(&name.to_string_lossy());
    } else {
        write_bytes(name.as_bytes(), b'\'', out);
    }
}

fn write_real(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("+nan.0");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "+inf.0" } else { "-inf.0" });
    } else {
        // Debug always shows a `.` or an exponent, so reals and integers differ.
        let _ = write!(out, "{x:?}");
    }
}

fn write_sexpr(expr: &Expr, out: &mut String) {
    let list = |head: &str, children: &[&Expr], out: &mut String| {
        out.push('(');
        out.push_str(head);
        for child in children {
            out.push(' ');
            write_sexpr(child, out);
        }
        out.push(')');
    };
    match &expr.kind {
        ExprKind::Literal(lit) => match lit {
            Literal::Integer(i) => {
                let _ = write!(out, "{i}");
            }
            Literal::Real(x) => write_real(*x, out),
            Literal::String(bytes) => write_bytes(bytes, b'"', out),
            Literal::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Literal::Undefined => out.push_str("undefined"),
            Literal::Error => out.push_str("error"),
        },
        ExprKind::Attribute(name) => write_name(name, out),
        ExprKind::RootAttribute(name) => {
            out.push_str("(root ");
            write_name(name, out);
            out.push(')');
        }
        ExprKind::Select { base, name } => {
            out.push_str("(. ");
            write_sexpr(base, out);
            out.push(' ');
            write_name(name, out);
            out.push(')');
        }
        ExprKind::Subscript { base, index } => list("[]", &[base, index], out),
        ExprKind::Call { name, args } => {
            out.push_str("(call ");
            out.push_str(&name.to_string_lossy());
            for arg in args {
                out.push(' ');
                write_sexpr(arg, out);
            }
            out.push(')');
        }
        ExprKind::Unary { op, operand } => {
            let head = match op {
                UnaryOp::Minus => "neg",
                UnaryOp::Plus => "pos",
                UnaryOp::Not => "not",
                UnaryOp::BitNot => "bitnot",
            };
            list(head, &[operand], out);
        }
        ExprKind::Binary { op, lhs, rhs } => list(op.symbol(), &[lhs, rhs], out),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => list("if", &[cond, then, otherwise], out),
        ExprKind::Elvis { value, fallback } => list("elvis", &[value, fallback], out),
        ExprKind::Paren(inner) => list("paren", &[inner], out),
        ExprKind::List(items) => {
            let items: Vec<&Expr> = items.iter().collect();
            list("list", &items, out);
        }
        ExprKind::Ad(ad) => write_ad_sexpr(ad, out),
    }
}

fn write_ad_sexpr(ad: &AdExpr, out: &mut String) {
    out.push_str("(ad");
    for (name, value) in &ad.attributes {
        out.push_str(" (");
        write_name(name, out);
        out.push(' ');
        write_sexpr(value, out);
        out.push(')');
    }
    out.push(')');
}

#[test]
fn sexpr_printer() {
    let e = classad_syntax::parse_expression(r#"-x.'a b'[0] + f(1.0, "\303", {}) ?: [a = -1]"#)
        .unwrap();
    assert_eq!(
        sexpr(&e),
        r#"(+ (neg ([] (. x 'a b') 0)) (elvis (call f 1.0 "\xc3" (list)) (ad (a -1))))"#
    );
}

// ---------------------------------------------------------------------------
// Helpers for the report.

/// Writes `label` and `text`, continuation lines of `text` indented to
/// line up under the first.
fn field(out: &mut String, label: &str, text: &str) {
    let mut lines = text.split('\n');
    let _ = writeln!(out, "  {label:<8}{}", lines.next().unwrap_or(""));
    for line in lines {
        let _ = writeln!(out, "  {:<8}{line}", "|");
    }
}

/// The source line, with `‹ ›` around it so edge whitespace shows.
fn source_line(out: &mut String, number: usize, line: &str) {
    let _ = writeln!(out, "{number:>3}: ‹{line}›");
}

fn render(error: &ParseError, source: &str, origin: &str) -> String {
    error.render(source, origin).trim_end().to_string()
}

/// The corpus lines of a file: (1-based line number, text), without blank
/// lines and `#` comments.
fn corpus_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n').enumerate().filter_map(|(i, line)| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim();
        (!trimmed.is_empty() && !trimmed.starts_with('#')).then_some((i + 1, line))
    })
}

fn file_name(path: &Path) -> String {
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{dir}/{}", path.file_name().unwrap().to_string_lossy())
}

// ---------------------------------------------------------------------------
// Expressions.

fn dialect_for(path: &Path) -> Dialect {
    if path.file_stem().is_some_and(|s| s == "jdl") {
        Dialect::Jdl
    } else {
        Dialect::HTCondor
    }
}

/// The report for one expression: tree, unparses, and any failed read-back.
fn expression_report(parser: &Parser, line: &str, out: &mut String) {
    let expr = match parser.parse_expression(line) {
        Ok(expr) => expr,
        Err(e) => {
            field(out, "error", &render(&e, line, "input"));
            return;
        }
    };
    let new = unparse(&expr);
    let old = unparse_old(&expr);
    let pretty = unparse_pretty(&expr);
    field(out, "ast", &sexpr(&expr));
    field(out, "new", &new);
    field(out, "old", &old);
    field(out, "pretty", &pretty);
    // Read each form back; say so when the tree differs (known, deliberate
    // losses, e.g. `- 3` unparses as ` -3`, a literal).
    let back = [
        ("new", parser.parse_expression(&new)),
        ("old", parser.parse_expression_with(&old, StringRules::Old)),
        ("pretty", parser.parse_expression(&pretty)),
    ];
    for (form, result) in back {
        match result {
            Ok(again) if again == expr => {}
            Ok(again) => field(
                out,
                &format!("!{form}"),
                &format!("reads back as {}", sexpr(&again)),
            ),
            Err(e) => field(
                out,
                &format!("!{form}"),
                &format!("does not read back: {e}"),
            ),
        }
    }
}

#[test]
fn expressions() {
    insta::glob!("corpus/expressions/*.txt", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let parser = Parser::new(ParseOptions {
            dialect: dialect_for(path),
            ..ParseOptions::default()
        });
        let mut out = String::new();
        for (number, line) in corpus_lines(&text) {
            source_line(&mut out, number, line);
            expression_report(&parser, line, &mut out);
        }
        insta::assert_snapshot!(out);
    });
}

/// With `CLASSAD_UNPARSE_DUMP=FILE` set, writes every corpus line (the
/// expressions and the malformed ones) with our unparses as JSON lines, for
/// `oracle_unparse.py` to compare against HTCondor's.
#[test]
fn dump_unparses() {
    let Some(target) = std::env::var_os("CLASSAD_UNPARSE_DUMP") else {
        return;
    };
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = String::new();
    for dir in ["expressions", "malformed"] {
        let mut paths: Vec<_> = std::fs::read_dir(corpus.join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let parser = Parser::new(ParseOptions {
                dialect: dialect_for(&path),
                ..ParseOptions::default()
            });
            for (number, line) in corpus_lines(&text) {
                let mut fields = vec![
                    ("file", file_name(&path)),
                    ("line", number.to_string()),
                    ("dialect", format!("{:?}", dialect_for(&path))),
                    ("source", line.to_string()),
                ];
                match parser.parse_expression(line) {
                    Ok(expr) => {
                        fields.push(("new", unparse(&expr)));
                        fields.push(("old", unparse_old(&expr)));
                        fields.push(("pretty", unparse_pretty(&expr)));
                    }
                    Err(e) => fields.push(("error", e.to_string())),
                }
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "\"{key}\": ");
                    json_string(value, &mut out);
                }
                out.push_str("}\n");
            }
        }
    }
    std::fs::write(target, out).unwrap();
}

fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------
// Ads.

/// Whether an ad file is in new syntax: its first token is `[`.
fn is_new_syntax(text: &str) -> bool {
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            return rest.starts_with('[');
        }
    }
}

/// Reads an old-syntax ad one line at a time, as the test harness does
/// (blank lines and `#` lines skipped); later definitions of a name replace
/// earlier ones.
fn parse_old_ad(parser: &Parser, text: &str) -> Result<AdExpr, (usize, String, ParseError)> {
    let mut ad = AdExpr::new();
    for (number, line) in corpus_lines(text) {
        let (name, expr) = parser
            .parse_old_line(line)
            .map_err(|e| (number, line.to_string(), e))?;
        ad.insert(name, expr);
    }
    Ok(ad)
}

fn ad_report(ad: &AdExpr, out: &mut String) {
    let _ = writeln!(out, "attributes: {}", ad.len());
    for (name, value) in &ad.attributes {
        let mut head = String::new();
        write_name(name, &mut head);
        let _ = writeln!(out, "  {head} := {}", sexpr(value));
    }
    let new = unparse_ad(ad);
    let old = unparse_ad_old(ad);
    let pretty = unparse_ad_pretty(ad);
    let _ = writeln!(out, "\n--- unparse_ad\n{new}");
    let _ = writeln!(out, "\n--- unparse_ad_old\n{}", old.trim_end());
    let _ = writeln!(out, "\n--- unparse_ad_pretty\n{pretty}");
    let json = classad_syntax::ad_to_json(ad);
    let _ = writeln!(out, "\n--- ad_to_json\n{json}");

    // Every form reads back to the same ad.
    let parser = Parser::new(ParseOptions::default());
    match classad_syntax::parse_json_ad(&parser, &json) {
        Ok(again) if again == *ad => {}
        Ok(again) => {
            let mut s = String::new();
            write_ad_sexpr(&again, &mut s);
            let _ = writeln!(out, "\n!!! ad_to_json reads back as {s}");
        }
        Err(e) => {
            let _ = writeln!(out, "\n!!! ad_to_json does not read back: {e}");
        }
    }
    for (form, text) in [("unparse_ad", &new), ("unparse_ad_pretty", &pretty)] {
        match parser.parse_ad(text) {
            Ok(again) if again == *ad => {}
            Ok(again) => {
                let mut s = String::new();
                write_ad_sexpr(&again, &mut s);
                let _ = writeln!(out, "\n!!! {form} reads back as {s}");
            }
            Err(e) => {
                let _ = writeln!(out, "\n!!! {form} does not read back: {e}");
            }
        }
    }
    match parse_old_ad(&parser, &old) {
        Ok(again) if again == *ad => {}
        Ok(again) => {
            let mut s = String::new();
            write_ad_sexpr(&again, &mut s);
            let _ = writeln!(out, "\n!!! unparse_ad_old reads back as {s}");
        }
        Err((n, _, e)) => {
            let _ = writeln!(out, "\n!!! unparse_ad_old line {n} does not read back: {e}");
        }
    }
}

#[test]
fn ads() {
    insta::glob!("corpus/ads/*.ad", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let parser = Parser::new(ParseOptions::default());
        let mut out = String::new();
        if is_new_syntax(&text) {
            out.push_str("syntax: new\n");
            match parser.parse_ad(&text) {
                Ok(ad) => ad_report(&ad, &mut out),
                Err(e) => out.push_str(&render(&e, &text, &file_name(path))),
            }
        } else {
            out.push_str("syntax: old\n");
            match parse_old_ad(&parser, &text) {
                Ok(ad) => ad_report(&ad, &mut out),
                Err((number, line, e)) => {
                    let origin = format!("{} line {number}", file_name(path));
                    out.push_str(&render(&e, &line, &origin));
                }
            }
        }
        insta::assert_snapshot!(out);
    });
}

// ---------------------------------------------------------------------------
// Malformed input.

#[test]
fn malformed() {
    insta::glob!("corpus/malformed/*.txt", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let parser = Parser::new(ParseOptions::default());
        let mut out = String::new();
        let mut accepted = Vec::new();
        for (number, line) in corpus_lines(&text) {
            source_line(&mut out, number, line);
            match parser.parse_expression(line) {
                Ok(expr) => {
                    field(&mut out, "PARSED", &sexpr(&expr));
                    accepted.push(format!("{}:{number}: {line}", file_name(path)));
                }
                Err(e) => {
                    for l in render(&e, line, "input").lines() {
                        let _ = writeln!(out, "    {l}");
                    }
                }
            }
        }
        insta::assert_snapshot!(out);
        assert!(
            accepted.is_empty(),
            "malformed inputs that parsed:\n{}",
            accepted.join("\n")
        );
    });
}

/// Malformed input too large to store: 100,000 nested parentheses give an
/// error about nesting, at the first bracket past the limit.
#[test]
fn malformed_deep_nesting() {
    let source = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    let error = classad_syntax::parse_expression(&source).unwrap_err();
    insta::assert_snapshot!(format!("{error}\nspan: {:?}", error.span), @r"
    line 1, column 201: expression nested too deeply: more than 200 levels of brackets
    span: Span { start: 200, end: 201 }
    ");
}
