//! A deterministic, realistic pool for demonstrations and benchmarks,
//! written in old ClassAd syntax (as `condor_status -long` and
//! `condor_q -long` print it). Its shapes follow HTCondor's: batch nodes
//! as a partitionable slot plus claimed dynamic slots, GPU nodes,
//! high-memory and aarch64 nodes, desktops with static slots and a
//! keyboard-idle policy; jobs in clusters of procs that share one submit
//! description, owners of skewed popularity, `condor_submit`-shaped
//! Requirements.

use std::fmt::Write;

mod realistic;
pub use realistic::{realistic_jobs, realistic_slots};

/// Which shapes of ads a generated pool has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shapes {
    /// The pool of [`jobs`] and [`slots`]: `condor_submit`-shaped jobs on
    /// slots whose policies read few job attributes.
    #[default]
    Default,
    /// The pool of [`realistic_jobs`] and [`realistic_slots`]: every shape
    /// a real pool has (per-job usage read by slots' `START`, nested GPU
    /// ads and `countMatches`, glideins, JDL grid ads, legacy unscoped
    /// policies, odd Ranks, self-references).
    Realistic,
}

impl Shapes {
    /// The job ads of `jobs` jobs, in old syntax.
    pub fn jobs(self, jobs: usize, seed: u64) -> String {
        match self {
            Shapes::Default => self::jobs(jobs, seed),
            Shapes::Realistic => realistic_jobs(jobs, seed),
        }
    }

    /// The slot ads of a pool of about `slots` slots (exactly `slots` for
    /// [`Shapes::Realistic`]), in old syntax.
    pub fn slots(self, slots: usize, seed: u64) -> String {
        match self {
            Shapes::Default => self::slots(slots, seed),
            Shapes::Realistic => realistic_slots(slots, seed),
        }
    }
}

/// A small, fast, deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const USERS: [&str; 24] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory",
    "nina", "oscar", "peggy", "quinn", "rupert", "sybil", "trent", "ursula", "victor", "wendy",
    "xavier", "yolanda", "zoe",
];
const GROUPS: [&str; 5] = [
    "group_physics",
    "group_bio",
    "group_lab",
    "group_chem",
    "group_cs",
];
const OSES: [(&str, i64); 5] = [
    ("AlmaLinux9", 9),
    ("AlmaLinux8", 8),
    ("Rocky9", 9),
    ("CentOS7", 7),
    ("Ubuntu22", 22),
];

fn user(rng: &mut Rng) -> usize {
    // Skewed popularity: a few users submit most jobs.
    let a = rng.below(USERS.len() as u64);
    let b = rng.below(USERS.len() as u64);
    a.min(b) as usize
}

