//! The bytecode: a readable instruction enum for the compiler and the
//! disassembler, a compact fixed-width encoding that the VM runs, and the
//! verifier that checks a program once before it runs.
//!
//! Every encoded instruction is 8 bytes: an opcode byte, an auxiliary byte
//! (the operator of `Unary`/`Binary`), a 16-bit count (arguments of a
//! call) and a 32-bit operand (a pool index or a jump target). Jumps only
//! go forward, so every program terminates.

use crate::ad::{AdBody, Symbol};
use crate::registry::{Builtin, LazyArg, StopTest};
use crate::value::Value;
use classad_syntax::{BinaryOp, UnaryOp};
use std::fmt::Write;
use std::sync::Arc;

/// One instruction, in readable form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instr {
    /// Push `constants[i]`.
    Const(u32),
    /// Push the value of the unscoped attribute `names[i]`: the scope chain,
    /// then the special names, then (old-ClassAd compatibility) TARGET.
    LoadAttr(u32),
    /// Push the attribute `names[name]` of the ad being evaluated, which the
    /// compiler found in `slot` of that ad's layout (checked at run time;
    /// a mismatch falls back to `LoadAttr`).
    LoadOwn {
        /// Index into the name pool.
        name: u32,
        /// The attribute's slot in the ad.
        slot: u16,
    },
    /// Push `.name`: the attribute of the root ad.
    LoadRoot(u32),
    /// Push `MY.name`.
    LoadMy(u32),
    /// Push `TARGET.name`.
    LoadTarget(u32),
    /// Before the base of a selection (`base.name`): at the depth limit
    /// push ERROR and jump to the target, past the `Select` (HTCondor does
    /// not evaluate the base there, and the selection is an ERROR value,
    /// not a failed evaluation); else push a mark of the failures so far,
    /// so that `Select` knows whether its base failed.
    EnterBase(u32),
    /// Pop a value and the mark `EnterBase` pushed, push the value's
    /// attribute `names[i]` (projected over lists).
    Select(u32),
    /// Pop an index and a base, push `base[index]`.
    Subscript,
    /// Pop one value, push the operator applied to it.
    Unary(UnaryOp),
    /// Pop two values, push the operator applied to them.
    Binary(BinaryOp),
    /// Left side of `&&` on top: if it decides the result (false, error),
    /// replace it by the result and jump to the target; else fall through.
    AndTest(u32),
    /// Pop right and left sides of `&&`, push the result.
    AndCombine,
    /// Left side of `||` on top: if it decides (true, error), jump.
    OrTest(u32),
    /// Pop right and left sides of `||`, push the result.
    OrCombine,
    /// Condition of `?:` on top: if it is not a truth value, replace it by
    /// the result (UNDEFINED or ERROR) and jump to the target.
    CondTest(u32),
    /// Pop a boolean; jump if it is false.
    JumpIfFalse(u32),
    /// Jump.
    Jump(u32),
    /// Left side of elvis `?:` on top: if it is defined, jump keeping it;
    /// else pop it and fall through to the fallback.
    ElvisTest(u32),
    /// Pop `argc` arguments, push `functions[func](args)`.
    Call {
        /// Index into the function pool.
        func: u32,
        /// Number of arguments.
        argc: u16,
        /// Whether the failures of the arguments are noted (`NoteArgs`)
        /// for the function (its `Builtin::arguments`): it may then read
        /// which failed (`CallContext::argument_failed`) and forget the
        /// failures of arguments HTCondor would not have evaluated or
        /// ignores (`CallContext::keep_failures_of`). The call notes the
        /// count of failures after the last argument.
        noted: bool,
    },
    /// Before argument `i` of a noted call (`Call::noted`), where it is the
    /// first or the one before may fail or stop the function: if `stop`
    /// says the value on top, argument `i - 1`, (or whether its evaluation
    /// failed) is one the function stops at, as HTCondor's does before
    /// evaluating the rest, push `remaining` UNDEFINED values in place of
    /// the arguments never evaluated and jump to the call; either way,
    /// note the count of failed evaluations so far, with `remaining`. A
    /// constant argument that cannot fail or stop the function has none
    /// after it: the note before it stands for the boundaries that follow
    /// (`CallContext::argument_failed` finds the last note at or before).
    NoteArgs {
        /// The test of argument `i - 1`, if the function may stop there.
        stop: Option<StopTest>,
        /// The arguments from `i` on.
        remaining: u16,
        /// The call.
        call: u32,
    },
    /// Push `lazy_calls[i]` called with its unevaluated arguments.
    CallLazy(u32),
    /// Push a lazy list of the elements `lists[i]` in the current scope.
    MakeList(u32),
    /// Push a new ad with body `ads[i]` in the current scope.
    MakeAd(u32),
    /// Stop; the value on top is the result.
    Return,
}

