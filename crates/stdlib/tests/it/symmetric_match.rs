//! HTCondor's symmetric match accepts a `Requirements` that is true or a
//! number other than zero (checked with the oracle's
//! `ClassAd.symmetricMatch`); everything else refuses the match.

use classad::ClassAd;

#[test]
fn requirements_accept_true_and_nonzero_numbers() {
    let partner: ClassAd = "[Requirements = true]".parse().expect("parses");
    for (requirements, accepted) in [
        ("true", true),
        ("1", true),
        ("2", true),
        ("-1", true),
        ("0.5", true),
        ("1e-300", true),
        ("real(\"NaN\")", true),
        ("0", false),
        ("0.0", false),
        ("false", false),
        ("\"yes\"", false),
        ("undefined", false),
        ("error", false),
        ("{1}", false),
        ("[a = 1]", false),
    ] {
        let ad: ClassAd = format!("[Requirements = {requirements}]")
            .parse()
            .expect("parses");
        assert_eq!(ad.matches(&partner), accepted, "{requirements}");
        assert_eq!(partner.matches(&ad), accepted, "{requirements} as partner");
    }
}
