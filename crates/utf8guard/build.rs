//! Names, once, the targets that have vector kernels: `cfg(vector_kernels)`
//! for x86_64, aarch64 with NEON and wasm32 with simd128. The kernels, the
//! SIMD algorithm and the feature tests that only they use are compiled
//! under it; other targets have the scalar kernel alone.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(vector_kernels)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let has = |feature: &str| features.split(',').any(|f| f == feature);
    let vector = match arch.as_str() {
        "x86_64" => true,
        "aarch64" => has("neon"),
        "wasm32" => has("simd128"),
        _ => false,
    };
    if vector {
        println!("cargo::rustc-cfg=vector_kernels");
    }
}
