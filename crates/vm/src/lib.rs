//! The ClassAd virtual machine.
//!
//! Owns the runtime: the [`Value`] type (undefined, error, boolean,
//! integer, real, string, absolute and relative time, list, ad), the
//! bytecode format that the compiler emits and its verifier
//! ([`bytecode`]), operator semantics ([`ops`]), the interpreter loop and
//! scopes ([`Vm`]), runtime ads ([`ad`]), and the function registry that
//! the stdlib crate fills ([`registry`]).
//!
//! Programs and ads are immutable and `Send + Sync`; all evaluation state
//! lives in a [`Vm`], one per thread, reused between evaluations.

pub mod ad;
pub mod budget;
pub mod bytecode;
pub mod interp;
pub mod ops;
pub mod print;
pub mod registry;
#[cfg(feature = "serde")]
mod serde_impl;
pub mod value;

pub use ad::{AdBody, AdLayout, AdRef, AdValue, Attribute, Definition, Symbol};
pub use bytecode::{Instr, Pools, Program, VerifyError};
pub use interp::{BYTES_PER_STEP, CallContext, Env, Limits, Options, VALUE_BYTES, Vm};
pub use registry::{
    Arguments, Builtin, Function, LazyArg, LazyFn, NativeFn, Registry, StopTest, Stops,
};
pub use value::{AbsTime, LazyList, Value, ValueType};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
    }

    #[test]
    fn shared_types_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Program>();
        check::<AdRef>();
        check::<Value>();
        check::<Registry>();
    }
}
