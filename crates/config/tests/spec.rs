//! Every rule and example of the configuration chapter of the spec
//! (`../shared/spec/001_*.txt`), with HTCondor 25's answers where they
//! differ from the text (checked against the oracle; see
//! `tests/config/check.py`). Hermetic: files, environment, commands and
//! machine facts come from a `MemoryHost`.

use classad_config::{Config, Facts, MemoryHost, Options, Severity};

fn read(text: &str) -> Config {
    read_with(text, Options::default())
}

fn read_with(text: &str, options: Options) -> Config {
    let host = MemoryHost::new().file("/etc/condor/condor_config", text);
    Config::read_file("/etc/condor/condor_config", &host, options)
}

fn get(config: &Config, name: &str) -> Option<String> {
    config.get(name).expect("expands")
}

fn val(config: &Config, name: &str) -> String {
    get(config, name).unwrap_or_else(|| panic!("{name} is defined"))
}

fn subsystem(name: &str) -> Options {
    Options {
        subsystem: name.to_string(),
        ..Options::default()
    }
}

fn errors(config: &Config) -> Vec<String> {
    config
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

// ---- Configuration File Macros ----

#[test]
fn values_may_be_expressions_of_other_macros() {
    let c = read(
        "MINUTE          = 60\n HOUR            = (60 * $(MINUTE))\n \
         SHUTDOWN_GRACEFUL_TIMEOUT = ($(HOUR)*24)\n",
    );
    assert_eq!(val(&c, "SHUTDOWN_GRACEFUL_TIMEOUT"), "((60 * 60)*24)");
}

#[test]
fn names_are_case_insensitive_and_the_last_definition_wins() {
    let c = read("Color = red\nCOLOR = blue\ncolor=green\nX = $(cOlOr)\n");
    assert_eq!(val(&c, "COLOR"), "green");
    assert_eq!(val(&c, "x"), "green");
    assert_eq!(c.entry("color").unwrap().name, "Color");
}

#[test]
fn substitution_is_done_after_reading() {
    assert_eq!(val(&read("A = xxx\n C = $(A)\n"), "C"), "xxx");
    assert_eq!(val(&read("A = xxx\n C = $(A)\n A = yyy\n"), "C"), "yyy");
}

#[test]
fn self_references_expand_immediately() {
    let c = read("A = xxx\n B = $(A)\n A = $(A)yyy\n A = $(A)zzz\n");
    assert_eq!(val(&c, "A"), "xxxyyyzzz");
    assert_eq!(val(&c, "B"), "xxxyyyzzz");
    // What is stored is the value with the self reference replaced.
    assert_eq!(c.raw("A"), Some("xxxyyyzzz"));
    let c = read("A = $(B)x\nA = $(A)y\nB = b\n");
    assert_eq!(c.raw("A"), Some("$(B)xy"));
    assert_eq!(val(&c, "A"), "bxy");
}

#[test]
fn recursive_definitions_are_an_error_naming_both() {
    let c = read("A = $(B)\n B = $(A)\n C = fine\n");
    let err = c.get("A").unwrap_err().to_string();
    assert!(err.contains("A -> B -> A"), "{err}");
    let err = c.get("B").unwrap_err().to_string();
    assert!(err.contains("B -> A -> B"), "{err}");
    assert_eq!(val(&c, "C"), "fine");
    // Through a function macro as well.
    let c = read("A = $INT(B)\nB = $(A)\n");
    assert!(c.get("A").unwrap_err().to_string().contains("recursive"));
}

#[test]
fn undefined_macros_expand_to_nothing_and_defaults_apply() {
    let c = read(
        "MAX_ALLOC_CPUS = $(NUMCPUS)-1\nB = $(NUMCPUS:4)-1\nC = $(NUMCPUS:$(DETECTED_CPUS))-1\n\
         E =\nF = $(E:used)\nG = $(MAX_ALLOC_CPUS:unused)\n",
    );
    assert_eq!(val(&c, "MAX_ALLOC_CPUS"), "-1");
    assert_eq!(val(&c, "B"), "4-1");
    assert_eq!(val(&c, "C"), format!("{}-1", Facts::default().cores));
    // An empty value takes the default too.
    assert_eq!(val(&c, "F"), "used");
    assert_eq!(val(&c, "G"), "-1");
}

#[test]
fn defaults_allow_spaces_commas_and_parenthesized_text() {
    let c = read("A = $(N:a b)\nB = $(N:a,b)\nC = $(N:(p)q)\nD = $(N:a;b)\n");
    assert_eq!(val(&c, "A"), "a b");
    assert_eq!(val(&c, "B"), "a,b");
    assert_eq!(val(&c, "C"), "(p)q");
    // `;` may not follow the colon: the text is not a macro.
    assert_eq!(val(&c, "D"), "$(N:a;b)");
}

#[test]
fn a_line_starting_with_a_bracket_is_ignored() {
    let c = read("[HTCondorSettings]\n my_classad = [ foo=bar ]\n");
    assert_eq!(val(&c, "my_classad"), "[ foo=bar ]");
    assert!(!c.has_errors());
    // The spec's own example has a space in the brackets; HTCondor 25
    // then looks for an operator and refuses the line.
    let c = read("[HTCondor Settings]\n my_classad = [ foo=bar ]\n");
    assert_eq!(errors(&c).len(), 1);
    assert!(errors(&c)[0].contains(":1:"));
    assert_eq!(val(&c, "my_classad"), "[ foo=bar ]");
}

#[test]
fn names_may_hold_dots_and_slashes_but_nothing_else() {
    let c = read("a.b/c = 1\nX-Y = 2\nZ = 3\n");
    assert_eq!(val(&c, "A.B/C"), "1");
    assert!(errors(&c)[0].contains("Illegal Identifier: <X-Y>"));
    assert_eq!(val(&c, "Z"), "3");
}

#[test]
fn subsystem_prefixes() {
    let text = "  MASTER.LOWPORT   = 20000\n   MASTER.HIGHPORT  = 20100\n";
    let c = read_with(text, subsystem("MASTER"));
    assert_eq!(val(&c, "LOWPORT"), "20000");
    assert_eq!(val(&c, "HIGHPORT"), "20100");
    let c = read_with(text, subsystem("SCHEDD"));
    assert_eq!(get(&c, "LOWPORT"), None);
    let c = read_with("MASTER.MASTER_UPDATE_INTERVAL = 60\n", subsystem("MASTER"));
    assert_eq!(val(&c, "MASTER_UPDATE_INTERVAL"), "60");
}

#[test]
fn macros_use_the_subsystem_value() {
    let text = "FILESPEC = A\n MASTER.FILESPEC = B\n USEFILE = mydir/$(FILESPEC)\n";
    assert_eq!(
        val(&read_with(text, subsystem("MASTER")), "USEFILE"),
        "mydir/B"
    );
    assert_eq!(
        val(&read_with(text, subsystem("STARTD")), "USEFILE"),
        "mydir/A"
    );
    assert_eq!(val(&read(text), "USEFILE"), "mydir/A");
}

#[test]
fn local_name_lookup_order() {
    let all = "SCHEDD.XYZZY.V = 1\nXYZZY.V = 2\nSCHEDD.V = 3\nV = 4\n";
    let opts = |local: Option<&str>| Options {
        subsystem: "SCHEDD".into(),
        local_name: local.map(str::to_string),
        ..Options::default()
    };
    assert_eq!(val(&read_with(all, opts(Some("xyzzy"))), "V"), "1");
    let no1 = "XYZZY.V = 2\nSCHEDD.V = 3\nV = 4\n";
    assert_eq!(val(&read_with(no1, opts(Some("xyzzy"))), "V"), "2");
    let no2 = "SCHEDD.V = 3\nV = 4\n";
    assert_eq!(val(&read_with(no2, opts(Some("xyzzy"))), "V"), "3");
    assert_eq!(val(&read_with("V = 4\n", opts(Some("xyzzy"))), "V"), "4");
    // Without a local name, 1 and 2 are skipped.
    assert_eq!(val(&read_with(all, opts(None)), "V"), "3");
}

#[test]
fn the_spec_xyzzy_schedd() {
    let text = "  XYZZY_LOG       = $(LOG)/SchedLog.xyzzy\n  LOG = /var/log/condor\n  \
                SPOOL = /var/spool\n  SCHEDD.XYZZY.SCHEDD_NAME = XYZZY\n   \
                SCHEDD.XYZZY.SCHEDD_LOG  = $(XYZZY_LOG)\n   SCHEDD.XYZZY.SPOOL       = $(SPOOL).XYZZY\n";
    let c = read_with(
        text,
        Options {
            subsystem: "SCHEDD".into(),
            local_name: Some("XYZZY".into()),
            ..Options::default()
        },
    );
    assert_eq!(val(&c, "SCHEDD_NAME"), "XYZZY");
    assert_eq!(val(&c, "SCHEDD_LOG"), "/var/log/condor/SchedLog.xyzzy");
    assert_eq!(val(&c, "SPOOL"), "/var/spool.XYZZY");
    let plain = read_with(text, subsystem("SCHEDD"));
    assert_eq!(val(&plain, "SPOOL"), "/var/spool");
}

// ---- Comments and line continuations ----

#[test]
fn comments_and_continuations() {
    let c = read(
        "# a comment\n  START = (KeyboardIdle > 15 * $(MINUTE)) && \\\n   ((LoadAvg - CondorLoadAvg) <= 0.3)\n\
         MINUTE = 60\n      ADMIN_MACHINES = condor.cs.wisc.edu, raven.cs.wisc.edu, \\\n       \
         stork.cs.wisc.edu, ostrich.cs.wisc.edu, \\\n       bigbird.cs.wisc.edu\n       \
         HOSTALLOW_ADMINISTRATOR = $(ADMIN_MACHINES)\n",
    );
    assert_eq!(
        val(&c, "START"),
        "(KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)"
    );
    assert_eq!(
        val(&c, "HOSTALLOW_ADMINISTRATOR"),
        "condor.cs.wisc.edu, raven.cs.wisc.edu, stork.cs.wisc.edu, ostrich.cs.wisc.edu, bigbird.cs.wisc.edu"
    );
}

#[test]
fn continuation_before_a_comment_line() {
    // The spec's second example: the comment line is skipped.
    let c = read("B = b\nD = d\nA = $(B) \\\n # $(C) \\\n $(D)\n");
    assert_eq!(c.raw("A"), Some("$(B) $(D)"));
    assert_eq!(val(&c, "A"), "b d");
    // The first example: HTCondor 25 ends the continuation at a comment
    // that does not itself end in `\`, keeping its last character, and
    // refuses the orphaned `$(D)` line.
    let c = read("B = b\nA = $(B) \\\n # $(C)\n $(D)\n");
    assert_eq!(c.raw("A"), Some("$(B) )"));
    assert_eq!(errors(&c).len(), 1);
    // A `\` at the end of a comment line does not continue it.
    let c = read("# comment \\\nX = 1\n");
    assert_eq!(val(&c, "X"), "1");
}

// ---- Multi-line values ----

#[test]
fn multi_line_values() {
    let c = read(
        "JOB_ROUTER_DEFAULTS @=jrd\n   [\n     requirements=target.WantJobRouter is True;\n     \
         MaxIdleJobs = 10;\n     MaxJobs = 200;\n \n     /* now modify routed job attributes */\n     \
         /* remove routed job if it goes on hold or stays idle for over 6 hours */\n     \
         set_PeriodicRemove = JobStatus == 5 ||\n                         \
         (JobStatus == 1 && (time() - QDate) > 3600*6);\n     delete_WantJobRouter = true;\n     \
         set_requirements = true;\n   ]\n   @jrd\n",
    );
    assert_eq!(
        val(&c, "JOB_ROUTER_DEFAULTS"),
        "[\nrequirements=target.WantJobRouter is True;\nMaxIdleJobs = 10;\nMaxJobs = 200;\n\
         /* now modify routed job attributes */\n\
         /* remove routed job if it goes on hold or stays idle for over 6 hours */\n\
         set_PeriodicRemove = JobStatus == 5 ||\n(JobStatus == 1 && (time() - QDate) > 3600*6);\n\
         delete_WantJobRouter = true;\nset_requirements = true;\n]"
    );
    let c = read("X @=end\nnever closed\n");
    assert!(errors(&c)[0].contains("'@end'"));
}

// ---- Executing a program, includes ----

#[test]
fn local_config_file_command_runs_only_when_allowed() {
    let main = "LOCAL_CONFIG_FILE = /bin/make_the_config|\n";
    let host =
        MemoryHost::new()
            .file("/c", main)
            .command("/bin/make_the_config", "MADE = yes\n", 0);
    let c = Config::read_file("/c", &host, Options::default());
    assert_eq!(get(&c, "MADE"), None);
    let e = errors(&c);
    assert!(e[0].contains("-allow-commands"), "{e:?}");
    let allowed = Options {
        allow_commands: true,
        ..Options::default()
    };
    let c = Config::read_file("/c", &host, allowed);
    assert_eq!(val(&c, "MADE"), "yes");
    assert!(!c.has_errors());
}

fn allow() -> Options {
    Options {
        allow_commands: true,
        ..Options::default()
    }
}

#[test]
fn include_forms() {
    let host = MemoryHost::new()
        .file(
            "/c",
            "LOCAL_DIR = /l\nFILE = config.$(FULL_HOSTNAME)\ninclude : $(LOCAL_DIR)/$(FILE)\n\
             include ifexist : /l/missing\n@include : /l/b\nINCLUDE:/l/b\n\
             include : /bin/gen one |\ninclude command : /bin/gen two\n",
        )
        .file("/l/config.testhost.example.org", "A = from host file\n")
        .file("/l/b", "B = $(B)b\n")
        .command("/bin/gen one", "C1 = one\n", 0)
        .command("/bin/gen two", "C2 = two\n", 0);
    let c = Config::read_file("/c", &host, allow());
    assert!(!c.has_errors(), "{:?}", c.diagnostics());
    assert_eq!(val(&c, "A"), "from host file");
    assert_eq!(val(&c, "B"), "bb");
    assert_eq!(val(&c, "C1"), "one");
    assert_eq!(val(&c, "C2"), "two");
    // Without permission, the command includes are errors that say how.
    let c = Config::read_file("/c", &host, Options::default());
    assert_eq!(errors(&c).len(), 2);
    assert!(errors(&c).iter().all(|e| e.contains("allow-commands")));
    assert_eq!(val(&c, "B"), "bb");
}

#[test]
fn include_command_into_a_cache_file() {
    let host = MemoryHost::new()
        .file(
            "/c",
            "LOCAL_DIR = /l\ninclude ifexist command into $(LOCAL_DIR)/stuff.config : perl $(LOCAL_DIR)/stuff.pl\n\
             if ! defined stuff\n  error : stuff is needed!\nendif\n",
        )
        .command("perl /l/stuff.pl", "STUFF=1\n", 0);
    let c = Config::read_file("/c", &host, allow());
    assert!(!c.has_errors(), "{:?}", c.diagnostics());
    assert_eq!(val(&c, "STUFF"), "1");
    assert_eq!(
        host.files.borrow().get("/l/stuff.config").unwrap(),
        b"STUFF=1\n"
    );
    // The cache is read without running the command (even when not allowed).
    let c = Config::read_file("/c", &host, Options::default());
    assert!(!c.has_errors());
    assert_eq!(val(&c, "STUFF"), "1");
    // A failing command: no cache; the error statement fires.
    let host = MemoryHost::new()
        .file("/c", "include ifexist command into /l/s.config : gen\nif ! defined stuff\n  error : stuff is needed!\nendif\n")
        .command("gen", "", 3);
    let c = Config::read_file("/c", &host, allow());
    assert_eq!(errors(&c), vec!["/c:3: error: stuff is needed!"]);
    assert!(host.files.borrow().get("/l/s.config").is_none());
}

#[test]
fn missing_include_is_an_error_with_file_and_line() {
    let host = MemoryHost::new().file("/c", "A = 1\ninclude : /nope\nB = 2\n");
    let c = Config::read_file("/c", &host, Options::default());
    let e = errors(&c);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("/c:2: error: can't open file /nope"),
        "{e:?}"
    );
    assert_eq!(val(&c, "B"), "2");
}

