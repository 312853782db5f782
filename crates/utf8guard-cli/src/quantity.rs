//! Quantities in words, for messages and statistics: counts with their
//! noun, byte sizes in binary units.

/// `n` and the noun, in the plural unless `n` is 1: "1 special file",
/// "2 special files".
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` bytes in binary units, with two decimals past bytes: "512 B",
/// "1.50 KiB", "3.25 GiB".
pub fn human_bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n:.0} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}
