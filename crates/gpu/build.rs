//! The WGSL kernels are compiled into the binary, the browser's included: this writes a copy of
//! each `src/shaders/*.wgsl` without its comments and indentation to `$OUT_DIR/shaders/` for
//! `shaders.rs` to include (about half the text; 26 KB → 13 KB gzip). Every line stays where it
//! was, so a shader compiler's line numbers still point into the source. WGSL has no string
//! literals, so `//` always starts a comment; the kernels use no block comments (checked here).

use std::path::Path;
use std::{env, fs};

fn main() {
    let source = Path::new("src/shaders");
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shaders");
    fs::create_dir_all(&out).expect("OUT_DIR/shaders is writable");
    println!("cargo:rerun-if-changed=src/shaders");
    for entry in fs::read_dir(source).expect("src/shaders exists") {
        let path = entry.expect("src/shaders is readable").path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("a WGSL file is UTF-8");
        assert!(
            !text.contains("/*"),
            "{}: block comments are not stripped",
            path.display()
        );
        let stripped: Vec<&str> = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or_default().trim())
            .collect();
        let name = path.file_name().expect("a file name");
        fs::write(out.join(name), stripped.join("\n") + "\n").expect("OUT_DIR is writable");
    }
}
