//! String functions: `strcat join substr strcmp stricmp toUpper toLower
//! split splitUserName splitSlotName` (spec 003, "Predefined Functions").
//!
//! Strings are byte strings; case mapping and case-insensitive comparison
//! fold ASCII letters only (C's `toupper`/`strcasecmp` in the C locale), and
//! offsets and lengths count bytes.

use crate::budget::{ByteSet, reserve_text, string_bytes};
use crate::builtin;
use crate::convert::{c_isspace, c_str, to_text};
use classad_vm::{Arguments, Builtin, CallContext, LazyArg, Program, StopTest, Stops, Value};
use std::cmp::Ordering;
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        // A list turned into text is written as HTCondor holds it, its
        // elements unevaluated (`toUpper({a + 1})` is "{ A + 1 }"), so these
        // functions get their list arguments as written.
        // HTCondor's `strcat` evaluates its arguments one level deeper
        // (as an operation does) and in order, and stops at the first
        // UNDEFINED or ERROR or failed evaluation: the later arguments are
        // never evaluated, and their failures do not fail the call.
        builtin("strcat", 0, u16::MAX, true, strcat).with_arguments(Arguments {
            notes_failures: true,
            stops: Stops::Each {
                test: StopTest::Exceptional,
                min_args: 0,
            },
            one_level_deeper: true,
            probes_last: None,
        }),
        // As `strcat`, stopping at an ERROR, but of two arguments HTCondor
        // evaluates the second first (to see whether it is a list): no
        // stop there, the notes say which failed (see `join`).
        builtin("join", 0, u16::MAX, true, join).with_arguments(Arguments {
            notes_failures: true,
            stops: Stops::Each {
                test: StopTest::Error,
                min_args: 3,
            },
            one_level_deeper: true,
            probes_last: Some(join_probing_last),
        }),
        builtin("substr", 2, 3, true, substr),
        builtin("strcmp", 2, 2, true, |c, a| {
            if !reserve_text(c, a) {
                return Value::Error;
            }
            compare(&a[0], &a[1], false)
        }),
        builtin("stricmp", 2, 2, true, |c, a| {
            if !reserve_text(c, a) {
                return Value::Error;
            }
            compare(&a[0], &a[1], true)
        }),
        builtin("toUpper", 1, 1, true, |c, a| {
            if !reserve_text(c, a) {
                return Value::Error;
            }
            map_case(&a[0], <[u8]>::make_ascii_uppercase)
        }),
        builtin("toLower", 1, 1, true, |c, a| {
            if !reserve_text(c, a) {
                return Value::Error;
            }
            map_case(&a[0], <[u8]>::make_ascii_lowercase)
        }),
        builtin("split", 1, 2, true, split),
        builtin("splitUserName", 1, 1, true, |c, a| {
            if !c.reserve(string_bytes(a)) || !c.reserve_values(2) {
                return Value::Error;
            }
            split_at(&a[0], false)
        }),
        builtin("splitSlotName", 1, 1, true, |c, a| {
            if !c.reserve(string_bytes(a)) || !c.reserve_values(2) {
                return Value::Error;
            }
            split_at(&a[0], true)
        }),
    ]
}

fn string(bytes: Vec<u8>) -> Value {
    Value::Str(Arc::from(bytes))
}

/// `strcat(args...)`: every argument as text, concatenated. The first
/// argument that cannot be converted decides: UNDEFINED or ERROR.
fn strcat(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    // HTCondor evaluates each argument one level deeper, checking the
    // depth first (see `CallContext::past_depth_limit`).
    if !args.is_empty() && context.past_depth_limit(1) {
        return Value::Error;
    }
    if !reserve_text(context, args) {
        return Value::Error;
    }
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        // HTCondor stops at an argument whose evaluation failed, or that is
        // UNDEFINED or ERROR, and never evaluates the rest.
        if context.argument_failed(i) {
            return context.stop_at(i, Value::Error);
        }
        match to_text(arg) {
            Ok(text) => out.extend_from_slice(&text),
            Err(exceptional) => return context.stop_at(i, exceptional),
        }
    }
    string(out)
}

/// `join(sep, args...)`, `join(sep, list)`, `join(list)`. UNDEFINED items
/// (and an UNDEFINED separator) are skipped; the result is UNDEFINED only
/// when something was UNDEFINED and no item was joined. Any ERROR wins.
/// As in HTCondor, the separator goes before an item only once the result
/// is non-empty, so leading empty items leave no separators.
/// A list's elements are evaluated where the call is, one by one as
/// HTCondor's `strCat` takes them: after the separator, stopping at the
/// first that is ERROR (or cannot be written), an element whose evaluation
/// fails failing the call; a list among the items is written as it is
/// held, unevaluated.
fn join(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    // As strcat: each argument (a list's elements too) one level deeper.
    if !args.is_empty() && context.past_depth_limit(1) {
        return Value::Error;
    }
    let mut elements = Vec::new();
    let (separator, items): (Option<&Value>, &[Value]) = match args {
        [list] if is_list(list) => {
            join_elements(context, list, &mut elements);
            (None, &elements)
        }
        [sep, list] if is_list(list) => {
            // A separator that cannot be written ends the join before the
            // elements are evaluated.
            if sep.is_error() {
                return Value::Error;
            }
            join_elements(context, list, &mut elements);
            (Some(sep), &elements)
        }
        [sep, rest @ ..] => (Some(sep), rest),
        [] => (None, &[]),
    };
    let noted = !matches!(args, [list] | [_, list] if is_list(list));
    join_parts(context, separator, items, noted)
}