/// The slot ads of a pool of about `slots` slots, in old syntax.
pub fn slots(slots: usize, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = String::with_capacity(slots * 900);
    let mut made = 0;
    let mut host = 0;
    while made < slots {
        host += 1;
        let kind = rng.below(100);
        let (prefix, arch) = match kind {
            0..=54 => ("exec", "X86_64"),
            55..=64 => ("gpu", "X86_64"),
            65..=69 => ("hm", "X86_64"),
            70..=74 => ("arm", "aarch64"),
            _ => ("ws", "X86_64"),
        };
        let machine = format!("{prefix}-{host:05}.pool.example.org");
        let (os, major) = *rng.pick(&OSES);
        let kflops = 800_000 + rng.below(3_000_000);
        let mips = 8_000 + rng.below(40_000);
        let start = if prefix == "ws" {
            "(MY.KeyboardIdle > 15 * 60) && ((MY.LoadAvg - MY.CondorLoadAvg) <= 0.3) && !regexp(\"^(guest|test)\", TARGET.Owner) && (TARGET.RequestCpus == 1)".to_string()
        } else if prefix == "gpu" {
            "(TARGET.RequestGPUs >= 1) || (TARGET.JobDurationCategory =?= \"Short\" && TARGET.RequestCpus <= 2)".to_string()
        } else {
            match rng.below(4) {
                0 => "true".to_string(),
                1 => format!(
                    "stringListMember(TARGET.AcctGroup, \"{},{}\") || ((MY.ClockMin < 420 || MY.ClockMin >= 1140) && TARGET.RequestCpus <= 8)",
                    rng.pick(&GROUPS),
                    rng.pick(&GROUPS)
                ),
                2 => "ifThenElse(TARGET.JobDurationCategory =?= \"Long\", MY.AllowLongJobs, true) && (TARGET.JobUniverse == 5)".to_string(),
                _ => format!("stringListMember(TARGET.Owner, \"{},{}\") || regexp(\"^group_(lab|bio)\", TARGET.AcctGroup)", USERS[user(&mut rng)], USERS[user(&mut rng)]),
            }
        };
        let gpus = if prefix == "gpu" { 1 + rng.below(8) } else { 0 };
        let wrl = if gpus > 0 {
            "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs is undefined || MY.GPUs >= TARGET.RequestGPUs)"
        } else {
            "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk"
        };
        let slot = |rng: &mut Rng,
                    out: &mut String,
                    name: &str,
                    kind: &str,
                    cpus: u64,
                    memory: u64,
                    state: &str,
                    draining: bool| {
            let _ = write!(
                out,
                "Activity = \"Idle\"\nAllowLongJobs = {}\nArch = \"{arch}\"\nClockMin = {}\nCondorLoadAvg = 0.0\nCpus = {cpus}\nDisk = {}\nFileSystemDomain = \"pool.example.org\"\nHasFileTransfer = true\nHasSingularity = {}\nKeyboardIdle = {}\nKFlops = {kflops}\nLoadAvg = {:.2}\nMachine = \"{machine}\"\nMemory = {memory}\nMips = {mips}\nMyType = \"Machine\"\nName = \"{name}\"\nOpSys = \"LINUX\"\nOpSysAndVer = \"{os}\"\nOpSysMajorVer = {major}\nPartitionableSlot = {}\nRank = {}\nRequirements = {}\nSlotType = \"{kind}\"\nStart = {start}\nState = \"{state}\"\nWithinResourceLimits = {wrl}\n",
                rng.chance(50),
                rng.below(1440),
                cpus * 20_000_000,
                rng.chance(70),
                if prefix == "ws" {
                    rng.below(100_000)
                } else {
                    10_000_000 + rng.below(1000)
                },
                rng.below(100) as f64 / 100.0,
                kind == "Partitionable",
                if rng.chance(20) {
                    format!("TARGET.AcctGroup =?= \"{}\"", rng.pick(&GROUPS))
                } else {
                    "0.0".into()
                },
                if draining {
                    "false"
                } else {
                    "START && WithinResourceLimits"
                },
            );
            if gpus > 0 {
                let _ = write!(
                    out,
                    "CUDACapability = {}\nCUDADeviceName = \"{}\"\nCUDAGlobalMemoryMb = {}\nGPUs = {gpus}\n",
                    rng.pick(&["7.0", "7.5", "8.0", "8.6", "9.0"]),
                    rng.pick(&["Tesla V100", "NVIDIA A100", "NVIDIA L40", "NVIDIA H100"]),
                    rng.pick(&[16_000, 24_000, 40_000, 80_000]),
                );
            }
            out.push('\n');
        };
        if prefix == "ws" {
            for k in 1..=1 + rng.below(4) {
                let state = if rng.chance(70) { "Unclaimed" } else { "Owner" };
                slot(
                    &mut rng,
                    &mut out,
                    &format!("slot{k}@{machine}"),
                    "Static",
                    1,
                    4096,
                    state,
                    false,
                );
                made += 1;
            }
        } else {
            let cpus = *rng.pick(&[16u64, 32, 64, 128]);
            let memory = match prefix {
                "hm" => 1_048_576 + rng.below(4) * 524_288,
                _ => cpus * *rng.pick(&[2048u64, 4096, 8192]),
            };
            let dynamic = rng.below(4);
            let draining = rng.chance(3);
            let mut left_cpus = cpus;
            let mut left_memory = memory;
            for k in 1..=dynamic {
                let c = 1 + rng.below(4);
                let m = c * 2048;
                if c >= left_cpus || m >= left_memory {
                    break;
                }
                left_cpus -= c;
                left_memory -= m;
                slot(
                    &mut rng,
                    &mut out,
                    &format!("slot1_{k}@{machine}"),
                    "Dynamic",
                    c,
                    m,
                    "Claimed",
                    false,
                );
                made += 1;
            }
            slot(
                &mut rng,
                &mut out,
                &format!("slot1@{machine}"),
                "Partitionable",
                left_cpus,
                left_memory,
                "Unclaimed",
                draining,
            );
            made += 1;
        }
    }
    out
}

