//! Where a repository's own files send a reader of it: the paths outside its git directory that
//! git or gix would read on opening it (a `.git` file's `gitdir:`, `commondir`, object
//! alternates, symlinks, configuration includes, `core.worktree`, linked work trees), the
//! network locations it names (`http-alternates`), and the objects its history substitutions
//! name (grafts and replace refs). The policy of what may be followed is the caller's
//! (`intake`); this module only reads the layout, without following anything it lists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;

/// Where an indirection leads.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// A path on this machine, absolute (resolved against the file that names it, not the
    /// current directory), and lexically normalised, not canonicalised: a target that does
    /// not exist still says where it points.
    Path(PathBuf),
    /// A location reached through the network (an `http-alternates` line) or the user's home
    /// (`~/` in an include), which no file of the repository can vouch for.
    Elsewhere(String),
}

/// One file of a repository that sends a reader elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Indirection {
    /// The file that names the target (the symlink itself, for a symlink).
    pub file: PathBuf,
    /// What kind of indirection it is, in words (`an object alternate`, `commondir`, …).
    pub what: &'static str,
    /// Where it leads.
    pub target: Target,
    /// The target as the file spells it: what a message shows, the same on every machine.
    pub raw: String,
}

/// Every indirection of the repository at `dir` (a work tree with `.git`, or a bare
/// repository), in a stable order. Nothing listed is followed: the caller decides whether
/// each target is acceptable before anything else opens the repository.
#[must_use]
pub fn indirections(dir: &Path) -> Vec<Indirection> {
    let mut out = Vec::new();
    let dot_git = dir.join(".git");
    let git_dir = match std::fs::symlink_metadata(&dot_git) {
        Ok(m) if m.is_file() => {
            // A `.git` file names the git directory; what lies there is another repository's.
            let text = crate::files::read_capped(&dot_git, 1 << 16).unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            let target = text.lines().find_map(|l| l.trim().strip_prefix("gitdir:")).map(str::trim).unwrap_or("");
            out.push(Indirection {
                file: dot_git,
                what: "a `.git` file's gitdir",
                target: resolve(dir, target),
                raw: target.to_owned(),
            });
            return out;
        }
        Ok(m) if m.is_symlink() => {
            out.push(link(&dot_git));
            return out;
        }
        Ok(_) => dot_git,
        Err(_) => dir.to_owned(),
    };
    symlinks_below(&git_dir, &mut out);
    let mut common = git_dir.clone();
    let commondir = git_dir.join("commondir");
    if let Some(text) = small_text(&commondir) {
        let target = resolve(&git_dir, text.trim());
        if let Target::Path(p) = &target {
            // What gix reads next is read through the links on disk, so the next look is too.
            common = p.canonicalize().unwrap_or_else(|_| p.clone());
            symlinks_below(&common, &mut out);
        }
        out.push(Indirection { file: commondir, what: "commondir", target, raw: text.trim().to_owned() });
    }
    let gitdir = git_dir.join("gitdir");
    if let Some(text) = small_text(&gitdir) {
        let target = resolve(&git_dir, text.trim());
        out.push(Indirection { file: gitdir, what: "a work tree's gitdir", target, raw: text.trim().to_owned() });
    }
    for config in [git_dir.join("config"), common.join("config"), git_dir.join("config.worktree")] {
        config_paths(&config, &mut out);
    }
    let objects = common.join("objects");
    alternates(&objects, &objects, &mut BTreeSet::new(), 0, &mut out);
    for base in [&git_dir, &common] {
        let http = base.join("objects/info/http-alternates");
        if std::fs::symlink_metadata(&http).is_ok() {
            let text = small_text(&http).unwrap_or_default();
            let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(empty)").to_owned();
            out.push(Indirection {
                file: http,
                what: "an http-alternates list",
                target: Target::Elsewhere(first.clone()),
                raw: first,
            });
        }
    }
    if let Ok(read) = std::fs::read_dir(common.join("worktrees")) {
        for e in read.filter_map(Result::ok) {
            let gitdir = e.path().join("gitdir");
            if let Some(text) = small_text(&gitdir) {
                out.push(Indirection {
                    file: gitdir,
                    what: "a linked work tree's gitdir",
                    target: resolve(&e.path(), text.trim()),
                    raw: text.trim().to_owned(),
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The objects a repository's history substitutions name that it does not hold: ids in its
/// grafts files and replace refs' names and targets. git would read a different history
/// through them than the one the commits' hashes commit to, and an object they name that the
/// repository lacks is one only another machine could supply.
#[must_use]
pub fn missing_substitutes(dir: &Path) -> Vec<(String, ObjectId)> {
    let mut out = Vec::new();
    let Ok(repo) = gix::open_opts(dir, gix::open::Options::isolated()) else { return out };
    for base in [repo.git_dir().to_owned(), repo.common_dir().to_owned()] {
        if let Some(text) = small_text(&base.join("info/grafts")) {
            for (n, line) in text.lines().enumerate() {
                for word in line.split_whitespace() {
                    if let Ok(id) = ObjectId::from_hex(word.as_bytes()) {
                        out.push((format!("info/grafts line {}", n + 1), id));
                    }
                }
            }
        }
    }
    if let Ok(platform) = repo.references()
        && let Ok(refs) = platform.prefixed("refs/replace/")
    {
        for r in refs.filter_map(Result::ok) {
            let name = r.name().as_bstr().to_string();
            if let Some(replaced) = name.rsplit('/').next().and_then(|h| ObjectId::from_hex(h.as_bytes()).ok()) {
                out.push((name.clone(), replaced));
            }
            if let Some(id) = r.target().try_id() {
                out.push((name, id.to_owned()));
            }
        }
    }
    out.retain(|(_, id)| !repo.has_object(id));
    out.sort();
    out.dedup();
    out
}

/// A regular file's text; a symlink is listed, never read through.
fn small_text(path: &Path) -> Option<String> {
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let bytes = crate::files::read_capped(path, 1 << 20).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `target` as seen from the directory `base`: absolute, and not normalised, so that a `..`
/// after a symlink climbs from where the link leads, as the system resolves it
/// (`Path::canonicalize` is the judge, in `intake`).
fn resolve(base: &Path, target: &str) -> Target {
    if target.starts_with('~') {
        return Target::Elsewhere(target.to_owned());
    }
    let joined = if Path::new(target).is_absolute() { PathBuf::from(target) } else { base.join(target) };
    Target::Path(std::path::absolute(&joined).unwrap_or(joined))
}

fn link(path: &Path) -> Indirection {
    let raw = std::fs::read_link(path).unwrap_or_default().to_string_lossy().into_owned();
    let base = path.parent().unwrap_or(path);
    Indirection { file: path.to_owned(), what: "a symlink", target: resolve(base, &raw), raw }
}

/// Every symlink below `dir` (not followed), with where it resolves: through any chain of
/// links, when it resolves at all.
fn symlinks_below(dir: &Path, out: &mut Vec<Indirection>) {
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for e in read.filter_map(Result::ok) {
            let Ok(t) = e.file_type() else { continue };
            if t.is_symlink() {
                let mut l = link(&e.path());
                if let Ok(real) = e.path().canonicalize() {
                    l.target = Target::Path(real);
                }
                out.push(l);
            } else if t.is_dir() {
                stack.push(e.path());
            }
        }
    }
}

/// Alternates past this depth are refused as leading elsewhere: git stops at 5, gix does not.
const MAX_ALTERNATES: usize = 64;

/// The alternates of the object directory `objects`, and theirs, recursively. A relative line
/// of a nested alternate is listed against both bases readers use: git resolves it against that
/// alternate's own directory, gix against the first repository's (`first`). Every object
/// directory reached is searched for symlinks too.
fn alternates(objects: &Path, first: &Path, seen: &mut BTreeSet<PathBuf>, depth: usize, out: &mut Vec<Indirection>) {
    let file = objects.join("info/alternates");
    let Some(text) = small_text(&file) else { return };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let line = line.trim_matches('"');
        let mut bases = vec![objects.to_owned()];
        if depth > 0 && !Path::new(line).is_absolute() {
            bases.push(first.to_owned());
        }
        for base in bases {
            let target = if depth >= MAX_ALTERNATES {
                Target::Elsewhere(format!("alternates more than {MAX_ALTERNATES} deep"))
            } else {
                resolve(&base, line)
            };
            if let Target::Path(p) = &target {
                let real = p.canonicalize().unwrap_or_else(|_| p.clone());
                if seen.insert(real.clone()) {
                    symlinks_below(&real, out);
                    alternates(&real, first, seen, depth + 1, out);
                }
            }
            out.push(Indirection { file: file.clone(), what: "an object alternate", target, raw: line.to_owned() });
        }
    }
}

/// The paths a configuration file names for git to read: `include.path`,
/// `includeIf.<condition>.path` and `core.worktree`.
fn config_paths(config: &Path, out: &mut Vec<Indirection>) {
    let Some(text) = small_text(config) else { return };
    let base = config.parent().unwrap_or(config);
    let mut section = String::new();
    for raw in text.lines() {
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let head = rest.split(']').next().unwrap_or_default();
            section = head.split(['"', ' ', '\t']).next().unwrap_or_default().trim().to_ascii_lowercase();
            if let Some((_, after)) = line.split_once(']') {
                key_value(after, &section, config, base, out);
            }
            continue;
        }
        key_value(line, &section, config, base, out);
    }
}

fn key_value(line: &str, section: &str, config: &Path, base: &Path, out: &mut Vec<Indirection>) {
    let Some((key, value)) = line.split_once('=') else { return };
    let key = key.trim().to_ascii_lowercase();
    let value = value.split([';', '#']).next().unwrap_or_default().trim().trim_matches('"');
    let what = match (section, key.as_str()) {
        ("include" | "includeif", "path") => "a configuration include",
        ("core", "worktree") => "core.worktree",
        ("core", "excludesfile" | "attributesfile" | "hookspath") => "a core path setting",
        ("gitoxide", "shallowfile") => "gitoxide.core.shallowFile",
        _ => return,
    };
    if !value.is_empty() {
        out.push(Indirection { file: config.to_owned(), what, target: resolve(base, value), raw: value.to_owned() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_against_the_naming_file_not_the_current_directory() {
        assert_eq!(resolve(Path::new("/a/b/.git"), "../../c"), Target::Path("/a/b/.git/../../c".into()));
        assert_eq!(resolve(Path::new("/a"), "/x/y/../z"), Target::Path("/x/y/../z".into()));
        assert_eq!(resolve(Path::new("/a"), "~/x"), Target::Elsewhere("~/x".into()));
    }

    #[test]
    fn a_bare_repository_lists_commondir_alternates_includes_and_links() {
        let d = tempfile::tempdir().expect("tempdir");
        let g = d.path().join("r.git");
        std::fs::create_dir_all(g.join("objects/info")).expect("objects");
        std::fs::create_dir_all(g.join("refs")).expect("refs");
        std::fs::write(g.join("HEAD"), "ref: refs/heads/main\n").expect("HEAD");
        std::fs::write(g.join("objects/info/alternates"), "/elsewhere/objects\n../../x/objects\n").expect("alt");
        std::fs::write(g.join("config"), "[core]\n\tworktree = /w\n[include]\n\tpath = ../inc\n[user]\n\tname = x\n")
            .expect("config");
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc", g.join("refs/heads")).expect("link");
        let all = indirections(&g);
        let whats: Vec<(&str, &Target)> = all.iter().map(|i| (i.what, &i.target)).collect();
        let abs = |p: &Path| Target::Path(p.to_owned());
        assert!(whats.contains(&("an object alternate", &abs(Path::new("/elsewhere/objects")))), "{whats:?}");
        assert!(whats.contains(&("an object alternate", &abs(&g.join("objects/../../x/objects")))), "{whats:?}");
        assert!(whats.contains(&("core.worktree", &abs(Path::new("/w")))), "{whats:?}");
        assert!(whats.contains(&("a configuration include", &abs(&g.join("../inc")))), "{whats:?}");
        #[cfg(unix)]
        assert!(whats.iter().any(|(w, _)| *w == "a symlink"), "{whats:?}");
    }
}
