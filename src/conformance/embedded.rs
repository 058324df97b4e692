//! The suite built into the binary (`build.rs` lists the files its manifest names), so that an
//! installed crossverify runs `conformance run` outside a checkout (issue 47). It is written
//! out and read by [`load`], the reader of a suite on disk, so every file is checked against
//! the manifest before a case runs, the same way, and cases are materialised from plain files
//! (git fetches a bundle from a path).

use std::path::{Path, PathBuf};

use super::model::{Error, Suite};
use super::suite::{MANIFEST, load};

include!(concat!(env!("OUT_DIR"), "/conformance_suite.rs"));

/// What a report says of the suite it ran when it was the built-in one.
pub const EMBEDDED: &str = "built in";

/// Writes the built-in suite under `dir` (which becomes its root) and reads it as [`load`] reads
/// a suite on disk. `dir` must outlive the run: cases are materialised from it.
///
/// # Errors
/// A file that cannot be written, or a built-in file whose bytes differ from its manifest's
/// digest (a suite file changed without its manifest being regenerated).
pub fn load_embedded(dir: &Path) -> Result<Suite, Error> {
    unpack(dir, FILES, MANIFEST_BYTES)
}

fn unpack(dir: &Path, files: &[(&str, &[u8])], manifest_bytes: &[u8]) -> Result<Suite, Error> {
    let manifest: PathBuf = [MANIFEST_DIR, MANIFEST].iter().collect();
    for (rel, bytes) in files.iter().copied().chain([(path_str(&manifest), manifest_bytes)]) {
        let to = dir.join(rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::Io(format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&to, bytes).map_err(|e| Error::Io(format!("{}: {e}", to.display())))?;
    }
    load(&dir.join(MANIFEST_DIR))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in suite is the one in `test-vectors/conformance/` byte for byte (the same
    /// manifest, so the same digest a report cites), and it loads.
    #[test]
    fn the_built_in_suite_is_the_checkout_s_and_loads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let built_in = load_embedded(dir.path()).expect("the built-in suite loads");
        let on_disk = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors/conformance")).expect("loads");
        assert_eq!(built_in.sha256, on_disk.sha256);
        assert_eq!(built_in.cases, on_disk.cases);
        assert_eq!(built_in.files, on_disk.files);
        assert_eq!(FILES.len(), on_disk.files.len());
    }

    /// A built-in file whose bytes differ from the manifest is refused, naming it, as one on
    /// disk is; so is a file the manifest lists that is not built in.
    #[test]
    fn a_changed_or_missing_file_is_refused() {
        let (rel, bytes) = FILES[FILES.len() / 2];
        let mut changed = bytes.to_vec();
        changed[0] ^= 1;
        let mut files = FILES.to_vec();
        files[FILES.len() / 2] = (rel, &changed);
        let dir = tempfile::tempdir().expect("tempdir");
        let err = unpack(dir.path(), &files, MANIFEST_BYTES).expect_err("refused").to_string();
        assert!(err.contains(rel) && err.contains("SHA-256"), "{err}");
        files.remove(FILES.len() / 2);
        let dir = tempfile::tempdir().expect("tempdir");
        let err = unpack(dir.path(), &files, MANIFEST_BYTES).expect_err("refused").to_string();
        assert!(err.contains(rel) && err.contains("unreadable"), "{err}");
    }
}
