//! The ClassAd builtin function library.
//!
//! Every function is described as data ([`Builtin`]: name, arity,
//! purity, function pointer, and how a call evaluates its arguments where
//! HTCondor's function stops early or ignores their failures,
//! [`Arguments`]) and registered once in [`standard_registry`],
//! whose names are checked unique. A program adds its own functions with
//! [`Registry::register`] (the counterpart of HTCondor's
//! `CLASSAD_USER_LIBS`).
//!
//! Status: the core functions the language tests need (type predicates,
//! conversions, basic string and list functions); the complete library is
//! the issue "builtin function library".

use classad_vm::{Arguments, Builtin, CallContext, Function, LazyArg, Registry, Value};
use std::sync::Arc;

mod budget;
mod convert;
mod core;
pub mod env;
mod introspection;
pub mod jdl;
mod lists;
mod math;
mod regex;
mod stringlist;
mod strings;
mod time;
mod version;

/// Every builtin, family by family.
pub(crate) fn all_builtins() -> Vec<Builtin> {
    [
        core::builtins(),
        convert::builtins(),
        strings::builtins(),
        version::builtins(),
        math::builtins(),
        lists::builtins(),
        stringlist::builtins(),
        regex::builtins(),
        time::builtins(),
        env::builtins(),
        introspection::builtins(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The registry of every builtin function.
pub fn standard_registry() -> Registry {
    let mut registry = Registry::new();
    for builtin in all_builtins() {
        if let Err(duplicate) = registry.register(builtin) {
            // Names are fixed at build time; a duplicate is a bug caught by the tests.
            debug_assert!(false, "{duplicate}");
        }
    }
    registry
}

/// A shared standard registry.
pub fn shared_registry() -> Arc<Registry> {
    static REGISTRY: std::sync::LazyLock<Arc<Registry>> =
        std::sync::LazyLock::new(|| Arc::new(standard_registry()));
    REGISTRY.clone()
}

/// Shorthand used by the function tables: a function called with its
/// arguments evaluated, a list among them as written
/// ([`Function::StrictKeepingLists`]). HTCondor's functions evaluate a
/// list argument's elements only where they read them, one by one as they
/// walk the list (`member`, `sum`, `anyCompare`, `join`, `quantize`,
/// `regexpMember`, `listToArgs`, through [`CallContext::list_element`]);
/// every other function sees a list whatever its elements, so one whose
/// element fails (a list that selects from itself, `[A = userHome(B,
/// "a"); B = {B.b}].A` is "a") or is ERROR does not change its answer.
pub(crate) fn builtin(
    name: &'static str,
    min_args: u16,
    max_args: u16,
    pure: bool,
    func: fn(&mut CallContext<'_>, &[Value]) -> Value,
) -> Builtin {
    Builtin {
        name,
        min_args,
        max_args,
        pure,
        function: Function::StrictKeepingLists(func),
        arguments: Arguments::EAGER,
    }
}

/// Shorthand for a function that takes its arguments unevaluated.
pub(crate) fn lazy_builtin(
    name: &'static str,
    min_args: u16,
    max_args: u16,
    func: fn(&mut CallContext<'_>, &[LazyArg]) -> Value,
) -> Builtin {
    Builtin {
        name,
        min_args,
        max_args,
        pure: false,
        function: Function::Lazy(func),
        arguments: Arguments::EAGER,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn registry_names_are_unique() {
        let mut registry = classad_vm::Registry::new();
        for b in super::all_builtins() {
            let name = b.name;
            assert!(registry.register(b).is_ok(), "duplicate builtin {name}");
        }
    }
}
