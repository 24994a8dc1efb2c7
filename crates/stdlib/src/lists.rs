//! Aggregates over lists: `sum avg min max` (spec 003, "Predefined
//! Functions"; rules as HTCondor 25.14 implements them, see
//! `docs/functions/lists.md`).
//!
//! The argument must be a list (UNDEFINED gives UNDEFINED, anything else
//! ERROR). UNDEFINED elements are skipped; an element that is not a
//! number (integer, real or boolean) makes the result ERROR.

use crate::builtin;
use classad_syntax::BinaryOp;
use classad_vm::{Builtin, Value, ops};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("sum", 1, 1, true, |_, a| sum_avg(&a[0], false)),
        builtin("avg", 1, 1, true, |_, a| sum_avg(&a[0], true)),
        builtin("min", 1, 1, true, |_, a| bound(&a[0], Bound::Min)),
        builtin("max", 1, 1, true, |_, a| bound(&a[0], Bound::Max)),
    ]
}

/// The numbers of a list argument, UNDEFINED elements left out; `Err` is
/// the function's result when the argument or an element is unusable.
fn numbers(list: &Value) -> Result<impl Iterator<Item = &Value>, Value> {
    let Value::List(items) = list else {
        return Err(if list.is_undefined() {
            Value::Undefined
        } else {
            Value::Error
        });
    };
    if items.iter().any(|v| {
        !matches!(
            v,
            Value::Undefined | Value::Int(_) | Value::Real(_) | Value::Bool(_)
        )
    }) {
        return Err(Value::Error);
    }
    Ok(items.iter().filter(|v| !v.is_undefined()))
}

/// `sum(l)`: the first number as it is, then `+` of the rest (so integers
/// wrap, a real makes the sum real, a `+INF` result is ERROR); 0 for no
/// numbers. `avg(l)`: that sum divided by the count as a real; 0 (an
/// integer) for no numbers.
fn sum_avg(list: &Value, average: bool) -> Value {
    let elements = match numbers(list) {
        Ok(elements) => elements,
        Err(result) => return result,
    };
    let mut total: Option<Value> = None;
    let mut count = 0u64;
    for element in elements {
        count += 1;
        total = Some(match total {
            None => element.clone(),
            Some(sum) => ops::binary(BinaryOp::Add, sum, element.clone()),
        });
    }
    match total {
        None => Value::Int(0),
        Some(sum) if average => ops::binary(BinaryOp::Divide, sum, Value::Real(count as f64)),
        Some(sum) => sum,
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
fn bound(list: &Value, which: Bound) -> Value {
    let elements = match numbers(list) {
        Ok(elements) => elements,
        Err(result) => return result,
    };
    let mut result = Value::Undefined;
    for element in elements {
        if result.is_undefined() {
            result = element.clone();
            continue;
        }
        result = match promote(element, &result) {
            Some(Pair::Ints(e, r)) => {
                let better = if which == Bound::Min { e < r } else { e > r };
                Value::Int(if better { e } else { r })
            }
            Some(Pair::Reals(e, r)) => {
                let better = if which == Bound::Min { e < r } else { e > r };
                Value::Real(if better { e } else { r })
            }
            None => Value::Error,
        };
    }
    result
}
