//! The differential harness can fail: a reference with a deliberately
//! wrong rule is told apart from the VM.

use classad_testkit::generator::{GenOptions, Generator};
use classad_testkit::harness::Harness;
use classad_testkit::reference::{Mutation, RefOptions};

fn mutated(mutation: Mutation) -> Harness {
    Harness::new(RefOptions {
        mutation,
        ..RefOptions::default()
    })
}

#[test]
fn swapped_and_table_is_reported() {
    let mut harness = mutated(Mutation::SwapAndTable);
    let m = harness
        .check_text("undefined && false")
        .expect_err("the swapped && table must be caught");
    assert_eq!(m.vm, "false");
    assert_eq!(m.reference, "undefined");
    // Unmutated, the same expression agrees.
    assert!(
        Harness::new(RefOptions::default())
            .check_text("undefined && false")
            .is_ok()
    );
    // Inside a value: the path says where.
    let m = harness
        .check_text("[a = x && false; b = {1, true && x}]")
        .expect_err("caught inside an ad");
    assert!(m.path == ".a" || m.path == ".b[1]", "{}", m.path);
}

#[test]
fn mutations_are_found_by_generated_expressions() {
    for mutation in [
        Mutation::SwapAndTable,
        Mutation::CircularIsError,
        Mutation::ModuloByZeroIsZero,
    ] {
        let mut generator = Generator::new(5, GenOptions::default());
        let mut harness = mutated(mutation);
        let found = (0..3000).any(|_| {
            let (_, expr) = generator.next_expr();
            harness.check(&expr).is_err()
        });
        assert!(found, "{mutation:?} not detected in 3000 expressions");
    }
}

#[test]
fn circular_mutation_is_reported() {
    let m = mutated(Mutation::CircularIsError)
        .check_text("[a = b; b = a].a")
        .expect_err("caught");
    assert_eq!(
        (m.vm.as_str(), m.reference.as_str()),
        ("undefined", "error")
    );
}

#[test]
fn eager_lists_are_reported() {
    let m = mutated(Mutation::EagerLists)
        .check_text("[a = {a[1] + 1, 3}].a[0]")
        .expect_err("caught");
    assert_eq!((m.vm.as_str(), m.reference.as_str()), ("4", "undefined"));
    assert!(
        Harness::new(RefOptions::default())
            .check_text("[a = {a[1] + 1, 3}].a[0]")
            .is_ok()
    );
}
