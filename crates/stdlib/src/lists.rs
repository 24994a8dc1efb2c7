//! Aggregates over lists: `sum avg min max` (spec 003, "Predefined
//! Functions"; rules as HTCondor 25.14 implements them, see
//! `docs/functions/lists.md`).
//!
//! The argument must be a list (UNDEFINED gives UNDEFINED, anything else
//! ERROR). UNDEFINED elements are skipped; an element that is not a
//! number (integer, real or boolean) makes the result ERROR.

use crate::builtin;
use classad_syntax::BinaryOp;
use classad_vm::{Builtin, CallContext, Value, ops};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("sum", 1, 1, true, |c, a| sum_avg(c, &a[0], false)),
        builtin("avg", 1, 1, true, |c, a| sum_avg(c, &a[0], true)),
        builtin("min", 1, 1, true, |c, a| bound(c, &a[0], Bound::Min)),
        builtin("max", 1, 1, true, |c, a| bound(c, &a[0], Bound::Max)),
    ]
}

/// The numbers of a list argument, UNDEFINED elements left out, folded
/// into `init` with `step`; `Err` is the function's result when the
/// argument or an element is unusable.
///
/// The elements are evaluated one by one, as HTCondor's `sumAvg` and
/// `minMax` walk the list: the walk stops at the first element that is not
/// a number (ERROR, the rest unevaluated: `sum({"a", B.b})` is ERROR even
/// where `B.b` fails) or whose evaluation fails (the call fails with it).
/// An element that is itself a list is not a number, whatever its
/// elements.
fn fold_numbers<T>(
    context: &mut CallContext<'_>,
    list: &Value,
    init: T,
    mut step: impl FnMut(T, Value) -> T,
) -> Result<T, Value> {
    if !matches!(
        list,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
    ) {
        return Err(if list.is_undefined() {
            Value::Undefined
        } else {
            Value::Error
        });
    }
    let mut acc = init;
    let mut i = 0;
    while let Some(element) = context.list_element(list, i, true) {
        i += 1;
        match element {
            Ok(Value::Undefined) => {}
            Ok(number @ (Value::Int(_) | Value::Real(_) | Value::Bool(_))) => {
                acc = step(acc, number);
            }
            Ok(_) | Err(_) => return Err(Value::Error),
        }
    }
    Ok(acc)
}

/// `sum(l)`: the first number as it is, then `+` of the rest (so integers
/// wrap, a real makes the sum real, a `+INF` result is ERROR); 0 for no
/// numbers. `avg(l)`: that sum divided by the count as a real; 0 (an
/// integer) for no numbers.
fn sum_avg(context: &mut CallContext<'_>, list: &Value, average: bool) -> Value {
    let folded = fold_numbers(context, list, (None, 0u64), |(total, count), element| {
        let total = match total {
            None => element,
            Some(sum) => ops::binary(BinaryOp::Add, sum, element),
        };
        (Some(total), count + 1)
    });
    match folded {
        Err(result) => result,
        Ok((None, _)) => Value::Int(0),
        Ok((Some(sum), count)) if average => {
            ops::binary(BinaryOp::Divide, sum, Value::Real(count as f64))
        }
        Ok((Some(sum), _)) => sum,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Min,
    Max,
}

/// A pair of numbers promoted as the comparison operators promote them.
enum Pair {
    Ints(i64, i64),
    Reals(f64, f64),
}

fn promote(a: &Value, b: &Value) -> Option<Pair> {
    let int = |v: &Value| match *v {
        Value::Int(i) => Some(i),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(Pair::Ints(x, y)),
        _ => Some(Pair::Reals(a.as_number()?, b.as_number()?)),
    }
}

/// `min(l)` / `max(l)`: UNDEFINED for no numbers; a single number as it
/// is; otherwise each number is compared (`<` / `>`) with the bound so far,
/// both promoted as comparisons promote (booleans to integers, to reals if
/// either is real), and the bound becomes the promoted winner. Ties and
/// NaN comparisons keep the earlier bound.
fn bound(context: &mut CallContext<'_>, list: &Value, which: Bound) -> Value {
    let folded = fold_numbers(context, list, Value::Undefined, |result, element| {
        if result.is_undefined() {
            return element;
        }
        match promote(&element, &result) {
            Some(Pair::Ints(e, r)) => {
                let better = if which == Bound::Min { e < r } else { e > r };
                Value::Int(if better { e } else { r })
            }
            Some(Pair::Reals(e, r)) => {
                let better = if which == Bound::Min { e < r } else { e > r };
                Value::Real(if better { e } else { r })
            }
            None => Value::Error,
        }
    });
    folded.unwrap_or_else(|result| result)
}
