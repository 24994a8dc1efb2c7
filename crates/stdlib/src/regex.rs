//! Regular expressions: `regexp regexpMember regexps replace replaceall
//! stringList_regexpMember` (spec 003, "Predefined Functions"; rules as
//! HTCondor 25.14 implements them with PCRE2, see `docs/functions/regex.md`).
//!
//! This file holds the builtins: their arguments, option letters and list
//! walks. Patterns are compiled and run by the `classad-pcre` crate, whose
//! crate doc says which of its engines (fancy-regex after a translation of
//! PCRE2 syntax, a backtracking matcher with PCRE2's semantics, models of
//! PCRE2's match limit and compiled-size limit) answers which pattern and
//! why. Its work is charged to the evaluation's budget through
//! [`Charged`].

use crate::builtin;
use crate::stringlist::trimmed_items;
use classad_pcre::{Budget, Flags, Regex, Substitution};
use classad_vm::{Builtin, CallContext, Value};
use std::sync::Arc;

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("regexp", 2, 3, true, regexp),
        // Not folded at compile time: the answer for an invalid pattern
        // depends on an option.
        builtin("regexpMember", 2, 3, false, regexp_member),
        builtin("regexps", 3, 4, true, |c, a| substitute_call(c, a, "")),
        builtin("replace", 3, 4, true, |c, a| substitute_call(c, a, "f")),
        // Not folded at compile time: the answer depends on
        // `Options::corrections`.
        builtin("replaceall", 3, 4, false, |c, a| {
            substitute_call(c, a, "fg")
        }),
        builtin(
            "stringList_regexpMember",
            2,
            4,
            true,
            string_list_regexp_member,
        ),
    ]
}

/// The evaluation's budget, as the regex engines charge it.
struct Charged<'a, 'c>(&'a mut CallContext<'c>);

impl Budget for Charged<'_, '_> {
    #[inline]
    fn charge(&mut self, steps: u64) -> bool {
        self.0.charge(steps)
    }

    #[inline]
    fn charge_bytes(&mut self, bytes: u64) -> bool {
        self.0
            .charge_bytes(usize::try_from(bytes).unwrap_or(usize::MAX))
    }

    #[inline]
    fn reserve(&mut self, bytes: usize) -> bool {
        self.0.reserve(bytes)
    }
}

/// The option letters `i m s x` (lower case only, as `regexp` reads them;
/// other letters are ignored) and whether `f` and `g` are present.
fn parse_options(options: &[u8], any_case: bool) -> (Flags, bool, bool) {
    let mut flags = Flags::NONE;
    let (mut full, mut global) = (false, false);
    for &letter in options {
        let letter = if any_case {
            letter.to_ascii_lowercase()
        } else {
            letter
        };
        match letter {
            b'f' => full = true,
            b'g' => global = true,
            _ => flags = flags.with_letter(letter),
        }
    }
    (flags, full, global)
}

/// Whether `pattern` compiles with the caseless option (`unresolved`
/// refuses an invalid pattern before it looks for names).
pub(crate) fn compiles_caseless(context: &mut CallContext<'_>, pattern: &[u8]) -> bool {
    Regex::compile(&mut Charged(context), pattern, Flags::CASELESS).is_some()
}

/// Whether `pattern`, ignoring case, has a match in `target` that is not
/// empty: `unresolved`'s search (PCRE2_CASELESS, and PCRE2_NOTEMPTY, so
/// `""` matches nothing; see [`Regex::is_match_not_empty`]).
pub(crate) fn matches_not_empty_caseless(
    context: &mut CallContext<'_>,
    pattern: &[u8],
    target: &[u8],
) -> Option<bool> {
    let budget = &mut Charged(context);
    Regex::compile(budget, pattern, Flags::CASELESS)?.is_match_not_empty(budget, target)
}

/// The common rules of `regexp`, `regexpMember` and the substitutions:
/// ERROR if any argument is ERROR, else UNDEFINED if any is UNDEFINED,
/// else ERROR if the options (the argument at `options`) are not a string.
fn prelude(args: &[Value], options: usize) -> Result<&[u8], Value> {
    if args.iter().any(Value::is_error) {
        return Err(Value::Error);
    }
    if args.iter().any(Value::is_undefined) {
        return Err(Value::Undefined);
    }
    match args.get(options) {
        None => Ok(b""),
        Some(Value::Str(s)) => Ok(s),
        Some(_) => Err(Value::Error),
    }
}

/// `regexp(pattern, target [, options])`.
fn regexp(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let options = match prelude(args, 2) {
        Ok(options) => options,
        Err(result) => return result,
    };
    let (Some(pattern), Some(target)) = (args[0].as_str_bytes(), args[1].as_str_bytes()) else {
        return Value::Error;
    };
    let budget = &mut Charged(context);
    let Some(regex) = Regex::compile(budget, pattern, parse_options(options, false).0) else {
        return Value::Error;
    };
    regex
        .is_match(budget, target)
        .map_or(Value::Error, Value::Bool)
}

