//! Revisions: what a user typed (`HEAD`, `main~2`, an abbreviated id, a tag) resolved to a
//! commit, through gix's parser for the files ref format and through the reftable reader for
//! git's reftable format, with gix's messages reworded for someone who typed a revision.

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::error::{Error, Result};
use super::reftable;
use super::repo::{Repo, first_line};

impl Repo {
    /// Resolves a revision (`HEAD`, a branch, a full or abbreviated id, `main~2`) to a commit.
    ///
    /// # Errors
    /// [`Error::Revision`] when it does not name a commit.
    pub fn resolve(&self, rev: &str) -> Result<ObjectId> {
        let spec_err = |reason: String| Error::Revision { path: self.path.clone(), rev: rev.to_owned(), reason };
        let rewritten;
        let expr = match &self.reftable {
            Some(refs) => {
                rewritten = reftable_rev(refs, rev).map_err(spec_err)?;
                rewritten.as_str()
            }
            None => rev,
        };
        // gix's top-level message is about the parser ("couldn't parse revision"); its first
        // cause says what is actually wrong ("Reference \"x\" could not be found").
        let id = self
            .inner
            .rev_parse_single(expr)
            .map_err(|e| {
                // An unborn HEAD fails every revision with gix's "Could not peel 'HEAD'": say
                // what the user can act on instead.
                // (Under reftable the `HEAD` file is a placeholder that always looks unborn;
                // `reftable_rev` has already answered for an unborn HEAD there.)
                if self.reftable.is_none() && self.inner.head().is_ok_and(|h| h.is_unborn()) {
                    return spec_err("the repository has no commits".to_owned());
                }
                let cause = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
                spec_err(revision_reason(&first_line(&cause)))
            })?
            .detach();
        let obj = self
            .inner
            .try_find_object(id)
            .map_err(|e| spec_err(e.to_string()))?
            .ok_or_else(|| self.missing(id, "object"))?;
        // Name the kind the revision reached rather than gix's peeling trace ("Last
        // encountered object … was blob").
        let named = match obj.kind {
            gix::object::Kind::Blob => Some(("blob", "a file's contents")),
            gix::object::Kind::Tree => Some(("tree", "a directory")),
            gix::object::Kind::Commit | gix::object::Kind::Tag => None,
        };
        if let Some((kind, what)) = named {
            return Err(spec_err(format!("it names the {kind} {} ({what}), not a commit", short_id(id))));
        }
        let peeled = obj.peel_to_kind(gix::object::Kind::Commit).map_err(|e| {
            let reason = first_line(&e.to_string());
            spec_err(if reason.contains("Last encountered object") {
                "it is a tag that does not point to a commit".to_owned()
            } else {
                reason
            })
        })?;
        Ok(peeled.id)
    }
}

/// Most symbolic refs followed before giving up (git's own limit).
const MAX_SYMREF_DEPTH: usize = 5;

/// `rev` with its leading ref name replaced by the id it holds in `refs`, so that gix's parser
/// (which cannot read reftable) sees only an id and the navigation after it (`~2`, `^{commit}`).
/// The name is looked up as `git rev-parse` does: as given, then under `refs/`, `refs/tags/`,
/// `refs/heads/`, `refs/remotes/` and `refs/remotes/<name>/HEAD`.
fn reftable_rev(refs: &reftable::RefMap, rev: &str) -> std::result::Result<String, String> {
    // A ref name cannot contain `~`, `^`, `:` or `@{`, so the first of them ends it.
    let cut = rev.find(['~', '^', ':']).into_iter().chain(rev.find("@{")).min().unwrap_or(rev.len());
    let (name, rest) = rev.split_at(cut);
    // The reader reads ref blocks only: a reflog entry would be resolved against nothing (or
    // worse, against the id the name holds now). Said, with the command that resolves it.
    if rest.starts_with("@{") {
        return Err(format!(
            "reflog entries (`@{{…}}`) are not read from reftable ref storage; resolve it with `git rev-parse '{rev}'` and give the commit id"
        ));
    }
    if name.is_empty() {
        return Ok(rev.to_owned());
    }
    let name = if name == "@" { "HEAD" } else { name };
    // A full-length id names its object even where a ref has that name, as in `git rev-parse`.
    if matches!(name.len(), 40 | 64) && name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(rev.to_owned());
    }
    let candidates = [
        name.to_owned(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ];
    let Some((mut current, mut value)) =
        candidates.iter().find_map(|c| refs.get_key_value(c.as_bytes().as_bstr()).map(|(k, v)| (k.clone(), v)))
    else {
        if name.len() >= 4 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(rev.to_owned());
        }
        return Err(format!("no branch, tag or commit is called `{name}`"));
    };
    for _ in 0..=MAX_SYMREF_DEPTH {
        match value {
            reftable::RefValue::Id(id) => return Ok(format!("{id}{rest}")),
            reftable::RefValue::Symbolic(target) => match refs.get(target) {
                Some(next) => {
                    current = target.clone();
                    value = next;
                }
                None if name == "HEAD" => return Err("the repository has no commits".to_owned()),
                None => return Err(format!("`{current}` points to `{target}`, which does not exist")),
            },
        }
    }
    Err(format!("`{name}` is a chain of more than {MAX_SYMREF_DEPTH} symbolic refs"))
}

/// gix's revision-parser messages in the words of someone who typed a revision.
fn revision_reason(cause: &str) -> String {
    if let Some(name) = cause.strip_prefix("Reference \"").and_then(|r| r.strip_suffix("\" could not be found")) {
        return format!("no branch, tag or commit is called `{name}`");
    }
    // "Commit 54db207 has 1 ancestors along the first parent and ancestor number 5 is out of range"
    let words: Vec<&str> = cause.split(' ').collect();
    if let [
        "Commit",
        id,
        "has",
        n,
        "ancestors",
        "along",
        "the",
        "first",
        "parent",
        "and",
        "ancestor",
        "number",
        m,
        "is",
        "out",
        "of",
        "range",
    ] = words.as_slice()
    {
        return format!("the history before {id} is only {n} commit(s) deep along the first parent, not {m}");
    }
    cause.to_owned()
}

fn short_id(id: ObjectId) -> String {
    let hex = id.to_string();
    hex.get(..12).unwrap_or(&hex).to_owned()
}