#[test]
fn include_loops_and_depth_are_bounded() {
    let host = MemoryHost::new().file("/c", "include : /c\nA = 1\n");
    let c = Config::read_file("/c", &host, Options::default());
    assert!(errors(&c)[0].contains("include loop: /c -> /c"));
    assert_eq!(val(&c, "A"), "1");
    let mut host = MemoryHost::new();
    for i in 0..30 {
        host = host.file(
            &format!("/f{i}"),
            &format!("include : /f{}\nV{i} = {i}\n", i + 1),
        );
    }
    let c = Config::read_file("/f0", &host, Options::default());
    assert!(errors(&c)[0].contains("nested too deep"));
    assert_eq!(val(&c, "V0"), "0");
    assert_eq!(get(&c, "V25"), None);
}

// ---- Errors and warnings ----

#[test]
fn warning_and_error_statements() {
    let c = read("X = 1\nwarning : look at $(X)\nerror : stop $(X)\nY = 2\n");
    let d = c.diagnostics();
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(d[0].message, "look at 1");
    assert_eq!(d[0].line, 2);
    assert_eq!(d[1].severity, Severity::Error);
    assert_eq!(
        d[1].to_string(),
        "/etc/condor/condor_config:3: error: stop 1"
    );
    assert!(c.has_errors());
    // A bad line never hides the rest of the file.
    assert_eq!(val(&c, "Y"), "2");
}

