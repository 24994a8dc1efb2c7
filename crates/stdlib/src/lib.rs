//! The ClassAd builtin function library.
//!
//! Every function is described as data ([`Builtin`]: name, arity,
//! purity, function pointer) and registered once in [`standard_registry`],
//! whose names are checked unique. A program adds its own functions with
//! [`Registry::register`] (the counterpart of HTCondor's
//! `CLASSAD_USER_LIBS`).
//!
//! Status: the core functions the language tests need (type predicates,
//! conversions, basic string and list functions); the complete library is
//! the issue "builtin function library".

use classad_vm::{Builtin, CallContext, Registry, Value};
use std::sync::Arc;

mod core;
mod time;

/// The registry of every builtin function.
pub fn standard_registry() -> Registry {
    let mut registry = Registry::new();
    for builtin in core::builtins().into_iter().chain(time::builtins()) {
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

/// Shorthand used by the function tables.
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
        func,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn registry_names_are_unique() {
        let mut registry = classad_vm::Registry::new();
        for b in super::core::builtins()
            .into_iter()
            .chain(super::time::builtins())
        {
            let name = b.name;
            assert!(registry.register(b).is_ok(), "duplicate builtin {name}");
        }
    }
}
