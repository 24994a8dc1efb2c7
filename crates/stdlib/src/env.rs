//! Job environment and argument strings, user home directories and user
//! maps (spec 003, "Predefined Functions": `envV1ToV2`, `mergeEnvironment`,
//! `userHome`, `userMap`; and HTCondor's `listToArgs`, `argsToList`, which
//! it registers with them).
//!
//! HTCondor's two syntaxes (its `Env` and `ArgList` classes):
//! - V1 environment: `NAME=value` entries separated by `;`.
//! - V1 arguments: words separated by white space, no quoting.
//! - V2 (both): words separated by white space; a single-quoted span keeps
//!   white space, `''` inside it is a quote. V2 environments are written
//!   sorted by name, each entry with its runs of white space and quotes
//!   wrapped in single quotes (quotes doubled).

use crate::builtin;
use classad_vm::{Arguments, Builtin, CallContext, StopTest, Stops, Value};
use fancy_regex::{Regex, RegexBuilder};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, RwLock};

pub(crate) fn builtins() -> Vec<Builtin> {
    vec![
        builtin("envV1ToV2", 1, 1, true, env_v1_to_v2),
        // HTCondor's stops at an argument that is no environment, never
        // evaluating the rest.
        builtin("mergeEnvironment", 0, u16::MAX, true, merge_environment).with_arguments(
            Arguments {
                notes_failures: true,
                stops: Stops::Each {
                    test: StopTest::NotEnvironment,
                    min_args: 0,
                },
                one_level_deeper: false,
                probes_last: None,
            },
        ),
        builtin("listToArgs", 1, 2, true, list_to_args),
        builtin("argsToList", 1, 2, true, args_to_list),
        // Depends on the system's user database.
        // Any count: HTCondor fails the evaluation on a wrong one.
        // HTCondor's ignores whether its arguments' evaluation failed.
        builtin("userHome", 0, u16::MAX, false, user_home).with_arguments(Arguments {
            notes_failures: true,
            ..Arguments::EAGER
        }),
        // Depends on the maps installed with `set_user_map`.
        builtin("userMap", 2, 4, false, user_map),
    ]
}

/// The blanks of HTCondor's argument and environment syntaxes (not
/// vertical tab or form feed, which are word characters there).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Splits V2 text into words; `None` for an unterminated quote.
fn split_v2(text: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if is_space(text[i]) {
            i += 1;
            continue;
        }
        let mut word = Vec::new();
        while i < text.len() && !is_space(text[i]) {
            if text[i] == b'\'' {
                i += 1;
                loop {
                    match text.get(i) {
                        None => return None,
                        Some(b'\'') if text.get(i + 1) == Some(&b'\'') => {
                            word.push(b'\'');
                            i += 2;
                        }
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(&c) => {
                            word.push(c);
                            i += 1;
                        }
                    }
                }
            } else {
                word.push(text[i]);
                i += 1;
            }
        }
        words.push(word);
    }
    Some(words)
}

/// Writes one V2 word: runs of white space and quotes wrapped in quotes,
/// quotes doubled; an empty word is `''`.
fn quote_v2(word: &[u8], out: &mut Vec<u8>) {
    if word.is_empty() {
        out.extend_from_slice(b"''");
        return;
    }
    let special = |b: u8| is_space(b) || b == b'\'';
    let mut i = 0;
    while i < word.len() {
        if special(word[i]) {
            out.push(b'\'');
            while i < word.len() && special(word[i]) {
                if word[i] == b'\'' {
                    out.extend_from_slice(b"''");
                } else {
                    out.push(word[i]);
                }
                i += 1;
            }
            out.push(b'\'');
        } else {
            out.push(word[i]);
            i += 1;
        }
    }
}

/// An environment: names to values, written sorted by name. A name
/// without a value is an unexpanded `$$(...)` macro kept as written.
type Env = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