#[test]
fn every_bad_line_is_reported() {
    let c = read("A = 1\nno operator here\nB = 2\nX-Y = 3\nC = 3\nelse\nD = 4\n");
    let lines: Vec<u32> = c.diagnostics().iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![2, 4, 6]);
    for n in ["A", "B", "C", "D"] {
        assert!(get(&c, n).is_some(), "{n}");
    }
}

// ---- Conditionals ----

#[test]
fn if_defined() {
    let text = "if defined MY_UNDEFINED_VARIABLE\n    X = 12\n else\n    X = -1\n endif\n";
    assert_eq!(val(&read(text), "X"), "-1");
    let c = read(&format!("MY_UNDEFINED_VARIABLE = 1\n{text}"));
    assert_eq!(val(&c, "X"), "12");
    // Defined as empty counts as not defined; numbers and booleans are.
    let c = read(
        "E =\nif defined E\nA = 1\nendif\nif defined 12\nB = 1\nendif\nif defined true\nC = 1\nendif\n",
    );
    assert_eq!(get(&c, "A"), None);
    assert_eq!(val(&c, "B"), "1");
    assert_eq!(val(&c, "C"), "1");
}

#[test]
fn if_version() {
    let c = read(
        "if version >= 8.1.6\n    DO_X = True\n else\n    DO_Y = True\n endif\n\
         if version == 25.14\nEQ = 1\nendif\nif version <= 25.14.0\nLE = 1\nendif\n\
         if version > 25.14.0\nGT = 1\nendif\nif version < 26.0\nLT = 1\nendif\n",
    );
    assert_eq!(val(&c, "DO_X"), "True");
    assert_eq!(get(&c, "DO_Y"), None);
    // 25.14 stands for 25.14.<ours>: equal, as 8.2 equals 8.2.3 in the spec.
    assert_eq!(val(&c, "EQ"), "1");
    assert_eq!(get(&c, "LE"), None);
    assert_eq!(val(&c, "GT"), "1");
    assert_eq!(val(&c, "LT"), "1");
    let c = read("if version >= 8\nA = 1\nendif\n");
    assert!(errors(&c)[0].contains("version literal is invalid"));
}