/// The compact form of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Encoded {
    /// The opcode.
    pub op: u8,
    /// The operator for `Unary`/`Binary`.
    pub aux: u8,
    /// The argument count for `Call`.
    pub count: u16,
    /// Pool index or jump target.
    pub arg: u32,
}

/// Opcodes of the compact encoding.
pub mod opcode {
    #![allow(missing_docs)]
    pub const CONST: u8 = 0;
    pub const LOAD_ATTR: u8 = 1;
    pub const LOAD_ROOT: u8 = 2;
    pub const LOAD_MY: u8 = 3;
    pub const LOAD_TARGET: u8 = 4;
    pub const SELECT: u8 = 5;
    pub const SUBSCRIPT: u8 = 6;
    pub const UNARY: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const AND_TEST: u8 = 9;
    pub const AND_COMBINE: u8 = 10;
    pub const OR_TEST: u8 = 11;
    pub const OR_COMBINE: u8 = 12;
    pub const COND_TEST: u8 = 13;
    pub const JUMP_IF_FALSE: u8 = 14;
    pub const JUMP: u8 = 15;
    pub const ELVIS_TEST: u8 = 16;
    pub const CALL: u8 = 17;
    pub const MAKE_LIST: u8 = 18;
    pub const MAKE_AD: u8 = 19;
    pub const RETURN: u8 = 20;
    pub const CALL_LAZY: u8 = 21;
    pub const LOAD_OWN: u8 = 22;
    pub const ENTER_BASE: u8 = 23;
    /// `NoteArgs`: its `StopTest` in `aux` (`NO_STOP` for none), the
    /// remaining arguments in `count`, the call in `arg`.
    pub const NOTE_ARGS: u8 = 24;
    /// `Call` with `noted` (its level in `aux`, as `CALL`'s).
    pub const CALL_NOTED: u8 = 25;
    /// The `aux` of a `NOTE_ARGS` without a test.
    pub const NO_STOP: u8 = u8::MAX;
}

const UNARY_OPS: [UnaryOp; 4] = [UnaryOp::Minus, UnaryOp::Plus, UnaryOp::Not, UnaryOp::BitNot];

