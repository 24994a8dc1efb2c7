//! Built-in defaults consulted when a name is not defined: a small set of
//! HTCondor's parameter table, the names configurations refer to most
//! (directories, domains, the startd policy knobs). HTCondor's full table
//! has about a thousand entries; the rest are not known here.

const DEFAULTS: &[(&str, &str)] = &[
    ("RELEASE_DIR", "/usr"),
    ("BIN", "$(RELEASE_DIR)/bin"),
    ("SBIN", "$(RELEASE_DIR)/sbin"),
    ("LIB", "$(RELEASE_DIR)/lib"),
    ("LIBEXEC", "$(RELEASE_DIR)/libexec"),
    ("LOG", "$(LOCAL_DIR)/log"),
    ("SPOOL", "$(LOCAL_DIR)/spool"),
    ("EXECUTE", "$(LOCAL_DIR)/execute"),
    ("LOCK", "$(LOG)"),
    ("RUN", "$(LOG)"),
    ("MAIL", "/usr/bin/mail"),
    ("CONDOR_ADMIN", "root@$(FULL_HOSTNAME)"),
    ("FILESYSTEM_DOMAIN", "$(FULL_HOSTNAME)"),
    ("UID_DOMAIN", "$(FULL_HOSTNAME)"),
    ("USER_CONFIG_FILE", "user_config"),
    ("REQUIRE_LOCAL_CONFIG_FILE", "true"),
    ("START", "True"),
    ("SUSPEND", "False"),
    ("CONTINUE", "True"),
    ("PREEMPT", "False"),
    ("KILL", "False"),
    ("WANT_SUSPEND", "False"),
    ("WANT_VACATE", "True"),
    ("IS_OWNER", "False"),
    ("COUNT_HYPERTHREAD_CPUS", "true"),
    ("DAEMON_LIST", "MASTER"),
    ("MASTER", "$(SBIN)/condor_master"),
    ("SCHEDD", "$(SBIN)/condor_schedd"),
    ("STARTD", "$(SBIN)/condor_startd"),
    ("COLLECTOR", "$(SBIN)/condor_collector"),
    ("NEGOTIATOR", "$(SBIN)/condor_negotiator"),
    ("SHADOW", "$(SBIN)/condor_shadow"),
    ("STARTER", "$(SBIN)/condor_starter"),
    ("CREDD", "$(SBIN)/condor_credd"),
    ("GRIDMANAGER", "$(SBIN)/condor_gridmanager"),
    ("PROCD", "$(SBIN)/condor_procd"),
    ("SHARED_PORT", "$(LIBEXEC)/condor_shared_port"),
    ("MASTER_LOG", "$(LOG)/MasterLog"),
    ("SCHEDD_LOG", "$(LOG)/SchedLog"),
    ("STARTD_LOG", "$(LOG)/StartLog"),
    ("COLLECTOR_LOG", "$(LOG)/CollectorLog"),
    ("NEGOTIATOR_LOG", "$(LOG)/NegotiatorLog"),
    ("SHADOW_LOG", "$(LOG)/ShadowLog"),
    ("STARTER_LOG", "$(LOG)/StarterLog"),
    ("HISTORY", "$(SPOOL)/history"),
    ("INCLUDE", "$(RELEASE_DIR)/include"),
    ("JAVA", "/usr/bin/java"),
    ("DETECTED_CPUS_LIMIT", "$(DETECTED_CPUS)"),
    ("NUM_CPUS", "$(DETECTED_CPUS_LIMIT)"),
    ("MAX_SLOT_TYPES", "10"),
    ("CLAIM_WORKLIFE", "1200"),
    ("MAX_JOBS_RUNNING", "MIN({$(DETECTED_MEMORY), 10000})"),
    ("NEGOTIATOR_INTERVAL", "60"),
    ("UPDATE_INTERVAL", "300"),
    ("PREEMPTION_REQUIREMENTS", "False"),
    ("USE_SHARED_PORT", "true"),
];

/// HTCondor's default for `name`, if this table knows it.
pub(crate) fn default_value(name: &str) -> Option<&'static str> {
    DEFAULTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}