#[test]
fn if_booleans_and_macros() {
    let c = read(
        "if True\nA = 1\nendif\nif yes\nB = 1\nendif\nif 1\nC = 1\nendif\n\
         if False\nD = 1\nendif\nif no\nE = 1\nendif\nif 0\nF = 1\nendif\n\
         ON = true\nif $(ON)\nG = 1\nendif\nif $(UNDEFINED)\nH = 1\nelse\nH = 0\nendif\n\
         if ! $(ON)\nI = 1\nendif\n",
    );
    for n in ["A", "B", "C", "G"] {
        assert_eq!(val(&c, n), "1", "{n}");
    }
    for n in ["D", "E", "F", "I"] {
        assert_eq!(get(&c, n), None, "{n}");
    }
    assert_eq!(val(&c, "H"), "0");
    // A value that is not a simple boolean is a syntax error.
    let c = read("V = a + b\nif $(V)\nX = 1\nendif\n");
    assert!(errors(&c)[0].contains("is not a valid if condition"));
    let c = read("if 1 + 1\nX = 1\nendif\n");
    assert!(errors(&c)[0].contains("complex conditionals are not supported"));
}

#[test]
fn elif_is_else_if() {
    let a = read("if false\nX = 1\nelif true\nX = 2\nelse\nX = 3\nendif\n");
    let b = read("if false\nX = 1\nelse\nif true\nX = 2\nelse\nX = 3\nendif\nendif\n");
    assert_eq!(val(&a, "X"), "2");
    assert_eq!(val(&b, "X"), "2");
    let c = read("if true\nX = 1\nelif true\nX = 2\nendif\n");
    assert_eq!(val(&c, "X"), "1");
    assert!(errors(&read("else\n"))[0].contains("else without matching if"));
    assert!(errors(&read("endif\n"))[0].contains("endif without matching if"));
    assert!(errors(&read("if true\n"))[0].contains("endif(s) not found"));
    assert!(
        errors(&read("if true\nelse\nelse\nendif\n"))[0].contains("else is not allowed after else")
    );
}

