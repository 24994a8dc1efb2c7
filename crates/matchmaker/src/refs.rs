//! Which attributes an expression can read: names in its own ad and names
//! in the other ad of the match. Conservative: whatever cannot be resolved
//! statically marks the expression opaque (it may read anything).

use classad::syntax::{Expr, ExprKind, Literal};
use classad::vm::{Function, Registry};

/// The references of one expression, as case-folded names.
#[derive(Clone, Debug, Default)]
pub(crate) struct Refs {
    /// Names that may be read in the ad the expression is evaluated in.
    pub own: Vec<String>,
    /// Names that may be read in the other ad (TARGET).
    pub target: Vec<String>,
    /// The expression may read any attribute of either ad.
    pub opaque: bool,
    /// Every name it reads may be read in either ad, and so may every name
    /// those names' attributes read: `countMatches` and
    /// `evalInEachContext` evaluate an expression inside ads of a list
    /// (nested ads of either side, whose lookups go on outward), starting
    /// from wherever the lookup of their first argument ended.
    pub symmetric: bool,
}

const SPECIAL: [&str; 6] = ["my", "target", "self", "parent", "root", "toplevel"];

fn special(name: &str) -> Option<&'static str> {
    SPECIAL
        .iter()
        .copied()
        .find(|s| name.eq_ignore_ascii_case(s))
}

fn strip(expr: &Expr) -> &Expr {
    match &expr.kind {
        ExprKind::Paren(inner) => strip(inner),
        _ => expr,
    }
}

/// Functions that read attributes by names computed at run time, or
/// evaluate expressions in other ads: their callers are opaque. Lazy
/// functions not listed here are treated the same way, so a function
/// added later is safe by default.
const TRANSPARENT_LAZY: [&str; 2] = ["unparse", "debug"];

/// Lazy functions that evaluate their first argument in each ad of the
/// list their second argument gives. Their names are static (the
/// argument's names, and those of the attribute it names), but may be
/// looked up in either ad of the match: they make the reads symmetric.
const IN_EACH_CONTEXT: [&str; 2] = ["countmatches", "evalineachcontext"];

fn in_each_context(name: &str) -> bool {
    IN_EACH_CONTEXT.iter().any(|t| t.eq_ignore_ascii_case(name))
}

/// Collects the references of `expr` into `out`. In non-strict mode an
/// unscoped name may fall back to TARGET, so it counts on both sides.
pub(crate) fn collect(expr: &Expr, registry: &Registry, strict: bool, out: &mut Refs) {
    if out.opaque {
        return;
    }
    match &expr.kind {
        ExprKind::Literal(_) => {}
        ExprKind::Attribute(name) => {
            if special(&name.text()).is_some() {
                // A whole ad used as a value: anything in it may be read.
                out.opaque = true;
            } else {
                named(&name.text(), strict, out);
            }
        }
        ExprKind::RootAttribute(name) => out.own.push(name.text().to_ascii_lowercase()),
        ExprKind::Select { base, name } => select(base, &name.text(), registry, strict, out),
        ExprKind::Subscript { base, index } => {
            collect(index, registry, strict, out);
            match &strip(index).kind {
                ExprKind::Literal(Literal::String(bytes)) => match std::str::from_utf8(bytes) {
                    Ok(text) => select(base, text, registry, strict, out),
                    Err(_) => out.opaque = true,
                },
                ExprKind::Literal(Literal::Integer(_)) => collect(base, registry, strict, out),
                // A computed index on an ad reads a name known only at run time.
                _ => out.opaque = true,
            }
        }
        ExprKind::Call { name, args } => {
            if let Some(builtin) = registry.get(&name.text())
                && matches!(builtin.function, Function::Lazy(_))
                && !TRANSPARENT_LAZY
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case(&name.text()))
            {
                if in_each_context(&name.text()) {
                    out.symmetric = true;
                } else {
                    out.opaque = true;
                    return;
                }
            }
            for arg in args {
                collect(arg, registry, strict, out);
            }
        }
        ExprKind::Unary { operand, .. } => collect(operand, registry, strict, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect(lhs, registry, strict, out);
            collect(rhs, registry, strict, out);
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            collect(cond, registry, strict, out);
            collect(then, registry, strict, out);
            collect(otherwise, registry, strict, out);
        }
        ExprKind::Elvis { value, fallback } => {
            collect(value, registry, strict, out);
            collect(fallback, registry, strict, out);
        }
        ExprKind::Paren(inner) => collect(inner, registry, strict, out),
        ExprKind::List(items) => {
            for item in items {
                collect(item, registry, strict, out);
            }
        }
        ExprKind::Ad(ad) => {
            // Names inside a nested ad resolve there first, then outward:
            // counting them as the enclosing ad's names over-approximates.
            for (_, value) in &ad.attributes {
                collect(value, registry, strict, out);
            }
        }
    }
}

