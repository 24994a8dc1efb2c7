//! Just enough of C's `printf` for `$INT(x, fmt)`, `$REAL(x, fmt)` and
//! `$STRING(x, fmt)`: one conversion, with the text around it.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Class {
    Int,
    Float,
    Str,
}

#[derive(Clone, Debug, Default)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
    /// Bits of the integer argument C would read: 32 without a length
    /// modifier (HTCondor passes a long long to `%d`, which reads an int).
    bits: u32,
    conv: char,
    start: usize,
    end: usize,
}

fn parse(fmt: &str) -> Option<Spec> {
    let bytes = fmt.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        let mut spec = Spec {
            start: i,
            ..Spec::default()
        };
        i += 1;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'-' => spec.left = true,
                b'0' => spec.zero = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        while let Some(c) = bytes.get(i).filter(|c| c.is_ascii_digit()) {
            width = width.saturating_mul(10).saturating_add((c - b'0') as usize);
            i += 1;
        }
        spec.width = width.min(4096);
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            while let Some(c) = bytes.get(i).filter(|c| c.is_ascii_digit()) {
                p = p.saturating_mul(10).saturating_add((c - b'0') as usize);
                i += 1;
            }
            spec.precision = Some(p.min(4096));
        }
        spec.bits = 32;
        let mut h = 0;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'h' => h += 1,
                b'l' | b'L' | b'q' | b'j' | b'z' | b't' => spec.bits = 64,
                _ => break,
            }
            i += 1;
        }
        if h > 0 && spec.bits == 32 {
            spec.bits = if h == 1 { 16 } else { 8 };
        }
        let conv = *bytes.get(i)? as char;
        spec.conv = conv;
        spec.end = i + 1;
        return Some(spec);
    }
    None
}

/// The kind of value a format string converts, or `None` when it has
/// no conversion HTCondor accepts.
pub(crate) fn class_of(fmt: &str) -> Option<Class> {
    let spec = parse(fmt)?;
    if parse(&fmt[spec.end..]).is_some() {
        // More than one conversion: not a format HTCondor takes.
        return None;
    }
    match spec.conv {
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'c' => Some(Class::Int),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => Some(Class::Float),
        's' => Some(Class::Str),
        _ => None,
    }
}

fn unescape_percent(text: &str) -> String {
    text.replace("%%", "%")
}

fn pad(spec: &Spec, sign: &str, digits: String, numeric: bool) -> String {
    let len = sign.len() + digits.chars().count();
    if len >= spec.width {
        return format!("{sign}{digits}");
    }
    let fill = spec.width - len;
    if spec.left {
        format!("{sign}{digits}{}", " ".repeat(fill))
    } else if spec.zero && numeric {
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{sign}{digits}", " ".repeat(fill))
    }
}

