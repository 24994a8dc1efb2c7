//! C's `printf`, one conversion at a time: what HTCondor hands the C
//! library when `condor_q -format` prints a column and when the
//! configuration's `$INT(x, fmt)`, `$REAL(x, fmt)` and `$STRING(x, fmt)`
//! expand. [`parse`] finds a conversion as HTCondor's `parsePrintfFormat`
//! does; [`int`], [`real`] and [`string`] print a value through it as
//! glibc does, and [`splice`] puts the result back between the text
//! around it. Which conversions a caller accepts, and for which values,
//! is the caller's rule.
//!
//! ```
//! use classad::printf;
//! let format = "%-6d|%%";
//! let conversion = printf::parse(format, 0).unwrap();
//! assert_eq!(printf::splice(format, &conversion, &printf::int(&conversion, 42)), "42    |%");
//! ```

use classad_syntax::unparse::{format_c_exponent, format_c_general};

/// Widths and precisions beyond this are read as this: C would print
/// them, but a format is not a way to ask for gigabytes.
const MAX_FIELD: usize = 4096;

/// One conversion of a format: `%[flags][width][.precision][length]letter`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Byte offset of its `%` in the format.
    pub start: usize,
    /// Byte offset just past its letter.
    pub end: usize,
    /// `-`: pad on the right.
    pub left: bool,
    /// `0`: pad numbers with zeros after the sign.
    pub zero: bool,
    /// `+`: a sign on positive signed numbers.
    pub plus: bool,
    /// ` `: a space before positive signed numbers.
    pub space: bool,
    /// `#`: the alternate form.
    pub alt: bool,
    /// Minimum width, in characters.
    pub width: usize,
    /// Digits (or characters, for strings) after `.`; `Some(0)` for a bare `.`.
    pub precision: Option<usize>,
    /// Bits of the integer argument C reads: 32 with no length modifier
    /// (HTCondor passes a `long long` to `%d`, which reads an `int`), 16
    /// for `h`, 8 for `hh`, 64 for `l`, `ll`, `L`, `q`, `j`, `z`, `t`.
    pub bits: u32,
    /// The conversion letter.
    pub letter: char,
}

/// The first conversion of `format` at or after byte `from`, read as
/// HTCondor's `parsePrintfFormat` reads it: `%%` (with any flags between)
/// is text and skipped; `None` when the format ends before a conversion
/// letter or the letter is not one HTCondor knows (`*` widths included:
/// it reads the `*` as the letter). The letters it knows are C's
/// (`d i o u x X e E f F g G a A c C s S p n`) and HTCondor's own
/// (`v V r R T Y`).
pub fn parse(format: &str, from: usize) -> Option<Conversion> {
    let bytes = format.as_bytes();
    let mut i = from;
    loop {
        while i < bytes.len() && bytes[i] != b'%' {
            i += 1;
        }
        let (conversion, letter) = parse_at(format, i)?;
        i = conversion.end;
        match letter {
            Letter::Percent => continue,
            Letter::Known => return Some(conversion),
            Letter::Unknown | Letter::Truncated => return None,
        }
    }
}

enum Letter {
    Percent,
    Known,
    Unknown,
    /// The format ends inside the conversion.
    Truncated,
}

/// The conversion whose `%` is at `start` (`None` when there is no `%`
/// there); `end` is where reading stopped.
fn parse_at(format: &str, start: usize) -> Option<(Conversion, Letter)> {
    let bytes = format.as_bytes();
    if bytes.get(start) != Some(&b'%') {
        return None;
    }
    let mut c = Conversion {
        start,
        end: bytes.len(),
        left: false,
        zero: false,
        plus: false,
        space: false,
        alt: false,
        width: 0,
        precision: None,
        bits: 32,
        letter: '%',
    };
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'-' => c.left = true,
            b'0' => c.zero = true,
            b'+' => c.plus = true,
            b' ' => c.space = true,
            b'#' => c.alt = true,
            // Grouping: none in the C locale.
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let mut n = 0usize;
        while let Some(d) = bytes.get(*i).filter(|d| d.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        n.min(MAX_FIELD)
    };
    c.width = digits(&mut i);
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        c.precision = Some(digits(&mut i));
    }
    let mut shorts = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'h' => shorts += 1,
            b'l' | b'L' | b'q' | b'j' | b'z' | b't' => c.bits = 64,
            _ => break,
        }
        i += 1;
    }
    if shorts > 0 && c.bits == 32 {
        c.bits = if shorts == 1 { 16 } else { 8 };
    }
    // Everything read so far is ASCII, so `i` starts a character.
    let Some(letter) = format.get(i..).and_then(|rest| rest.chars().next()) else {
        return Some((c, Letter::Truncated));
    };
    c.letter = letter;
    c.end = i + letter.len_utf8();
    let kind = match letter {
        '%' => Letter::Percent,
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' | 'c'
        | 'C' | 's' | 'S' | 'p' | 'n' | 'v' | 'V' | 'r' | 'R' | 'T' | 'Y' => Letter::Known,
        _ => Letter::Unknown,
    };
    Some((c, kind))
}

