//! `utf8guard info`: what this machine offers and what runs.

use std::fmt::Write;

use utf8guard::Kernel;

/// CPU features that matter to the kernels, and whether this CPU has each.
fn cpu_features() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        vec![
            ("sse2", has!("sse2")),
            ("ssse3", has!("ssse3")),
            ("sse4.1", has!("sse4.1")),
            ("sse4.2", has!("sse4.2")),
            ("popcnt", has!("popcnt")),
            ("avx", has!("avx")),
            ("avx2", has!("avx2")),
            ("bmi2", has!("bmi2")),
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512vbmi", has!("avx512vbmi")),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as has;
        vec![
            ("neon", has!("neon")),
            ("sve", has!("sve")),
            ("sve2", has!("sve2")),
        ]
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Vec::new()
    }
}

/// The report: `forced` is the kernel `UTF8GUARD_KERNEL` chose; `ignored`
/// says that the engine ignored its value (the caller has said why).
pub fn report(forced: Option<Kernel>, ignored: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "utf8guard {} ({}-{})",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS
    );
    let features = cpu_features();
    let found: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let missing: Vec<&str> = features.iter().filter(|f| !f.1).map(|f| f.0).collect();
    let _ = writeln!(out, "CPU features: {}", list(&found));
    if !missing.is_empty() {
        let _ = writeln!(out, "not found:    {}", list(&missing));
    }
    let active = utf8guard::active_kernel();
    let _ = writeln!(out, "kernels:");
    for &kernel in Kernel::ALL {
        let state = if kernel.is_available() {
            "available"
        } else {
            "not supported by this CPU"
        };
        let mark = if kernel == active { "  (active)" } else { "" };
        let _ = writeln!(out, "  {:<7} {state}{mark}", kernel.name());
    }
    let env = utf8guard::KERNEL_ENV;
    let why = match (forced, ignored) {
        (Some(kernel), _) => format!("forced by {env}={kernel}"),
        (None, true) => format!("the fastest available; {env} was ignored, see above"),
        (None, false) => {
            format!("the fastest available; {env} or `check --kernel` chooses another")
        }
    };
    let _ = writeln!(out, "active kernel: {active} ({why})");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let _ = writeln!(
        out,
        "threads: {threads} (logical CPUs: the default and the most of --jobs)"
    );
    out
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(" ")
    }
}
