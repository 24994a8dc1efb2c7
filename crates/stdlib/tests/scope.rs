//! Scope after a selection over a list (issue 12). Every expected value
//! was checked against HTCondor 25.14 (the oracle).

mod common;
use common::check;

// The elements of a list made by a selection over a list have no scope:
// every reference made directly in them is UNDEFINED (`root`, `self`, `MY`
// and `CurrentTime` too), while an ad literal among them still has a root
// (an empty ad).
#[test]
fn list_made_by_selection_over_list_has_no_scope() {
    check(&[
        ("{ [ a = { root, 1 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { self, 1 } ] }.a[0][1]", "1"),
        ("{ [ a = { self, 1 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { toplevel } ] }.a[0][0]", "undefined"),
        ("{ [ a = { MY } ] }.a[0][0]", "undefined"),
        ("{ [ a = { CurrentTime > 0 } ] }.a[0][0]", "undefined"),
        ("{ [ a = { x }; x = 1 ] }.a[0][0]", "undefined"),
        ("{ [ a = { root } ] }.a", "{ { undefined } }"),
        ("{ [ a = { [ y = root ].y } ] }.a[0][0]", "[  ]"),
    ]);
}