/// `join` of one or two arguments whose last is not a literal, as
/// HTCondor's `strCat` runs it (see `Arguments::probes_last`): the last
/// argument first, one level deeper; a list there is joined (after the
/// separator, evaluated then); anything else, or a failed evaluation
/// (forgotten), and every argument is evaluated again in order, each one
/// level deeper, up to the first whose evaluation fails (the call fails)
/// or that ends the join (ERROR, or what cannot be written).
fn join_probing_last(context: &mut CallContext<'_>, args: &[LazyArg]) -> Value {
    let Some(last) = args.last() else {
        return Value::Error;
    };
    if context.past_depth_limit(1) {
        return Value::Error;
    }
    let (probe, failed) =
        context.taking_failures(|context| context.evaluate_as_written(&last.program));
    if !failed && is_list(&probe) {
        let mut elements = Vec::new();
        let separator = match args {
            [_] => None,
            [sep, _] => {
                let (sep, failed) = evaluate_noting_failure(context, &sep.program);
                if failed || sep.is_error() {
                    return Value::Error;
                }
                Some(sep)
            }
            _ => return Value::Error,
        };
        join_elements(context, &probe, &mut elements);
        return join_parts(context, separator.as_ref(), &elements, false);
    }
    drop(probe);
    let mut values = Vec::with_capacity(args.len());
    for arg in args {
        let (value, failed) = evaluate_noting_failure(context, &arg.program);
        if failed {
            return Value::Error;
        }
        let ends = matches!(to_text(&value), Err(Value::Error));
        values.push(value);
        if ends {
            break;
        }
    }
    // The first argument is the separator, even alone (`join("a")` is "").
    match values.split_first() {
        Some((sep, items)) => join_parts(context, Some(sep), items, false),
        None => Value::Error,
    }
}

/// Evaluates an argument one level deeper, leaving a list as written, and
/// tells whether the evaluation failed (the failure stays counted).
fn evaluate_noting_failure(context: &mut CallContext<'_>, program: &Program) -> (Value, bool) {
    let (value, failed) = context.taking_failures(|context| context.evaluate_as_written(program));
    if failed {
        context.fail();
    }
    (value, failed)
}

fn is_list(value: &Value) -> bool {
    matches!(
        value,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
    )
}

/// The join of `items` with `separator` (UNDEFINED skipped); `noted`: the
/// call's arguments are `separator` and `items` in order, their failures
/// noted (the eager layout), so a failed one ends the join.
fn join_parts(
    context: &mut CallContext<'_>,
    separator: Option<&Value>,
    items: &[Value],
    noted: bool,
) -> Value {
    let separators = separator.map_or(0, |sep| string_bytes([sep]).saturating_mul(items.len()));
    if !context.reserve(separators) || !reserve_text(context, items) {
        return Value::Error;
    }
    let mut undefined = false;
    // Without a list, HTCondor evaluates the arguments in order and stops
    // at one whose evaluation failed or that is ERROR (or cannot be
    // written), never evaluating the rest (with two, it evaluates the
    // second first, to see whether it is a list, and forgets whether that
    // failed).
    let stop = |context: &mut CallContext<'_>, i: usize| {
        if noted {
            context.keep_failures_of(i + 1);
        }
    };
    if noted && context.argument_failed(0) {
        stop(context, 0);
        return Value::Error;
    }
    let sep = match separator.map(to_text) {
        None => Vec::new(),
        Some(Ok(text)) => text,
        Some(Err(Value::Undefined)) => {
            undefined = true;
            Vec::new()
        }
        Some(Err(other)) => {
            stop(context, 0);
            return other;
        }
    };
    let mut out = Vec::new();
    let mut joined = false;
    for (i, item) in items.iter().enumerate() {
        if noted && context.argument_failed(i + 1) {
            stop(context, i + 1);
            return Value::Error;
        }
        match to_text(item) {
            Ok(text) => {
                if !out.is_empty() {
                    out.extend_from_slice(&sep);
                }
                out.extend_from_slice(&text);
                joined = true;
            }
            Err(Value::Undefined) => undefined = true,
            Err(other) => {
                stop(context, i + 1);
                return other;
            }
        }
    }
    if undefined && !joined {
        Value::Undefined
    } else {
        string(out)
    }
}

