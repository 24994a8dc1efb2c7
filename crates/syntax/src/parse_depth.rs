//! HTCondor's parser depth bound, counted on a parsed tree.
//!
//! HTCondor's recursive-descent parser keeps one depth counter and refuses
//! a text once the counter passes its bound (500 in 25.14). Measured with
//! the oracle, three of its functions count a level: the one for a whole
//! expression (a conditional's branches are expressions of their own), the
//! one for a prefix operator and its operand (it recurses once per
//! operator), and the one for a postfix expression (a `?:` fallback is a
//! postfix expression of its own). What a bracket holds (parentheses, a
//! list's elements, an ad's definitions, call arguments, a subscript) is
//! an expression one level below the postfix expression it is part of, so
//! each bracket costs three levels; binary operators, selections and
//! subscript chains cost nothing (they are loops there).
//!
//! [`too_deep`] walks the tree with that count and gives the span of the
//! first node past the bound. Its own recursion follows the count, so it
//! never goes much deeper than the bound, except along a chain of binary
//! operators, which it follows in a loop.

use crate::ast::{Expr, ExprKind, Span};

/// The first node of `expr` whose level passes `limit` when `expr` is an
/// expression HTCondor parses at level `start` (1 for a whole text or an
/// attribute of a top-level ad), or `None` if none does.
pub(crate) fn too_deep(expr: &Expr, start: usize, limit: usize) -> Option<Span> {
    Walk { limit }.expression(expr, start)
}

struct Walk {
    limit: usize,
}

impl Walk {
    /// An expression at level `level` (already counted).
    fn expression(&self, expr: &Expr, level: usize) -> Option<Span> {
        if level > self.limit {
            return Some(expr.span);
        }
        match &expr.kind {
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self
                .binary(cond, level)
                .or_else(|| self.expression(then, level + 1))
                .or_else(|| self.expression(otherwise, level + 1)),
            _ => self.binary(expr, level),
        }
    }

    /// Operands joined by binary operators, inside an expression at
    /// `level`: each operand is a prefix-operator level below it.
    fn binary(&self, expr: &Expr, level: usize) -> Option<Span> {
        let mut expr = expr;
        loop {
            match &expr.kind {
                ExprKind::Binary { lhs, rhs, .. } => {
                    if let Some(span) = self.binary(rhs, level) {
                        return Some(span);
                    }
                    expr = lhs;
                }
                // Only under parentheses in text; a built tree may hold
                // one anywhere: count it as an expression of its own.
                ExprKind::Conditional { .. } => return self.expression(expr, level),
                _ => return self.prefix(expr, level + 1),
            }
        }
    }

    /// An operand with its prefix operators, the first at `level`.
    fn prefix(&self, expr: &Expr, level: usize) -> Option<Span> {
        let mut expr = expr;
        let mut level = level;
        loop {
            if level > self.limit {
                return Some(expr.span);
            }
            match &expr.kind {
                ExprKind::Unary { operand, .. } => {
                    expr = operand;
                    level += 1;
                }
                _ => return self.postfix(expr, level + 1),
            }
        }
    }

    /// A postfix expression (a primary with its selections, subscripts
    /// and `?:` fallback) at `level`.
    fn postfix(&self, mut expr: &Expr, level: usize) -> Option<Span> {
        if level > self.limit {
            return Some(expr.span);
        }
        let inner = level + 1;
        // A selection chain is read in a loop: no level, however long.
        while let ExprKind::Select { base, .. } = &expr.kind {
            expr = base;
        }
        match &expr.kind {
            // (A selection is walked above.)
            ExprKind::Literal(_)
            | ExprKind::Attribute(_)
            | ExprKind::RootAttribute(_)
            | ExprKind::Select { .. } => None,
            ExprKind::Subscript { base, index } => self
                .postfix(base, level)
                .or_else(|| self.expression(index, inner)),
            ExprKind::Elvis { value, fallback } => self
                .postfix(value, level)
                .or_else(|| self.postfix(fallback, inner)),
            ExprKind::Paren(e) => self.expression(e, inner),
            ExprKind::Call { args, .. } => args.iter().find_map(|a| self.expression(a, inner)),
            ExprKind::List(items) => items.iter().find_map(|e| self.expression(e, inner)),
            ExprKind::Ad(ad) => ad
                .attributes
                .iter()
                .find_map(|(_, e)| self.expression(e, inner)),
            // Only under parentheses in text (see `binary`).
            ExprKind::Unary { .. } | ExprKind::Binary { .. } | ExprKind::Conditional { .. } => {
                self.expression(expr, level)
            }
        }
    }
}
