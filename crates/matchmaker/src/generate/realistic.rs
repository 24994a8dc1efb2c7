//! The realistic mode of the pool generator: the shapes a real pool has
//! that the default mode leaves out (issue 26, "Shapes a real pool
//! has"), mixed about as a real pool mixes them.
//!
//! Slots: partitionable batch slots with claimed dynamic children and
//! static batch slots (most of the pool), whose `START` reads per-job
//! attributes (`ImageSize`, `DiskUsage`, `Owner`/`AcctGroup`,
//! `JobUniverse`, `x509UserProxyVOName`); GPU nodes of the HTCondor 10+
//! form (`AvailableGPUs = { GPUs_GPU_… }` naming nested GPU ads);
//! glideins (`GLIDEIN_CMSSite`, `GLIDEIN_ToDie`); grid CE ads in the
//! JDL/Glue style of the seed documents (`other.`-scoped Requirements);
//! legacy static slots whose unscoped `START` reads job attributes through
//! HTCondor's fallback to TARGET; a few slots whose Requirements refers to
//! itself.
//!
//! Jobs: per-job `ImageSize`, `DiskUsage` and `MemoryUsage` (they differ
//! from proc to proc in a real queue: that is what fragments clusters),
//! `RequestMemory = ifThenElse(MemoryUsage =!= undefined, MemoryUsage,
//! 2048)`, GPU jobs with `countMatches(MY.RequireGPUs,
//! TARGET.AvailableGPUs) >= RequestGPUs`, CMS jobs with `DESIRED_Sites`
//! lists with spaces and a wall time against `TARGET.GLIDEIN_ToDie -
//! time()`, JDL grid jobs, and jobs whose Requirements use `regexp`,
//! `strcat`, `ifThenElse`, `member`, `versioncmp`, `splitSlotName`, elvis,
//! deep `&&`/`||` chains, attributes that are expressions, and Ranks that
//! are booleans, UNDEFINED, reals, strings or missing.
//!
//! Every value compared with `time()` is decades in the past or the
//! future, so a pool's matches do not change with the day it is matched.

use super::Rng;

/// 2100-01-01 00:00:00 UTC: glideins that live "for ever".
const FAR_FUTURE: u64 = 4_102_444_800;
/// 2000-01-01 00:00:00 UTC: glideins long past their end.
const FAR_PAST: u64 = 946_684_800;
/// The fixed "now" of the queue's dates (2024-05-21), as gen_pool.py.
const SNAPSHOT: u64 = 1_716_300_000;

const DOMAIN: &str = "pool.example.org";

const USERS: [(&str, Option<&str>); 16] = [
    ("alice", Some("group_cms")),
    ("bchen", Some("group_cms")),
    ("cmorales", Some("group_atlas")),
    ("dpatel", Some("group_icecube")),
    ("ewong", Some("group_ligo")),
    ("fnguyen", Some("group_bio")),
    ("gsmith", Some("group_chem")),
    ("hkim", Some("group_physics")),
    ("iross", None),
    ("jlopez", Some("group_astro")),
    ("kyamamoto", Some("group_cms")),
    ("lmartin", Some("group_lab")),
    ("nwilliams", None),
    ("pschmidt", Some("group_atlas")),
    ("guest07", None),
    ("testuser1", None),
];
const GROUPS: [&str; 6] = [
    "group_cms",
    "group_atlas",
    "group_bio",
    "group_physics",
    "group_lab",
    "group_icecube",
];
const OSES: [(&str, &str, i64); 5] = [
    ("AlmaLinux9", "AlmaLinux", 9),
    ("AlmaLinux8", "AlmaLinux", 8),
    ("Rocky9", "Rocky", 9),
    ("CentOS7", "CentOS", 7),
    ("Ubuntu22", "Ubuntu", 22),
];
const CONDOR_VERSIONS: [&str; 4] = [
    "$CondorVersion: 9.0.17 2022-08-03 BuildID: 604455 PackageID: 9.0.17-1 $",
    "$CondorVersion: 23.0.10 2024-05-13 BuildID: 731022 PackageID: 23.0.10-1 $",
    "$CondorVersion: 23.10.1 2024-09-25 BuildID: 758305 PackageID: 23.10.1-1 $",
    "$CondorVersion: 24.0.1 2024-10-31 BuildID: 766730 PackageID: 24.0.1-1 $",
];
/// Device name, capability, global memory (MB).
const GPU_MODELS: [(&str, &str, u64); 6] = [
    ("Tesla V100-PCIE-16GB", "7.0", 16160),
    ("Quadro RTX 6000", "7.5", 24220),
    ("NVIDIA A40", "8.6", 45634),
    ("NVIDIA A100-SXM4-40GB", "8.0", 40536),
    ("NVIDIA A100-SXM4-80GB", "8.0", 81051),
    ("NVIDIA H100 80GB HBM3", "9.0", 81559),
];
const CMS_SITES: [&str; 8] = [
    "T2_US_Nebraska",
    "T2_US_Wisconsin",
    "T2_US_Purdue",
    "T2_DE_DESY",
    "T2_CH_CERN",
    "T1_US_FNAL",
    "T2_IT_Pisa",
    "T3_US_Colorado",
];
const SOFTWARE: [&str; 6] = [
    "VO-cms-CMSSW_12_4_0",
    "VO-cms-CMSSW_13_0_3",
    "VO-atlas-Athena-23.0.1",
    "VO-atlas-AtlasOffline-22.0.4",
    "VO-lhcb-Gauss-v56r2",
    "VO-ops-nagios",
];
const VOS: [&str; 4] = ["cms", "atlas", "lhcb", "ops"];

/// One ad's attributes, printed sorted case-insensitively, as
/// `condor_status -long` and `condor_q -long` print them.
struct Ad(Vec<(String, String)>);

impl Ad {
    fn new() -> Ad {
        Ad(Vec::with_capacity(64))
    }
    /// Sets `name` to the expression `value`, replacing an earlier value.
    fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self
            .0
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1 = value,
            None => self.0.push((name.to_string(), value)),
        }
    }
    /// Sets `name` to the string literal `text` (never holding `"` or `\`:
    /// old and new syntax escape differently).
    fn string(&mut self, name: &str, text: &str) {
        debug_assert!(!text.contains(['"', '\\']));
        self.set(name, format!("\"{text}\""));
    }
    fn write(mut self, out: &mut String) {
        self.0.sort_by_key(|(n, _)| n.to_ascii_lowercase());
        for (n, v) in &self.0 {
            out.push_str(n);
            out.push_str(" = ");
            out.push_str(v);
            out.push('\n');
        }
        out.push('\n');
    }
}

