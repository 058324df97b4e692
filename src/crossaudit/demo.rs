//! The demo ledger that ships in the binary: the two bare repositories the fixture minter makes
//! from `ledger-fixtures/demo-signed.toml` (`demo.toml` with signed audit commits) with its
//! allowed-signers file, stored as object archives (`src/crossaudit/demo-ledger/`,
//! regenerated and checked byte for byte by `tests/it/demo_ledger.rs`) so the release binary
//! carries no minter and `demo` needs no git CLI.
//!
//! Archive: records `object <kind> <len>\n<bytes>` (kind as git names it) and
//! `file <path> <len>\n<bytes>` (`HEAD` and loose references, relative to the repository).

use std::path::Path;

use gix::objs::Write as _;

/// The science repository's archive.
const SCIENCE: &[u8] = include_bytes!("demo-ledger/science.objects");
/// The audit repository's archive.
const AUDIT: &[u8] = include_bytes!("demo-ledger/audit.objects");

/// The allowed-signers file the demo's audit commits are verified against (a test key anyone
/// can re-derive: it anchors the demo, nothing real).
pub const ALLOWED_SIGNERS: &str = include_str!("demo-ledger/allowed_signers");

/// Writes the demo ledger's bare repositories to `out/science` and `out/audit`, and its
/// allowed-signers file to `out/allowed_signers`.
///
/// # Errors
/// When a repository cannot be written, or an archive is malformed (a build defect).
pub fn unpack(out: &Path) -> Result<(), String> {
    unpack_one(SCIENCE, &out.join("science"))?;
    unpack_one(AUDIT, &out.join("audit"))?;
    std::fs::write(out.join("allowed_signers"), ALLOWED_SIGNERS)
        .map_err(|e| format!("writing the demo ledger's allowed signers at {}: {e}", out.display()))
}

fn unpack_one(mut archive: &[u8], path: &Path) -> Result<(), String> {
    let err = |m: String| format!("writing the demo ledger at {}: {m}", path.display());
    let repo = crate::git::init_bare(path).map_err(err)?;
    while !archive.is_empty() {
        let nl = archive.iter().position(|&b| b == b'\n').ok_or_else(|| err("truncated header".into()))?;
        let header = std::str::from_utf8(&archive[..nl]).map_err(|e| err(e.to_string()))?;
        let mut words = header.split(' ');
        let (Some(tag), Some(name), Some(len), None) = (words.next(), words.next(), words.next(), words.next()) else {
            return Err(err(format!("bad record header {header:?}")));
        };
        let len: usize = len.parse().map_err(|_| err(format!("bad length in {header:?}")))?;
        let body = archive.get(nl + 1..nl + 1 + len).ok_or_else(|| err("truncated record".into()))?;
        archive = &archive[nl + 1 + len..];
        match tag {
            "object" => {
                let kind = gix::object::Kind::from_bytes(name.as_bytes()).map_err(|e| err(e.to_string()))?;
                repo.objects.write_buf(kind, body).map_err(|e| err(e.to_string()))?;
            }
            // Only names the archiver writes: `HEAD` and paths under `refs/`.
            "file" if name == "HEAD" || (name.starts_with("refs/") && !name.split('/').any(|c| c == "..")) => {
                let to = path.join(name);
                if let Some(dir) = to.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
                }
                std::fs::write(&to, body).map_err(|e| err(e.to_string()))?;
            }
            _ => return Err(err(format!("unexpected record {header:?}"))),
        }
    }
    Ok(())
}
