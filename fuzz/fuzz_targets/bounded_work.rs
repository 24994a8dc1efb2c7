//! Work bounded by the input: parsing any text takes at most
//! `WORK_PER_BYTE` grammar rule calls per byte (a tighter bound than the
//! parser's default safety net; exceeding it means a super-linear path in
//! the grammar), and evaluating what parses is cut off by a step and
//! memory budget proportional to the input. Work that escapes those
//! budgets (a builtin that does not charge for what it scans) shows as a
//! libFuzzer timeout: run with a small `-timeout`.
#![no_main]
use classad::syntax::{ParseOptions, Parser};
use classad::vm::{Limits, Options, Vm};
use libfuzzer_sys::fuzz_target;

/// Grammar rule calls allowed per byte of input.
const WORK_PER_BYTE: usize = 200;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parser = Parser::new(ParseOptions {
        work_per_byte: WORK_PER_BYTE,
        ..ParseOptions::default()
    });
    let too_complex = |e: &classad::ParseError| e.message.contains("too complex");
    let expr = parser.parse_expression(text);
    if let Err(e) = &expr {
        assert!(
            !too_complex(e),
            "parse_expression exceeded {WORK_PER_BYTE} calls/byte: {}",
            e.message
        );
    }
    if let Err(e) = parser.parse_ad(text) {
        assert!(
            !too_complex(&e),
            "parse_ad exceeded {WORK_PER_BYTE} calls/byte: {}",
            e.message
        );
    }
    if let Err(e) = parser.parse_old_line(text) {
        assert!(
            !too_complex(&e),
            "parse_old_line exceeded {WORK_PER_BYTE} calls/byte: {}",
            e.message
        );
    }
    let Ok(expr) = expr else { return };
    let Ok(program) = classad::compile(&expr) else {
        return;
    };
    let len = text.len() as u64;
    let mut vm = Vm::new(Options {
        limits: Limits {
            max_steps: 10_000 + 1_000 * len,
            max_memory: (1 << 20) + 4_096 * len,
            ..Limits::default()
        },
        ..Options::default()
    });
    let _ = vm.evaluate(&program, &classad::empty_ad());
});
