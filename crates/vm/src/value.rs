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
    /// Only ever an element of a list: the literal HTCondor stores for a
    /// relative time where it makes a list of values (a selection over a
    /// list, `evalInEachContext`), holding its whole seconds (see
    /// [`crate::interp::selected_literal`]). It evaluates to those seconds
    /// as a real, which is what a subscript, a selection or a function
    /// gets (`{[a = relTime(3.5)]}.a[0]` is 3.0; see
    /// [`Value::element_value`]), but is written as a relative time
    /// (`string({[a = relTime(3.5)]}.a)` is `"{ relTime(\"03\") }"`).
    RelTimeLiteral(f64),
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
    /// Whether this is HTCondor's shared list type (`SLIST_VALUE`) while
    /// keeping its scope: a list `eval` made, handed on by `ad["name"]`,
    /// which takes the list `eval` parsed rather than copying it (see
    /// `Vm::note_eval_made`). `=?=` tells the two types apart; a further
    /// `ad["name"]` leaves such a list as it is.
    pub shared: bool,
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
            Value::Real(_) | Value::RelTimeLiteral(_) => ValueType::Real,
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
            Value::Real(r) | Value::RelTimeLiteral(r) => Some(r),
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

    /// The text of a string value that is UTF-8 (octal escapes can make
    /// one that is not: see [`Value::as_str_bytes`]).
    ///
    /// ```
    /// use classad_vm::Value;
    /// assert_eq!(Value::string("x86_64").as_str(), Some("x86_64"));
    /// assert_eq!(Value::Int(1).as_str(), None);
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        self.as_str_bytes()
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
    }

    /// The integer of an integer value.
    ///
    /// ```
    /// use classad_vm::Value;
    /// assert_eq!(Value::Int(42).as_i64(), Some(42));
    /// assert_eq!(Value::Real(42.0).as_i64(), None);
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The number of a real or integer value, as a double.
    ///
    /// ```
    /// use classad_vm::Value;
    /// assert_eq!(Value::Real(2.5).as_f64(), Some(2.5));
    /// assert_eq!(Value::Int(2).as_f64(), Some(2.0));
    /// assert_eq!(Value::Bool(true).as_f64(), None);
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) | Value::RelTimeLiteral(r) => Some(r),
            _ => None,
        }
    }

    /// The truth of a boolean value.
    ///
    /// ```
    /// use classad_vm::Value;
    /// assert_eq!(Value::Bool(true).as_bool(), Some(true));
    /// assert_eq!(Value::Int(1).as_bool(), None);
    /// ```
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The elements of an evaluated list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(items) | Value::SharedList(items) => Some(items),
            _ => None,
        }
    }

    /// The value of a list element where it is used: a relative time's
    /// literal is its seconds as a real, anything else itself.
    ///
    /// ```
    /// use classad_vm::Value;
    /// assert_eq!(Value::RelTimeLiteral(3.0).element_value(), Value::Real(3.0));
    /// assert_eq!(Value::RelTime(3.0).element_value(), Value::RelTime(3.0));
    /// ```
    pub fn element_value(&self) -> Value {
        match *self {
            Value::RelTimeLiteral(secs) => Value::Real(secs),
            ref other => other.clone(),
        }
    }
}

/// Values are equal when they have the same type and equal contents:
/// reals (and relative times) by `==`, so NaN differs from itself; lists
/// element by element; ads by their attributes' names (ignoring case) and
/// expressions as written. `1 == 1.0` is false here (different types),
/// unlike the ClassAd `==` operator.
///
/// ```
/// use classad_vm::Value;
/// assert_eq!(Value::string("a"), Value::string("a"));
/// assert_ne!(Value::Int(1), Value::Real(1.0));
/// ```
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b))
            | (Value::RelTime(a), Value::RelTime(b))
            | (Value::RelTimeLiteral(a), Value::RelTimeLiteral(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::AbsTime(a), Value::AbsTime(b)) => a == b,
            (Value::List(a), Value::List(b)) | (Value::SharedList(a), Value::SharedList(b)) => {
                a == b
            }
            (Value::LazyList(a), Value::LazyList(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.items.len() == b.items.len()
                        && a.items
                            .iter()
                            .zip(b.items.iter())
                            .all(|(x, y)| x.source == y.source))
            }
            (Value::Ad(a), Value::Ad(b)) => {
                let (a, b) = (a.body.attributes(), b.body.attributes());
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.name.eq_ignore_case(y.name.as_bytes()) && x.source == y.source
                    })
            }
            _ => false,
        }
    }
}

/// The value as a new-syntax ClassAd literal, as `classad eval` prints it.
///
/// ```
/// use classad_vm::Value;
/// assert_eq!(Value::string("a\"b").to_string(), r#""a\"b""#);
/// assert_eq!(Value::Real(1.5).to_string(), "1.500000000000000E+00");
/// assert_eq!(Value::Undefined.to_string(), "undefined");
/// ```
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::value_to_string(self))
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::value_to_string(self))
    }
}
