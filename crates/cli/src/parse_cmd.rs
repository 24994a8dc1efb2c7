//! `classad parse EXPR`: the tree, one node a line with its span, and the
//! canonical unparse in both syntaxes, for debugging.

use classad::syntax::{self, AdExpr, Expr, ExprKind, Literal};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// Print the syntax tree of an expression and its canonical unparse.
///
/// Each line of the tree is one node, indented under its parent, with the
/// byte range of the source it was read from (`start..end`).
#[derive(clap::Args)]
#[command(after_help = concat!(
    "Examples:
  classad parse 'TARGET.Memory >= 1024 && Owner == \"alice\"'
  classad parse -- '-x'          (an expression that starts with a dash)",
    exit_status!()
))]
pub struct ParseArgs {
    /// The expression; several arguments are joined with spaces.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true, value_name = "EXPR")]
    expr: Vec<String>,
}

pub fn run(args: ParseArgs) -> ExitCode {
    let source = args.expr.join(" ");
    match syntax::parse_expression(&source) {
        Ok(expr) => {
            let mut text = tree(&expr);
            let _ = writeln!(text, "unparse: {}", syntax::unparse(&expr));
            let _ = writeln!(text, "old:     {}", syntax::unparse_old(&expr));
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => crate::args::output_failed("parse", &e),
            }
        }
        Err(error) => {
            eprint!("{}", error.render(&source, "<argument>"));
            ExitCode::from(1)
        }
    }
}

/// The tree of `expr` as text: a node a line, children indented by two
/// spaces, spans aligned in a column after the widest node.
pub fn tree(expr: &Expr) -> String {
    let mut lines = Vec::new();
    walk(expr, 0, None, &mut lines);
    let width = lines
        .iter()
        .map(|(text, _)| text.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (text, span) in lines {
        let pad = width - text.chars().count();
        let _ = writeln!(out, "{text}{:pad$}  {span}", "");
    }
    out
}

fn span(expr: &Expr) -> String {
    format!("{}..{}", expr.span.start, expr.span.end)
}

fn literal(value: &Literal) -> String {
    match value {
        Literal::Integer(i) => format!("integer {i}"),
        Literal::Real(r) => format!("real {}", syntax::unparse::format_real_old(*r)),
        Literal::String(bytes) => {
            let mut out = String::from("string ");
            syntax::unparse::write_string_literal(bytes, &mut out);
            out
        }
        Literal::Boolean(b) => format!("boolean {b}"),
        Literal::Undefined => "undefined".into(),
        Literal::Error => "error".into(),
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Nodes deeper than this are indented as deep, after their depth
/// (`[150] `): a selection chain may be as long as its text, and indenting
/// each link further would make its tree quadratic in the text.
const MAX_INDENT: usize = 100;

fn indent(depth: usize) -> String {
    if depth <= MAX_INDENT {
        "  ".repeat(depth)
    } else {
        format!("{}[{depth}] ", "  ".repeat(MAX_INDENT))
    }
}

/// Appends `expr` and its children; `role` names the child's place in its
/// parent where the parent's label alone does not say it.
fn walk(expr: &Expr, depth: usize, role: Option<&str>, lines: &mut Vec<(String, String)>) {
    let mut label = indent(depth);
    if let Some(role) = role {
        label.push_str(role);
        label.push_str(": ");
    }
    let next = depth + 1;
    match &expr.kind {
        ExprKind::Literal(value) => {
            label.push_str(&literal(value));
            lines.push((label, span(expr)));
        }
        ExprKind::Attribute(name) => {
            let _ = write!(label, "attribute {}", name_text(name));
            lines.push((label, span(expr)));
        }
        ExprKind::RootAttribute(name) => {
            let _ = write!(label, "root attribute .{}", name_text(name));
            lines.push((label, span(expr)));
        }
        ExprKind::Select { .. } => {
            // A chain is as long as its text: its links in a loop, each a
            // level deeper than the one before.
            let mut link = expr;
            let mut depth = depth;
            while let ExprKind::Select { base, name } = &link.kind {
                let _ = write!(label, "select .{}", name_text(name));
                lines.push((std::mem::take(&mut label), span(link)));
                depth += 1;
                label = indent(depth);
                link = base;
            }
            walk(link, depth, None, lines);
        }
        ExprKind::Subscript { base, index } => {
            label.push_str("subscript");
            lines.push((label, span(expr)));
            walk(base, next, None, lines);
            walk(index, next, Some("index"), lines);
        }
        ExprKind::Call { name, args } => {
            let _ = write!(
                label,
                "call {}, {}",
                name_text(name),
                plural(args.len(), "argument")
            );
            lines.push((label, span(expr)));
            for arg in args {
                walk(arg, next, None, lines);
            }
        }
        ExprKind::Unary { op, operand } => {
            let _ = write!(label, "unary {}", op.symbol());
            lines.push((label, span(expr)));
            walk(operand, next, None, lines);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let _ = write!(label, "binary {}", op.symbol());
            lines.push((label, span(expr)));
            walk(lhs, next, None, lines);
            walk(rhs, next, None, lines);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            label.push_str("conditional ? :");
            lines.push((label, span(expr)));
            walk(cond, next, Some("if"), lines);
            walk(then, next, Some("then"), lines);
            walk(otherwise, next, Some("else"), lines);
        }
        ExprKind::Elvis { value, fallback } => {
            label.push_str("elvis ?:");
            lines.push((label, span(expr)));
            walk(value, next, None, lines);
            walk(fallback, next, Some("else"), lines);
        }
        ExprKind::Paren(inner) => {
            label.push_str("parentheses");
            lines.push((label, span(expr)));
            walk(inner, next, None, lines);
        }
        ExprKind::List(items) => {
            let _ = write!(label, "list, {}", plural(items.len(), "item"));
            lines.push((label, span(expr)));
            for item in items {
                walk(item, next, None, lines);
            }
        }
        ExprKind::Ad(ad) => {
            let _ = write!(label, "ad, {}", plural(ad.attributes.len(), "attribute"));
            lines.push((label, span(expr)));
            ad_attributes(ad, next, lines);
        }
    }
}

fn ad_attributes(ad: &AdExpr, depth: usize, lines: &mut Vec<(String, String)>) {
    for (name, value) in &ad.attributes {
        walk(value, depth, Some(&name_text(name)), lines);
    }
}

/// A name as the unparser writes it: quoted when it is not a plain
/// identifier.
fn name_text(name: &syntax::Name) -> String {
    let mut out = String::new();
    syntax::unparse::write_name(name, &mut out);
    out
}