// ---- Function macros ----

#[test]
fn choice() {
    let c = read(
        "LIST = a, b ,c\nC1 = $CHOICE(1, LIST)\nC2 = $CHOICE(2, x, y, z)\nI = 0\nC3 = $CHOICE(I, LIST)\nC4 = $CHOICE(5, LIST)\n",
    );
    assert_eq!(val(&c, "C1"), "b");
    assert_eq!(val(&c, "C2"), "z");
    assert_eq!(val(&c, "C3"), "a");
    // Out of range: the spec says error; HTCondor 25 gives nothing.
    assert_eq!(val(&c, "C4"), "");
    let strict = read_with(
        "LIST = a
C4 = $CHOICE(5, LIST)
",
        Options {
            strict_functions: true,
            ..Options::default()
        },
    );
    assert!(
        strict
            .get("C4")
            .unwrap_err()
            .to_string()
            .contains("out of range")
    );
    // A bad or negative index counts as 0 (HTCondor 25).
    let c = read(
        "A = $CHOICE(-1, a, b)
B = $CHOICE(x, a, b)
C = $CHOICE(1.7, a, b)
",
    );
    assert_eq!(val(&c, "A"), "a");
    assert_eq!(val(&c, "B"), "a");
    assert_eq!(val(&c, "C"), "b");
}

#[test]
fn env() {
    let host = MemoryHost::new().var("HOME", "/home/me").file(
        "/c",
        "A = $ENV(HOME)\nB = $ENV(NOPE:dflt)\nC = $ENV(NOPE)\n",
    );
    let c = Config::read_file("/c", &host, Options::default());
    assert_eq!(val(&c, "A"), "/home/me");
    assert_eq!(val(&c, "B"), "dflt");
    assert_eq!(val(&c, "C"), "UNDEFINED");
}

#[test]
fn filename_functions() {
    let c = read(
        "P = /tmp/dir/simulate.exe\nP1 = $Fp(P)\nD1 = $Fd(P)\nDB = $Fdb(P)\nU = $Fu(c:\\x\\y.txt)\n\
         W = $Fw(P)\nN = $Fn(P)\nX = $Fx(P)\nXB = $Fxb(P)\nQ = $Fq(P)\nQA = $Fqa(P)\n\
         DIR = $DIRNAME(P)\nBASE = $BASENAME(P)\nF = $Ff(rel/x.txt)\n",
    );
    assert_eq!(val(&c, "P1"), "/tmp/dir/");
    assert_eq!(val(&c, "D1"), "dir/");
    assert_eq!(val(&c, "DB"), "dir");
    assert_eq!(val(&c, "U"), "c:/x/y.txt");
    assert_eq!(val(&c, "W"), "\\tmp\\dir\\simulate.exe");
    assert_eq!(val(&c, "N"), "simulate");
    assert_eq!(val(&c, "X"), ".exe");
    assert_eq!(val(&c, "XB"), "exe");
    assert_eq!(val(&c, "Q"), "\"/tmp/dir/simulate.exe\"");
    assert_eq!(val(&c, "QA"), "'/tmp/dir/simulate.exe'");
    assert_eq!(val(&c, "DIR"), "/tmp/dir/");
    assert_eq!(val(&c, "BASE"), "simulate.exe");
    // f works only in condor_submit files: no current directory here.
    assert_eq!(val(&c, "F"), "rel/x.txt");
}

#[test]
fn int_and_real() {
    let c = read(
        "I1 = $INT(2+3)\nI2 = $INT(7, %03d)\nI3 = $INT(2.7)\nR1 = $REAL(1/3)\nR2 = $REAL(1.0/3)\n\
         R3 = $REAL(2.5, %.3f)\nR4 = $REAL(3, %.0f)\nBAD = $INT(\"5\")\n",
    );
    assert_eq!(val(&c, "I1"), "5");
    assert_eq!(val(&c, "I2"), " 007");
    assert_eq!(val(&c, "I3"), "2");
    assert_eq!(val(&c, "R1"), "0");
    assert_eq!(val(&c, "R2"), "0.3333333333333333");
    assert_eq!(val(&c, "R3"), " 2.500");
    assert_eq!(val(&c, "R4"), " 3.0");
    // HTCondor 25 replaces a failing function with nothing.
    assert_eq!(val(&c, "BAD"), "");
    let c = read("A = pre$INT(abc)post\nB = $INT(3, abc)\nC = $REAL(2, %d)\n");
    assert_eq!(val(&c, "A"), "prepost");
    // A format of the wrong kind is given back as it is.
    assert_eq!(val(&c, "B"), " abc");
    assert_eq!(val(&c, "C"), " %d");
}

