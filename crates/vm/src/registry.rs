//! The function registry: builtins described as data. The stdlib crate
//! fills it; programs hold `Arc<Builtin>` directly, so a call costs one
//! indirect jump and no lookup.

use crate::bytecode::Program;
use crate::interp::CallContext;
use crate::value::Value;
use classad_syntax::Expr;
use std::collections::HashMap;
use std::sync::Arc;

/// The signature of a function: evaluated arguments in, value out.
pub type NativeFn = fn(&mut CallContext<'_>, &[Value]) -> Value;

/// The signature of a function that takes its arguments unevaluated
/// (`unparse`, `eval`'s relatives, `evalInEachContext`, ...): it evaluates
/// what it needs through [`CallContext::evaluate`].
pub type LazyFn = fn(&mut CallContext<'_>, &[LazyArg]) -> Value;

/// An unevaluated argument: its program, to run in the caller's scope,
/// and its source tree.
pub struct LazyArg {
    /// The compiled argument.
    pub program: Arc<Program>,
    /// The argument as written.
    pub source: Arc<Expr>,
}

/// How a function is implemented.
#[derive(Clone, Copy)]
pub enum Function {
    /// Called with its arguments evaluated, a list among them with its
    /// elements evaluated too (where the call is; one whose evaluation
    /// fails fails the call): a convenience for a function an embedding
    /// program registers that reads its lists whole. No standard function
    /// is one (see [`Function::StrictKeepingLists`]).
    Strict(NativeFn),
    /// Called with its arguments evaluated, a list among them as written,
    /// its elements unevaluated: the function evaluates the elements it
    /// reads, one by one, through [`CallContext::list_element`]. This is
    /// how HTCondor's functions take lists, and every standard function's
    /// kind: most see only that the argument is a list (`string({1 + 2})`
    /// is `"{ 1 + 2 }"`; `[A = userHome(B, "a"); B = {B.b}].A` is `"a"`
    /// although `B`'s element fails at the depth limit), and those that
    /// read elements stop where HTCondor's stop (`sum({"a", B.b})` is ERROR
    /// without evaluating `B.b`).
    ///
    /// [`CallContext::list_element`]: crate::CallContext::list_element
    StrictKeepingLists(NativeFn),
    /// Called with its arguments unevaluated.
    Lazy(LazyFn),
}

/// A function callable from ClassAd expressions.
pub struct Builtin {
    /// The name, as documented (lookup ignores case).
    pub name: &'static str,
    /// Fewest arguments accepted.
    pub min_args: u16,
    /// Most arguments accepted (`u16::MAX` for any number).
    pub max_args: u16,
    /// Whether the result depends only on the arguments, so that calls with
    /// constant arguments may be folded by the compiler.
    pub pure: bool,
    /// The implementation.
    pub function: Function,
    /// How a call evaluates its arguments, where HTCondor's function does
    /// more than evaluate them all in order ([`Arguments::EAGER`] for the
    /// rest).
    pub arguments: Arguments,
}

impl Builtin {
    /// This function with its arguments evaluated as `arguments` says.
    pub const fn with_arguments(mut self, arguments: Arguments) -> Builtin {
        self.arguments = arguments;
        self
    }
}

/// How a call of a function evaluates its arguments: what the compiler
/// reads to lay out the call. HTCondor's functions evaluate their
/// arguments themselves, and a few stop before the later ones once one
/// decides their answer, or ignore whether an argument's evaluation failed
/// (at the depth limit, say); such a function declares it here, so that
/// the arguments it never evaluates in HTCondor are not evaluated, and
/// their failures do not fail the call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arguments {
    /// Whether the function reads whether each argument's evaluation failed
    /// ([`CallContext::argument_failed`]) or forgets the failures of some
    /// ([`CallContext::keep_failures_of`], [`CallContext::stop_at`]): the
    /// VM then notes the failures as the arguments are evaluated (any
    /// `stops` note them too). Without it those calls see no failure and
    /// forget none.
    ///
    /// [`CallContext::argument_failed`]: crate::CallContext::argument_failed
    /// [`CallContext::keep_failures_of`]: crate::CallContext::keep_failures_of
    /// [`CallContext::stop_at`]: crate::CallContext::stop_at
    pub notes_failures: bool,
    /// After which arguments, at which values, the function stops without
    /// evaluating the later ones.
    pub stops: Stops,
    /// Whether the arguments are evaluated one level deeper than the call,
    /// as an operation's operands are (HTCondor's `strcat` and `join`).
    pub one_level_deeper: bool,
    /// HTCondor's `join` of one or two arguments: it evaluates the last
    /// argument first, to see whether it is a list, forgetting whether that
    /// evaluation failed, and when it is not a list (or failed) evaluates
    /// every argument again, in order, the last a second time. A call of at
    /// most two arguments whose last is not a literal runs this function
    /// instead, its arguments unevaluated, so that the evaluations, their
    /// cost and their failures are HTCondor's (a recursion through the last
    /// argument doubles at every level); a literal's evaluation costs
    /// nothing and cannot fail, so those calls keep the eager layout.
    pub probes_last: Option<LazyFn>,
}

impl Arguments {
    /// Every argument evaluated, in order, at the call's own level: most
    /// functions.
    pub const EAGER: Arguments = Arguments {
        notes_failures: false,
        stops: Stops::Never,
        one_level_deeper: false,
        probes_last: None,
    };

    /// Whether the VM notes the failures of the arguments of a call.
    pub fn noted(&self) -> bool {
        self.notes_failures || self.stops != Stops::Never
    }
}

/// After which arguments a function stops, where the value alone says so;
/// never after the last (there is nothing left to skip).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stops {
    /// Every argument is evaluated.
    #[default]
    Never,
    /// After any argument that passes the test, when the call has at least
    /// `min_args` arguments (`strcat`; `join` of items, not of a list).
    Each {
        /// The test.
        test: StopTest,
        /// Fewest arguments for the test to apply.
        min_args: u16,
    },
    /// After argument `i` that passes test `i` of the list (`formatTime`'s
    /// first, `anyCompare`'s first two).
    Leading(&'static [StopTest]),
}

impl Stops {
    /// The test after argument `i` of a call with `argc` arguments.
    pub fn after(&self, i: usize, argc: usize) -> Option<StopTest> {
        if i + 1 >= argc {
            return None;
        }
        match *self {
            Stops::Never => None,
            Stops::Each { test, min_args } => (argc >= usize::from(min_args)).then_some(test),
            Stops::Leading(tests) => tests.get(i).copied(),
        }
    }
}

/// Which argument values end a function before its later arguments are
/// evaluated. A test that says no where the function stops only costs the
/// evaluation of arguments the function never reads; one that says yes
/// where it goes on changes its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StopTest {
    /// UNDEFINED, ERROR or a failed evaluation (`strcat`).
    Exceptional = 0,
    /// ERROR or a failed evaluation (`join` without a list).
    Error = 1,
    /// Anything `formatTime` does not read as a time (its first argument).
    NotTime = 2,
    /// Not one of the operators `anyCompare`/`allCompare` know (the
    /// exact strings `< <= == != > >= is isnt`).
    NotOperator = 3,
    /// Not a list (`anyCompare`'s list).
    NotList = 4,
    /// Neither a string nor UNDEFINED (`mergeEnvironment`).
    NotEnvironment = 5,
}

