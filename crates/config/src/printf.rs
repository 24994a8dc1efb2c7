//! The formats of `$INT(x, fmt)`, `$REAL(x, fmt)` and `$STRING(x, fmt)`:
//! which HTCondor takes, and the text of a value through one. The
//! printing is C's, shared with `classad query` ([`classad::printf`]).

use classad::printf::{self, Conversion};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Class {
    Int,
    Float,
    Str,
}

/// The kind of value a format string converts, or `None` when it has
/// no conversion HTCondor accepts: none at all, or a second one after
/// it (glibc would read an argument there is none of). `%p` of an
/// integer prints it as a pointer; `%p` of anything else, and `%S`,
/// read garbage, and are refused here.
pub(crate) fn class_of(fmt: &str) -> Option<Class> {
    let conversion = printf::parse(fmt, 0)?;
    if printf::parse(fmt, conversion.end).is_some() {
        return None;
    }
    match conversion.letter {
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'c' | 'C' | 'p' => Some(Class::Int),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => Some(Class::Float),
        's' => Some(Class::Str),
        _ => None,
    }
}

/// `fmt` with its conversion of `value`, or as text when it has none.
fn through(fmt: &str, convert: impl FnOnce(&Conversion) -> String) -> String {
    match printf::parse(fmt, 0) {
        Some(conversion) => printf::splice(fmt, &conversion, &convert(&conversion)),
        None => printf::literal(fmt),
    }
}

/// An integer through `fmt`.
pub(crate) fn format_int(fmt: &str, value: i64) -> String {
    through(fmt, |c| printf::int(c, value))
}

/// A real through `fmt`.
pub(crate) fn format_real(fmt: &str, value: f64) -> String {
    through(fmt, |c| printf::real(c, value))
}

/// A string through `fmt`.
pub(crate) fn format_str(fmt: &str, value: &str) -> String {
    through(fmt, |c| printf::string(c, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The printing is classad::printf's (tested there): each macro's
    // conversion, with the text around it, and $REAL's default format.
    #[test]
    fn values_through_their_formats() {
        assert_eq!(format_int(" %03d", 1), " 001");
        assert_eq!(format_int("%lld", 1 << 40), "1099511627776");
        assert_eq!(format_real(" %.3f", 2.5), " 2.500");
        assert_eq!(format_real("%.16G", 2500.0), "2500");
        assert_eq!(format_str("[%-4s]", "ab"), "[ab  ]");
    }

    // Each class as HTCondor 25's `$INT`/`$REAL`/`$STRING` take it
    // (tests/config/40_printf_formats.conf compares the values).
    #[test]
    fn formats_htcondor_takes() {
        assert_eq!(class_of("%d"), Some(Class::Int));
        assert_eq!(class_of("%'d"), Some(Class::Int));
        assert_eq!(class_of("%p"), Some(Class::Int));
        assert_eq!(class_of("%C"), Some(Class::Int));
        assert_eq!(class_of("%5%%d"), Some(Class::Int));
        assert_eq!(class_of("%5%d"), None);
        assert_eq!(class_of("%d %k"), Some(Class::Int));
        assert_eq!(class_of("%d %"), Some(Class::Int));
        assert_eq!(class_of("%a"), Some(Class::Float));
        assert_eq!(class_of("%'s"), Some(Class::Str));
        assert_eq!(class_of("%d %d"), None);
        assert_eq!(class_of("%d %n"), None);
        assert_eq!(class_of("%*d"), None);
        assert_eq!(class_of("%n"), None);
        assert_eq!(class_of("%v"), None);
        assert_eq!(class_of("abc"), None);
    }
}
