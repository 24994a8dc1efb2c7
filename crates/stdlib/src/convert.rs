//! Builtin functions: convert (spec 003, "Predefined Functions").

use classad_vm::Builtin;

pub(crate) fn builtins() -> Vec<Builtin> {
    Vec::new()
}