/// Text outside the conversion, as printf prints it: `%%` (flags and
/// all) is `%`, a conversion cut off by the end of the text prints
/// nothing, and one glibc does not know prints as written. A conversion
/// it does know would read an argument there is none of; it too prints
/// as written.
pub fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(at) = text[i..].find('%').map(|at| i + at) {
        out.push_str(&text[i..at]);
        let Some((conversion, letter)) = parse_at(text, at) else {
            break;
        };
        match letter {
            Letter::Percent => out.push('%'),
            Letter::Truncated => {}
            Letter::Known | Letter::Unknown => out.push_str(&text[at..conversion.end]),
        }
        i = conversion.end;
    }
    out.push_str(&text[i..]);
    out
}

/// `format` with `conversion` replaced by `converted`, its other text as
/// [`literal`] prints it.
pub fn splice(format: &str, conversion: &Conversion, converted: &str) -> String {
    let mut out = literal(&format[..conversion.start]);
    out.push_str(converted);
    out.push_str(&literal(&format[conversion.end..]));
    out
}

/// `body` after `prefix` (a sign, `0x`), padded to the width: spaces on
/// the right with `-`, zeros between prefix and body with `0` when
/// `zeros` allows, spaces on the left otherwise.
fn pad(c: &Conversion, prefix: &str, body: &str, zeros: bool) -> String {
    let len = prefix.chars().count() + body.chars().count();
    let fill = c.width.saturating_sub(len);
    let mut out = String::with_capacity(len + fill);
    if c.left {
        out.push_str(prefix);
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if c.zero && zeros {
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(body);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(prefix);
        out.push_str(body);
    }
    out
}

/// The sign C writes before a signed number.
fn sign(c: &Conversion, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if c.plus {
        "+"
    } else if c.space {
        " "
    } else {
        ""
    }
}

/// An integer through an integer conversion (`d i o u x X c C p`), read
/// with the conversion's bits as C would read it. A real conversion
/// prints the value as a real; any other letter as `d`.
pub fn int(c: &Conversion, value: i64) -> String {
    let (signed, unsigned) = match c.bits {
        8 => (i64::from(value as i8), u64::from(value as u8)),
        16 => (i64::from(value as i16), u64::from(value as u16)),
        32 => (i64::from(value as i32), u64::from(value as u32)),
        _ => (value, value as u64),
    };
    let (prefix, mut digits, magnitude) = match c.letter {
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => return real(c, value as f64),
        'c' | 'C' => return pad(c, "", &char::from(value as u8).to_string(), false),
        // A pointer is 64 bits whatever the length; glibc names null.
        'p' if value == 0 => return pad(c, "", "(nil)", false),
        'p' => (
            format!("{}0x", sign(c, false)),
            format!("{:x}", value as u64),
            1,
        ),
        'o' => (String::new(), format!("{unsigned:o}"), unsigned),
        'x' => (String::new(), format!("{unsigned:x}"), unsigned),
        'X' => (String::new(), format!("{unsigned:X}"), unsigned),
        'u' => (String::new(), unsigned.to_string(), unsigned),
        _ => {
            let magnitude = signed.unsigned_abs();
            (
                sign(c, signed < 0).to_string(),
                magnitude.to_string(),
                magnitude,
            )
        }
    };
    if let Some(p) = c.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        } else if digits.len() < p {
            digits.insert_str(0, &"0".repeat(p - digits.len()));
        }
    }
    let prefix = match c.letter {
        'x' if c.alt && magnitude != 0 => "0x",
        'X' if c.alt && magnitude != 0 => "0X",
        // `#o` makes the first digit a zero, even of an empty zero.
        'o' if c.alt && !digits.starts_with('0') => {
            digits.insert(0, '0');
            ""
        }
        _ => prefix.as_str(),
    };
    pad(c, prefix, &digits, c.precision.is_none())
}