/// The job ads of `jobs` idle jobs, in clusters sharing submit files.
pub fn jobs(jobs: usize, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
    let mut out = String::with_capacity(jobs * 700);
    let mut made = 0;
    let mut cluster = 100;
    while made < jobs {
        cluster += 1;
        let owner = user(&mut rng);
        let group = if owner % 5 == 4 {
            None
        } else {
            Some(GROUPS[owner % GROUPS.len()])
        };
        let cpus = *rng.pick(&[1u64, 1, 1, 1, 2, 4, 8]);
        let memory = *rng.pick(&[1024u64, 2048, 2048, 4096, 8192, 16384, 65536]);
        let gpus = rng.chance(8).then(|| 1 + rng.below(2));
        let duration = *rng.pick(&["Short", "Medium", "Long", ""]);
        let prio = *rng.pick(&[0i64, 0, 0, 5, 10, -5]);
        let user_part = match rng.below(10) {
            0 => "(TARGET.OpSysMajorVer >= 9) && ".to_string(),
            1 => "(TARGET.HasSingularity == true) && ".to_string(),
            2 => "(TARGET.CUDACapability >= 8.0) && ".to_string(),
            3 => format!(
                "(TARGET.Machine != \"exec-{:05}.pool.example.org\") && !regexp(\"^ws-\", TARGET.Machine) && ",
                rng.below(500)
            ),
            4 => "regexp(\"^(gpu|hm)-\", TARGET.Machine) && ".to_string(),
            5 => "(TARGET.Arch == \"aarch64\") && ".to_string(),
            6 => "member(TARGET.OpSysAndVer, {\"AlmaLinux9\", \"Rocky9\"}) && ".to_string(),
            _ => String::new(),
        };
        let arch = if user_part.contains("aarch64") {
            ""
        } else {
            "(TARGET.Arch == \"X86_64\") && "
        };
        let requirements = format!(
            "{user_part}{arch}(TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory){}{} && (TARGET.HasFileTransfer)",
            if cpus > 1 {
                " && (TARGET.Cpus >= RequestCpus)"
            } else {
                ""
            },
            if gpus.is_some() {
                " && (TARGET.GPUs >= RequestGPUs)"
            } else {
                ""
            },
        );
        let rank = *rng.pick(&[
            "0.0",
            "0.0",
            "0.0",
            "TARGET.KFlops",
            "TARGET.Memory",
            "TARGET.Mips",
            "-TARGET.LoadAvg",
        ]);
        let procs = 1 + rng.below(100).min(rng.below(100));
        for proc in 0..procs {
            if made >= jobs {
                break;
            }
            let _ = write!(
                out,
                "{}ClusterId = {cluster}\nCmd = \"/home/{}/run.sh\"\n{}JobPrio = {prio}\nJobUniverse = 5\nMyType = \"Job\"\nOwner = \"{}\"\nProcId = {proc}\nRank = {rank}\nRequestCpus = {cpus}\nRequestDisk = {}\n{}RequestMemory = {memory}\nRequirements = {requirements}\n\n",
                group.map_or(String::new(), |g| format!("AcctGroup = \"{g}\"\n")),
                USERS[owner],
                if duration.is_empty() {
                    String::new()
                } else {
                    format!("JobDurationCategory = \"{duration}\"\n")
                },
                USERS[owner],
                1_000_000 + 100_000 * rng.below(20),
                gpus.map_or(String::new(), |g| format!("RequestGPUs = {g}\n")),
            );
            made += 1;
        }
    }
    out
}
