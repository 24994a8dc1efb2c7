//! HTCondor's string lists: `stringListSize stringListSum stringListAvg
//! stringListMin stringListMax stringListMember stringListIMember
//! stringListSubsetMatch stringListISubsetMatch stringListsIntersect`
//! (spec 003, "Predefined Functions"; rules as HTCondor 25.14 implements
//! them, see `docs/functions/stringlist.md`).
//!
//! A string list is a string split at any byte of a delimiter set. Most
//! functions trim C white space from each item and drop empty items;
//! `stringListsIntersect` (from the core library, not HTCondor's layer)
//! neither trims nor uses the same default delimiters.

use crate::budget::ByteSet;
use crate::builtin;
use crate::convert::{c_isspace, c_strtod, double_to_i64};
use classad_vm::{Arguments, Builtin, CallContext, Value};
use std::borrow::Cow;
use std::collections::HashSet;

/// Default delimiters of the size/sum/avg/min/max functions.
const SUMMARY_DELIMITERS: &[u8] = b", ";
/// Default delimiters of the member and subset functions.
const MEMBER_DELIMITERS: &[u8] = b", \t\r\n";
/// Default (and empty-string) delimiters of `stringListsIntersect`.
const INTERSECT_DELIMITERS: &[u8] = b" ,";

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("stringListSize", 1, 2, true, size),
        builtin("stringListSum", 1, 2, true, |_, a| {
            summarize(a, Summary::Sum, false)
        }),
        builtin("stringListAvg", 1, 2, true, |_, a| {
            summarize(a, Summary::Avg, false)
        }),
        // Not folded at compile time: the answer depends on
        // `Options::corrections`.
        builtin("stringListMin", 1, 2, false, |c, a| {
            summarize(a, Summary::Min, c.vm.options().corrections)
        }),
        builtin("stringListMax", 1, 2, false, |c, a| {
            summarize(a, Summary::Max, c.vm.options().corrections)
        }),
        builtin("stringListMember", 2, 3, true, |_, a| {
            member_or_subset(a, false, false)
        }),
        builtin("stringListIMember", 2, 3, true, |_, a| {
            member_or_subset(a, true, false)
        }),
        builtin("stringListSubsetMatch", 2, 3, true, |_, a| {
            member_or_subset(a, false, true)
        }),
        builtin("stringListISubsetMatch", 2, 3, true, |_, a| {
            member_or_subset(a, true, true)
        }),
        // HTCondor's ignores whether its arguments' evaluation failed.
        builtin("stringListsIntersect", 2, 3, true, intersect).with_arguments(Arguments {
            notes_failures: true,
            ..Arguments::EAGER
        }),
    ]
}

/// The items of a string list as HTCondor's `StringTokenIterator` gives
/// them: split at any delimiter byte (an empty delimiter set never
/// splits), each item trimmed of C white space, empty items dropped.
pub(crate) fn trimmed_items<'a>(
    list: &'a [u8],
    delimiters: &'a [u8],
) -> impl Iterator<Item = &'a [u8]> + 'a {
    let delimiters = ByteSet::new(delimiters);
    list.split(move |&b| delimiters.contains(b))
        .map(trim)
        .filter(|item| !item.is_empty())
}

fn trim(mut item: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = item {
        if !c_isspace(*first) {
            break;
        }
        item = rest;
    }
    while let [rest @ .., last] = item {
        if !c_isspace(*last) {
            break;
        }
        item = rest;
    }
    item
}

/// The list and delimiter arguments of the summary functions: both must be
/// strings (UNDEFINED included: ERROR).
fn list_and_delimiters(args: &[Value]) -> Option<(&[u8], &[u8])> {
    let list = args[0].as_str_bytes()?;
    let delimiters = match args.get(1) {
        None => SUMMARY_DELIMITERS,
        Some(d) => d.as_str_bytes()?,
    };
    Some((list, delimiters))
}