fn hex(rng: &mut Rng, digits: usize) -> String {
    (0..digits)
        .map(|_| char::from(b"0123456789abcdef"[rng.below(16) as usize]))
        .collect()
}

/// Attributes every execute host's slots share.
fn host_attributes(rng: &mut Rng, ad: &mut Ad, machine: &str, arch: &str) {
    let (os, name, major) = *rng.pick(&OSES);
    ad.string("Arch", arch);
    ad.string("OpSys", "LINUX");
    ad.string("OpSysAndVer", os);
    ad.string("OpSysName", name);
    ad.set("OpSysMajorVer", major.to_string());
    ad.string("Machine", machine);
    ad.string("CondorVersion", rng.pick::<&str>(&CONDOR_VERSIONS));
    ad.string("FileSystemDomain", DOMAIN);
    ad.string("UidDomain", DOMAIN);
    ad.set("KFlops", (900_000 + rng.below(2_500_000)).to_string());
    ad.set("Mips", (9_000 + rng.below(29_000)).to_string());
    ad.set("HasFileTransfer", "true");
    let singularity = rng.chance(80);
    ad.set("HasSingularity", if singularity { "true" } else { "false" });
    if singularity {
        ad.string(
            "SingularityVersion",
            &format!("1.{}.{}", 1 + rng.below(3), rng.below(6)),
        );
    }
    if rng.chance(30) {
        ad.set("HasDocker", "true");
    }
    ad.set("ClockMin", rng.below(1440).to_string());
    ad.set("ClockDay", rng.below(7).to_string());
    ad.set("CurrentTime", "time()");
    ad.set("MyType", "\"Machine\"");
    ad.set("TargetType", "\"Job\"");
}

/// A batch slot's `START`: most read attributes that differ per job.
fn batch_start(rng: &mut Rng, ad: &mut Ad) -> String {
    match rng.below(10) {
        0 => "TARGET.ImageSize <= MY.Memory * 1024".into(),
        1 => "TARGET.DiskUsage <= MY.Disk".into(),
        2 => {
            let (user, _) = USERS[rng.below(8) as usize];
            format!(
                "TARGET.Owner == \"{user}\" || TARGET.AcctGroup =?= \"{}\"",
                rng.pick(&GROUPS)
            )
        }
        3 => "TARGET.JobUniverse == 5".into(),
        4 => "TARGET.x509UserProxyVOName =?= \"cms\"".into(),
        5 => "(TARGET.ImageSize <= MY.Memory * 1024) && (TARGET.JobUniverse == 5 || TARGET.JobUniverse == 13)".into(),
        6 => {
            ad.set("AllowLongJobs", if rng.chance(50) { "true" } else { "false" });
            "ifThenElse(TARGET.JobDurationCategory =?= \"Long\", MY.AllowLongJobs, true) && TARGET.DiskUsage <= MY.Disk".into()
        }
        7 => {
            ad.string(
                "OwnerGroups",
                &format!("{}, {}", rng.pick(&GROUPS), rng.pick(&GROUPS)),
            );
            "stringListMember(TARGET.AcctGroup, MY.OwnerGroups) || ((MY.ClockMin < 420 || MY.ClockMin >= 1140) && TARGET.RequestCpus <= 8)".into()
        }
        _ => "true".into(),
    }
}

/// A slot's `Rank`: numbers, booleans, reals, strings, and ranks that read
/// per-job attributes.
fn slot_rank(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "TARGET.JobPrio".into(),
        1 => format!(
            "ifThenElse(TARGET.AcctGroup =?= \"{}\", 100, 0)",
            rng.pick(&GROUPS)
        ),
        2 => "TARGET.x509UserProxyVOName =?= \"cms\"".into(),
        3 => "TARGET.ImageSize / 1024.0".into(),
        4 => "\"preferred\"".into(),
        _ => "0.0".into(),
    }
}

const WITHIN_RESOURCE_LIMITS: &str = "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk";

/// Writes one slot of a host; `set_up` adds what is particular to it.
struct SlotWriter<'a> {
    out: &'a mut String,
    made: usize,
    wanted: usize,
}

impl SlotWriter<'_> {
    fn full(&self) -> bool {
        self.made >= self.wanted
    }
    fn push(&mut self, ad: Ad) {
        if !self.full() {
            ad.write(self.out);
            self.made += 1;
        }
    }
}

fn resources(ad: &mut Ad, cpus: u64, memory: u64, disk: u64) {
    ad.set("Cpus", cpus.to_string());
    ad.set("Memory", memory.to_string());
    ad.set("Disk", disk.to_string());
}

fn state(ad: &mut Ad, state: &str, activity: &str) {
    ad.string("State", state);
    ad.string("Activity", activity);
}

fn load(rng: &mut Rng, ad: &mut Ad, busy: bool, cpus: u64) {
    if busy {
        let l = format!("{:.2}", cpus as f64 * (0.7 + rng.below(30) as f64 / 100.0));
        ad.set("LoadAvg", l.clone());
        ad.set("CondorLoadAvg", l);
    } else {
        ad.set("LoadAvg", format!("{:.2}", rng.below(30) as f64 / 100.0));
        ad.set("CondorLoadAvg", "0.0");
    }
}

