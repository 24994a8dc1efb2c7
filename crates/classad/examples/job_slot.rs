//! A job and a slot: parse ads, set and get typed attributes, round-trip a
//! derived struct through an ad and through JSON, evaluate Requirements
//! against a slot and flatten it.
//!
//! `cargo run -p classad --example job_slot --features serde`

use classad::{ClassAd, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Job {
    #[serde(rename = "Owner")]
    owner: String,
    #[serde(rename = "RequestCpus")]
    cpus: i64,
    #[serde(rename = "RequestMemory")]
    memory: i64,
    #[serde(rename = "Args")]
    args: Vec<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Parse a slot in old syntax (as `condor_status -long` prints it).
    let slot = ClassAd::parse_old(
        "Name = \"slot1@node7\"\nMemory = 8192\nCpus = 4\nArch = \"X86_64\"\n\
         Requirements = TARGET.RequestMemory <= MY.Memory\n",
    )?;

    // A job from a struct, through serde.
    let job = Job {
        owner: "alice".into(),
        cpus: 2,
        memory: 4096,
        args: vec!["-n".into(), "10".into()],
    };
    let mut ad = classad::to_ad(&job)?;

    // Typed attributes.
    ad.insert("NiceUser", false);
    ad.insert_expr(
        "Requirements",
        "TARGET.Arch == \"X86_64\" && TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus && TARGET.Disk > 100",
    )?;
    let memory: i64 = ad.get("requestmemory")?;
    let nice: bool = ad.get("NiceUser")?;
    println!("job: {ad}");
    println!("RequestMemory = {memory}, NiceUser = {nice}");

    // The struct back from the ad, and through HTCondor's JSON.
    let back: Job = classad::from_ad(&ad)?;
    assert_eq!(back, job);
    let json = ad.to_json();
    let from_json = ClassAd::from_json(&json)?;
    assert_eq!(from_json, ad);
    assert_eq!(classad::from_ad::<Job>(&from_json)?, job);
    let via_serde: ClassAd = serde_json::from_str(&serde_json::to_string(&ad)?)?;
    assert_eq!(via_serde, ad);
    println!("JSON:\n{json}");

    // Requirements against the slot: Disk is missing, so UNDEFINED.
    let requirements = ad.evaluate_with_target("Requirements", &slot);
    println!(
        "Requirements against {}: {requirements}",
        slot.get::<String>("Name")?
    );
    assert_eq!(requirements, Value::Undefined);
    assert!(!ad.matches(&slot));

    // What is left of Requirements once the job's own attributes are known.
    let flat = ad.flatten_expr(ad.lookup("Requirements").ok_or("no Requirements")?);
    println!("flattened: {}", classad::syntax::unparse(&flat));
    println!(
        "external references: {:?}",
        ad.external_refs("Requirements")?
    );

    // With a disk, the two match.
    let mut slot = slot;
    slot.insert("Disk", 1_000_000);
    assert!(ad.matches(&slot));
    println!("matches once the slot has Disk: {}", ad.matches(&slot));
    Ok(())
}