impl Instr {
    /// The compact form.
    pub fn encode(self) -> Encoded {
        use opcode::*;
        let plain = |op, arg| Encoded {
            op,
            aux: 0,
            count: 0,
            arg,
        };
        match self {
            Instr::Const(i) => plain(CONST, i),
            Instr::LoadAttr(i) => plain(LOAD_ATTR, i),
            Instr::LoadRoot(i) => plain(LOAD_ROOT, i),
            Instr::LoadOwn { name, slot } => Encoded {
                count: slot,
                ..plain(LOAD_OWN, name)
            },
            Instr::LoadMy(i) => plain(LOAD_MY, i),
            Instr::LoadTarget(i) => plain(LOAD_TARGET, i),
            Instr::EnterBase(t) => plain(ENTER_BASE, t),
            Instr::Select(i) => plain(SELECT, i),
            Instr::Subscript => plain(SUBSCRIPT, 0),
            Instr::Unary(op) => Encoded {
                aux: UNARY_OPS.iter().position(|o| *o == op).unwrap_or(0) as u8,
                ..plain(UNARY, 0)
            },
            Instr::Binary(op) => Encoded {
                aux: BinaryOp::ALL.iter().position(|o| *o == op).unwrap_or(0) as u8,
                ..plain(BINARY, 0)
            },
            Instr::AndTest(t) => plain(AND_TEST, t),
            Instr::AndCombine => plain(AND_COMBINE, 0),
            Instr::OrTest(t) => plain(OR_TEST, t),
            Instr::OrCombine => plain(OR_COMBINE, 0),
            Instr::CondTest(t) => plain(COND_TEST, t),
            Instr::JumpIfFalse(t) => plain(JUMP_IF_FALSE, t),
            Instr::Jump(t) => plain(JUMP, t),
            Instr::ElvisTest(t) => plain(ELVIS_TEST, t),
            Instr::Call { func, argc, noted } => Encoded {
                count: argc,
                ..plain(if noted { CALL_NOTED } else { CALL }, func)
            },
            Instr::NoteArgs {
                stop,
                remaining,
                call,
            } => Encoded {
                aux: stop.map_or(NO_STOP, |test| test as u8),
                count: remaining,
                ..plain(NOTE_ARGS, call)
            },
            Instr::CallLazy(i) => plain(CALL_LAZY, i),
            Instr::MakeList(n) => plain(MAKE_LIST, n),
            Instr::MakeAd(i) => plain(MAKE_AD, i),
            Instr::Return => plain(RETURN, 0),
        }
    }

    /// The readable form of an encoded instruction, if it is valid.
    pub fn decode(e: Encoded) -> Option<Instr> {
        use opcode::*;
        Some(match e.op {
            CONST => Instr::Const(e.arg),
            LOAD_ATTR => Instr::LoadAttr(e.arg),
            LOAD_ROOT => Instr::LoadRoot(e.arg),
            LOAD_OWN => Instr::LoadOwn {
                name: e.arg & PACKED_MASK,
                slot: e.count,
            },
            LOAD_MY => Instr::LoadMy(e.arg),
            LOAD_TARGET => Instr::LoadTarget(e.arg),
            ENTER_BASE => Instr::EnterBase(e.arg),
            SELECT => Instr::Select(e.arg),
            SUBSCRIPT => Instr::Subscript,
            UNARY => Instr::Unary(*UNARY_OPS.get(e.aux as usize)?),
            BINARY => Instr::Binary(*BinaryOp::ALL.get(e.aux as usize)?),
            AND_TEST => Instr::AndTest(e.arg),
            AND_COMBINE => Instr::AndCombine,
            OR_TEST => Instr::OrTest(e.arg),
            OR_COMBINE => Instr::OrCombine,
            COND_TEST => Instr::CondTest(e.arg),
            JUMP_IF_FALSE => Instr::JumpIfFalse(e.arg),
            JUMP => Instr::Jump(e.arg),
            ELVIS_TEST => Instr::ElvisTest(e.arg),
            CALL | CALL_NOTED => Instr::Call {
                func: e.arg & PACKED_MASK,
                argc: e.count,
                noted: e.op == CALL_NOTED,
            },
            NOTE_ARGS => Instr::NoteArgs {
                stop: match e.aux {
                    NO_STOP => None,
                    code => Some(StopTest::from_code(code)?),
                },
                remaining: e.count,
                call: e.arg,
            },
            CALL_LAZY => Instr::CallLazy(e.arg),
            MAKE_LIST => Instr::MakeList(e.arg),
            MAKE_AD => Instr::MakeAd(e.arg),
            RETURN => Instr::Return,
            _ => return None,
        })
    }
}

/// A compiled expression: code and its pools. Immutable and shareable
/// across threads once built; build it with [`Program::new`], which
/// verifies it.
pub struct Program {
    pub(crate) code: Box<[Encoded]>,
    pub(crate) constants: Box<[Value]>,
    pub(crate) names: Box<[Symbol]>,
    pub(crate) functions: Box<[Arc<Builtin>]>,
    pub(crate) ads: Box<[Arc<AdBody>]>,
    pub(crate) lazy_calls: Box<[LazyCall]>,
    pub(crate) lists: Box<[Arc<[LazyArg]>]>,
    pub(crate) max_stack: u32,
}