/// Adds `NAME=value`, or an entry without `=` that holds `$$` (HTCondor's
/// `Env::SetEnvWithErrorMessage` keeps such a macro verbatim); false when
/// there is no name or no `=` otherwise.
fn env_insert(env: &mut Env, entry: &[u8]) -> bool {
    match entry.iter().position(|&b| b == b'=') {
        Some(0) => false,
        None if entry.windows(2).any(|w| w == b"$$") => {
            env.insert(entry.to_vec(), None);
            true
        }
        None => false,
        Some(eq) => {
            env.insert(entry[..eq].to_vec(), Some(entry[eq + 1..].to_vec()));
            true
        }
    }
}

fn env_v2_text(env: &Env) -> Value {
    let mut out = Vec::new();
    for (i, (name, value)) in env.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        let mut entry = name.clone();
        if let Some(value) = value {
            entry.push(b'=');
            entry.extend_from_slice(value);
        }
        quote_v2(&entry, &mut out);
    }
    Value::Str(out.into())
}

/// `envV1ToV2(env)`: a V1 environment (`A=1;B=2`) in V2 syntax, read as
/// HTCondor's `Env::MergeFromV1AutoDelim`: a first character that is one
/// of `!#$%&*+,-/:;<>?@^`|~` and 0x1F names the delimiter (`|A=1|B=2`),
/// else it is `;`; a newline also ends an entry; blanks before an entry
/// are dropped. UNDEFINED stays UNDEFINED; an entry without a name and
/// `=`, or a non-string, is ERROR.
fn env_v1_to_v2(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if !context.reserve(crate::budget::string_bytes(args).saturating_mul(3)) {
        return Value::Error;
    }
    let mut text = match &args[0] {
        Value::Undefined => return Value::Undefined,
        Value::Str(text) => crate::convert::c_str(text),
        _ => return Value::Error,
    };
    let mut delimiter = b';';
    if let Some(&first) = text.first()
        && b"!#$%&*+,-/:;<>?@^`|~\x1f".contains(&first)
    {
        delimiter = first;
        text = &text[1..];
    }
    let mut env = Env::new();
    for entry in text.split(|&b| b == delimiter || b == b'\n') {
        let start = entry
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(entry.len());
        let entry = &entry[start..];
        if !entry.is_empty() && !env_insert(&mut env, entry) {
            return Value::Error;
        }
    }
    env_v2_text(&env)
}

/// `mergeEnvironment(env...)`: V2 environments merged left to right (a
/// later value of a name wins), UNDEFINED arguments skipped. A non-string
/// or an unreadable environment is ERROR.
fn merge_environment(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if !context.reserve(crate::budget::string_bytes(args).saturating_mul(3)) {
        return Value::Error;
    }
    let mut env = Env::new();
    // HTCondor stops at the first argument that is not a string or
    // UNDEFINED, or cannot be read, never evaluating the rest
    // (`CallContext::stop_at`).
    for (i, arg) in args.iter().enumerate() {
        let text = match arg {
            Value::Undefined => continue,
            Value::Str(text) => crate::convert::c_str(text),
            _ => return context.stop_at(i, Value::Error),
        };
        let Some(words) = split_v2(text) else {
            return context.stop_at(i, Value::Error);
        };
        for word in words {
            if !env_insert(&mut env, &word) {
                return context.stop_at(i, Value::Error);
            }
        }
    }
    env_v2_text(&env)
}

/// The optional syntax version argument: 1 or 2 (default 2). HTCondor
/// reads it into a C `int`, keeping the low 32 bits of the integer:
/// `4294967297` and `-9223372036854775807` are 1 there.
fn version(args: &[Value]) -> Option<u8> {
    match args.get(1) {
        None => Some(2),
        Some(Value::Int(n)) => match *n as i32 {
            1 => Some(1),
            2 => Some(2),
            _ => None,
        },
        Some(_) => None,
    }
}

