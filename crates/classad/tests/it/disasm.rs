//! The bytecode of each construct, one small snapshot each (insta), so a
//! change in code generation shows up as a reviewed diff.

fn disasm(source: &str) -> String {
    let expr = classad::syntax::parse_expression(source).expect("test expression parses");
    let program = classad::compile(&expr).expect("test expression compiles");
    format!("{source}\n---\n{}", program.disassemble_all())
}

macro_rules! disasm_snapshot {
    ($name:ident, $source:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(disasm($source));
        }
    };
}

disasm_snapshot!(literal, "42");
disasm_snapshot!(constant_folding, "15 * 60 + 1");
disasm_snapshot!(attribute, "Memory");
disasm_snapshot!(my_and_target, "MY.RequestMemory <= TARGET.Memory");
disasm_snapshot!(root_attribute, ".Owner");
disasm_snapshot!(selection, "Job.Owner");
disasm_snapshot!(subscript, "Slots[2]");
disasm_snapshot!(unary, "-LoadAvg");
disasm_snapshot!(binary, "Memory * 1024");
disasm_snapshot!(logical_and, "Arch == \"X86_64\" && Memory > 1024");
disasm_snapshot!(logical_or, "a || b");
disasm_snapshot!(constant_short_circuit, "false && Memory");
disasm_snapshot!(conditional, "Cpus > 1 ? Cpus : 1");
disasm_snapshot!(elvis, "RequestDisk ?: 1024");
disasm_snapshot!(if_then_else, "ifThenElse(x, 1, 2)");
disasm_snapshot!(list, "{ a, 2 }");
disasm_snapshot!(constant_list, "{ 1, \"two\", 3.0 }");
disasm_snapshot!(nested_ad, "[ a = 1; b = a + 1 ].b");
disasm_snapshot!(call, "strcat(Owner, \"@\", UidDomain)");
disasm_snapshot!(call_stopping_early, "anyCompare(\"<\", Slots, Cpus)");
disasm_snapshot!(unknown_function, "noSuchFunction(1)");
disasm_snapshot!(rel_time_literal, "relTime(\"1:00\")");
disasm_snapshot!(paren, "(a + b) * c");
