//! The demo ledger's archives (unpacked by the product's `demo` command): every object of a
//! minted bare repository, sorted by id, then `HEAD` and its loose references.

use std::path::Path;

use crate::fixture::Error;

/// The archive of the bare repository at `path`.
///
/// # Errors
/// When the repository cannot be read.
pub fn archive(path: &Path) -> Result<Vec<u8>, Error> {
    let err = |m: String| Error { path: path.to_owned(), message: m };
    let repo = gix::open_opts(path, gix::open::Options::isolated().with(gix::sec::Trust::Full))
        .map_err(|e| err(e.to_string()))?;
    let mut ids = Vec::new();
    for id in repo.objects.iter().map_err(|e| err(e.to_string()))? {
        ids.push(id.map_err(|e| err(e.to_string()))?);
    }
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        let o = repo.find_object(id).map_err(|e| err(e.to_string()))?;
        out.extend_from_slice(format!("object {} {}\n", o.kind, o.data.len()).as_bytes());
        out.extend_from_slice(&o.data);
    }
    let mut files = vec!["HEAD".to_owned()];
    collect_refs(path, "refs", &mut files).map_err(|e| err(e.to_string()))?;
    for name in files {
        let body = std::fs::read(path.join(&name)).map_err(|e| err(format!("{name}: {e}")))?;
        out.extend_from_slice(format!("file {name} {}\n", body.len()).as_bytes());
        out.extend_from_slice(&body);
    }
    Ok(out)
}

fn collect_refs(root: &Path, rel: &str, out: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(root.join(rel))?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let name = format!("{rel}/{}", e.file_name().to_string_lossy());
        if e.file_type()?.is_dir() {
            collect_refs(root, &name, out)?;
        } else {
            out.push(name);
        }
    }
    Ok(())
}
