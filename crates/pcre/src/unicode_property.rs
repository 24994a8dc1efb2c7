//! PCRE2 10.32's Unicode properties, `\p{..}` and `\P{..}`, as HTCondor
//! 25.14 reads them: the names are matched exactly (no loose matching, no
//! short script names, no `sc:` or `Bidi_Class` forms, which came with
//! PCRE2 10.40), from Unicode 11's general categories and scripts, `L&`,
//! `Any` and PCRE2's own `Xan Xps Xsp Xuc Xwd`. Outside UTF mode a
//! subject byte is the code point of the same value (Latin-1).
//!
//! The sets come from `regex-syntax`'s Unicode tables (a later Unicode
//! version: characters assigned since Unicode 11 differ in UTF mode only).

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

/// The general categories PCRE2 knows (`L&` is `Lu`, `Ll` and `Lt`).
const CATEGORIES: [&str; 38] = [
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "L&", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
    "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk",
    "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// The scripts of Unicode 11, by PCRE2 10.32's names (checked one by one
/// against HTCondor 25.14: each is accepted, Unicode 12's `Elymaic` is not).
const SCRIPTS: [&str; 148] = [
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kayah_Li",
    "Kharoshthi",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Ugaritic",
    "Vai",
    "Warang_Citi",
    "Yi",
    "Zanabazar_Square",
];

/// The longest name PCRE2 reads between the braces.
const MAX_NAME: usize = 31;

/// A property at `units` (just after the `p` or `P`; `upper`: it was
/// `\P`): its code points as sorted ranges, negation applied, and how many
/// units it took. `None` where PCRE2 refuses it ("malformed \P or \p
/// sequence", "unknown property name after \P or \p").
pub(crate) fn parse(units: &[u32], upper: bool) -> Option<(Vec<(u32, u32)>, usize)> {
    let mut negated = upper;
    let (name, used): (String, usize) = if units.first() == Some(&u32::from(b'{')) {
        let mut start = 1;
        if units.get(1) == Some(&u32::from(b'^')) {
            negated = !negated;
            start = 2;
        }
        let close = units[start..]
            .iter()
            .take(MAX_NAME + 1)
            .position(|&u| u == u32::from(b'}'))?;
        let name = units[start..start + close]
            .iter()
            .map(|&u| char::from_u32(u).unwrap_or('\u{fffd}'))
            .collect();
        (name, start + close + 1)
    } else {
        (char::from_u32(*units.first()?)?.to_string(), 1)
    };
    let class = set(&name)?;
    let mut ranges: Vec<(u32, u32)> = class
        .ranges()
        .iter()
        .map(|r| (u32::from(r.start()), u32::from(r.end())))
        .collect();
    if negated {
        ranges = complement(&ranges);
    }
    Some((ranges, used))
}

/// The ranges not in `ranges` (sorted, disjoint), up to U+10FFFF.
pub(crate) fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut next = 0u32;
    for &(low, high) in ranges {
        if low > next {
            out.push((next, low - 1));
        }
        next = high + 1;
    }
    if next <= 0x10ffff {
        out.push((next, 0x10ffff));
    }
    out
}

/// Whether PCRE2 10.32 knows the property `name`.
pub(crate) fn known(name: &str) -> bool {
    CATEGORIES.contains(&name)
        || SCRIPTS.contains(&name)
        || matches!(name, "Any" | "Xan" | "Xps" | "Xsp" | "Xuc" | "Xwd")
}

fn set(name: &str) -> Option<ClassUnicode> {
    if !known(name) {
        return None;
    }
    let chars = |list: &[(char, char)]| {
        ClassUnicode::new(list.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
    };
    let union = |mut a: ClassUnicode, b: &ClassUnicode| {
        a.union(b);
        a
    };
    Some(match name {
        "Any" => chars(&[('\0', '\u{10ffff}')]),
        // Surrogates are no characters (a subject never holds one).
        "Cs" => ClassUnicode::empty(),
        "L&" => table(r"\p{gc=LC}")?,
        "Xan" => union(table(r"\p{gc=L}")?, &table(r"\p{gc=N}")?),
        "Xwd" => union(
            union(table(r"\p{gc=L}")?, &table(r"\p{gc=N}")?),
            &chars(&[('_', '_')]),
        ),
        // PCRE2's Perl and POSIX space: separators and `\t \n \v \f \r`.
        "Xps" | "Xsp" => union(table(r"\p{gc=Z}")?, &chars(&[('\t', '\r')])),
        // What a C universal character name may spell.
        "Xuc" => chars(&[
            ('$', '$'),
            ('@', '@'),
            ('`', '`'),
            ('\u{a0}', '\u{d7ff}'),
            ('\u{e000}', '\u{10ffff}'),
        ]),
        _ if CATEGORIES.contains(&name) => table(&format!(r"\p{{gc={name}}}"))?,
        _ => table(&format!(r"\p{{sc={name}}}"))?,
    })
}

/// A class of `regex-syntax`'s tables.
fn table(expression: &str) -> Option<ClassUnicode> {
    let hir = regex_syntax::Parser::new().parse(expression).ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => Some(class.clone()),
        // A set of one character (`Zl`, `Zp`) comes back as a literal.
        HirKind::Literal(literal) => {
            let c = std::str::from_utf8(&literal.0).ok()?.chars().next()?;
            Some(ClassUnicode::new([ClassUnicodeRange::new(c, c)]))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(name: &str, c: char) -> bool {
        let units: Vec<u32> = format!("{{{name}}}").chars().map(u32::from).collect();
        let (ranges, _) = parse(&units, false).expect(name);
        ranges.iter().any(|&(l, h)| l <= c as u32 && c as u32 <= h)
    }

    #[test]
    fn every_name_pcre2_knows_has_a_set() {
        for name in CATEGORIES.iter().chain(&SCRIPTS) {
            assert!(set(name).is_some(), "{name}");
        }
        for name in ["Any", "Xan", "Xps", "Xsp", "Xuc", "Xwd"] {
            assert!(set(name).is_some(), "{name}");
        }
    }

    #[test]
    fn names_are_exact() {
        for name in [
            "l", "Lc", "LC", " L", "L ", "Grek", "greek", "Elymaic", "sc:Greek", "",
        ] {
            let units: Vec<u32> = format!("{{{name}}}").chars().map(u32::from).collect();
            assert!(parse(&units, false).is_none(), "{name}");
        }
        assert!(parse(&[u32::from(b'X')], false).is_none());
        assert!(parse(&[], false).is_none());
        assert!(parse(&[u32::from(b'{'), u32::from(b'L')], false).is_none());
    }

    #[test]
    fn latin1_members() {
        assert!(has("Lu", '\u{c3}'));
        assert!(has("Ll", '\u{b5}'));
        assert!(has("So", '\u{a9}'));
        assert!(has("Latin", '\u{aa}'));
        assert!(!has("Latin", '1'));
        assert!(has("Xwd", '_'));
        assert!(!has("Xan", '_'));
        assert!(has("Xps", '\t'));
        assert!(has("L&", 'a'));
        assert!(has("^Lu", 'a'));
        assert!(!has("Cs", 'a'));
    }
}