/// `argsToList(args [, version])`: an argument string (V2 by default,
/// V1 when `version` is 1) as a list of strings. ERROR for a non-string
/// (UNDEFINED included), a bad version or an unterminated quote.
fn args_to_list(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let Some(version) = version(args) else {
        return Value::Error;
    };
    let Value::Str(text) = &args[0] else {
        return Value::Error;
    };
    let text = crate::convert::c_str(text);
    // At most one word more than there are spaces.
    let words = crate::budget::ByteSet::new(b" \t\n\x0b\x0c\r").count_in(text) + 1;
    if !context.reserve(text.len()) || !context.reserve_values(words) {
        return Value::Error;
    }
    let words = if version == 1 {
        text.split(|&b| is_space(b))
            .filter(|w| !w.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    } else {
        match split_v2(text) {
            Some(words) => words,
            None => return Value::Error,
        }
    };
    Value::SharedList(words.into_iter().map(Value::string).collect())
}

/// `listToArgs(list [, version])`: a list of strings as an argument
/// string (V2 by default; V1 joins with spaces and cannot hold white
/// space). ERROR for a non-list, a non-string element or a bad version.
/// The elements are evaluated as the walk reaches them, as HTCondor's
/// `ListToArgs` does: it stops at the first that is not a string, and one
/// whose evaluation fails fails the call.
fn list_to_args(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    let Some(version) = version(args) else {
        return Value::Error;
    };
    let list = &args[0];
    if !matches!(
        list,
        Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
    ) {
        return Value::Error;
    }
    let mut words = Vec::new();
    let mut i = 0;
    while let Some(item) = context.list_element(list, i, false) {
        i += 1;
        match item {
            Ok(Value::Str(word)) => words.push(word),
            Ok(_) | Err(_) => return Value::Error,
        }
    }
    // Quoting at most triples a word (a run of quotes, each doubled, in
    // quotes).
    let bytes: usize = words.iter().map(|w| w.len()).sum();
    if !context.reserve(bytes.saturating_mul(3).saturating_add(words.len() * 3)) {
        return Value::Error;
    }
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let word = crate::convert::c_str(word);
        if i > 0 {
            out.push(b' ');
        }
        if version == 1 {
            if word.iter().any(|&b| is_space(b)) {
                return Value::Error;
            }
            out.extend_from_slice(word);
        } else {
            quote_v2(word, &mut out);
        }
    }
    Value::Str(out.into())
}

/// The home directory of `user` in `passwd` text (`/etc/passwd` format:
/// `name:password:uid:gid:gecos:home:shell`).
pub fn home_in_passwd(passwd: &[u8], user: &[u8]) -> Option<Vec<u8>> {
    passwd.split(|&b| b == b'\n').find_map(|line| {
        let fields: Vec<&[u8]> = line.split(|&b| b == b':').collect();
        (fields.len() >= 6 && fields[0] == user && !user.is_empty()).then(|| fields[5].to_vec())
    })
}

/// `userHome(name [, default])`: the home directory of `name` in the
/// system's user database (`/etc/passwd`). A non-empty string `default`
/// replaces every failure; without one, an unknown user or UNDEFINED name
/// is UNDEFINED and a non-string name ERROR. Called with no argument or
/// more than two, HTCondor's function fails the evaluation (it returns
/// false): ERROR, and `1 is userHome()` is ERROR too.
fn user_home(context: &mut CallContext<'_>, args: &[Value]) -> Value {
    if args.is_empty() || args.len() > 2 {
        context.fail();
        return Value::Error;
    }
    // HTCondor ignores whether the evaluation of either argument failed.
    context.keep_failures_of(0);
    let default = match args.get(1) {
        Some(Value::Str(d)) if !d.is_empty() => Some(d.clone()),
        _ => None,
    };
    let fallback = |or: Value| default.clone().map_or(or, Value::Str);
    let name = match &args[0] {
        Value::Undefined => return fallback(Value::Undefined),
        Value::Str(name) => crate::convert::c_str(name),
        _ => return fallback(Value::Error),
    };
    let passwd = std::fs::read("/etc/passwd").unwrap_or_default();
    match home_in_passwd(&passwd, name) {
        Some(home) => Value::Str(home.into()),
        None => fallback(Value::Undefined),
    }
}

