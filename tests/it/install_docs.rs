//! Issue 47: what a new user meets. The install commands the README, docs/install.md, the guide
//! and the integrations present as working today name no registry package of ours that is not
//! published and no release tag that does not exist; the registry commands stand only under a
//! heading that says "once published". The same scanner is run on the docs as they were before
//! (`pipx install crossverify-cli` as the first install line, `@v0.1.0` tags), which it must flag.

use crate::support;

use std::collections::BTreeSet;

/// Registry packages of ours that are published: none yet. A release adds its names here, and
/// the docs may then present them outside "once published".
const PUBLISHED: &[&str] = &[];

/// The files a new user reads for installing and wiring up crossverify.
const FILES: &[&str] = &[
    "README.md",
    "docs/install.md",
    "docs/guide.md",
    "docs/integrations.md",
    "docs/scale.md",
    "action.yml",
    ".pre-commit-hooks.yaml",
    "docs/examples/github/crossverify.yml",
    "docs/examples/github/crossverify-nightly.yml",
    "docs/examples/gitlab/crossverify.gitlab-ci.yml",
    "docs/examples/argo/crossverify-shards.yaml",
    "docs/examples/pre-commit/pre-commit-config.yaml",
    "docs/examples/pre-commit/pre-commit-config-system.yaml",
];

/// One line a reader meets: its commands (the whole line in code and YAML, each inline code
/// span in Markdown prose), and whether a heading above it says "once published".
struct Line {
    number: usize,
    text: String,
    commands: Vec<String>,
    once_published: bool,
}

/// The inline code spans of a line of Markdown prose.
fn spans(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The lines of a Markdown file (fenced code and inline code spans; prose for the claims), or
/// every line of any other file, each with its "once published" state.
fn lines(path: &str, text: &str) -> Vec<Line> {
    let markdown = path.ends_with(".md");
    let mut headings: Vec<(usize, bool)> = Vec::new();
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, raw) in text.lines().enumerate() {
        if markdown && raw.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if markdown && !fenced && raw.starts_with('#') {
            let level = raw.chars().take_while(|&c| c == '#').count();
            headings.retain(|&(l, _)| l < level);
            headings.push((level, raw.to_lowercase().contains("once published")));
        }
        let commands = if markdown && !fenced { spans(raw) } else { vec![raw.to_owned()] };
        out.push(Line {
            number: i + 1,
            text: raw.to_owned(),
            commands,
            once_published: headings.iter().any(|&(_, o)| o),
        });
    }
    out
}

/// A package name as the registries compare them.
fn normalise(name: &str) -> String {
    let name = name.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    let end = name.find(|c: char| "=<>~![;@ ".contains(c)).unwrap_or(name.len());
    name[..end].to_lowercase().replace('_', "-")
}

fn ours(name: &str) -> bool {
    let n = normalise(name);
    (n == "crossverify" || n.starts_with("crossverify-")) && !PUBLISHED.contains(&n.as_str())
}

/// cargo install's options that take a value (the value is not a crate name).
const CARGO_VALUE_OPTIONS: &[&str] = &[
    "--features",
    "-F",
    "--root",
    "--version",
    "--vers",
    "--git",
    "--rev",
    "--branch",
    "--tag",
    "--path",
    "--bin",
    "--example",
    "--profile",
    "--target",
    "--target-dir",
    "--registry",
    "--index",
    "-j",
    "--jobs",
    "--config",
];