/// A real through a real conversion (`e E f F g G a A`). An integer
/// conversion prints the value truncated to an integer; any other letter
/// as `g`.
pub fn real(c: &Conversion, value: f64) -> String {
    let letter = match c.letter {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'c' | 'C' | 'p' => return int(c, value as i64),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => c.letter,
        _ => 'g',
    };
    let upper = letter.is_ascii_uppercase();
    let magnitude = value.abs();
    let mut prefix = sign(c, value.is_sign_negative()).to_string();
    let body = if magnitude.is_nan() {
        "nan".to_string()
    } else if magnitude.is_infinite() {
        "inf".to_string()
    } else {
        let precision = c.precision;
        match letter.to_ascii_lowercase() {
            'f' => fixed(magnitude, precision.unwrap_or(6), c.alt),
            'e' => exponent(magnitude, precision.unwrap_or(6), c.alt),
            'a' => {
                prefix.push_str("0x");
                hex(magnitude, precision, c.alt)
            }
            _ => general(magnitude, precision.unwrap_or(6), c.alt),
        }
    };
    let (prefix, body) = if upper {
        (prefix.to_uppercase(), body.to_uppercase())
    } else {
        (prefix, body)
    };
    pad(c, &prefix, &body, magnitude.is_finite())
}

/// `%f`: `precision` decimals; `#` keeps the point when there are none.
fn fixed(x: f64, precision: usize, alt: bool) -> String {
    let mut text = format!("{x:.precision$}");
    if alt && precision == 0 {
        text.push('.');
    }
    text
}

/// `%e`: one digit, `precision` decimals, `e`, a sign and at least two
/// exponent digits.
fn exponent(x: f64, precision: usize, alt: bool) -> String {
    let text = format_c_exponent(x, precision);
    let (mantissa, exp) = text.split_once('E').unwrap_or((&text, "+00"));
    let point = if alt && precision == 0 { "." } else { "" };
    format!("{mantissa}{point}e{exp}")
}

/// `%g`: `%e` when the exponent is below -4 or not below the precision
/// (of significant digits, at least 1), `%f` otherwise; trailing zeros
/// and point dropped unless `#`.
fn general(x: f64, precision: usize, alt: bool) -> String {
    if !alt {
        return format_c_general(x, precision).replace('E', "e");
    }
    let p = precision.max(1);
    let probe = format_c_exponent(x, p - 1);
    let exp: i64 = probe
        .split_once('E')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    if exp < -4 || exp >= p as i64 {
        exponent(x, p - 1, true)
    } else {
        fixed(x, (p as i64 - 1 - exp) as usize, true)
    }
}

/// `%a` after its `0x`: the leading hex digit (1, or 0 for zero and
/// subnormals), the fraction's hex digits (all but trailing zeros, or
/// `precision` of them rounded half to even, as glibc rounds, which can
/// carry the leading digit to 2), `p` and the binary exponent.
fn hex(x: f64, precision: Option<usize>, alt: bool) -> String {
    const FRACTION_DIGITS: usize = 13;
    let bits = x.to_bits();
    let biased = (bits >> 52) & 0x7ff;
    let fraction = bits & ((1u64 << 52) - 1);
    let (lead, exp) = match (biased, fraction) {
        (0, 0) => (0, 0),
        (0, _) => (0, -1022),
        _ => (1, biased as i64 - 1023),
    };
    let whole = (lead << 52) | fraction;
    let (lead, digits) = match precision {
        None => {
            let text = format!("{fraction:013x}");
            (lead, text.trim_end_matches('0').to_string())
        }
        Some(p) if p >= FRACTION_DIGITS => {
            let mut text = format!("{fraction:013x}");
            text.extend(std::iter::repeat_n('0', p - FRACTION_DIGITS));
            (lead, text)
        }
        Some(p) => {
            let shift = 4 * (FRACTION_DIGITS - p) as u32;
            let mut kept = whole >> shift;
            let rest = whole & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept += 1;
            }
            let digits = 4 * p as u32;
            let fraction = kept & ((1u64 << digits) - 1);
            let text = if p == 0 {
                String::new()
            } else {
                format!("{fraction:0p$x}")
            };
            (kept >> digits, text)
        }
    };
    let point = if digits.is_empty() && !alt { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{lead}{point}{digits}p{sign}{}", exp.unsigned_abs())
}

