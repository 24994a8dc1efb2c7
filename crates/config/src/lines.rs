//! Physical lines to logical lines, as HTCondor's config reader joins
//! them: each physical line is trimmed at both ends; a line ending in `\`
//! continues onto the next (the `\` removed, nothing inserted); inside a
//! continuation a line starting with `#` contributes only its last
//! character, so a commented line that itself ends in `\` keeps the
//! continuation going and one that does not ends it (its last character
//! staying in the value, as HTCondor does); a line that starts with `#`
//! never continues. A last line with no newline is taken as it is.

pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// Reads logical lines from a text, counting physical lines.
pub(crate) struct Lines<'a> {
    text: &'a str,
    pos: usize,
    /// The number of the last physical line read (1-based).
    pub line: u32,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        Lines {
            text,
            pos: 0,
            line: 0,
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if self.pos >= self.text.len() {
            return None;
        }
        let mut buf = String::new();
        let mut first = true;
        loop {
            if self.pos >= self.text.len() {
                return Some(buf);
            }
            let rest = &self.text[self.pos..];
            let Some(nl) = rest.find('\n') else {
                // No newline at the end of the file: HTCondor takes the
                // rest raw, untrimmed and without continuation. (It does
                // not count this line; we do, so messages point at it.)
                self.pos = self.text.len();
                self.line += 1;
                buf.push_str(rest);
                return Some(buf);
            };
            let physical = &rest[..nl];
            self.pos += nl + 1;
            self.line += 1;
            let trimmed = physical.trim_matches(is_space);
            let mut in_comment = trimmed.starts_with('#');
            if in_comment && !first {
                // Inside a continuation a comment counts as blank, up to
                // its last character (which may be the `\` that goes on).
                let last = trimmed.chars().next_back().unwrap_or(' ');
                buf.push(last);
                in_comment = false;
            } else {
                buf.push_str(trimmed);
            }
            if buf.ends_with('\\') {
                buf.pop();
                if !in_comment {
                    first = false;
                    continue;
                }
            }
            return Some(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        Lines::new(text).collect()
    }

    #[test]
    fn continuation_keeps_space_before_backslash() {
        assert_eq!(all("A = b \\\n   c\n"), vec!["A = b c"]);
        assert_eq!(all("A = b\\\nc\n"), vec!["A = bc"]);
    }

    #[test]
    fn comment_in_continuation() {
        assert_eq!(
            all("A = $(B) \\\n # $(C) \\\n $(D)\n"),
            vec!["A = $(B) $(D)"]
        );
        // HTCondor 25 keeps the comment's last character and ends there.
        assert_eq!(
            all("K = $(B) \\\n # $(C)\nL=1\n"),
            vec!["K = $(B) )", "L=1"]
        );
    }

    #[test]
    fn comment_does_not_continue() {
        assert_eq!(all("# c \\\nI=3\n"), vec!["# c ", "I=3"]);
    }

    #[test]
    fn last_line_without_newline_is_raw() {
        assert_eq!(all("A=1\n  B = 2"), vec!["A=1", "  B = 2"]);
    }
}
