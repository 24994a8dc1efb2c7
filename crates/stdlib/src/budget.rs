//! Charging builtins for their work against the evaluation's budgets
//! (`classad_vm::Limits`). The VM charges every call for scanning its
//! string and list arguments once; a function charges any further work and
//! reserves what it will produce before it allocates, and returns ERROR
//! when either is refused. See docs/limits.md, "Evaluation".

use classad_vm::budget::weight;
use classad_vm::{CallContext, Value};

/// Rough size of the text `convert::to_text` makes of `value`: a string's
/// bytes; a list or ad as HTCondor would copy it (see
/// [`classad_vm::budget::weight`]); other values a few dozen bytes.
pub(crate) fn text_size(value: &Value, limit: u64) -> u64 {
    match value {
        Value::Str(s) => s.len() as u64,
        Value::List(_) | Value::LazyList(_) | Value::Ad(_) => weight(value, limit),
        _ => 48,
    }
}

/// Reserves the text of each of `values` (as `strcat` and `string` make
/// it); false past the budget.
pub(crate) fn reserve_text<'v>(
    context: &mut CallContext<'_>,
    values: impl IntoIterator<Item = &'v Value>,
) -> bool {
    let limit = context.memory_left();
    let mut total = 0u64;
    for value in values {
        total = total.saturating_add(text_size(value, limit));
        if total > limit {
            break;
        }
    }
    context.reserve(usize::try_from(total).unwrap_or(usize::MAX))
}

/// The bytes of the string arguments among `values`.
pub(crate) fn string_bytes<'v>(values: impl IntoIterator<Item = &'v Value>) -> usize {
    values
        .into_iter()
        .map(|v| v.as_str_bytes().map_or(0, <[u8]>::len))
        .sum()
}

/// A set of bytes, for splitting at any of a set of delimiters in time
/// linear in the text whatever the size of the set.
pub(crate) struct ByteSet([bool; 256]);

impl ByteSet {
    pub(crate) fn new(bytes: &[u8]) -> ByteSet {
        let mut set = [false; 256];
        for &b in bytes {
            set[usize::from(b)] = true;
        }
        ByteSet(set)
    }

    #[inline]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b)]
    }

    /// How many bytes of `text` are in the set.
    pub(crate) fn count_in(&self, text: &[u8]) -> usize {
        text.iter().filter(|&&b| self.contains(b)).count()
    }
}
