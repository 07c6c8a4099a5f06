//! The web page, built ahead from `web/` by `npm run build` (esbuild) into `web/dist/` and
//! embedded here, so that no Node.js is needed at run time. `web/dist/SOURCE_HASH` holds the
//! SHA-256 of the sources the bundle was built from; a test recomputes it from `web/` and
//! fails when the bundle is stale.

/// The page (the same for the list of games and for a game).
pub const INDEX_HTML: &str = include_str!("../web/dist/index.html");
/// The bundled script: Preact, `@sabaki/shudan` and the page.
pub const APP_JS: &str = include_str!("../web/dist/app.js");
/// The bundled styles.
pub const APP_CSS: &str = include_str!("../web/dist/app.css");
/// SHA-256 of the sources the bundle was built from (see `web/build.mjs`).
pub const SOURCE_HASH: &str = include_str!("../web/dist/SOURCE_HASH");

/// The files whose content makes up [`SOURCE_HASH`], relative to `web/`: every file under
/// `src/`, and the build script and package files. Kept in step with `web/build.mjs`.
pub fn source_files(web: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut files = vec![
        "build.mjs".to_string(),
        "package.json".to_string(),
        "package-lock.json".to_string(),
    ];
    let mut stack = vec![web.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(web).expect("under web/");
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// SHA-256 (hex) over each source file's path, a NUL, its length in decimal, a NUL, and its
/// bytes, in sorted path order.
pub fn source_hash(web: &std::path::Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for rel in source_files(web)? {
        let bytes = std::fs::read(web.join(&rel))?;
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update(bytes.len().to_string().as_bytes());
        hasher.update([0]);
        hasher.update(&bytes);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_bundle_matches_its_sources() {
        let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let hash = super::source_hash(&web).expect("reading web/");
        assert_eq!(
            super::SOURCE_HASH.trim(),
            hash,
            "web/dist is stale: run `npm ci && npm run build` in crates/goref-server/web"
        );
        assert!(super::APP_JS.len() > 1000);
        assert!(super::INDEX_HTML.contains("/assets/app.js"));
    }
}
