//! Whatever parses evaluates without panicking, within the VM's depth and
//! step budgets, alone and as both sides of a match.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(expr) = classad::syntax::parse_expression(text) else {
        return;
    };
    let Ok(program) = classad::compile(&expr) else {
        return;
    };
    let mut vm = classad::Vm::default();
    let ad = classad::empty_ad();
    let _ = vm.evaluate(&program, &ad);
    if let Ok(classad::Value::Ad(other)) = classad::evaluate_str(text) {
        let _ = vm.evaluate_in_match(&program, &ad, &other);
        let _ = vm.symmetric_match(&other, &ad);
    }
});