/// One rule of a map file: how the input is matched, and its result.
enum Matcher {
    Literal(Vec<u8>),
    Pattern(Regex),
}

struct MapRule {
    matcher: Matcher,
    canonical: String,
}

/// The parsed maps, by name (case-insensitive).
static USER_MAPS: LazyLock<RwLock<HashMap<String, Arc<Vec<MapRule>>>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

/// Splits a map-file line into tokens: white space separates, a token in
/// double quotes keeps white space (`\"` is a quote in it), and a `/`
/// token runs to its closing unescaped `/` and its flags.
fn map_tokens(line: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&first) = chars.peek() else {
            break;
        };
        let mut token = String::new();
        match first {
            '"' => {
                chars.next();
                loop {
                    match chars.next() {
                        None => return Err("unterminated quoted token".into()),
                        Some('\\') if chars.peek() == Some(&'"') => {
                            chars.next();
                            token.push('"');
                        }
                        Some('"') => break,
                        Some(c) => token.push(c),
                    }
                }
            }
            '/' if tokens.len() == 1 => {
                token.push(chars.next().unwrap_or('/'));
                loop {
                    match chars.next() {
                        None => return Err("unterminated regular expression".into()),
                        Some('\\') => {
                            token.push('\\');
                            if let Some(c) = chars.next() {
                                token.push(c);
                            }
                        }
                        Some('/') => {
                            token.push('/');
                            break;
                        }
                        Some(c) => token.push(c),
                    }
                }
                while chars.peek().is_some_and(|c| !c.is_whitespace()) {
                    token.extend(chars.next());
                }
            }
            _ => {
                while chars.peek().is_some_and(|c| !c.is_whitespace()) {
                    token.extend(chars.next());
                }
            }
        }
        tokens.push(token);
    }
    Ok(tokens)
}

/// Installs (or replaces) the user map `name` from map-file text, as
/// HTCondor's `CLASSAD_USER_MAPFILE_<name>` / `CLASSAD_USER_MAPDATA_<name>`
/// do. Each non-blank line not starting with `#` is
/// `method principal canonicalization`: `userMap` uses rules whose method
/// is `*`. The principal is a literal (matched exactly) or `/regex/`
/// with optional flag `i` (case-insensitive), matched anywhere unless
/// anchored; the canonicalization is the comma-separated group list, in
/// which `\1`...`\9` are the regex's groups. Literal rules are tried
/// before regex rules, each kind in file order.
pub fn set_user_map(name: &str, map_text: &str) -> Result<(), String> {
    let mut literals = Vec::new();
    let mut patterns = Vec::new();
    for (number, line) in map_text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let tokens = map_tokens(trimmed).map_err(|e| format!("line {}: {e}", number + 1))?;
        let [method, principal, canonical, ..] = tokens.as_slice() else {
            return Err(format!(
                "line {}: expected method, principal and canonicalization",
                number + 1
            ));
        };
        if method != "*" {
            continue;
        }
        let rule = if let Some(body) = principal.strip_prefix('/')
            && let Some(close) = body.rfind('/')
        {
            let flags = &body[close + 1..];
            let regex = RegexBuilder::new(&body[..close])
                .case_insensitive(flags.contains('i'))
                .build()
                .map_err(|e| format!("line {}: {e}", number + 1))?;
            patterns.push(MapRule {
                matcher: Matcher::Pattern(regex),
                canonical: canonical.clone(),
            });
            continue;
        } else {
            MapRule {
                matcher: Matcher::Literal(principal.as_bytes().to_vec()),
                canonical: canonical.clone(),
            }
        };
        literals.push(rule);
    }
    literals.extend(patterns);
    let mut maps = USER_MAPS.write().unwrap_or_else(|e| e.into_inner());
    maps.insert(name.to_ascii_lowercase(), Arc::new(literals));
    Ok(())
}