/// The registry packages of ours an install command on this line names (none for an install
/// from a path, a git repository or a wheel file).
fn registry_installs(line: &str) -> Vec<String> {
    let code = line.split(" # ").next().unwrap_or(line);
    // Words as prose and YAML wrap them: "(`pipx", "crossverify`):".
    let words: Vec<&str> = code.split_whitespace().map(|w| w.trim_matches(|c| "`()[]\"',;:".contains(c))).collect();
    let mut found = Vec::new();
    // pre-commit's `language: python` hooks pip-install what they list.
    if let Some((_, deps)) = code.split_once("additional_dependencies:") {
        let deps = deps.trim().trim_start_matches('[').trim_end_matches(']');
        found.extend(deps.split(',').filter(|d| ours(d.trim())).map(|d| normalise(d.trim())));
    }
    for (i, &w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied();
        let rest = &words[(i + 2).min(words.len())..];
        // pip, pipx, pip3, `uv tool`/`uv pip`, `python -m pip`: every argument that is not an
        // option, a path or a file is a package from the index.
        let pip_like = matches!(w, "pip" | "pip3" | "pipx" | "uv")
            || w.ends_with("/pip")
            || w.ends_with("/pip3")
            || w.ends_with("/pipx");
        if pip_like && matches!(next, Some("install") | Some("tool") | Some("pip")) {
            let args = if next == Some("install") { rest } else { rest.get(1..).unwrap_or(&[]) };
            for &a in args {
                if a.starts_with('-') || a.contains('/') || a.ends_with(".whl") || a.ends_with(".tar.gz") || a == "." {
                    continue;
                }
                if ours(a) {
                    found.push(normalise(a));
                }
            }
        }
        if w == "cargo" && matches!(next, Some("install") | Some("binstall")) {
            let args: Vec<&str> = rest.to_vec();
            if args
                .iter()
                .any(|a| matches!(*a, "--path" | "--git") || a.starts_with("--path=") || a.starts_with("--git="))
            {
                continue;
            }
            let mut skip = false;
            for a in args {
                if skip {
                    skip = false;
                } else if CARGO_VALUE_OPTIONS.contains(&a) {
                    skip = true;
                } else if !a.starts_with('-') && ours(a) {
                    found.push(normalise(a));
                }
            }
        }
    }
    found
}

/// The refs of this repository a line pins: `uses: crossverify/crossverify@REF`, a pre-commit
/// `rev: REF`, cargo's `--tag`/`--rev`/`--branch REF`.
fn refs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, &w) in words.iter().enumerate() {
        if let Some((_, r)) = w.split_once("crossverify/crossverify@") {
            out.push(ref_name(r));
        }
        if matches!(w, "rev:" | "--tag" | "--rev" | "--branch")
            && let Some(r) = words.get(i + 1)
        {
            out.push(ref_name(r.trim_start_matches(['`', '"'])));
        }
    }
    out
}

/// A ref as written, up to the punctuation of the sentence or YAML around it.
fn ref_name(text: &str) -> String {
    text.chars().take_while(|c| c.is_ascii_alphanumeric() || "._-/{}$".contains(*c)).collect()
}

/// A ref a reader can use today: a tag that exists, the branch `main`, or a placeholder the
/// reader fills in (COMMIT, `$VAR`, `{{…}}`).
fn ref_exists(r: &str, tags: &BTreeSet<String>) -> bool {
    r == "main"
        || tags.contains(r)
        || r.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        || r.starts_with('$')
        || r.starts_with("{{")
}

/// Prose that says a registry package of ours exists.
fn claims_published(line: &str) -> bool {
    let l = line.to_lowercase();
    ["is published on pypi", "published on pypi as", "published on crates.io", "the binary from pypi"]
        .iter()
        .any(|p| l.contains(p))
}

/// Every problem in one file: (line number, what is wrong, the line).
fn problems(path: &str, text: &str, tags: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines(path, text) {
        let mut say = |what: String| out.push(format!("{path}:{}: {what}: {}", line.number, line.text.trim()));
        // A warning against a command ("Never `pip install crossverify`") presents nothing.
        let warning = line.text.to_lowercase().contains("never");
        if !line.once_published && !warning {
            for p in line.commands.iter().flat_map(|c| registry_installs(c)) {
                say(format!("installs `{p}` from a registry, where it is not published, outside \"Once published\""));
            }
            if claims_published(&line.text) {
                say("says a package of ours is published".into());
            }
        }
        for r in line.commands.iter().flat_map(|c| refs(c)) {
            if !ref_exists(&r, tags) {
                say(format!("names the ref `{r}`, which is neither a tag of this repository nor `main`"));
            }
        }
    }
    out
}