/// A call of a lazy function with its unevaluated arguments.
pub struct LazyCall {
    /// The function.
    pub function: Arc<Builtin>,
    /// Its arguments.
    pub args: Box<[LazyArg]>,
}

/// Why a program was refused by the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Index of the offending instruction.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid bytecode at {}: {}", self.at, self.message)
    }
}

impl std::error::Error for VerifyError {}

/// The pools of a program under construction.
#[derive(Default)]
pub struct Pools {
    /// Constant values.
    pub constants: Vec<Value>,
    /// Attribute names.
    pub names: Vec<Symbol>,
    /// Functions called.
    pub functions: Vec<Arc<Builtin>>,
    /// Bodies of ad literals.
    pub ads: Vec<Arc<AdBody>>,
    /// Calls of lazy functions.
    pub lazy_calls: Vec<LazyCall>,
    /// Elements of list literals.
    pub lists: Vec<Arc<[LazyArg]>>,
}

impl Program {
    /// Verifies and encodes `code`: every jump goes forward and lands inside
    /// the program, every pool index exists, the stack never underflows, the
    /// branches agree on stack depth, and the program ends in `Return` with
    /// exactly one value.
    pub fn new(code: &[Instr], pools: Pools) -> Result<Program, VerifyError> {
        Program::with_levels(code, &[], pools)
    }

    /// [`Program::new`] with the level of each instruction: how many
    /// operations (and selection bases) enclose it in the expression, each
    /// of which HTCondor's evaluation counts as one level of depth. The VM
    /// adds it to the depth the program runs at where depth matters
    /// (attribute references, selections, subscripts, calls); for a
    /// constant it is the level at which the folded operations it came from
    /// would have failed (0: never). Missing levels are 0.
    pub fn with_levels(
        code: &[Instr],
        levels: &[u16],
        pools: Pools,
    ) -> Result<Program, VerifyError> {
        let max_stack = verify(code, &pools)?;
        Ok(Program {
            code: code
                .iter()
                .enumerate()
                .map(|(pc, i)| with_level(i.encode(), levels.get(pc).copied().unwrap_or(0)))
                .collect(),
            constants: pools.constants.into(),
            names: pools.names.into(),
            functions: pools.functions.into(),
            ads: pools.ads.into(),
            lazy_calls: pools.lazy_calls.into(),
            lists: pools.lists.into(),
            max_stack,
        })
    }

    /// This program with `extra` HTCondor nodes counted at the instructions
    /// given (`(pc, nodes)`). HTCondor's step budget counts one step per
    /// node it evaluates, when it starts evaluating it; the VM counts the
    /// same (`Limits::max_steps`): one step an instruction that starts an
    /// expression (a constant, a reference, `EnterBase` for a selection,
    /// a call without arguments or of unevaluated ones, a list or ad
    /// literal; two for `MY.name` and `TARGET.name`), none for the others
    /// (`Return`, `Select`, operators, tests and jumps, calls of evaluated
    /// arguments, `NoteArgs`), whose node is counted here, with the
    /// parentheses (no instruction) and the operations folded into a
    /// constant, at the first instruction of the operation's code, where
    /// HTCondor starts it. A `NoteArgs` hands its count on to the next
    /// instruction. Counts are kept to 255 an instruction.
    pub fn with_nodes(mut self, extra: &[(usize, u32)]) -> Program {
        for &(pc, nodes) in extra {
            let mut pc = pc;
            while self.code.get(pc).is_some_and(|e| e.op == opcode::NOTE_ARGS) {
                pc += 1;
            }
            let Some(e) = self.code.get_mut(pc) else {
                continue;
            };
            match e.op {
                // The compiler keeps these pool indexes below 2^24.
                opcode::LOAD_OWN | opcode::CALL | opcode::CALL_NOTED
                    if e.op == opcode::LOAD_OWN || e.count == 0 =>
                {
                    let packed = packed_nodes(*e).saturating_add(nodes).min(255);
                    e.arg = (e.arg & PACKED_MASK) | (packed << PACKED_SHIFT);
                }
                op if carries_nodes(op) => {
                    e.aux = (u32::from(e.aux).saturating_add(nodes)).min(255) as u8;
                }
                _ => {}
            }
        }
        self
    }