/// `stringListSize(list [, delimiters])`.
fn size(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    match list_and_delimiters(args) {
        Some((list, delimiters)) => Value::Int(trimmed_items(list, delimiters).count() as i64),
        None => Value::Error,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

/// `stringListSum/Avg/Min/Max(list [, delimiters])`: each item is read as C's
/// `sscanf("%lf")` reads it (a number must start it: `"1x"` is 1, `"x"` is
/// ERROR); the result is a real if any item has a byte other than
/// `+-0123456789`, else the double result cast to an integer (so the
/// average of integers truncates). No items: 0.0 for sum and average,
/// UNDEFINED for min and max.
///
/// As HTCondor, min starts at `FLT_MAX` and max at `FLT_MIN` (the smallest
/// positive normal float), so `stringListMax("-5, -2")` is 0,
/// `stringListMax("0.0")` is 1.1754943508222875e-38 and
/// `stringListMin("1e39")` is 3.4028234663852886e+38; a NaN item never
/// replaces the bound. With `corrected` (`Options::corrections`) min and max
/// start from the first item instead, and a NaN bound is replaced by the
/// next item.
fn summarize(args: &[Value], summary: Summary, corrected: bool) -> Value {
    let Some((list, delimiters)) = list_and_delimiters(args) else {
        return Value::Error;
    };
    let mut count = 0u64;
    let mut accumulator: Option<f64> = None;
    let mut is_real = false;
    for item in trimmed_items(list, delimiters) {
        let Some(value) = scan_double(item) else {
            return Value::Error;
        };
        count += 1;
        if item.iter().any(|b| !b"+-0123456789".contains(b)) {
            is_real = true;
        }
        accumulator = Some(match (accumulator, summary) {
            (None, Summary::Sum | Summary::Avg) => value + 0.0,
            (None, _) if corrected => value,
            (None, Summary::Min) => {
                let start = f64::from(f32::MAX);
                if value < start { value } else { start }
            }
            (None, Summary::Max) => {
                let start = f64::from(f32::MIN_POSITIVE);
                if value > start { value } else { start }
            }
            (Some(a), Summary::Sum | Summary::Avg) => value + a,
            (Some(a), _) if corrected && a.is_nan() => value,
            (Some(a), Summary::Min) => {
                if value < a {
                    value
                } else {
                    a
                }
            }
            (Some(a), Summary::Max) => {
                if value > a {
                    value
                } else {
                    a
                }
            }
        });
    }
    let Some(mut result) = accumulator else {
        return match summary {
            Summary::Sum | Summary::Avg => Value::Real(0.0),
            Summary::Min | Summary::Max => Value::Undefined,
        };
    };
    if summary == Summary::Avg {
        result /= count as f64;
    }
    if is_real {
        Value::Real(result)
    } else {
        Value::Int(double_to_i64(result))
    }
}

/// A string (`Some(Some)`), UNDEFINED (`Some(None)`), or neither (`None`).
fn string_or_undefined(value: &Value) -> Option<Option<&[u8]>> {
    match value {
        Value::Str(s) => Some(Some(s)),
        Value::Undefined => Some(None),
        _ => None,
    }
}

/// C's `sscanf("%lf")` (glibc's): `strtod`, except where scanf, which
/// reads its input once and cannot go back more than a byte, has taken
/// more than strtod would keep and gives up: a `0x` followed by neither a
/// hexadecimal digit nor a point (`"0x"`, `"0xg"`; `"0x."` is 0), and an
/// `inf` followed by an `i` that does not go on to `infinity` (`"infi"`,
/// `"infinf"`; `"infx"` is infinite).
fn scan_double(item: &[u8]) -> Option<f64> {
    let unsigned = item
        .strip_prefix(b"-")
        .or_else(|| item.strip_prefix(b"+"))
        .unwrap_or(item);
    if unsigned.len() >= 2 && unsigned[0] == b'0' && (unsigned[1] | 0x20) == b'x' {
        let next = unsigned.get(2);
        if !next.is_some_and(|b| b.is_ascii_hexdigit() || *b == b'.') {
            return None;
        }
    }
    if unsigned.len() > 3
        && unsigned[..3].eq_ignore_ascii_case(b"inf")
        && (unsigned[3] | 0x20) == b'i'
        && !unsigned
            .get(3..8)
            .is_some_and(|rest| rest.eq_ignore_ascii_case(b"inity"))
    {
        return None;
    }
    c_strtod(item)
}

/// `stringListMember(item, list [, delimiters])` and its case-insensitive
/// and subset forms. Each argument must be a string or UNDEFINED (else
/// ERROR); both `item` and `list` UNDEFINED is UNDEFINED; otherwise
/// UNDEFINED reads as `""` (and as the default delimiters).
fn member_or_subset(args: &[Value], ignore_case: bool, subset: bool) -> Value {
    let (Some(item), Some(list)) = (string_or_undefined(&args[0]), string_or_undefined(&args[1]))
    else {
        return Value::Error;
    };
    let delimiters = match args.get(2).map(string_or_undefined) {
        None | Some(Some(None)) => MEMBER_DELIMITERS,
        Some(Some(Some(d))) => d,
        Some(None) => return Value::Error,
    };
    if item.is_none() && list.is_none() {
        return Value::Undefined;
    }
    let item = item.unwrap_or_default();
    let list = list.unwrap_or_default();
    // Items compared as they are, or with ASCII letters folded.
    fn folded(a: &[u8], ignore_case: bool) -> Cow<'_, [u8]> {
        if ignore_case && a.iter().any(u8::is_ascii_uppercase) {
            Cow::Owned(a.to_ascii_lowercase())
        } else {
            Cow::Borrowed(a)
        }
    }
    let key = |a| folded(a, ignore_case);
    if !subset {
        let item = key(item);
        let found = trimmed_items(list, delimiters).any(|candidate| key(candidate) == item);
        return Value::Bool(found);
    }
    // Subset: "" is a subset of anything; otherwise every item of `item`
    // must be in `list`, and there must be at least one. A set of the
    // list's items makes this linear (HTCondor's is too).
    if item.is_empty() {
        return Value::Bool(true);
    }
    let set: HashSet<Cow<'_, [u8]>> = trimmed_items(list, delimiters).map(key).collect();
    let mut all = false;
    for wanted in trimmed_items(item, delimiters) {
        all = set.contains(&key(wanted));
        if !all {
            break;
        }
    }
    Value::Bool(all)
}

/// `stringListsIntersect(list1, list2 [, delimiters])`: whether an item of
/// one list is (case-sensitively) an item of the other. Items are split at
/// the delimiters (default, and for `""`: space and comma), not trimmed,
/// empty ones dropped. ERROR in an argument wins over UNDEFINED.
fn intersect(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    // An argument whose evaluation failed makes HTCondor's call ERROR, the
    // call itself succeeding (its function returns true there).
    if (0..args.len()).any(|i| context.argument_failed(i)) {
        context.keep_failures_of(0);
        return Value::Error;
    }
    if args.iter().any(Value::is_error) {
        return Value::Error;
    }
    if args.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    let delimiters = match args.get(2) {
        None => INTERSECT_DELIMITERS,
        Some(Value::Str(d)) if d.is_empty() => INTERSECT_DELIMITERS,
        Some(Value::Str(d)) => d,
        Some(_) => return Value::Error,
    };
    let (Some(first), Some(second)) = (args[0].as_str_bytes(), args[1].as_str_bytes()) else {
        return Value::Error;
    };
    fn split<'a>(list: &'a [u8], delimiters: &ByteSet) -> impl Iterator<Item = &'a [u8]> {
        list.split(|&b| delimiters.contains(b))
            .filter(|item| !item.is_empty())
    }
    let delimiters = ByteSet::new(delimiters);
    // A set of the second list's items makes this linear.
    let second_items: HashSet<&[u8]> = split(second, &delimiters).collect();
    let found = split(first, &delimiters).any(|item| second_items.contains(item));
    Value::Bool(found)
}

#[cfg(test)]
mod tests {
    use super::scan_double;

    #[test]
    fn scan_double_gives_up_where_glibc_scanf_does() {
        // scanf read past what strtod keeps and cannot go back.
        for text in [
            "0x", "-0x", "0xg", "0xp1", "infi", "infin", "infinf", "+infinit", "infinitx",
        ] {
            assert_eq!(scan_double(text.as_bytes()), None, "{text}");
        }
        // strtod's prefix is the number.
        assert_eq!(scan_double(b"0x."), Some(0.0));
        assert_eq!(scan_double(b"0x.g"), Some(0.0));
        assert_eq!(scan_double(b"0x.e"), Some(0.875));
        assert_eq!(scan_double(b"1e+"), Some(1.0));
        for text in ["inf", "infx", "INFINITY", "-infinityx", "infinityinf"] {
            assert!(
                scan_double(text.as_bytes()).is_some_and(f64::is_infinite),
                "{text}"
            );
        }
        assert!(scan_double(b"nan(12").is_some_and(f64::is_nan));
    }
}
