//! Runtime values.
//!
//! A [`Value`] is 24 bytes (pinned by a test): scalars inline, strings,
//! lists and ads behind `Arc` so that copying a value is a reference-count
//! increment. Lists hold evaluated elements; ads hold their attribute
//! programs and the scope they were written in, so attributes evaluate
//! where they were written (spec 004, "lexical scoping").

use crate::ad::AdRef;
use crate::registry::LazyArg;
use std::fmt;
use std::sync::Arc;

/// A ClassAd value.
#[derive(Clone, Default)]
pub enum Value {
    /// UNDEFINED: a missing attribute, or an operation on one.
    #[default]
    Undefined,
    /// ERROR: a type error or other failure.
    Error,
    /// `true` / `false`.
    Bool(bool),
    /// A 64-bit signed integer; arithmetic wraps.
    Int(i64),
    /// A double.
    Real(f64),
    /// A byte string (may hold non-UTF-8 bytes from octal escapes).
    Str(Arc<[u8]>),
    /// An absolute time: seconds since the epoch and the zone's offset
    /// from UTC in seconds.
    AbsTime(AbsTime),
    /// A relative time in seconds.
    RelTime(f64),
    /// A list of values.
    List(Arc<[Value]>),
    /// A list a function made (`split`, `splitUserName`, `splitSlotName`,
    /// `argsToList`, `evalInEachContext`): in HTCondor a list of another
    /// type than a list literal's, which `=?=` tells apart (`{1} =?=
    /// split("x")` is false, where two lists of one type are ERROR). It
    /// becomes a [`Value::List`] when forced, so functions never see it.
    SharedList(Arc<[Value]>),
    /// A list literal not yet evaluated: its elements evaluate where the
    /// list was written, each when it is used, as in HTCondor (so
    /// `[a = {a[1] + 1, 3}].a[0]` is 4). The VM forces lazy lists before
    /// a value leaves it; only a list that contains itself stays lazy.
    LazyList(Arc<LazyList>),
    /// A ClassAd with its scope.
    Ad(AdRef),
}

/// An absolute time: an instant and the zone offset it is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbsTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Offset of the zone from UTC, in seconds east.
    pub offset: i32,
}

/// The elements of a list literal and the ad they are evaluated in.
pub struct LazyList {
    /// The element expressions, compiled.
    pub items: Arc<[LazyArg]>,
    /// The ad the list was written in.
    pub scope: AdRef,
}

/// The type of a value, for messages and type predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// UNDEFINED
    Undefined,
    /// ERROR
    Error,
    /// boolean
    Bool,
    /// integer
    Int,
    /// real
    Real,
    /// string
    Str,
    /// absolute time
    AbsTime,
    /// relative time
    RelTime,
    /// list
    List,
    /// ClassAd
    Ad,
}

impl Value {
    /// A string value from text.
    pub fn string(text: impl AsRef<[u8]>) -> Value {
        Value::Str(Arc::from(text.as_ref()))
    }

    /// The value's type.
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::Undefined => ValueType::Undefined,
            Value::Error => ValueType::Error,
            Value::Bool(_) => ValueType::Bool,
            Value::Int(_) => ValueType::Int,
            Value::Real(_) => ValueType::Real,
            Value::Str(_) => ValueType::Str,
            Value::AbsTime(_) => ValueType::AbsTime,
            Value::RelTime(_) => ValueType::RelTime,
            Value::List(_) | Value::SharedList(_) | Value::LazyList(_) => ValueType::List,
            Value::Ad(_) => ValueType::Ad,
        }
    }

    /// Whether the value is UNDEFINED.
    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    /// Whether the value is ERROR.
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }

    /// The number as a double, for int, real and bool.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            Value::Bool(b) => Some(f64::from(u8::from(b))),
            _ => None,
        }
    }

    /// The bytes of a string value.
    pub fn as_str_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::value_to_string(self))
    }
}