    /// The program of a single constant, as the compiler makes it for a
    /// literal (valid by construction: nothing to verify).
    pub fn constant(value: Value) -> Program {
        Program {
            code: Box::new([Instr::Const(0).encode(), Instr::Return.encode()]),
            constants: Box::new([value]),
            names: Box::new([]),
            functions: Box::new([]),
            ads: Box::new([]),
            lazy_calls: Box::new([]),
            lists: Box::new([]),
            max_stack: 1,
        }
    }

    /// The instructions in readable form.
    pub fn instructions(&self) -> Vec<Instr> {
        self.code
            .iter()
            .map(|e| Instr::decode(*e).unwrap_or(Instr::Return))
            .collect()
    }

    /// The most values the program keeps on the stack at once.
    pub fn max_stack(&self) -> u32 {
        self.max_stack
    }

    /// The constant pool.
    pub fn constants(&self) -> &[Value] {
        &self.constants
    }

    /// If the program is a single constant that cannot fail (not folded
    /// from operations, which fail at the depth limit), that constant.
    pub fn as_constant(&self) -> Option<&Value> {
        match *self.code {
            [
                Encoded {
                    op: opcode::CONST,
                    arg,
                    count: 0,
                    ..
                },
                Encoded {
                    op: opcode::RETURN, ..
                },
            ] => self.constants.get(arg as usize),
            _ => None,
        }
    }

