//! Version comparison: `versioncmp versionGT versionLT versionGE versionLE
//! versionEQ version_in_range` (spec 003, "Predefined Functions").
//!
//! The ordering is `strverscmp`-like ("natural"): a lexicographic byte
//! comparison unless the first difference falls in a run of digits, where
//! numbers compare by value and more leading zeros sort first
//! (`000 < 00 < 01 < 010 < 09 < 0 < 1 < 9 < 10`). `versioncmp` returns
//! HTCondor's raw difference, not just its sign (`versioncmp("a", "c")` is
//! -2), computed on C `char`s, which are signed.

use crate::builtin;
use crate::convert::{c_str, to_text};
use classad_vm::{Builtin, CallContext, Value};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("versioncmp", 2, 2, true, |_, a| compare(a, Value::Int)),
        builtin("versionGT", 2, 2, true, |_, a| {
            compare(a, |order| Value::Bool(order > 0))
        }),
        builtin("versionLT", 2, 2, true, |_, a| {
            compare(a, |order| Value::Bool(order < 0))
        }),
        builtin("versionGE", 2, 2, true, |_, a| {
            compare(a, |order| Value::Bool(order >= 0))
        }),
        builtin("versionLE", 2, 2, true, |_, a| {
            compare(a, |order| Value::Bool(order <= 0))
        }),
        builtin("versionEQ", 2, 2, true, |_, a| {
            compare(a, |order| Value::Bool(order == 0))
        }),
        builtin("version_in_range", 3, 3, true, in_range),
    ]
}

/// Both arguments as text (UNDEFINED if either is UNDEFINED, else ERROR if
/// either cannot be converted), compared naturally.
fn compare(args: &[Value], result: fn(i64) -> Value) -> Value {
    if args[0].is_undefined() || args[1].is_undefined() {
        return Value::Undefined;
    }
    match (to_text(&args[0]), to_text(&args[1])) {
        (Ok(left), Ok(right)) => result(natural_cmp(&left, &right)),
        _ => Value::Error,
    }
}

/// `version_in_range(v, min, max)`: `min <= v <= max` naturally. An
/// UNDEFINED bound gives UNDEFINED; an UNDEFINED version is ERROR.
fn in_range(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    if args[1].is_undefined() || args[2].is_undefined() {
        return Value::Undefined;
    }
    match (to_text(&args[0]), to_text(&args[1]), to_text(&args[2])) {
        (Ok(version), Ok(min), Ok(max)) => {
            Value::Bool(natural_cmp(&min, &version) <= 0 && natural_cmp(&version, &max) <= 0)
        }
        _ => Value::Error,
    }
}

/// The natural ordering of two strings (read up to a NUL, as C strings):
/// negative, zero or positive.
pub(crate) fn natural_cmp(left: &[u8], right: &[u8]) -> i64 {
    let (a, b) = (c_str(left), c_str(right));
    // A byte of each string, 0 past its end.
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let digit = |s: &[u8], i: usize| at(s, i).is_ascii_digit();
    // C's `*s1 - *s2` on signed chars.
    let diff = |i: usize| i64::from(at(a, i) as i8) - i64::from(at(b, i) as i8);

    let Some(mismatch) = (0..=a.len().max(b.len())).find(|&i| at(a, i) != at(b, i)) else {
        return 0;
    };
    // The run of digits (common to both) leading up to the mismatch.
    let mut start = mismatch;
    while start > 0 && digit(a, start - 1) {
        start -= 1;
    }
    if start == mismatch && (!digit(a, mismatch) || !digit(b, mismatch)) {
        return diff(mismatch);
    }
    // Leading zeros of each number; a final zero of the run is the number
    // itself, not a leading zero.
    let zeros_end = |s: &[u8]| {
        let mut end = start;
        while at(s, end) == b'0' {
            end += 1;
        }
        if end > start && !digit(s, end) {
            end -= 1;
        }
        end
    };
    let (za, zb) = (zeros_end(a), zeros_end(b));
    if za - start != zb - start {
        return (zb - start) as i64 - (za - start) as i64;
    }
    if za > start {
        return diff(mismatch);
    }
    // No leading zeros: the longer number is larger.
    let run_end = |s: &[u8], from: usize| {
        let mut end = from;
        while digit(s, end) {
            end += 1;
        }
        end
    };
    let (la, lb) = (run_end(a, za) - start, run_end(b, zb) - start);
    if la != lb {
        la as i64 - lb as i64
    } else {
        diff(mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn documented_sequence_is_ordered() {
        let order = ["000", "00", "01", "010", "09", "0", "1", "9", "10"];
        for pair in order.windows(2) {
            assert!(
                natural_cmp(pair[0].as_bytes(), pair[1].as_bytes()) < 0,
                "{pair:?}"
            );
            assert!(natural_cmp(pair[1].as_bytes(), pair[0].as_bytes()) > 0);
        }
    }

    #[test]
    fn raw_differences() {
        assert_eq!(natural_cmp(b"a", b"c"), -2);
        assert_eq!(natural_cmp(b"1", b"1a"), -97);
        assert_eq!(natural_cmp(b"01", b"010"), -48);
        assert_eq!(natural_cmp("é".as_bytes(), b"e"), -162);
        assert_eq!(natural_cmp(b"1000", b"99"), 2);
        assert_eq!(natural_cmp(b"", b""), 0);
    }
}