/// A partitionable slot and the dynamic slots carved from it (claimed);
/// `extra` adds the host's particular attributes to each.
#[allow(clippy::too_many_arguments)]
fn partitionable_host(
    rng: &mut Rng,
    writer: &mut SlotWriter,
    base: &Ad,
    machine: &str,
    cpus: u64,
    memory: u64,
    disk: u64,
    requirements: &str,
) {
    let mut left = (cpus, memory, disk);
    let mut children = Vec::new();
    for k in 1..=rng.below(5) {
        let c = *rng.pick(&[1u64, 1, 2, 4, 8]);
        let m = c * *rng.pick(&[1024u64, 2048, 4096]);
        let d = (1 + rng.below(40)) * 1_048_576;
        if c >= left.0 || m >= left.1 || d >= left.2 {
            break;
        }
        left = (left.0 - c, left.1 - m, left.2 - d);
        children.push((k, c, m, d));
    }
    let mut slot = Ad(base.0.clone());
    slot.string("Name", &format!("slot1@{machine}"));
    slot.string("SlotType", "Partitionable");
    slot.set("PartitionableSlot", "true");
    slot.set("SlotID", "1");
    slot.set("NumDynamicSlots", children.len().to_string());
    resources(&mut slot, left.0, left.1, left.2);
    slot.set("TotalSlotCpus", cpus.to_string());
    slot.set("TotalSlotMemory", memory.to_string());
    state(&mut slot, "Unclaimed", "Idle");
    load(rng, &mut slot, false, left.0);
    slot.set("Requirements", requirements);
    writer.push(slot);
    for (k, c, m, d) in children {
        let mut dynamic = Ad(base.0.clone());
        dynamic.string("Name", &format!("slot1_{k}@{machine}"));
        dynamic.string("SlotType", "Dynamic");
        dynamic.set("PartitionableSlot", "false");
        dynamic.set("DynamicSlot", "true");
        dynamic.string("ParentSlotName", &format!("slot1@{machine}"));
        dynamic.set("SlotID", "1");
        resources(&mut dynamic, c, m, d);
        state(&mut dynamic, "Claimed", "Busy");
        load(rng, &mut dynamic, true, c);
        let (user, _) = USERS[rng.below(USERS.len() as u64) as usize];
        dynamic.string("RemoteOwner", &format!("{user}@{DOMAIN}"));
        dynamic.string(
            "JobId",
            &format!("{}.{}", 100_000 + rng.below(900_000), rng.below(50)),
        );
        dynamic.set("Requirements", requirements);
        writer.push(dynamic);
    }
}

/// The slot ads of a pool of exactly `slots` slots with every shape of a
/// real pool, in old syntax. The same arguments give the same bytes.
pub fn realistic_slots(slots: usize, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d_4c95_7f2d | 1);
    let mut out = String::with_capacity(slots * 1400);
    let mut writer = SlotWriter {
        out: &mut out,
        made: 0,
        wanted: slots,
    };
    let mut host = 0;
    while !writer.full() {
        host += 1;
        let kind = rng.below(100);
        match kind {
            0..=36 => batch_host(&mut rng, &mut writer, host, true),
            37..=54 => batch_host(&mut rng, &mut writer, host, false),
            55..=62 => gpu_host(&mut rng, &mut writer, host),
            63..=76 => glidein(&mut rng, &mut writer, host),
            77..=81 => grid_ce(&mut rng, &mut writer, host),
            _ => legacy_host(&mut rng, &mut writer, host),
        }
    }
    out
}

fn batch_host(rng: &mut Rng, writer: &mut SlotWriter, host: u64, partitionable: bool) {
    let machine = format!("exec-{host:05}.{DOMAIN}");
    let mut base = Ad::new();
    host_attributes(rng, &mut base, &machine, "X86_64");
    let start = batch_start(rng, &mut base);
    base.set("Start", start);
    base.set("Rank", slot_rank(rng));
    base.set("WithinResourceLimits", WITHIN_RESOURCE_LIMITS);
    let cpus = *rng.pick(&[8u64, 16, 32, 48, 64, 128]);
    let memory = cpus * *rng.pick(&[2048u64, 4096, 8192]);
    let disk = cpus * (20 + rng.below(80)) * 1_048_576;
    base.set("TotalCpus", cpus.to_string());
    base.set("TotalMemory", memory.to_string());
    base.set(
        "KeyboardIdle",
        (3_000_000 + rng.below(10_000_000)).to_string(),
    );
    let draw = rng.below(100);
    let requirements = match draw {
        // Draining for defragmentation.
        0..=2 => "false",
        // Requirements that refer to itself: inside itself it is
        // UNDEFINED (HTCondor 25.13+), which `=!= false` turns to true.
        3..=8 => "START && WithinResourceLimits && (MY.Requirements =!= false)",
        _ => "START && WithinResourceLimits",
    };
    if partitionable {
        partitionable_host(
            rng,
            writer,
            &base,
            &machine,
            cpus,
            memory,
            disk,
            requirements,
        );
        return;
    }
    for k in 1..=cpus.min(2 + rng.below(6)) {
        let mut slot = Ad(base.0.clone());
        slot.string("Name", &format!("slot{k}@{machine}"));
        slot.string("SlotType", "Static");
        slot.set("PartitionableSlot", "false");
        slot.set("SlotID", k.to_string());
        let per = cpus.min(4);
        resources(&mut slot, per, memory / cpus * per, disk / cpus * per);
        let busy = rng.chance(35);
        if busy {
            state(&mut slot, "Claimed", "Busy");
            let (user, _) = USERS[rng.below(USERS.len() as u64) as usize];
            slot.string("RemoteOwner", &format!("{user}@{DOMAIN}"));
        } else {
            state(&mut slot, "Unclaimed", "Idle");
        }
        load(rng, &mut slot, busy, per);
        slot.set("Requirements", requirements);
        writer.push(slot);
    }
}

