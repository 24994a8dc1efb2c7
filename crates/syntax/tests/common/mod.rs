//! What the syntax crate's tests share: the spans of a tree, to compare
//! two readings of one text position by position.

// Each test file is its own crate and uses a part of this.
#![allow(dead_code)]

use classad_syntax::{AdExpr, Expr};

/// The spans of `expr` and of every node under it, parents first.
pub fn spans(expr: &Expr, out: &mut Vec<(u32, u32)>) {
    out.push((expr.span.start, expr.span.end));
    expr.for_each_child(|c| spans(c, out));
}

/// The spans of every attribute's expression of `ad`, in order.
pub fn ad_spans(ad: &AdExpr) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (_, e) in &ad.attributes {
        spans(e, &mut out);
    }
    out
}