impl StopTest {
    const ALL: [StopTest; 6] = [
        StopTest::Exceptional,
        StopTest::Error,
        StopTest::NotTime,
        StopTest::NotOperator,
        StopTest::NotList,
        StopTest::NotEnvironment,
    ];

    /// The test's name, as the disassembly shows it.
    pub fn name(self) -> &'static str {
        match self {
            StopTest::Exceptional => "exceptional",
            StopTest::Error => "error",
            StopTest::NotTime => "not_time",
            StopTest::NotOperator => "not_operator",
            StopTest::NotList => "not_list",
            StopTest::NotEnvironment => "not_environment",
        }
    }

    /// The test of a code `self as u8` gave.
    pub fn from_code(code: u8) -> Option<StopTest> {
        StopTest::ALL.get(usize::from(code)).copied()
    }

    /// Whether a function ends at an argument of value `value` (`failed`:
    /// its evaluation failed) before evaluating the rest. The function
    /// itself then stops at that argument.
    #[inline]
    pub fn stops_at(self, value: &Value, failed: bool) -> bool {
        match self {
            StopTest::Exceptional => failed || matches!(value, Value::Undefined | Value::Error),
            StopTest::Error => failed || value.is_error(),
            StopTest::NotTime => !matches!(
                value,
                Value::Int(_) | Value::Real(_) | Value::AbsTime(_) | Value::Ad(_)
            ),
            StopTest::NotOperator => !matches!(value, Value::Str(s)
                if matches!(&**s, b"<" | b"<=" | b"==" | b"!=" | b">" | b">=" | b"is" | b"isnt")),
            StopTest::NotList => !matches!(
                value,
                Value::List(_) | Value::SharedList(_) | Value::LazyList(_)
            ),
            StopTest::NotEnvironment => !matches!(value, Value::Str(_) | Value::Undefined),
        }
    }
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}..{}", self.name, self.min_args, self.max_args)
    }
}