fn named(name: &str, strict: bool, out: &mut Refs) {
    let folded = name.to_ascii_lowercase();
    if !strict {
        out.target.push(folded.clone());
    }
    out.own.push(folded);
}

fn select(base: &Expr, name: &str, registry: &Registry, strict: bool, out: &mut Refs) {
    // A chain `x.a.b...` is walked in a loop (it is as long as its text):
    // its names from the outermost in, down to its innermost base.
    let mut names = vec![name.to_ascii_lowercase()];
    let mut base = strip(base);
    while let ExprKind::Select { base: inner, name } = &base.kind {
        names.push(name.text().to_ascii_lowercase());
        base = strip(inner);
    }
    let innermost = names.pop().unwrap_or_default();
    if let ExprKind::Attribute(b) = &base.kind
        && let Some(which) = special(&b.text())
    {
        match which {
            "target" => out.target.push(innermost),
            "my" | "self" | "root" | "toplevel" => out.own.push(innermost),
            // `parent` of a top-level ad: read conservatively as either.
            _ => {
                out.own.push(innermost.clone());
                out.target.push(innermost);
            }
        }
    } else {
        // `a.b` on a nested ad falls back to the ads enclosing it, which
        // may be either ad of the match.
        collect(base, registry, strict, out);
        out.own.push(innermost.clone());
        out.target.push(innermost);
    }
    for folded in names.into_iter().rev() {
        out.own.push(folded.clone());
        out.target.push(folded);
    }
}

/// The top-level `&&` operands of `expr`, parentheses stripped.
pub(crate) fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    fn walk<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>) {
        let expr = strip(expr);
        match &expr.kind {
            ExprKind::Binary {
                op: classad::syntax::BinaryOp::And,
                lhs,
                rhs,
            } => {
                walk(lhs, out);
                walk(rhs, out);
            }
            _ => out.push(expr),
        }
    }
    walk(expr, &mut out);
    out
}