#[test]
fn regression_eval_falls_back_to_expanded_text() {
    // HTCondor 25: text that does not parse gives the expanded text when
    // it had macros, else nothing; a parsed value is unparsed.
    let c = read(
        "L = a,a,\nM = a,a,$(U)\nA = [$EVAL(L)]\nB = [$EVAL(M)]\nC = [$EVAL(foo)]\nD = [$EVAL(1+)]\nE = $EVAL(2.50)\n",
    );
    assert_eq!(val(&c, "A"), "[]");
    assert_eq!(val(&c, "B"), "[a,a,]");
    assert_eq!(val(&c, "C"), "[undefined]");
    assert_eq!(val(&c, "D"), "[]");
    assert_eq!(val(&c, "E"), "2.500000000000000E+00");
}

#[test]
fn regression_dollar_in_function_arguments() {
    // The argument's `$(DOLLAR)` becomes `$` before the function sees it;
    // the `$` then joins what follows into a new macro.
    let c = read("D = $(DOLLAR)\nX = x\nA = $BASENAME(D)(X)\nB = $Fq(D)\nC = $SUBSTR(D, 0)$(X)\n");
    assert_eq!(val(&c, "A"), "x");
    assert_eq!(val(&c, "B"), "\"$\"");
    assert_eq!(val(&c, "C"), "$$(X)");
}

#[test]
fn regression_int_formats_read_a_c_int() {
    // `%x` without a length modifier reads 32 bits, as C's printf does.
    let c = read("A = $INT(-12, %x)\nB = $INT(-12, %llx)\nC = $INT(9223372036854775807)\n");
    assert_eq!(val(&c, "A"), " fffffff4");
    assert_eq!(val(&c, "B"), " fffffffffffffff4");
    assert_eq!(val(&c, "C"), "9223372036854775807");
    // A real out of range converts as x86-64 does: i64::MIN.
    let c = read("D = $INT(1e20)\n");
    assert_eq!(val(&c, "D"), "-9223372036854775808");
}

#[test]
fn random_choice_and_integer() {
    let c = read(
        "A = $RANDOM_CHOICE(0,1,2,3,4,5,6,7,8)\nB = $RANDOM_INTEGER(0, 8, 2)\nC = $RANDOM_INTEGER(3, 1)\n",
    );
    for _ in 0..50 {
        let a: u32 = val(&c, "A").parse().unwrap();
        assert!(a <= 8);
        let b: u32 = val(&c, "B").parse().unwrap();
        assert!(b <= 8 && b.is_multiple_of(2), "{b}");
    }
    // min > max gives max (HTCondor 25).
    assert_eq!(val(&c, "C"), "1");
}

#[test]
fn substr() {
    let c = read(
        "Name = abcdef\nA = $SUBSTR(Name, 2)\nB = $SUBSTR(Name, 0, -2)\nC = $SUBSTR(Name, 1, 3)\n\
         D = $SUBSTR(Name, -1)\nE = $SUBSTR(Name, 4, -3)\n",
    );
    assert_eq!(val(&c, "A"), "cdef");
    assert_eq!(val(&c, "B"), "abcd");
    assert_eq!(val(&c, "C"), "bcd");
    assert_eq!(val(&c, "D"), "f");
    assert_eq!(val(&c, "E"), "");
}

#[test]
fn dollar() {
    let c = read("A = $(DOLLAR)(X)\nB = $$(X) $ alone\n");
    assert_eq!(val(&c, "A"), "$(X)");
    assert_eq!(val(&c, "B"), "$$(X) $ alone");
}

// ---- Reading order ----

#[test]
fn reading_order() {
    let host = MemoryHost::new()
        .var("CONDOR_CONFIG", "/cfg/main")
        .var("_CONDOR_FROM_ENV", "env")
        .var("_condor_ORDER", "$(ORDER) env")
        .file(
            "/cfg/main",
            "ORDER = main\nLOCAL_CONFIG_DIR = /cfg/d\nLOCAL_CONFIG_FILE = /cfg/f1, /cfg/f2\n",
        )
        .file(
            "/cfg/d/20-b",
            "ORDER = $(ORDER) dirB\nLOCAL_CONFIG_DIR = /cfg/d2\n",
        )
        .file("/cfg/d/10-a", "ORDER = $(ORDER) dirA\n")
        .file("/cfg/d/30-c~", "ORDER = $(ORDER) backup\n")
        .file("/cfg/d/.hidden", "ORDER = $(ORDER) hidden\n")
        .file("/cfg/d2/x", "ORDER = $(ORDER) dirC\n")
        .file("/cfg/f1", "ORDER = $(ORDER) file1\n")
        .file("/cfg/f2", "ORDER = $(ORDER) file2\n");
    let c = Config::load(&host, Options::default());
    assert!(!c.has_errors(), "{:?}", c.diagnostics());
    assert_eq!(val(&c, "ORDER"), "main dirA dirB file1 file2 dirC env");
    assert_eq!(val(&c, "FROM_ENV"), "env");
}