/// Functions by case-folded name.
#[derive(Default, Clone)]
pub struct Registry {
    functions: HashMap<String, Arc<Builtin>>,
}

/// Why a function could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateFunction(pub String);

impl std::fmt::Display for DuplicateFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "function `{}` is already registered", self.0)
    }
}

impl std::error::Error for DuplicateFunction {}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a function; names are unique ignoring case.
    pub fn register(&mut self, builtin: Builtin) -> Result<(), DuplicateFunction> {
        let key = builtin.name.to_ascii_lowercase();
        if self.functions.contains_key(&key) {
            return Err(DuplicateFunction(builtin.name.to_string()));
        }
        self.functions.insert(key, Arc::new(builtin));
        Ok(())
    }

    /// Adds a function, replacing one of the same name.
    pub fn replace(&mut self, builtin: Builtin) {
        self.functions
            .insert(builtin.name.to_ascii_lowercase(), Arc::new(builtin));
    }

    /// The function named `name`, ignoring case.
    pub fn get(&self, name: &str) -> Option<&Arc<Builtin>> {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.functions.get(&name.to_ascii_lowercase())
        } else {
            self.functions.get(name)
        }
    }

    /// Every registered function.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Builtin>> {
        self.functions.values()
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// Whether no function is registered.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_never_follow_the_last_argument() {
        let each = Stops::Each {
            test: StopTest::Error,
            min_args: 3,
        };
        assert_eq!(each.after(0, 2), None);
        assert_eq!(each.after(0, 3), Some(StopTest::Error));
        assert_eq!(each.after(1, 3), Some(StopTest::Error));
        assert_eq!(each.after(2, 3), None);
        let leading = Stops::Leading(&[StopTest::NotOperator, StopTest::NotList]);
        assert_eq!(leading.after(0, 3), Some(StopTest::NotOperator));
        assert_eq!(leading.after(1, 3), Some(StopTest::NotList));
        assert_eq!(leading.after(1, 2), None);
        assert_eq!(leading.after(2, 4), None);
        assert_eq!(Stops::Never.after(0, 5), None);
    }

    #[test]
    fn stop_tests_round_trip_their_codes() {
        for test in StopTest::ALL {
            assert_eq!(StopTest::from_code(test as u8), Some(test));
        }
        assert_eq!(StopTest::from_code(StopTest::ALL.len() as u8), None);
        assert!(!Arguments::default().noted() && !Arguments::EAGER.noted());
    }
}