/// The attribute an expression names in its own ad, if it is a plain
/// reference (`START`, `MY.START`).
pub(crate) fn own_reference(expr: &Expr) -> Option<(String, bool)> {
    match &strip(expr).kind {
        ExprKind::Attribute(name) if special(&name.text()).is_none() => {
            Some((name.text().to_ascii_lowercase(), false))
        }
        ExprKind::Select { base, name } => match &strip(base).kind {
            ExprKind::Attribute(b) if b.text().eq_ignore_ascii_case("my") => {
                Some((name.text().to_ascii_lowercase(), true))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `expr`, evaluated in `ad`, reads nothing but `ad` (and
/// constants): no TARGET, no name that falls back to TARGET, nothing
/// opaque. Followed through the ad's own attributes; a cycle or great
/// depth answers no.
pub(crate) fn self_contained(
    ad: &classad::AdRef,
    expr: &Expr,
    registry: &Registry,
    strict: bool,
    visiting: &mut Vec<String>,
) -> bool {
    if visiting.len() > 32 {
        return false;
    }
    let own = |name: &str, fallback: bool, visiting: &mut Vec<String>| -> bool {
        let folded = name.to_ascii_lowercase();
        match ad.body.get(&folded) {
            Some(attribute) => {
                if visiting.contains(&folded) {
                    return false;
                }
                let source = attribute.source.clone();
                visiting.push(folded);
                let ok = self_contained(ad, &source, registry, strict, visiting);
                visiting.pop();
                ok
            }
            // Absent: UNDEFINED, unless an unscoped name falls back to TARGET.
            None => !fallback || strict,
        }
    };
    match &expr.kind {
        ExprKind::Literal(_) => true,
        ExprKind::Attribute(name) => {
            special(&name.text()).is_none()
                && !ad.body.shadows_special_names()
                && own(&name.text(), true, visiting)
        }
        ExprKind::RootAttribute(name) => own(&name.text(), false, visiting),
        ExprKind::Select { base, name } => match &strip(base).kind {
            ExprKind::Attribute(b)
                if matches!(
                    special(&b.text()),
                    Some("my" | "self" | "root" | "toplevel")
                ) && !ad.body.shadows_special_names() =>
            {
                own(&name.text(), false, visiting)
            }
            _ => false,
        },
        ExprKind::Subscript { base, index } => {
            matches!(strip(index).kind, ExprKind::Literal(Literal::Integer(_)))
                && self_contained(ad, base, registry, strict, visiting)
        }
        ExprKind::Call { name, args } => {
            if let Some(builtin) = registry.get(&name.text())
                && matches!(builtin.function, Function::Lazy(_))
                && !TRANSPARENT_LAZY
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case(&name.text()))
            {
                return false;
            }
            args.iter()
                .all(|a| self_contained(ad, a, registry, strict, visiting))
        }
        ExprKind::Unary { operand, .. } => self_contained(ad, operand, registry, strict, visiting),
        ExprKind::Binary { lhs, rhs, .. } => {
            self_contained(ad, lhs, registry, strict, visiting)
                && self_contained(ad, rhs, registry, strict, visiting)
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => [cond, then, otherwise]
            .iter()
            .all(|e| self_contained(ad, e, registry, strict, visiting)),
        ExprKind::Elvis { value, fallback } => {
            self_contained(ad, value, registry, strict, visiting)
                && self_contained(ad, fallback, registry, strict, visiting)
        }
        ExprKind::Paren(inner) => self_contained(ad, inner, registry, strict, visiting),
        ExprKind::List(items) => items
            .iter()
            .all(|e| self_contained(ad, e, registry, strict, visiting)),
        ExprKind::Ad(_) => false,
    }
}

/// A comparison with an operand that reads only the other ad's attributes
/// (`TARGET.name`, or an expression of `TARGET.name`s, constants and
/// functions that are not lazy): `(op, the other operand, that operand,
/// the names it reads, whether it is the left operand)`.
#[allow(clippy::type_complexity)]
pub(crate) fn target_comparison<'e>(
    expr: &'e Expr,
    registry: &Registry,
    strict: bool,
) -> Option<(
    classad::syntax::BinaryOp,
    &'e Expr,
    &'e Expr,
    Vec<String>,
    bool,
)> {
    use classad::syntax::BinaryOp as B;
    let ExprKind::Binary { op, lhs, rhs } = &strip(expr).kind else {
        return None;
    };
    if !matches!(
        op,
        B::Equal
            | B::NotEqual
            | B::Less
            | B::LessEqual
            | B::Greater
            | B::GreaterEqual
            | B::Is
            | B::Isnt
    ) {
        return None;
    }
    let target_only = |e: &Expr| {
        let mut r = Refs::default();
        collect(e, registry, strict, &mut r);
        let mut names = r.target;
        names.sort_unstable();
        names.dedup();
        (!r.opaque && !r.symmetric && r.own.is_empty() && !names.is_empty()).then_some(names)
    };
    if let Some(names) = target_only(rhs) {
        return Some((*op, lhs, rhs, names, false));
    }
    if let Some(names) = target_only(lhs) {
        return Some((*op, rhs, lhs, names, true));
    }
    None
}

/// The name of `TARGET.name`.
pub(crate) fn plain_target_name(expr: &Expr) -> Option<String> {
    match &strip(expr).kind {
        ExprKind::Select { base, name } => match &strip(base).kind {
            ExprKind::Attribute(b) if b.text().eq_ignore_ascii_case("target") => {
                Some(name.text().to_ascii_lowercase())
            }
            _ => None,
        },
        _ => None,
    }
}