/// Removes every installed user map.
pub fn clear_user_maps() {
    USER_MAPS.write().unwrap_or_else(|e| e.into_inner()).clear();
}

/// The canonicalization of `input` in map `name`, groups substituted.
fn map_lookup(name: &str, input: &str) -> Option<String> {
    let rules = USER_MAPS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&name.to_ascii_lowercase())?
        .clone();
    for rule in rules.iter() {
        match &rule.matcher {
            Matcher::Literal(literal) if literal == input.as_bytes() => {
                return Some(rule.canonical.clone());
            }
            Matcher::Literal(_) => {}
            Matcher::Pattern(regex) => {
                let Ok(Some(captures)) = regex.captures(input) else {
                    continue;
                };
                let mut out = String::new();
                let mut chars = rule.canonical.chars().peekable();
                while let Some(c) = chars.next() {
                    match (c, chars.peek().and_then(|d| d.to_digit(10))) {
                        ('\\', Some(group)) => {
                            chars.next();
                            if let Some(m) = captures.get(group as usize) {
                                out.push_str(m.as_str());
                            }
                        }
                        _ => out.push(c),
                    }
                }
                return Some(out);
            }
        }
    }
    None
}

/// `userMap(map, input [, preferred [, default]])`: with two arguments,
/// the comma-separated groups `input` maps to in `map`, or UNDEFINED; with
/// `preferred`, that group if `input` maps to it (ignoring case), else the
/// first group, else `default` (or UNDEFINED). UNDEFINED arguments give
/// UNDEFINED; other non-strings ERROR.
fn user_map(_: &mut CallContext<'_>, args: &[Value]) -> Value {
    // HTCondor's userMap_func: the fourth argument, of any type, is the
    // answer whenever no group is chosen; the preferred group counts only
    // when it is a string; only an ERROR map name or user is ERROR.
    let fallback = || args.get(3).cloned().unwrap_or(Value::Undefined);
    let (map_name, user) = match (&args[0], &args[1]) {
        (Value::Str(m), Value::Str(u)) => (
            String::from_utf8_lossy(crate::convert::c_str(m)).into_owned(),
            String::from_utf8_lossy(crate::convert::c_str(u)).into_owned(),
        ),
        (Value::Error, _) | (_, Value::Error) => return Value::Error,
        _ => return fallback(),
    };
    let Some(mapped) = map_lookup(&map_name, &user) else {
        return fallback();
    };
    if args.len() == 2 {
        return Value::string(mapped);
    }
    let groups: Vec<&str> = mapped
        .split(',')
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .collect();
    if let Value::Str(preferred) = &args[2] {
        let preferred = String::from_utf8_lossy(crate::convert::c_str(preferred));
        if let Some(group) = groups.iter().find(|g| g.eq_ignore_ascii_case(&preferred)) {
            return Value::string(group);
        }
    }
    groups.first().map_or_else(fallback, Value::string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwd_lines() {
        let passwd =
            b"root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000::/home/bob:/bin/sh\nbad:x\n";
        assert_eq!(home_in_passwd(passwd, b"bob"), Some(b"/home/bob".to_vec()));
        assert_eq!(home_in_passwd(passwd, b"bad"), None);
        assert_eq!(home_in_passwd(passwd, b""), None);
    }

    #[test]
    fn map_file_tokens() {
        assert_eq!(
            map_tokens(r#"* /^(\w+)@x\.org$/i \1,users"#).ok(),
            Some(vec![
                "*".into(),
                r"/^(\w+)@x\.org$/i".into(),
                r"\1,users".into()
            ])
        );
        assert_eq!(
            map_tokens(r#"* "a b" g"#).ok(),
            Some(vec!["*".into(), "a b".into(), "g".into()])
        );
        assert!(map_tokens(r#"* "a"#).is_err());
    }
}