#[test]
fn well_known_locations_and_only_env() {
    let host = MemoryHost::new().file("/usr/local/etc/condor_config", "WHERE = usr local\n");
    assert_eq!(
        val(&Config::load(&host, Options::default()), "WHERE"),
        "usr local"
    );
    let host = host.file("/etc/condor/condor_config", "WHERE = etc\n");
    assert_eq!(
        val(&Config::load(&host, Options::default()), "WHERE"),
        "etc"
    );
    let host = host
        .var("CONDOR_CONFIG", "ONLY_ENV")
        .var("_CONDOR_WHERE", "env");
    let c = Config::load(&host, Options::default());
    assert_eq!(val(&c, "WHERE"), "env");
    assert!(c.files().is_empty());
    let c = Config::load(&MemoryHost::new(), Options::default());
    assert!(errors(&c)[0].contains("CONDOR_CONFIG"));
}

#[test]
fn missing_local_config_file_is_an_error_unless_not_required() {
    let host = MemoryHost::new().file("/c", "LOCAL_CONFIG_FILE = /nope\n");
    assert!(Config::read_file("/c", &host, Options::default()).has_errors());
    let host = MemoryHost::new().file(
        "/c",
        "LOCAL_CONFIG_FILE = /nope\nREQUIRE_LOCAL_CONFIG_FILE = false\n",
    );
    assert!(!Config::read_file("/c", &host, Options::default()).has_errors());
}

#[test]
fn user_config_when_not_root() {
    let facts = Facts {
        is_root: false,
        home: Some("/home/u".into()),
        ..Facts::default()
    };
    let mut host = MemoryHost::new()
        .file("/c", "WHO = global\n")
        .file("/home/u/.condor/user_config", "WHO = user\n");
    host.facts = facts;
    assert_eq!(
        val(&Config::read_file("/c", &host, Options::default()), "WHO"),
        "user"
    );
    host.facts.is_root = true;
    assert_eq!(
        val(&Config::read_file("/c", &host, Options::default()), "WHO"),
        "global"
    );
}

// ---- Pre-defined macros ----

#[test]
fn predefined_macros() {
    let c = read("HOSTNAME = mine\nOPSYS = MYOS\nX = $(HOSTNAME)\n");
    let f = Facts::default();
    assert_eq!(val(&c, "HOSTNAME"), f.hostname);
    assert_eq!(val(&c, "X"), f.hostname);
    assert_eq!(val(&c, "FULL_HOSTNAME"), f.full_hostname);
    assert_eq!(val(&c, "IP_ADDRESS"), f.ip_address);
    assert_eq!(val(&c, "DETECTED_CPUS"), f.cores.to_string());
    assert_eq!(val(&c, "DETECTED_CORES"), f.cores.to_string());
    assert_eq!(val(&c, "DETECTED_MEMORY"), f.memory_mb.to_string());
    assert_eq!(val(&c, "UNAME_OPSYS"), "Linux");
    assert_eq!(val(&c, "UNAME_ARCH"), "x86_64");
    assert_eq!(val(&c, "ARCH"), "X86_64");
    assert_eq!(val(&c, "OPSYS"), "MYOS");
    assert_eq!(val(&c, "PID"), f.pid.to_string());
    assert_eq!(val(&c, "PPID"), f.ppid.to_string());
    assert_eq!(val(&c, "USERNAME"), f.username);
    assert_eq!(val(&c, "SUBSYSTEM"), "TOOL");
    assert_eq!(val(&c, "FILESYSTEM_DOMAIN"), f.full_hostname);
    assert_eq!(val(&c, "UID_DOMAIN"), f.full_hostname);
    let c = read_with("", subsystem("STARTD"));
    assert_eq!(val(&c, "SUBSYSTEM"), "STARTD");
}

// ---- Bounds on hostile input ----

#[test]
fn exponential_expansion_is_bounded() {
    let mut text = String::from("L0 = xxxxxxxxxxxxxxxx\n");
    for i in 1..40 {
        text.push_str(&format!("L{i} = $(L{p})$(L{p})\n", p = i - 1));
    }
    let c = read(&text);
    let err = c.get("L39").unwrap_err().to_string();
    assert!(
        err.contains("longer than") || err.contains("substitutions"),
        "{err}"
    );
    assert_eq!(val(&c, "L2").len(), 64);
}

/// `A0 = $(A1)`, `A1 = $(A2)`, ...: each substitution used to copy the
/// chain of names being expanded, so a 300 KB file took 36 s (30,000
/// names; HTCondor 25: 2 s) and a chain as long as the step budget hours.
/// Now linear: 50,000 names, and a cycle through as many, in well under a
/// second.
#[test]
fn long_chains_of_names_expand_in_linear_time() {
    let n = 50_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("A{i} = $(A{})\n", i + 1));
        text.push_str(&format!("R{i} = $(R{})\n", i + 1));
    }
    text.push_str(&format!("A{n} = end\nR{n} = $(R0)\n"));
    let c = read(&text);
    assert_eq!(val(&c, "A0"), "end");
    let err = c.get("R0").unwrap_err().to_string();
    assert!(
        err.contains("recursive definition: R0 -> R1 -> R2 -> "),
        "{}",
        &err[..80]
    );
    assert!(
        err.contains(&format!("R{n} -> R0 (")),
        "{}",
        &err[err.len() - 120..]
    );
}