/// An HTCondor 10+ GPU node: `AvailableGPUs` lists attribute references,
/// each naming a nested ad with the device's properties.
fn gpu_host(rng: &mut Rng, writer: &mut SlotWriter, host: u64) {
    let machine = format!("gpu-{host:05}.{DOMAIN}");
    let mut base = Ad::new();
    host_attributes(rng, &mut base, &machine, "X86_64");
    let count = *rng.pick(&[1u64, 2, 4, 4, 8]);
    // Most nodes hold one model; some mix two (countMatches then differs
    // from the count of devices).
    let first = *rng.pick(&GPU_MODELS);
    let second = if rng.chance(20) {
        *rng.pick(&GPU_MODELS)
    } else {
        first
    };
    let mut names = Vec::new();
    for i in 0..count {
        let (device, capability, memory) = if i % 2 == 1 { second } else { first };
        let id = hex(rng, 8);
        let name = format!("GPUs_GPU_{id}");
        base.set(
            &name,
            format!(
                "[ Id = \"GPU-{id}\"; Capability = {capability}; ClockMhz = 1410.0; CoresPerCU = 64; DeviceName = \"{device}\"; DevicePciBusId = \"0000:{:02X}:00.0\"; DeviceUuid = \"{id}-{}-{}\"; DriverVersion = 12.4; ECCEnabled = true; GlobalMemoryMb = {memory}; MaxSupportedVersion = 12040 ]",
                16 + rng.below(200),
                hex(rng, 4),
                hex(rng, 12)
            ),
        );
        names.push(name);
    }
    let (device, capability, memory) = first;
    base.set("CUDACapability", capability);
    base.string("CUDADeviceName", device);
    base.set("CUDAGlobalMemoryMb", memory.to_string());
    base.set("GPUs_Capability", capability);
    base.set("GPUs_GlobalMemoryMb", memory.to_string());
    base.set("TotalGPUs", count.to_string());
    base.string(
        "DetectedGPUs",
        &names
            .iter()
            .map(|n| n.replace("GPUs_GPU_", "GPU-"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    // Some GPUs are in use by claimed jobs: the partitionable slot
    // advertises the rest.
    let free = count - rng.below(count);
    base.set("GPUs", free.to_string());
    base.set(
        "AvailableGPUs",
        format!("{{ {} }}", names[..free as usize].join(", ")),
    );
    base.set(
        "Start",
        "(TARGET.RequestGPUs ?: 0) >= 1 || (TARGET.JobDurationCategory =?= \"Short\" && TARGET.RequestCpus <= 2)",
    );
    base.set(
        "Rank",
        if rng.chance(50) {
            "ifThenElse(TARGET.RequestGPUs >= 1, 10 * TARGET.RequestGPUs, 0)"
        } else {
            "0.0"
        },
    );
    base.set(
        "WithinResourceLimits",
        format!("{WITHIN_RESOURCE_LIMITS} && (TARGET.RequestGPUs is undefined || MY.GPUs >= TARGET.RequestGPUs)"),
    );
    base.set(
        "KeyboardIdle",
        (3_000_000 + rng.below(10_000_000)).to_string(),
    );
    let cpus = *rng.pick(&[16u64, 32, 64]);
    let memory = cpus * *rng.pick(&[4096u64, 8192]);
    partitionable_host(
        rng,
        writer,
        &base,
        &machine,
        cpus,
        memory,
        cpus * 50 * 1_048_576,
        "START && WithinResourceLimits",
    );
}

/// A glidein: a pilot's slot at a grid site, living until `GLIDEIN_ToDie`.
fn glidein(rng: &mut Rng, writer: &mut SlotWriter, host: u64) {
    let site = *rng.pick(&CMS_SITES);
    let machine = format!("wn{host:05}.{}.example.edu", site.to_ascii_lowercase());
    let mut base = Ad::new();
    host_attributes(rng, &mut base, &machine, "X86_64");
    base.string("GLIDEIN_CMSSite", site);
    base.string("GLIDEIN_Site", &site[3..]);
    base.string(
        "GLIDEIN_Entry_Name",
        &format!("CMSHTPC_{site}_ce{}", rng.below(4)),
    );
    base.string("GLIDEIN_Factory", "OSG");
    base.string("GLIDEIN_Name", "gfactory_instance");
    // Far in the future (alive for decades) or far in the past (expired):
    // a pool's matches must not depend on the day it is matched.
    let to_die = if rng.chance(90) {
        FAR_FUTURE + rng.below(30 * 86_400)
    } else {
        FAR_PAST + rng.below(30 * 86_400)
    };
    base.set("GLIDEIN_ToDie", to_die.to_string());
    base.set("GLIDEIN_ToRetire", (to_die - 3 * 3600).to_string());
    base.set("GLIDEIN_Max_Walltime", (to_die - SNAPSHOT).to_string());
    base.set(
        "Start",
        match rng.below(3) {
            0 => "(TARGET.x509UserProxyVOName =?= \"cms\") && (MY.GLIDEIN_ToDie - time() > (TARGET.MaxWallTimeMins ?: 60) * 60)",
            1 => "ifThenElse(TARGET.DESIRED_Sites =!= undefined, stringListMember(MY.GLIDEIN_CMSSite, TARGET.DESIRED_Sites), true) && (MY.GLIDEIN_ToRetire > time())",
            _ => "stringListMember(MY.GLIDEIN_CMSSite, TARGET.DESIRED_Sites)",
        },
    );
    base.set("Rank", "0");
    base.set("WithinResourceLimits", WITHIN_RESOURCE_LIMITS);
    base.set("KeyboardIdle", (100_000 + rng.below(1_000_000)).to_string());
    let cpus = *rng.pick(&[1u64, 4, 8, 8]);
    let memory = cpus * 2500;
    let disk = cpus * 20 * 1_048_576;
    if cpus > 1 && rng.chance(75) {
        partitionable_host(
            rng,
            writer,
            &base,
            &machine,
            cpus,
            memory,
            disk,
            "START && WithinResourceLimits",
        );
    } else {
        let mut slot = base;
        slot.string("Name", &format!("slot1@{machine}"));
        slot.string("SlotType", "Static");
        slot.set("PartitionableSlot", "false");
        slot.set("SlotID", "1");
        resources(&mut slot, cpus, memory, disk);
        state(&mut slot, "Unclaimed", "Idle");
        load(rng, &mut slot, false, cpus);
        slot.set("Requirements", "START && WithinResourceLimits");
        writer.push(slot);
    }
}

/// A grid computing element's ad in the JDL/Glue style of the seed
/// documents: `other.` names the job.
fn grid_ce(rng: &mut Rng, writer: &mut SlotWriter, host: u64) {
    let lrms = *rng.pick(&["pbs", "lsf", "condor", "slurm"]);
    let vo = *rng.pick(&VOS);
    let id = format!("ce{host:05}.grid.example.org:8443/cream-{lrms}-{vo}");
    let mut ad = Ad::new();
    ad.set("MyType", "\"Machine\"");
    ad.string("Name", &id);
    ad.string("GlueCEUniqueID", &id);
    ad.string("GlueCEInfoLRMSType", lrms);
    ad.string(
        "GlueCEStateStatus",
        rng.pick::<&str>(&[
            "Production",
            "Production",
            "Production",
            "Draining",
            "Closed",
        ]),
    );
    ad.set(
        "GlueCEStateEstimatedResponseTime",
        rng.below(80_000).to_string(),
    );
    ad.set("GlueCEStateFreeCPUs", rng.below(400).to_string());
    ad.set("GlueCEStateWaitingJobs", rng.below(2000).to_string());
    ad.set(
        "GlueCEPolicyMaxWallClockTime",
        rng.pick(&["1440", "2880", "4320"]).to_string(),
    );
    ad.set(
        "GlueHostMainMemoryRAMSize",
        rng.pick(&["8000", "16000", "32000"]).to_string(),
    );
    let software: Vec<String> = SOFTWARE
        .iter()
        .filter(|_| rng.chance(50))
        .map(|s| format!("\"{s}\""))
        .collect();
    ad.set(
        "GlueHostApplicationSoftwareRunTimeEnvironment",
        format!("{{ {} }}", software.join(", ")),
    );
    let rules: Vec<String> = VOS
        .iter()
        .filter(|v| **v == vo || rng.chance(30))
        .map(|v| format!("\"VO:{v}\""))
        .collect();
    ad.set(
        "GlueCEAccessControlBaseRule",
        format!("{{ {} }}", rules.join(", ")),
    );
    ad.set(
        "Requirements",
        match rng.below(3) {
            0 => "Member(strcat(\"VO:\", other.x509UserProxyVOName), GlueCEAccessControlBaseRule)",
            1 => "other.MaxWallTimeMins <= GlueCEPolicyMaxWallClockTime && other.x509UserProxyVOName =!= undefined",
            _ => "other.RequestMemory <= GlueHostMainMemoryRAMSize || other.GridResource =!= undefined",
        },
    );
    ad.set("Rank", "-GlueCEStateWaitingJobs");
    state(&mut ad, "Unclaimed", "Idle");
    writer.push(ad);
}

/// Static slots configured as in old HTCondor manuals: an unscoped `START`
/// that reads job attributes, found in the job through HTCondor's fallback
/// from MY to TARGET (in strict mode they are undefined).
fn legacy_host(rng: &mut Rng, writer: &mut SlotWriter, host: u64) {
    let machine = format!("ws-{host:05}.cs.{DOMAIN}");
    let mut base = Ad::new();
    host_attributes(rng, &mut base, &machine, "X86_64");
    let owner = USERS[rng.below(8) as usize].0;
    base.string("DesktopOwner", owner);
    base.set(
        "Start",
        match rng.below(5) {
            0 => "KeyboardIdle > 15 * 60 && (LoadAvg - CondorLoadAvg) <= 0.3 && ImageSize <= Memory * 1024".to_string(),
            1 => format!("Owner == \"{owner}\" || (KeyboardIdle > 15 * 60 && Owner != \"guest07\")"),
            2 => "JobUniverse == 5 && DiskUsage < Disk".to_string(),
            3 => "(RemoteOwner =?= UNDEFINED) && regexp(\"^(guest|test)\", Owner) == false".to_string(),
            _ => "KeyboardIdle > 15 * 60 && (ImageSize ?: 0) <= Memory * 1024 && RequestCpus == 1".to_string(),
        },
    );
    base.set(
        "Rank",
        match rng.below(3) {
            0 => "Owner == DesktopOwner",
            1 => "(Owner == DesktopOwner) * 10",
            _ => "0",
        },
    );
    base.set("Requirements", "START");
    let cpus = *rng.pick(&[2u64, 4, 4, 8]);
    let memory_each = *rng.pick(&[2048u64, 4096]);
    let idle = if rng.chance(35) {
        rng.below(300)
    } else {
        1_000 + rng.below(3_000_000)
    };
    base.set("KeyboardIdle", idle.to_string());
    base.set("ConsoleIdle", idle.to_string());
    for k in 1..=cpus {
        let mut slot = Ad(base.0.clone());
        slot.string("Name", &format!("slot{k}@{machine}"));
        slot.string("SlotType", "Static");
        slot.set("PartitionableSlot", "false");
        slot.set("SlotID", k.to_string());
        resources(&mut slot, 1, memory_each, 100 * 1_048_576);
        let busy = rng.chance(25);
        if idle < 900 {
            state(&mut slot, "Owner", "Idle");
        } else if busy {
            state(&mut slot, "Claimed", "Busy");
        } else {
            state(&mut slot, "Unclaimed", "Idle");
        }
        load(rng, &mut slot, busy, 1);
        writer.push(slot);
    }
}

/// The kinds of job cluster (one `condor_submit` each).
#[derive(Clone, Copy, PartialEq)]
enum Profile {
    Vanilla,
    Multicore,
    Gpu,
    Cms,
    Grid,
    Rich,
    SelfReferencing,
    Impossible,
}

/// A job's `Rank`: missing, numbers, reals, booleans, UNDEFINED, strings.
fn job_rank(rng: &mut Rng) -> Option<String> {
    Some(
        match rng.below(14) {
            0 => return None,
            1 => "TARGET.KFlops",
            2 => "TARGET.Mips / 1000.0",
            3 => "TARGET.HasSingularity",
            4 => "undefined",
            5 => "TARGET.NoSuchRankAttribute",
            6 => "\"fast\"",
            7 => "TARGET.Memory >= 8192",
            8 => "-TARGET.LoadAvg",
            9 => "TARGET.Cpus * 100 + TARGET.Memory / 1024",
            _ => "0.0",
        }
        .to_string(),
    )
}

/// One clause of a "rich" Requirements: the library and the operators
/// users write.
fn rich_clause(rng: &mut Rng, ad: &mut Ad) -> String {
    match rng.below(12) {
        0 => format!(
            "regexp(\"^(exec|gpu)-0{}\", TARGET.Machine)",
            rng.below(10)
        ),
        1 => format!(
            "TARGET.Machine != strcat(\"exec-\", \"{:05}\", \".{DOMAIN}\")",
            rng.below(400)
        ),
        2 => "ifThenElse(TARGET.HasDocker =?= true, TARGET.Cpus >= 2, TARGET.Memory >= 2 * RequestMemory)".into(),
        3 => "member(TARGET.OpSysAndVer, { \"AlmaLinux9\", \"Rocky9\", \"Ubuntu22\" })".into(),
        4 => "versioncmp(split(TARGET.CondorVersion)[1], \"23.0.0\") >= 0".into(),
        5 => format!(
            "splitSlotName(TARGET.Name)[1] != \"exec-{:05}.{DOMAIN}\"",
            rng.below(400)
        ),
        6 => "(TARGET.HasDocker ?: false) || (TARGET.HasSingularity ?: false)".into(),
        7 => "((TARGET.OpSysMajorVer >= 9 && TARGET.Arch == \"X86_64\") || (TARGET.OpSysMajorVer == 8 && (TARGET.Mips > 20000 || TARGET.KFlops > 2000000)) || (TARGET.OpSysName == \"Ubuntu\" && !(TARGET.Cpus < 2 || TARGET.Memory < 4096)))".into(),
        8 => {
            // An attribute that is an expression, read by Requirements.
            ad.set("NeedsBigScratch", "RequestDisk > 4000000");
            "(MY.NeedsBigScratch =!= true || TARGET.Disk >= 2 * RequestDisk)".into()
        }
        9 => {
            ad.string("WantOS", rng.pick::<&str>(&["AlmaLinux9", "Rocky9", "CentOS7"]));
            "(TARGET.OpSysAndVer == MY.WantOS || MY.WantOS == \"any\")".into()
        }
        10 => "versionGE(TARGET.SingularityVersion ?: \"0\", \"1.2.0\")".into(),
        _ => "stringListIMember(\"alma\", strcat(TARGET.OpSysName, \",other\"))".into(),
    }
}

/// The job ads of exactly `jobs` idle jobs, in clusters (one submit file
/// each) whose procs differ in the attributes that differ in a real queue.
/// The same arguments give the same bytes.
pub fn realistic_jobs(jobs: usize, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ 0x2545_f491_4f6c_dd1d | 1);
    let mut out = String::with_capacity(jobs * 1200);
    let mut made = 0;
    let mut cluster = 2000;
    let mut qdate = SNAPSHOT - 5 * 86_400;
    while made < jobs {
        cluster += 1;
        qdate += 1 + rng.below(600);
        let (owner, group) =
            USERS[(rng.below(USERS.len() as u64)).min(rng.below(USERS.len() as u64)) as usize];
        let profile = match rng.below(100) {
            0..=29 => Profile::Vanilla,
            30..=39 => Profile::Multicore,
            40..=49 => Profile::Gpu,
            50..=64 => Profile::Cms,
            65..=69 => Profile::Grid,
            70..=92 => Profile::Rich,
            93..=96 => Profile::SelfReferencing,
            _ => Profile::Impossible,
        };
        let cpus = match profile {
            Profile::Multicore => *rng.pick(&[2u64, 4, 8, 16]),
            Profile::Cms => *rng.pick(&[1u64, 1, 4, 8]),
            Profile::Gpu => *rng.pick(&[1u64, 2, 4]),
            _ => 1,
        };
        let memory = *rng.pick(&[1024u64, 2000, 2048, 2500, 4096, 8192, 16384]);
        // How condor_submit writes request_memory: a number, the default
        // that follows the job's usage, or a number written as a real.
        let memory_form = rng.below(10);
        let request_memory = match memory_form {
            0..=3 => "ifThenElse(MemoryUsage =!= undefined, MemoryUsage, 2048)".to_string(),
            4 => format!(
                "ifthenelse(MemoryUsage =!= undefined,max({{ MemoryUsage,{memory} }}),{memory})"
            ),
            5 => format!("{memory}.0"),
            _ => memory.to_string(),
        };
        let disk_from_usage = rng.chance(20);
        let request_disk = *rng.pick(&[1_048_576u64, 2_097_152, 5_242_880, 10_485_760]);
        let universe = if rng.chance(10) { 13 } else { 5 };
        let prio = *rng.pick(&[0i64, 0, 0, 0, 5, 10, -5]);
        let gpus = *rng.pick(&[1u64, 1, 1, 2, 4]);
        let vo = match profile {
            Profile::Cms => Some("cms"),
            Profile::Grid => Some(*rng.pick(&VOS)),
            _ if rng.chance(15) => Some(*rng.pick(&VOS)),
            _ => None,
        };
        let wall = match profile {
            Profile::Cms | Profile::Grid => Some(*rng.pick(&[60u64, 480, 1440, 2880])),
            _ if rng.chance(20) => Some(*rng.pick(&[60u64, 720, 1440])),
            _ => None,
        };
        let duration = *rng.pick(&["", "", "Short", "Medium", "Long"]);
        let rank = job_rank(&mut rng);
        // The cluster's Requirements and the attributes they need, shared
        // by every proc.
        let mut shared = Ad::new();
        let condor_submit_tail = |cpus: u64| {
            format!(
                "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory){} && (TARGET.HasFileTransfer)",
                if cpus > 1 {
                    " && (TARGET.Cpus >= RequestCpus)"
                } else {
                    ""
                }
            )
        };
        let requirements = match profile {
            Profile::Vanilla | Profile::Multicore => condor_submit_tail(cpus),
            Profile::Gpu => {
                if rng.chance(75) {
                    let capability = *rng.pick(&["7.0", "7.5", "8.0"]);
                    let memory = *rng.pick(&[0u64, 16000, 30000, 40000]);
                    shared.set(
                        "RequireGPUs",
                        if memory == 0 {
                            format!("Capability >= {capability}")
                        } else {
                            format!("Capability >= {capability} && GlobalMemoryMb >= {memory}")
                        },
                    );
                    format!(
                        "(countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) >= RequestGPUs) && {}",
                        condor_submit_tail(cpus)
                    )
                } else {
                    format!(
                        "(TARGET.CUDACapability >= 7.0) && (TARGET.GPUs >= RequestGPUs) && {}",
                        condor_submit_tail(cpus)
                    )
                }
            }
            Profile::Cms => {
                let first = *rng.pick(&CMS_SITES);
                let mut sites = vec![first];
                for _ in 0..rng.below(3) {
                    let s = *rng.pick(&CMS_SITES);
                    if !sites.contains(&s) {
                        sites.push(s);
                    }
                }
                // Lists with spaces after the commas, as CMS writes them.
                shared.string("DESIRED_Sites", &sites.join(", "));
                format!(
                    "stringListMember(TARGET.GLIDEIN_CMSSite, MY.DESIRED_Sites) && (TARGET.GLIDEIN_ToDie - time() > MY.MaxWallTimeMins * 60) && (TARGET.Memory >= RequestMemory){}",
                    if cpus > 1 {
                        " && (TARGET.Cpus >= RequestCpus)"
                    } else {
                        ""
                    }
                )
            }
            Profile::Grid => {
                shared.string(
                    "GridResource",
                    "condor ce01.grid.example.org ce01.grid.example.org:9619",
                );
                format!(
                    "other.GlueCEStateStatus == \"Production\" && Member(\"{}\", other.GlueHostApplicationSoftwareRunTimeEnvironment) && other.GlueCEPolicyMaxWallClockTime >= MaxWallTimeMins",
                    rng.pick(&SOFTWARE)
                )
            }
            Profile::Rich => {
                let mut clauses = Vec::new();
                for _ in 0..1 + rng.below(4) {
                    clauses.push(rich_clause(&mut rng, &mut shared));
                }
                clauses.push(condor_submit_tail(cpus));
                clauses.join(" && ")
            }
            Profile::SelfReferencing => match rng.below(3) {
                // Inside itself, Requirements is UNDEFINED (HTCondor
                // 25.13+): each matches where the tail matches.
                0 => format!(
                    "{} && (MY.Requirements =!= false)",
                    condor_submit_tail(cpus)
                ),
                1 => format!("Requirements || {}", condor_submit_tail(cpus)),
                _ => format!(
                    "ifThenElse(isUndefined(Requirements), {}, false)",
                    condor_submit_tail(cpus)
                ),
            },
            Profile::Impossible => format!(
                "(TARGET.OpSysAndVer == \"SL6\") && {}",
                condor_submit_tail(cpus)
            ),
        };
        let rank = if profile == Profile::Grid {
            Some("-other.GlueCEStateEstimatedResponseTime".to_string())
        } else {
            rank
        };
        // Cluster sizes as in gen_pool.py: most submits queue one job or
        // a few, some queue a hundred.
        let procs = match rng.below(100) {
            0..=44 => 1,
            45..=54 => 2,
            55..=64 => 5,
            65..=79 => 10,
            80..=89 => 20,
            90..=96 => 50,
            _ => 100,
        };
        for proc in 0..procs {
            if made >= jobs {
                break;
            }
            made += 1;
            let mut ad = Ad(shared.0.clone());
            ad.set("MyType", "\"Job\"");
            ad.set("TargetType", "\"Machine\"");
            ad.set("ClusterId", cluster.to_string());
            ad.set("ProcId", proc.to_string());
            ad.string("Owner", owner);
            ad.string("User", &format!("{owner}@{DOMAIN}"));
            if let Some(group) = group {
                ad.string("AcctGroup", group);
                ad.string("AccountingGroup", &format!("{group}.{owner}"));
            }
            ad.set("QDate", qdate.to_string());
            ad.set("JobStatus", "1");
            ad.set("JobUniverse", universe.to_string());
            ad.set("JobPrio", prio.to_string());
            ad.string("Cmd", &format!("/home/{owner}/run.sh"));
            ad.set("RequestCpus", cpus.to_string());
            ad.set("RequestMemory", request_memory.clone());
            ad.set(
                "RequestDisk",
                if disk_from_usage {
                    "DiskUsage".to_string()
                } else {
                    request_disk.to_string()
                },
            );
            if profile == Profile::Gpu {
                ad.set("RequestGPUs", gpus.to_string());
            }
            // What differs from proc to proc: usage measured by earlier
            // runs (restarted jobs) or the executable's size.
            let restarted = rng.chance(30);
            let rss = if restarted {
                100_000 + rng.below(8_000_000)
            } else {
                0
            };
            ad.set(
                "ImageSize",
                (if restarted {
                    rss + rng.below(50_000)
                } else {
                    10 + rng.below(5_000)
                })
                .to_string(),
            );
            ad.set(
                "DiskUsage",
                (if restarted {
                    (20 + rng.below(600)) * 1024
                } else {
                    request_disk / 4 + rng.below(100)
                })
                .to_string(),
            );
            ad.set("ResidentSetSize", rss.to_string());
            if restarted || rng.chance(20) {
                ad.set("MemoryUsage", "((ResidentSetSize + 1023) / 1024)");
            }
            ad.set("NumJobStarts", u64::from(restarted).to_string());
            if let Some(vo) = vo {
                ad.string("x509UserProxyVOName", vo);
            }
            if let Some(wall) = wall {
                ad.set("MaxWallTimeMins", wall.to_string());
            }
            if !duration.is_empty() {
                ad.string("JobDurationCategory", duration);
            }
            ad.set("Requirements", requirements.clone());
            if let Some(rank) = &rank {
                ad.set("Rank", rank.clone());
            }
            ad.write(&mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ads of a text: blank-line separated.
    fn ads(text: &str) -> Vec<&str> {
        text.split("\n\n")
            .filter(|a| !a.trim().is_empty())
            .collect()
    }

    #[test]
    fn the_same_seed_makes_the_same_pool_and_another_seed_another() {
        assert_eq!(realistic_slots(300, 4), realistic_slots(300, 4));
        assert_eq!(realistic_jobs(300, 4), realistic_jobs(300, 4));
        assert_ne!(realistic_slots(300, 4), realistic_slots(300, 5));
        assert_ne!(realistic_jobs(300, 4), realistic_jobs(300, 5));
    }

    #[test]
    fn it_makes_exactly_the_number_of_ads_asked_for() {
        for n in [0, 1, 7, 250] {
            assert_eq!(ads(&realistic_slots(n, 3)).len(), n);
            assert_eq!(ads(&realistic_jobs(n, 3)).len(), n);
        }
    }

    #[test]
    fn every_shape_is_in_a_pool_of_a_thousand_ads() {
        let slots = realistic_slots(1000, 1);
        let jobs = realistic_jobs(1000, 1);
        let slot_ads = ads(&slots);
        let job_ads = ads(&jobs);
        type HasShape<'a> = &'a dyn Fn(&str) -> bool;
        let slot_shapes: [(&str, HasShape); 12] = [
            ("partitionable", &|a| a.contains("PartitionableSlot = true")),
            ("claimed dynamic", &|a| a.contains("SlotType = \"Dynamic\"")),
            ("static", &|a| a.contains("SlotType = \"Static\"")),
            ("START reads ImageSize", &|a| {
                a.contains("Start = TARGET.ImageSize <= MY.Memory * 1024")
            }),
            ("START reads DiskUsage", &|a| {
                a.contains("TARGET.DiskUsage <= MY.Disk")
            }),
            ("START reads Owner or AcctGroup", &|a| {
                a.contains("TARGET.Owner == \"") && a.contains("TARGET.AcctGroup =?= \"")
            }),
            ("START reads JobUniverse", &|a| {
                a.contains("Start = TARGET.JobUniverse == 5")
            }),
            ("START reads the VO", &|a| {
                a.contains("Start = TARGET.x509UserProxyVOName =?= \"cms\"")
            }),
            ("nested GPU ads", &|a| {
                a.contains("AvailableGPUs = { GPUs_GPU_") && a.contains("GlobalMemoryMb = ")
            }),
            ("glidein", &|a| {
                a.contains("GLIDEIN_CMSSite = \"") && a.contains("GLIDEIN_ToDie = ")
            }),
            ("grid CE", &|a| {
                a.contains("GlueCEStateStatus = ") && a.contains("other.")
            }),
            ("legacy unscoped START", &|a| {
                a.contains("Start = JobUniverse == 5 && DiskUsage < Disk")
                    || a.contains("&& ImageSize <= Memory * 1024")
            }),
        ];
        for (shape, has) in slot_shapes {
            assert!(slot_ads.iter().any(|a| has(a)), "no slot of shape {shape}");
        }
        assert!(
            slot_ads
                .iter()
                .any(|a| a.contains("(MY.Requirements =!= false)")),
            "no self-referencing slot"
        );
        let job_shapes: [(&str, &str); 18] = [
            (
                "RequestMemory from MemoryUsage",
                "RequestMemory = ifThenElse(MemoryUsage =!= undefined, MemoryUsage, 2048)",
            ),
            (
                "countMatches",
                "countMatches(MY.RequireGPUs, TARGET.AvailableGPUs) >= RequestGPUs",
            ),
            ("RequireGPUs", "RequireGPUs = Capability >= "),
            (
                "stringListMember of sites",
                "stringListMember(TARGET.GLIDEIN_CMSSite, MY.DESIRED_Sites)",
            ),
            (
                "lifetime against time()",
                "TARGET.GLIDEIN_ToDie - time() > MY.MaxWallTimeMins * 60",
            ),
            ("JDL grid job", "other.GlueCEStateStatus == \"Production\""),
            ("regexp", "regexp("),
            ("strcat", "strcat("),
            ("ifThenElse", "ifThenElse(TARGET.HasDocker"),
            ("member", "member(TARGET.OpSysAndVer"),
            ("versioncmp", "versioncmp("),
            ("splitSlotName", "splitSlotName("),
            ("elvis", "?: false"),
            (
                "an attribute that is an expression",
                "NeedsBigScratch = RequestDisk > 4000000",
            ),
            ("boolean Rank", "Rank = TARGET.HasSingularity"),
            ("UNDEFINED Rank", "Rank = undefined"),
            ("string Rank", "Rank = \"fast\""),
            ("self-referencing Requirements", "isUndefined(Requirements)"),
        ];
        for (shape, text) in job_shapes {
            assert!(jobs.contains(text), "no job of shape {shape} ({text})");
        }
        assert!(
            job_ads.iter().any(|a| !a.contains("\nRank = ")),
            "no job without a Rank"
        );
        assert!(jobs.contains("Rank = TARGET.Mips / 1000.0"), "no real Rank");
        let lines: Vec<&str> = jobs.lines().collect();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("RequestMemory = ") && l.ends_with(".0")),
            "no RequestMemory written as a real"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("DESIRED_Sites = ") && l.contains(", ")),
            "no DESIRED_Sites list with spaces"
        );
    }

    #[test]
    fn our_reader_reads_every_ad_whole_and_every_ad_joins_a_pool() {
        for seed in [1, 2] {
            for (text, is_job) in [
                (realistic_jobs(500, seed), true),
                (realistic_slots(500, seed), false),
            ] {
                let file = crate::read_ad_text(text.as_bytes(), "<realistic>");
                assert!(file.errors.is_empty(), "{:?}", &file.errors[..1]);
                assert!(file.warnings.is_empty(), "{:?}", &file.warnings[..1]);
                assert_eq!(file.ads.len(), 500);
                // Each ad has what the pool needs of a job or a slot.
                let mut pool = crate::Pool::new(crate::Options::default());
                for (_, ad) in file.ads {
                    let added = if is_job {
                        pool.add_job(ad).map(|_| ())
                    } else {
                        pool.add_slot(ad)
                    };
                    assert_eq!(added, Ok(()));
                }
            }
        }
    }

    #[test]
    fn procs_of_one_cluster_differ_in_their_usage() {
        let jobs = realistic_jobs(400, 2);
        let mut sizes: std::collections::HashMap<&str, std::collections::HashSet<&str>> =
            Default::default();
        for ad in ads(&jobs) {
            let get = |name: &str| {
                ad.lines()
                    .find_map(|l| l.strip_prefix(name)?.strip_prefix(" = "))
                    .unwrap_or("")
            };
            sizes
                .entry(get("ClusterId"))
                .or_default()
                .insert(get("ImageSize"));
        }
        assert!(
            sizes.values().any(|s| s.len() > 5),
            "no cluster whose procs differ"
        );
    }

    #[test]
    fn lifetimes_are_decades_away_from_any_day_it_runs() {
        let slots = realistic_slots(2000, 9);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut seen = 0;
        for line in slots.lines() {
            if let Some(v) = line.strip_prefix("GLIDEIN_ToDie = ") {
                let t: u64 = v.parse().expect("an integer");
                assert!(
                    t.abs_diff(now) > 20 * 365 * 86_400,
                    "GLIDEIN_ToDie {t} is near today"
                );
                seen += 1;
            }
        }
        assert!(seen > 10);
    }
}