/// `regexpMember(pattern, list [, options])`: true at the first string
/// element that matches; an element before it that is neither a string nor
/// UNDEFINED is ERROR; no match with an UNDEFINED element is UNDEFINED.
/// An invalid pattern matches nothing, as in HTCondor (so the answer is
/// false or UNDEFINED); with `Options::regexp_member_invalid_error` it is
/// ERROR, as everywhere else.
///
/// The elements are evaluated as the walk reaches them (the walk stops at
/// the first match or the first element that is neither a string nor
/// UNDEFINED); one whose evaluation fails is ERROR, the call going on
/// without failing, as HTCondor's `matchPatternMember` does
/// (`regexpMember("a", {B.b, "a"})` with `B = {B.b}` is ERROR, and
/// `isError` of it true).
fn regexp_member(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let options = match prelude(args, 2) {
        Ok(options) => options,
        Err(result) => return result,
    };
    let list = &args[1];
    let (Some(pattern), Value::List(_) | Value::SharedList(_) | Value::LazyList(_)) =
        (args[0].as_str_bytes(), list)
    else {
        return Value::Error;
    };
    let compiled = Regex::compile(
        &mut Charged(context),
        pattern,
        parse_options(options, false).0,
    );
    if compiled.is_none() && context.vm.options().regexp_member_invalid_error {
        return Value::Error;
    }
    let mut undefined_seen = false;
    let mut i = 0;
    while let Some(item) = context.ignoring_failures(|context| context.list_element(list, i, false))
    {
        i += 1;
        let Ok(item) = item else {
            return Value::Error;
        };
        match &item {
            Value::Str(_) if compiled.is_none() => {}
            Value::Str(target) => match compiled
                .as_ref()
                .and_then(|regex| regex.is_match(&mut Charged(context), target))
            {
                Some(true) => return Value::Bool(true),
                Some(false) => {}
                // HTCondor ignores a failed match here (the match limit, a
                // recursion loop): no match. Out of budget is ERROR.
                None if context.vm.exhausted() => return Value::Error,
                None => {}
            },
            Value::Undefined => undefined_seen = true,
            _ => return Value::Error,
        }
    }
    if undefined_seen {
        Value::Undefined
    } else {
        Value::Bool(false)
    }
}

/// `regexps`, `replace` (`extra` = "f") and `replaceall` (`extra` = "fg").
fn substitute_call(context: &mut CallContext<'_>, args: &[Value], extra: &str) -> Value {
    let options = match prelude(args, 3) {
        Ok(options) => options,
        Err(result) => return result,
    };
    let (Some(pattern), Some(target), Some(replacement)) = (
        args[0].as_str_bytes(),
        args[1].as_str_bytes(),
        args[2].as_str_bytes(),
    ) else {
        return Value::Error;
    };
    let mut all_options = options.to_vec();
    all_options.extend_from_slice(extra.as_bytes());
    let (flags, full, global) = parse_options(&all_options, false);
    let corrections = context.vm.options().corrections;
    let budget = &mut Charged(context);
    let Some(regex) = Regex::compile(budget, pattern, flags) else {
        return Value::Error;
    };
    let how = Substitution {
        full,
        global,
        corrections,
    };
    match regex.substitute(budget, target, replacement, how) {
        Some(out) => Value::Str(Arc::from(out)),
        None => Value::Error,
    }
}

/// `stringList_regexpMember(pattern, list [, delimiters [, options]])`:
/// every argument must be a string; the options letters count in either
/// case; the items are split and trimmed as the other string-list
/// functions do (default delimiters `", "`); no items is UNDEFINED.
fn string_list_regexp_member(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let mut strings = args.iter().map(Value::as_str_bytes);
    let (Some(Some(pattern)), Some(Some(list))) = (strings.next(), strings.next()) else {
        return Value::Error;
    };
    let (delimiters, options) = match (strings.next(), strings.next()) {
        (None, _) => (&b", "[..], &b""[..]),
        (Some(Some(d)), None) => (d, &b""[..]),
        (Some(Some(d)), Some(Some(o))) => (d, o),
        _ => return Value::Error,
    };
    let Some(regex) = Regex::compile(
        &mut Charged(context),
        pattern,
        parse_options(options, true).0,
    ) else {
        return Value::Error;
    };
    let mut any_item = false;
    let mut found = false;
    for item in trimmed_items(list, delimiters) {
        any_item = true;
        match regex.is_match(&mut Charged(context), item) {
            Some(true) => found = true,
            Some(false) => {}
            // HTCondor takes a failed match (the match limit) for no
            // match. Out of budget is ERROR.
            None if context.vm.exhausted() => return Value::Error,
            None => {}
        }
        if found {
            break;
        }
    }
    if any_item {
        Value::Bool(found)
    } else {
        Value::Undefined
    }
}