#[test]
fn deep_function_nesting_is_bounded() {
    let mut text = String::from("V0 = 1\n");
    for i in 1..100 {
        text.push_str(&format!("V{i} = $INT(V{})\n", i - 1));
    }
    let c = read(&text);
    assert!(c.get("V99").is_err());
    assert_eq!(val(&c, "V5"), "1");
}

#[test]
fn long_and_odd_input_does_not_panic() {
    let long = "x".repeat(1 << 20);
    let c = read(&format!("A = {long}\nB = $(A:{long}\n$(\n@=\n:\n=\n\\\n"));
    assert_eq!(val(&c, "A").len(), 1 << 20);
    let c = read(
        "A = $($($($($(\nB = $F(\nC = $CHOICE()\nD = $SUBSTR()\nE = $INT()\nF = $RANDOM_CHOICE()\n",
    );
    for n in ["A", "B", "C", "D", "E", "F"] {
        let _ = c.get(n);
    }
}

// ---- Integration ----

#[test]
fn user_maps_reach_the_stdlib() {
    let host = MemoryHost::new()
        .file("/c", "CLASSAD_USER_MAPFILE_cfgtest = /maps/groups\n")
        .file(
            "/maps/groups",
            "* alice physics,chemistry\n* /^b.*/ biology\n",
        );
    let c = Config::read_file("/c", &host, Options::default());
    assert_eq!(c.user_maps(&host).len(), 1);
    assert!(c.install_user_maps(&host).is_empty());
    let v = classad::evaluate_str("userMap(\"cfgtest\", \"bob\")").unwrap();
    assert_eq!(classad::vm::print::value_to_string(&v), "\"biology\"");
}

/// A map that cannot be installed is a typed error that says which map
/// and why, with the words `classad config` prints; the others are still
/// installed.
#[test]
fn user_map_problems_are_typed() {
    use classad_config::UserMapError;
    let host = MemoryHost::new().file(
        "/c",
        "CLASSAD_USER_MAPFILE_gone = /maps/gone\n\
         CLASSAD_USER_MAPDATA_bad = * /(/ x\n\
         CLASSAD_USER_MAPDATA_fine = * carol chemistry\n",
    );
    let c = Config::read_file("/c", &host, Options::default());
    let problems = c.install_user_maps(&host);
    assert_eq!(problems.len(), 2, "{problems:?}");
    let gone = problems.iter().find(|p| p.name() == "gone").expect("gone");
    assert!(matches!(gone, UserMapError::Unreadable { path, .. } if path == "/maps/gone"));
    assert!(
        gone.to_string()
            .starts_with("cannot read user map file `/maps/gone`: ")
    );
    assert!(std::error::Error::source(gone).is_some());
    let bad = problems.iter().find(|p| p.name() == "bad").expect("bad");
    assert!(matches!(bad, UserMapError::Invalid { .. }));
    assert!(bad.to_string().starts_with("user map bad: "), "{bad}");
    let v = classad::evaluate_str("userMap(\"fine\", \"carol\")").unwrap();
    assert_eq!(classad::vm::print::value_to_string(&v), "\"chemistry\"");
}

#[test]
fn machine_ad_from_policy() {
    let c = read(
        "START = KeyboardIdle > 15 * $(MINUTE)\nMINUTE = 60\nRANK = 10\n\
         NUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_1 = cpus=1, memory=25%\nDETECTED_MEMORY = 8000\n",
    );
    let ad = classad_config::machine_ad(&c);
    let slots: Vec<&str> = ad.split("\n\n").filter(|s| !s.trim().is_empty()).collect();
    assert_eq!(slots.len(), 2);
    assert!(slots[0].contains("Start = KeyboardIdle > 15 * 60"));
    assert!(slots[0].contains("Memory = 2000"));
    assert!(slots[0].contains("Requirements = (START) && (WithinResourceLimits)"));
    let parser = classad::syntax::Parser::new(Default::default());
    for slot in slots {
        for line in slot.lines() {
            parser.parse_old_line(line).expect("old syntax");
        }
    }
}

/// Configuration text read in all is bounded (`Options::max_input`): a
/// file past it is not read, one error says so, and what was read before
/// and after it stays.
#[test]
fn configuration_read_in_all_is_bounded() {
    let big = "X = 1\n".repeat(2000);
    let host = MemoryHost::new()
        .file(
            "/c",
            "A = 1\ninclude : /big\nB = 2\ninclude ifexist : /big\ninclude command : gen\n",
        )
        .file("/big", &big)
        .command("gen", &big, 0);
    let options = Options {
        max_input: 8 << 10,
        allow_commands: true,
        ..Options::default()
    };
    let config = Config::read_file("/c", &host, options);
    assert_eq!(
        (val(&config, "A"), val(&config, "B")),
        ("1".into(), "2".into())
    );
    assert_eq!(get(&config, "X"), None);
    let said = errors(&config);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("not reading /big"), "{said:?}");
    // Raised, the same files are read.
    let options = Options {
        max_input: 1 << 20,
        allow_commands: true,
        ..Options::default()
    };
    let config = Config::read_file("/c", &host, options);
    assert_eq!(val(&config, "X"), "1");
    assert!(errors(&config).is_empty());
}
