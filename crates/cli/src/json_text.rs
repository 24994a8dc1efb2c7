//! JSON strings in the subcommands' own JSON output (`match --json`,
//! `check --json`, `config -json`), with the escapes the ad writers use.

/// `s` as a quoted JSON string.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    classad::syntax::json::write_json_escaped(s, &mut out);
    out.push('"');
    out
}