fn tags() -> BTreeSet<String> {
    let out = std::process::Command::new("git")
        .args(["tag", "--list"])
        .current_dir(support::root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git tag --list");
    assert!(out.status.success(), "git tag --list failed");
    String::from_utf8(out.stdout).expect("tags are UTF-8").lines().map(str::to_owned).collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(support::root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_install_commands_presented_as_working_name_nothing_unpublished_and_no_missing_tag() {
    let tags = tags();
    let found: Vec<String> = FILES.iter().flat_map(|f| problems(f, &read(f), &tags)).collect();
    assert!(found.is_empty(), "docs present what a new user cannot do today:\n{}", found.join("\n"));
}

#[test]
fn the_registry_commands_are_kept_under_once_published() {
    // The README and docs/install.md still show what will work once published, under that
    // heading: the scanner sees them there, so the check above is not passing for want of any.
    for path in ["README.md", "docs/install.md"] {
        let text = read(path);
        let kept: Vec<String> = lines(path, &text)
            .into_iter()
            .filter(|l| l.once_published)
            .flat_map(|l| registry_installs(&l.text))
            .collect();
        assert!(
            kept.contains(&"crossverify-cli".to_owned()),
            "{path}: no `pipx install crossverify-cli` under Once published"
        );
        assert!(
            kept.contains(&"crossverify".to_owned()),
            "{path}: no `cargo install crossverify` under Once published"
        );
    }
}

#[test]
fn the_readme_install_is_what_ci_runs() {
    // The first command of the README's Install section, and the demo before it, are the ones
    // .ci/integrations runs (the demo it reads from the README itself).
    let readme = read("README.md");
    let install = &readme[readme.find("## Install\n").expect("README has an Install section")..];
    let first = lines("README.md", install)
        .into_iter()
        .find(|l| l.text.starts_with("cargo install"))
        .expect("README's Install section starts with a cargo install");
    let command = first.text.split(" # ").next().unwrap_or("").trim().to_owned();
    assert_eq!(command, "cargo install --locked --path .");
    let ci = read(".ci/integrations");
    assert!(ci.contains(&format!("{command} --root")), ".ci/integrations does not run `{command}`");
    assert!(ci.contains("## Two commands"), ".ci/integrations does not take the demo from the README");
}

#[test]
fn the_scanner_flags_what_the_docs_said_before_issue_47() {
    let tags = BTreeSet::from(["v0.0.9".to_owned()]);
    let before = "## Install\n\n```sh\npipx install crossverify-cli              # the binary from PyPI\n\
                  cargo install --locked crossverify        # crates.io, once published\n```\n\n\
                  The binary is published on PyPI as **`crossverify-cli`**.\n\n\
                  A GitHub Action (`uses: crossverify/crossverify@v0.1.0`).\n";
    let found = problems("README.md", before, &tags);
    let at = |n: &str, what: &str| found.iter().any(|f| f.starts_with(&format!("README.md:{n}: {what}")));
    assert!(at("4", "installs `crossverify-cli`") && at("4", "says a package of ours is published"), "{found:#?}");
    assert!(at("5", "installs `crossverify`") && at("8", "says") && at("10", "names the ref `v0.1.0`"), "{found:#?}");
    assert_eq!(found.len(), 5, "{found:#?}");
    let hooks = "# The hook runs the `crossverify` on PATH (`pipx install crossverify`): building it\n";
    assert_eq!(problems(".pre-commit-hooks.yaml", hooks, &tags).len(), 1);
    let yaml = "    rev: v0.1.0\n        additional_dependencies: [crossverify-cli==0.1.0]\n\
                - /tmp/cv/bin/pip install --quiet \"crossverify-cli==${V}\"\n  pip install crossverify-cli\n";
    // The tag, pre-commit's own pip install (`additional_dependencies`) and the two pip lines.
    let found = problems("x.yaml", yaml, &tags);
    assert_eq!(found.len(), 4, "{found:#?}");
    // What stays allowed: installs from a path, git or a wheel file, tags that exist, `main`,
    // placeholders, and the registry lines under "Once published".
    let fine = "```sh\ncargo install --locked --path . --features sigstore\n\
                cargo install --locked --git URL --rev COMMIT crossverify\npipx install dist/crossverify_cli-*.whl\n\
                pip install maturin\n```\nuses: crossverify/crossverify@v0.0.9 and @main\n\n\
                ### Once published\n\n```sh\npipx install crossverify-cli\ncargo install --locked crossverify\n```\n";
    assert_eq!(problems("README.md", fine, &tags), Vec::<String>::new());
}