/// The elements of `join`'s list, each one level deeper, up to the first
/// that ends the join (ERROR); one whose evaluation fails ends it as
/// ERROR, the call failing with it.
fn join_elements(context: &mut CallContext<'_>, list: &Value, elements: &mut Vec<Value>) {
    let mut i = 0;
    while let Some(element) = context.list_element_deeper(list, i, 1) {
        i += 1;
        let element = element.unwrap_or(Value::Error);
        let ends = element.is_error();
        elements.push(element);
        if ends {
            break;
        }
    }
}

/// `substr(s, offset [, length])`, Perl-like: a negative offset counts
/// from the end, a negative length drops that many bytes from the end;
/// whatever falls outside the string is cut off. Offset and length are
/// read as C `int`s (their low 32 bits), as HTCondor reads them.
fn substr(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if args.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    let (Value::Str(text), Value::Int(offset)) = (&args[0], &args[1]) else {
        return Value::Error;
    };
    let length = match args.get(2) {
        None => None,
        Some(Value::Int(length)) => Some(i64::from(*length as i32)),
        Some(_) => return Value::Error,
    };
    let size = text.len() as i64;
    let mut offset = i64::from(*offset as i32);
    if offset < 0 {
        offset = (size + offset).max(0);
    } else if offset > size {
        offset = size;
    }
    let available = size - offset;
    let count = match length {
        Some(0) => 0,
        Some(length) if length > 0 => length.min(available),
        Some(length) => (available + length).max(0),
        None => available,
    };
    let start = offset as usize;
    let end = (start + count as usize).min(text.len());
    if !context.reserve(end - start) {
        return Value::Error;
    }
    string(text[start..end].to_vec())
}

/// `strcmp` / `stricmp`: both arguments as text, compared as C does
/// (bytes unsigned, up to a NUL), giving -1, 0 or 1. UNDEFINED first, then
/// ERROR.
fn compare(left: &Value, right: &Value, ignore_case: bool) -> Value {
    if left.is_undefined() || right.is_undefined() {
        return Value::Undefined;
    }
    let (left, right) = match (to_text(left), to_text(right)) {
        (Ok(l), Ok(r)) => (l, r),
        _ => return Value::Error,
    };
    let (left, right) = (c_str(&left), c_str(&right));
    let order = if ignore_case {
        classad_vm::ops::compare_ignore_case(left, right)
    } else {
        left.cmp(right)
    };
    Value::Int(match order {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// `toUpper` / `toLower`: the argument as text, ASCII letters mapped.
fn map_case(value: &Value, map: fn(&mut [u8])) -> Value {
    match to_text(value) {
        Ok(mut text) => {
            map(&mut text);
            string(text)
        }
        Err(exceptional) => exceptional,
    }
}

/// `split(s [, separators])`: the pieces of `s` between separator bytes
/// (default: comma, space, tab). Runs of white space, or of white space
/// around one other separator, count once; a repeated non-space separator
/// gives an empty piece (`"a,,b"` → `{"a", "", "b"}`). Arguments must be
/// strings (UNDEFINED is ERROR, as in HTCondor).
fn split(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let Value::Str(text) = &args[0] else {
        return Value::Error;
    };
    let separators: &[u8] = match args.get(1) {
        None => b", \t",
        Some(Value::Str(s)) => s,
        Some(_) => return Value::Error,
    };
    let set = ByteSet::new(separators);
    if !context.charge_bytes(separators.len())
        || !context.reserve(text.len())
        || !context.reserve_values(set.count_in(text) + 1)
    {
        return Value::Error;
    }
    let mut items = Vec::new();
    let mut last = 0;
    if !separators.is_empty() {
        // The last non-space separator seen (HTCondor never resets it).
        let mut previous: Option<u8> = None;
        for (at, &byte) in text.iter().enumerate() {
            if !set.contains(byte) {
                continue;
            }
            if at > last {
                items.push(Value::string(&text[last..at]));
            } else if previous == Some(byte) && !c_isspace(byte) {
                items.push(Value::string(b""));
            }
            if !c_isspace(byte) {
                previous = Some(byte);
            }
            last = at + 1;
        }
    }
    if text.len() > last {
        items.push(Value::string(&text[last..]));
    }
    Value::SharedList(items.into())
}

/// `splitUserName("user@domain")` → `{"user", "domain"}`;
/// `splitSlotName("slot1@host")` → `{"slot1", "host"}`. Without an `@`,
/// the whole name is the user (first) or the host (second).
fn split_at(value: &Value, slot: bool) -> Value {
    let Value::Str(text) = value else {
        return Value::Error;
    };
    let text: &[u8] = text;
    let (first, second) = match text.iter().position(|&b| b == b'@') {
        Some(at) => (&text[..at], &text[at + 1..]),
        None if slot => (&b""[..], text),
        None => (text, &b""[..]),
    };
    Value::SharedList(Arc::from(vec![Value::string(first), Value::string(second)]))
}