/// A string through `%s`: at most `precision` characters, padded to the
/// width with spaces (C counts bytes; a character is one here).
pub fn string(c: &Conversion, text: &str) -> String {
    match c.precision {
        Some(p) => pad(c, "", &text.chars().take(p).collect::<String>(), false),
        None => pad(c, "", text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversion(format: &str) -> Conversion {
        parse(format, 0).unwrap_or_else(|| panic!("a conversion in {format:?}"))
    }

    fn int_through(format: &str, value: i64) -> String {
        let c = conversion(format);
        splice(format, &c, &int(&c, value))
    }

    fn real_through(format: &str, value: f64) -> String {
        let c = conversion(format);
        splice(format, &c, &real(&c, value))
    }

    fn string_through(format: &str, value: &str) -> String {
        let c = conversion(format);
        splice(format, &c, &string(&c, value))
    }

    fn check<V: Copy>(cases: &[(&str, V, &str)], through: fn(&str, V) -> String) {
        for &(format, value, expected) in cases {
            assert_eq!(through(format, value), expected, "{format}");
        }
    }

    // Every expected text below is glibc's printf of the same format and
    // argument (an `int` where there is no length modifier).

    #[test]
    fn integer_conversions_as_glibc_prints_them() {
        let cases: &[(&str, i64, &str)] = &[
            ("%d", 42, "42"),
            ("%i", -42, "-42"),
            ("%5d|", -42, "  -42|"),
            ("%-5d|", 42, "42   |"),
            ("%05d", -42, "-0042"),
            ("%-05d|", 3, "3    |"),
            ("%+d", 7, "+7"),
            ("% d", 7, " 7"),
            ("%+ d", 3, "+3"),
            ("%.3d", -7, "-007"),
            ("%08.3d|", -7, "    -007|"),
            ("%.0d|", 0, "|"),
            ("%+.0d|", 0, "+|"),
            ("%u", -12, "4294967284"),
            ("%+u", 255, "255"),
            ("% u", 5, "5"),
            ("%o", 8, "10"),
            ("%#o", 8, "010"),
            ("%#.3o", 8, "010"),
            ("%#.0o", 0, "0"),
            ("%#5o|", 8, "  010|"),
            ("%#08o", 8, "00000010"),
            ("%x", 255, "ff"),
            ("%x", -12, "fffffff4"),
            ("%+x", 255, "ff"),
            ("%#X", 255, "0XFF"),
            ("%#x", 0, "0"),
            ("%#08x", 255, "0x0000ff"),
            ("%#.3x", 5, "0x005"),
            ("%#5.0x|", 0, "     |"),
            ("%'d", 1234567, "1234567"),
            ("%c", 65, "A"),
            ("%5c|", 65, "    A|"),
            ("%-5c|", 65, "A    |"),
            ("%05c|", 65, "    A|"),
            ("%+c", 65, "A"),
            ("%.3c", 65, "A"),
            ("%#c", 65, "A"),
            ("%p", 255, "0xff"),
            ("%p", 0, "(nil)"),
            ("%10p|", 255, "      0xff|"),
            ("%010p", 255, "0x000000ff"),
            ("%-10p|", 0, "(nil)     |"),
            ("%010p|", 0, "     (nil)|"),
            ("%.5p", 255, "0x000ff"),
            ("%+p", 255, "+0xff"),
            ("% p", 255, " 0xff"),
            ("%#p", 255, "0xff"),
        ];
        check(cases, int_through);
    }

    #[test]
    fn length_modifiers_choose_the_bits_read() {
        // glibc of a `long long` argument through each length.
        let cases: &[(&str, i64, &str)] = &[
            ("%d", 1 << 40, "0"),
            ("%lld", 1 << 40, "1099511627776"),
            ("%ld", -12, "-12"),
            ("%lx", -12, "fffffffffffffff4"),
            ("%llu", -1, "18446744073709551615"),
            ("%qd", 255, "255"),
            ("%jd", 1 << 40, "1099511627776"),
            ("%hd", 70000, "4464"),
            ("%hx", -1, "ffff"),
            ("%hhd", 300, "44"),
            ("%hhx", -1, "ff"),
        ];
        check(cases, int_through);
    }

    #[test]
    fn real_conversions_as_glibc_prints_them() {
        let cases: &[(&str, f64, &str)] = &[
            ("%f", 1.5, "1.500000"),
            ("%.2f", 2.0 / 3.0, "0.67"),
            ("%8.3f|", -1.0, "  -1.000|"),
            ("%+f", 1.5, "+1.500000"),
            ("%010.2f|", 1.5, "0000001.50|"),
            ("%010.2f|", -1.5, "-000001.50|"),
            ("%-010.2f|", 1.5, "1.50      |"),
            ("%05.1f", -0.0, "-00.0"),
            ("%.0f", 0.5, "0"),
            ("%.0f", 1.5, "2"),
            ("%.0f", 2.5, "2"),
            ("%.1f", 0.25, "0.2"),
            ("%#.0f", 3.0, "3."),
            ("%#f", 3.0, "3.000000"),
            ("%.20f", 1.5, "1.50000000000000000000"),
            ("%e", 12345.678, "1.234568e+04"),
            ("%e", 0.0, "0.000000e+00"),
            ("%.2e", 1.125, "1.12e+00"),
            ("%.3e", 9.9996, "1.000e+01"),
            ("%.0e", 9.5, "1e+01"),
            ("%.0e", 0.0, "0e+00"),
            ("%#.0e", 0.0, "0.e+00"),
            ("%#.0e", 3.0, "3.e+00"),
            ("% e", 1.5, " 1.500000e+00"),
            ("%.3e", 1e100, "1.000e+100"),
            ("%E", 0.1, "1.000000E-01"),
            ("%g", 0.0, "0"),
            ("%g", 0.0001, "0.0001"),
            ("%g", 1e-5, "1e-05"),
            ("%g", 100000.0, "100000"),
            ("%g", 1e6, "1e+06"),
            ("%g", 123456789.0, "1.23457e+08"),
            ("%G", 1e-10, "1E-10"),
            ("%.16G", 1e20, "1E+20"),
            ("%.16G", 1.0 / 3.0, "0.3333333333333333"),
            ("%.20g", 0.1, "0.10000000000000000555"),
            ("%.0g", 0.5, "0.5"),
            ("%.0g", 95.0, "1e+02"),
            ("%.1g", 0.95, "0.9"),
            ("%.3g", 100.0, "100"),
            ("%#g", 0.0, "0.00000"),
            ("%#.0g", 3.0, "3."),
            ("%#.0g", 0.0, "0."),
            ("%#.3g", 100.0, "100."),
            ("%#.3g", 1e5, "1.00e+05"),
            ("%#G", 1e-5, "1.00000E-05"),
            ("%a", 1.5, "0x1.8p+0"),
            ("%a", 1.0, "0x1p+0"),
            ("%a", 0.1, "0x1.999999999999ap-4"),
            ("%A", 1.5, "0X1.8P+0"),
            ("%.3a", 0.1, "0x1.99ap-4"),
            ("%a", 0.0, "0x0p+0"),
            ("%a", -0.0, "-0x0p+0"),
            ("%.2a", 0.0, "0x0.00p+0"),
            ("%#.3a", 1.0, "0x1.000p+0"),
            ("%#.0a", 1.0, "0x1.p+0"),
            ("%.0a", 1.5, "0x2p+0"),
            ("%.0a", 2.5, "0x1p+1"),
            ("%.1a", 1.03125, "0x1.0p+0"),
            ("%.1a", 1.09375, "0x1.2p+0"),
            ("%.2a", 1.999, "0x2.00p+0"),
            ("%.15a", 1.0, "0x1.000000000000000p+0"),
            ("%a", 5e-324, "0x0.0000000000001p-1022"),
            ("%a", 2.2250738585072014e-308, "0x1p-1022"),
            ("%a", 1e300, "0x1.7e43c8800759cp+996"),
            ("%010a", -1.5, "-0x01.8p+0"),
            ("%+a", 1.5, "+0x1.8p+0"),
        ];
        check(cases, real_through);
    }

    #[test]
    fn infinities_and_nans_are_words_padded_with_spaces() {
        let cases: &[(&str, f64, &str)] = &[
            ("%f", f64::NAN, "nan"),
            ("%f", -f64::NAN, "-nan"),
            ("%+f", f64::NAN, "+nan"),
            ("%E", f64::NAN, "NAN"),
            ("%F", f64::INFINITY, "INF"),
            ("% f", f64::INFINITY, " inf"),
            ("%05f", f64::NEG_INFINITY, " -inf"),
            ("%-6g|", f64::INFINITY, "inf   |"),
        ];
        check(cases, real_through);
    }

    #[test]
    fn strings_are_cut_to_the_precision_and_padded_with_spaces() {
        let cases: &[(&str, &str, &str)] = &[
            ("%s", "abc", "abc"),
            ("%5s|", "abc", "  abc|"),
            ("%-5s|", "abc", "abc  |"),
            ("%.2s|", "abc", "ab|"),
            ("%5.1s|", "abc", "    a|"),
            ("%05s|", "ab", "   ab|"),
            ("%+s", "ab", "ab"),
            ("[%s]", "", "[]"),
        ];
        check(cases, string_through);
    }

    #[test]
    fn a_conversion_letter_of_the_wrong_kind_converts_the_value() {
        assert_eq!(int_through("%.1f", 3), "3.0");
        assert_eq!(real_through("%d", 2.7), "2");
        assert_eq!(real_through("%s", 0.5), "0.5");
    }

    #[test]
    fn the_text_around_prints_as_printf_prints_it() {
        assert_eq!(int_through("100%% %d", 5), "100% 5");
        assert_eq!(int_through("%%%d%%", 5), "%5%");
        assert_eq!(int_through("%5%%d", 5), "%5");
        assert_eq!(int_through("%d %k", 255), "255 %k");
        assert_eq!(int_through("%d %5k", 3), "3 %5k");
        assert_eq!(int_through("%d %", 255), "255 ");
        assert_eq!(int_through("%d %5", 3), "3 ");
        assert_eq!(int_through("%d %-", 3), "3 ");
        assert_eq!(int_through("%d %5.3%", 3), "3 %");
        assert_eq!(int_through("%d %+%", 3), "3 %");
        assert_eq!(literal("plain"), "plain");
        assert_eq!(literal("a%%b"), "a%b");
        assert_eq!(literal(""), "");
        assert_eq!(literal("%é%"), "%é");
    }

    #[test]
    fn parse_reads_flags_width_precision_length_and_letter() {
        let c = conversion("ab %-+ #0'12.5lld cd");
        assert_eq!((c.start, c.end), (3, 17));
        assert!(c.left && c.plus && c.space && c.alt && c.zero);
        assert_eq!(
            (c.width, c.precision, c.bits, c.letter),
            (12, Some(5), 64, 'd')
        );
        let bare = conversion("%.f");
        assert_eq!((bare.width, bare.precision, bare.bits), (0, Some(0), 32));
        assert_eq!(conversion("%hd").bits, 16);
        assert_eq!(conversion("%hhd").bits, 8);
        assert_eq!(conversion("%Lf").bits, 64);
        for letter in "diouxXeEfFgGaAcCsSpnvVrRTY".chars() {
            assert_eq!(conversion(&format!("%{letter}")).letter, letter);
        }
        // Past the first conversion, from a byte offset.
        let second = parse("%d and %s", 2).expect("a second conversion");
        assert_eq!((second.start, second.letter), (7, 's'));
    }

    #[test]
    fn malformed_formats_have_no_conversion() {
        for format in [
            "", "plain", "100%%", "%", "%5", "%-", "%.", "%5.3", "%l", "%%%", "%k", "%*d", "%.*d",
            "%5%", "%k %d", "%!", "%é", "%5é %d",
        ] {
            assert_eq!(parse(format, 0), None, "{format:?}");
        }
        // Huge widths and precisions are bounded, not overflowed.
        let c = conversion("%99999999999999999999999.99999999999999999999d");
        assert_eq!((c.width, c.precision), (MAX_FIELD, Some(MAX_FIELD)));
        assert_eq!(int(&c, 1).len(), MAX_FIELD);
        assert_eq!(parse("%d", 99), None);
    }
}