fn sign_of(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn render_int(spec: &Spec, value: i64) -> String {
    let value = match spec.bits {
        8 => i64::from(value as i8),
        16 => i64::from(value as i16),
        32 => i64::from(value as i32),
        _ => value,
    };
    let unsigned = match spec.bits {
        8 => u64::from(value as u8),
        16 => u64::from(value as u16),
        32 => u64::from(value as u32),
        _ => value as u64,
    };
    let (negative, magnitude) = match spec.conv {
        'd' | 'i' => (value < 0, value.unsigned_abs()),
        _ => (false, unsigned),
    };
    let mut digits = match spec.conv {
        'o' => format!("{magnitude:o}"),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        'c' => return pad(spec, "", ((value as u8) as char).to_string(), false),
        _ => magnitude.to_string(),
    };
    if let Some(p) = spec.precision {
        if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
    }
    let mut prefix = sign_of(spec, negative).to_string();
    if spec.alt && magnitude != 0 {
        match spec.conv {
            'x' => prefix.push_str("0x"),
            'X' => prefix.push_str("0X"),
            'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            _ => {}
        }
    }
    let numeric = spec.precision.is_none();
    pad(spec, &prefix, digits, numeric)
}

/// `{:e}`-style text in C's form: mantissa, `e`, sign, at least two digits.
fn c_exponent(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exponent.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

fn strip_zeros(text: &str) -> String {
    let (mantissa, exponent) = match text.find('e') {
        Some(at) => (&text[..at], &text[at..]),
        None => (text, ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}{exponent}")
}

fn render_float(spec: &Spec, value: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let negative = value.is_sign_negative();
    let magnitude = value.abs();
    let body = if magnitude.is_nan() {
        "nan".to_string()
    } else if magnitude.is_infinite() {
        "inf".to_string()
    } else {
        let precision = spec.precision.unwrap_or(6);
        match spec.conv.to_ascii_lowercase() {
            'f' => format!("{magnitude:.precision$}"),
            'e' => c_exponent(magnitude, precision),
            'a' => format!("{magnitude:e}"),
            _ => {
                let p = precision.max(1);
                let probe = c_exponent(magnitude, p - 1);
                let exp: i64 = probe
                    .split_once('e')
                    .and_then(|(_, e)| e.parse().ok())
                    .unwrap_or(0);
                let text = if exp < -4 || exp >= p as i64 {
                    probe
                } else {
                    let decimals = (p as i64 - 1 - exp).max(0) as usize;
                    format!("{magnitude:.decimals$}")
                };
                if spec.alt { text } else { strip_zeros(&text) }
            }
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    let numeric = magnitude.is_finite();
    pad(spec, sign_of(spec, negative), body, numeric)
}

/// An integer through `fmt`.
pub(crate) fn format_int(fmt: &str, value: i64) -> String {
    match parse(fmt) {
        Some(spec) => {
            let body = match spec.conv {
                'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => render_float(&spec, value as f64),
                _ => render_int(&spec, value),
            };
            format!(
                "{}{}{}",
                unescape_percent(&fmt[..spec.start]),
                body,
                unescape_percent(&fmt[spec.end..])
            )
        }
        None => unescape_percent(fmt),
    }
}

/// A real through `fmt`.
pub(crate) fn format_real(fmt: &str, value: f64) -> String {
    match parse(fmt) {
        Some(spec) => {
            let body = match spec.conv {
                'd' | 'i' | 'u' | 'o' | 'x' | 'X' | 'c' => render_int(&spec, value as i64),
                _ => render_float(&spec, value),
            };
            format!(
                "{}{}{}",
                unescape_percent(&fmt[..spec.start]),
                body,
                unescape_percent(&fmt[spec.end..])
            )
        }
        None => unescape_percent(fmt),
    }
}

/// A string through `fmt`.
pub(crate) fn format_str(fmt: &str, value: &str) -> String {
    match parse(fmt) {
        Some(spec) => {
            let mut text: String = value.to_string();
            if let Some(p) = spec.precision {
                text = text.chars().take(p).collect();
            }
            format!(
                "{}{}{}",
                unescape_percent(&fmt[..spec.start]),
                pad(&spec, "", text, false),
                unescape_percent(&fmt[spec.end..])
            )
        }
        None => unescape_percent(fmt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        assert_eq!(format_int(" %03d", 1), " 001");
        assert_eq!(format_int("%x", 255), "ff");
        assert_eq!(format_int("%-4d|", 7), "7   |");
        assert_eq!(format_int("%+d", 7), "+7");
        assert_eq!(format_int("%x", -12), "fffffff4");
        assert_eq!(format_int("%llx", -12), "fffffffffffffff4");
        assert_eq!(format_int("%d", 1 << 40), "0");
        assert_eq!(format_int("%lld", 1 << 40), "1099511627776");
    }

    #[test]
    fn reals() {
        assert_eq!(format_real("%.16G", 0.0), "0");
        assert_eq!(format_real("%.16G", 2500.0), "2500");
        assert_eq!(format_real("%.16G", 1e20), "1E+20");
        assert_eq!(format_real("%.16G", 1.0 / 3.0), "0.3333333333333333");
        assert_eq!(format_real(" %.3f", 2.5), " 2.500");
        assert_eq!(format_real("%g", 0.0001), "0.0001");
        assert_eq!(format_real("%g", 0.00001), "1e-05");
        assert_eq!(format_real("%e", 12345.678), "1.234568e+04");
    }
}
