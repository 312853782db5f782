//! The package description, the crate documentation (the crate's README)
//! and the repository's README say what the code has.

/// Every vector kernel, as the documentation names its instruction set.
const VECTOR_KERNELS: [(&str, &str); 4] = [
    ("sse42", "SSE4.2"),
    ("avx2", "AVX2"),
    ("avx512", "AVX-512"),
    ("neon", "NEON"),
];

/// The crate documentation: `lib.rs` includes the crate's README.
const CRATE_README: &str = include_str!("../README.md");

#[test]
fn the_crate_documentation_is_the_crate_readme() {
    let lib = include_str!("../src/lib.rs");
    assert!(
        lib.starts_with("#![doc = include_str!(\"../README.md\")]\n"),
        "lib.rs no longer starts with its README as the crate documentation"
    );
    let manifest = include_str!("../Cargo.toml");
    assert!(manifest.contains("\nreadme = \"README.md\"\n"));
}

#[test]
fn the_description_and_the_crate_docs_name_every_vector_kernel() {
    let manifest = include_str!("../Cargo.toml");
    let description = manifest
        .lines()
        .find(|l| l.starts_with("description = "))
        .unwrap();
    let lib = include_str!("../src/lib.rs");
    let summary: String = CRATE_README.lines().take(10).collect();
    for (kernel, isa) in VECTOR_KERNELS {
        assert!(description.contains(isa), "description lacks {isa}");
        assert!(summary.contains(isa), "the crate summary lacks {isa}");
        assert!(
            lib.contains(&format!("`{kernel}`")) || CRATE_README.contains(&format!("`{kernel}`")),
            "the docs never name {kernel}"
        );
    }
}

#[test]
fn the_feature_list_names_the_io_adapters() {
    let features = &CRATE_README[CRATE_README.find("## Features").unwrap()..];
    assert!(features.contains("[`io`]"), "{features}");
}

#[test]
fn the_readme_says_how_to_install_the_command() {
    let readme = include_str!("../../../README.md");
    assert!(readme.contains("\ncargo install --locked --path crates/utf8guard-cli\n"));
}