    /// A listing of this program followed by the programs of the ad
    /// literals it builds, each attribute under its name.
    pub fn disassemble_all(&self) -> String {
        let mut out = self.disassemble();
        for (i, call) in self.lazy_calls.iter().enumerate() {
            for (n, arg) in call.args.iter().enumerate() {
                let _ = writeln!(out, "lazy call #{i} argument {n}:");
                for line in arg.program.disassemble_all().lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        for (i, list) in self.lists.iter().enumerate() {
            for (n, item) in list.iter().enumerate() {
                let _ = writeln!(out, "list #{i} element {n}:");
                for line in item.program.disassemble_all().lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        for (i, body) in self.ads.iter().enumerate() {
            for attribute in body.attributes() {
                let _ = writeln!(out, "ad #{i} attribute {}:", attribute.name);
                for line in attribute.program.disassemble_all().lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out
    }

    /// A listing: one instruction a line, with pool entries spelled out.
    pub fn disassemble(&self) -> String {
        let mut out = String::new();
        for (pc, instr) in self.instructions().into_iter().enumerate() {
            let _ = write!(out, "{pc:4}  ");
            let name = |i: u32| {
                self.names
                    .get(i as usize)
                    .map_or("?".into(), |s| String::from_utf8_lossy(s.as_bytes()))
                    .into_owned()
            };
            let _ = match instr {
                Instr::Const(i) => writeln!(
                    out,
                    "const        {}",
                    self.constants
                        .get(i as usize)
                        .map_or("?".into(), crate::print::value_to_string)
                ),
                Instr::LoadAttr(i) => writeln!(out, "load_attr    {}", name(i)),
                Instr::LoadRoot(i) => writeln!(out, "load_root    {}", name(i)),
                Instr::LoadOwn { name: i, slot } => {
                    writeln!(out, "load_own     {} (slot {slot})", name(i))
                }
                Instr::LoadMy(i) => writeln!(out, "load_my      {}", name(i)),
                Instr::LoadTarget(i) => writeln!(out, "load_target  {}", name(i)),
                Instr::EnterBase(t) => writeln!(out, "enter_base   -> {t}"),
                Instr::Select(i) => writeln!(out, "select       {}", name(i)),
                Instr::Subscript => writeln!(out, "subscript"),
                Instr::Unary(op) => writeln!(out, "unary        {}", op.symbol()),
                Instr::Binary(op) => writeln!(out, "binary       {}", op.symbol()),
                Instr::AndTest(t) => writeln!(out, "and_test     -> {t}"),
                Instr::AndCombine => writeln!(out, "and_combine"),
                Instr::OrTest(t) => writeln!(out, "or_test      -> {t}"),
                Instr::OrCombine => writeln!(out, "or_combine"),
                Instr::CondTest(t) => writeln!(out, "cond_test    -> {t}"),
                Instr::JumpIfFalse(t) => writeln!(out, "jump_false   -> {t}"),
                Instr::Jump(t) => writeln!(out, "jump         -> {t}"),
                Instr::ElvisTest(t) => writeln!(out, "elvis_test   -> {t}"),
                Instr::Call { func, argc, noted } => writeln!(
                    out,
                    "call{}   {}/{argc}",
                    if noted { "_noted" } else { "      " },
                    self.functions.get(func as usize).map_or("?", |f| f.name)
                ),
                Instr::NoteArgs {
                    stop,
                    remaining,
                    call,
                } => match stop {
                    Some(test) => writeln!(
                        out,
                        "note_args    {remaining} left, stop if {} -> {call}",
                        test.name()
                    ),
                    None => writeln!(out, "note_args    {remaining} left"),
                },
                Instr::CallLazy(i) => writeln!(
                    out,
                    "call_lazy    {}/{}",
                    self.lazy_calls
                        .get(i as usize)
                        .map_or("?", |c| c.function.name),
                    self.lazy_calls.get(i as usize).map_or(0, |c| c.args.len())
                ),
                Instr::MakeList(i) => writeln!(
                    out,
                    "make_list    #{i} ({} elements)",
                    self.lists.get(i as usize).map_or(0, |l| l.len())
                ),
                Instr::MakeAd(i) => writeln!(
                    out,
                    "make_ad      #{i} ({} attributes)",
                    self.ads.get(i as usize).map_or(0, |a| a.len())
                ),
                Instr::Return => writeln!(out, "return"),
            };
        }
        out
    }
}

/// `e` with its level where the instruction has room for it: the
/// auxiliary byte of a slot load or a call (at most 255), else the count.
fn with_level(mut e: Encoded, level: u16) -> Encoded {
    match e.op {
        opcode::LOAD_OWN | opcode::CALL | opcode::CALL_NOTED => e.aux = level.min(255) as u8,
        // Never fails: its count is the arguments left.
        opcode::NOTE_ARGS => {}
        _ => e.count = level,
    }
    e
}

/// Whether an instruction of opcode `op` counts in its auxiliary byte the
/// HTCondor nodes [`Program::with_nodes`] gives it.
fn carries_nodes(op: u8) -> bool {
    use opcode::*;
    matches!(
        op,
        CONST
            | LOAD_ATTR
            | LOAD_ROOT
            | LOAD_MY
            | LOAD_TARGET
            | ENTER_BASE
            | CALL_LAZY
            | MAKE_LIST
            | MAKE_AD
    )
}

/// Where a slot load and a call without arguments keep the nodes
/// [`Program::with_nodes`] gives them: the top byte of their operand,
/// whose pool index has the 24 bits below (the compiler loads a name of a
/// larger index by name).
pub const PACKED_SHIFT: u32 = 24;
/// The pool index of a slot load's or a call's operand.
pub const PACKED_MASK: u32 = (1 << PACKED_SHIFT) - 1;

/// The nodes a slot load or a call without arguments counts.
#[inline]
pub fn packed_nodes(e: Encoded) -> u32 {
    e.arg >> PACKED_SHIFT
}

/// The level [`Program::with_levels`] gave an encoded instruction.
#[inline]
pub fn level(e: Encoded) -> u32 {
    match e.op {
        opcode::LOAD_OWN | opcode::CALL | opcode::CALL_NOTED => u32::from(e.aux),
        opcode::NOTE_ARGS => 0,
        _ => u32::from(e.count),
    }
}

/// Checks a program; returns its maximum stack depth.
fn verify(code: &[Instr], pools: &Pools) -> Result<u32, VerifyError> {
    let fail = |at: usize, message: String| Err(VerifyError { at, message });
    if code.last() != Some(&Instr::Return) {
        return fail(code.len(), "program does not end in `return`".into());
    }
    // Depth on entry to each instruction, once known (jumps are forward only).
    let mut entry: Vec<Option<u32>> = vec![None; code.len()];
    entry[0] = Some(0);
    let mut max = 0u32;
    for (pc, instr) in code.iter().enumerate() {
        let Some(depth) = entry[pc] else {
            return fail(pc, "unreachable instruction".into());
        };
        let check_pool = |index: u32, len: usize, pool: &str| {
            if (index as usize) < len {
                Ok(())
            } else {
                Err(VerifyError {
                    at: pc,
                    message: format!("{pool} index {index} out of range ({len} entries)"),
                })
            }
        };
        // (values popped, values pushed on fall-through, jump target and depth there)
        let (pops, pushes, jump): (u32, u32, Option<(u32, u32)>) = match *instr {
            Instr::Const(i) => {
                check_pool(i, pools.constants.len(), "constant")?;
                (0, 1, None)
            }
            Instr::LoadAttr(i)
            | Instr::LoadRoot(i)
            | Instr::LoadMy(i)
            | Instr::LoadTarget(i)
            | Instr::LoadOwn { name: i, .. } => {
                check_pool(i, pools.names.len(), "name")?;
                (0, 1, None)
            }
            // The mark on fall-through; ERROR at the target.
            Instr::EnterBase(t) => (0, 1, Some((t, depth + 1))),
            Instr::Select(i) => {
                check_pool(i, pools.names.len(), "name")?;
                (2, 1, None)
            }
            Instr::Subscript | Instr::Binary(_) | Instr::AndCombine | Instr::OrCombine => {
                (2, 1, None)
            }
            Instr::Unary(_) => (1, 1, None),
            Instr::AndTest(t) | Instr::OrTest(t) | Instr::CondTest(t) => (1, 1, Some((t, depth))),
            Instr::ElvisTest(t) => (1, 0, Some((t, depth))),
            Instr::JumpIfFalse(t) => (1, 0, Some((t, depth.saturating_sub(1)))),
            Instr::Jump(t) => (0, 0, Some((t, depth))),
            Instr::Call { func, argc, .. } => {
                check_pool(func, pools.functions.len(), "function")?;
                (u32::from(argc), 1, None)
            }
            // The stop pads the arguments left: as many values at the
            // call on either path.
            Instr::NoteArgs {
                remaining, call, ..
            } => (0, 0, Some((call, depth + u32::from(remaining)))),
            Instr::CallLazy(i) => {
                check_pool(i, pools.lazy_calls.len(), "lazy call")?;
                (0, 1, None)
            }
            Instr::MakeList(i) => {
                check_pool(i, pools.lists.len(), "list")?;
                (0, 1, None)
            }
            Instr::MakeAd(i) => {
                check_pool(i, pools.ads.len(), "ad")?;
                (0, 1, None)
            }
            Instr::Return => (1, 0, None),
        };
        if depth < pops {
            return fail(pc, format!("stack underflow: needs {pops}, has {depth}"));
        }
        let after = depth - pops + pushes;
        max = max.max(after).max(depth);
        if let Some((target, at_target)) = jump {
            let target = target as usize;
            if target <= pc || target >= code.len() {
                return fail(
                    pc,
                    format!("jump target {target} is not forward inside the program"),
                );
            }
            match entry[target] {
                Some(d) if d != at_target => {
                    return fail(
                        pc,
                        format!(
                            "stack depth {at_target} at jump target {target}, {d} on another path"
                        ),
                    );
                }
                _ => entry[target] = Some(at_target),
            }
        }
        match instr {
            Instr::Return => {
                if depth != 1 {
                    return fail(pc, format!("`return` with {depth} values on the stack"));
                }
            }
            Instr::Jump(_) => {}
            _ => {
                if pc + 1 < code.len() {
                    match entry[pc + 1] {
                        Some(d) if d != after => {
                            return fail(
                                pc + 1,
                                format!("stack depth {after} falling through, {d} by a jump"),
                            );
                        }
                        _ => entry[pc + 1] = Some(after),
                    }
                }
            }
        }
    }
    Ok(max)
}
