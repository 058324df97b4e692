//! `crossaudit.yml`, in the v1 reference shape and the product (schema-2) shape.

use std::collections::BTreeMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Yaml, YamlLoader};

/// Nodes a document may hold once its aliases are expanded. The loader copies an anchored node
/// at every alias, so nine nested aliases of ten (a "billion laughs") would take gigabytes; a
/// real `crossaudit.yml` has a few dozen nodes.
const MAX_EXPANDED_NODES: u64 = 100_000;

/// The largest `crossaudit.yml` read. A configuration is a few kilobytes; the YAML scanner
/// queues a token (about 48 bytes) for every item of a flow collection before the node count
/// can refuse it, so the size bounds its memory (about 96 bytes per input byte, measured by
/// `tests/memory_budget/parsers.rs`).
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

fn within_size(text: &str) -> Result<(), Error> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(Error(format!(
            "{} bytes, larger than the {} KiB a configuration may be; refused before reading",
            text.len(),
            MAX_CONFIG_BYTES >> 10
        )));
    }
    Ok(())
}

/// The parts of `crossaudit.yml` a verifier needs. Absent keys stay `None`: absent evidence
/// never turns into a default in anyone's favour, except where the protocol defines one
/// (`max_rounds` 3, `ledger.dir` `cycles`), which [`Config::max_rounds`] and friends apply and
/// say so.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// `generator.vendor`.
    pub generator_vendor: Option<String>,
    /// `auditor.vendor`.
    pub auditor_vendor: Option<String>,
    /// `auditor.provider` (schema 2).
    pub auditor_provider: Option<String>,
    /// `auditor.model` (schema 2).
    pub auditor_model: Option<String>,
    /// Vendors of `generator.fallbacks` (v4).
    pub generator_fallbacks: Vec<String>,
    /// Vendors of `auditor.fallbacks` (v4).
    pub auditor_fallbacks: Vec<String>,
    /// `loop.max_rounds` (v1) or `max_rounds` (schema 2), as written.
    pub max_rounds: Option<i64>,
    /// `science_repo` (schema 2).
    pub science_repo: Option<String>,
    /// `audit.repo` (v1) or `audit_repo` (schema 2).
    pub audit_repo: Option<String>,
    /// `constitution` (schema 2).
    pub constitution: Option<String>,
    /// `ledger.dir` (schema 2).
    pub ledger_dir: Option<String>,
    /// `state.dir` (schema 2).
    pub state_dir: Option<String>,
    /// `scope.dirs` (schema 2).
    pub scope_dirs: Option<Vec<String>>,
    /// `isolation.minimum` (schema 2): dimension → required.
    pub isolation_minimum: BTreeMap<String, bool>,
    /// Top-level keys, for shape detection.
    pub keys: Vec<String>,
    /// `checks` (schema 2): the deterministic checks a round runs, when the file lists them.
    pub checks: Option<Vec<String>>,
}

/// Why a configuration could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

impl Config {
    /// Parses `crossaudit.yml` text.
    ///
    /// # Errors
    /// Invalid YAML, several documents, or a top level that is not a mapping.
    pub fn parse(text: &str) -> Result<Config, Error> {
        within_size(text)?;
        expanded_size(text)?;
        let docs = YamlLoader::load_from_str(text).map_err(|e| Error(format!("invalid YAML: {e}")))?;
        let doc = match docs.as_slice() {
            [d] => d,
            [] => return Err(Error("empty document".into())),
            _ => return Err(Error(format!("{} YAML documents, expected one", docs.len()))),
        };
        let Yaml::Hash(top) = doc else {
            return Err(Error("top level is not a mapping".into()));
        };
        let get = |path: &[&str]| -> Option<&Yaml> {
            let mut cur = doc;
            for k in path {
                cur = match cur {
                    Yaml::Hash(h) => h.get(&Yaml::String((*k).to_owned()))?,
                    _ => return None,
                };
            }
            Some(cur)
        };
        let s = |path: &[&str]| get(path).and_then(scalar);
        let fallbacks = |role: &str| -> Vec<String> {
            match get(&[role, "fallbacks"]) {
                Some(Yaml::Array(a)) => {
                    a.iter().filter_map(|f| f.as_hash()?.get(&Yaml::String("vendor".into())).and_then(scalar)).collect()
                }
                _ => Vec::new(),
            }
        };
        let max_rounds = match get(&["max_rounds"]).or_else(|| get(&["loop", "max_rounds"])) {
            Some(Yaml::Integer(i)) => Some(*i),
            Some(other) => {
                return Err(Error(format!("max_rounds is not an integer: {}", scalar(other).unwrap_or_default())));
            }
            None => None,
        };
        let mut isolation_minimum = BTreeMap::new();
        if let Some(Yaml::Hash(h)) = get(&["isolation", "minimum"]) {
            for (k, v) in h {
                if let (Some(k), Some(v)) = (k.as_str(), v.as_bool()) {
                    isolation_minimum.insert(k.to_owned(), v);
                }
            }
        }
        let scope_dirs = match get(&["scope", "dirs"]) {
            Some(Yaml::Array(a)) => Some(a.iter().filter_map(scalar).collect()),
            _ => None,
        };
        Ok(Config {
            generator_vendor: s(&["generator", "vendor"]),
            auditor_vendor: s(&["auditor", "vendor"]),
            auditor_provider: s(&["auditor", "provider"]),
            auditor_model: s(&["auditor", "model"]),
            generator_fallbacks: fallbacks("generator"),
            auditor_fallbacks: fallbacks("auditor"),
            max_rounds,
            science_repo: s(&["science_repo"]),
            audit_repo: s(&["audit_repo"]).or_else(|| s(&["audit", "repo"])),
            constitution: s(&["constitution"]),
            ledger_dir: s(&["ledger", "dir"]),
            state_dir: s(&["state", "dir"]),
            scope_dirs,
            isolation_minimum,
            keys: top.keys().filter_map(|k| k.as_str().map(str::to_owned)).collect(),
            checks: match get(&["checks"]) {
                Some(Yaml::Array(a)) => a.iter().map(|c| c.as_str().map(str::to_owned)).collect(),
                _ => None,
            },
        })
    }

    /// Parses a product (schema-2) `crossaudit.yml`, refusing unknown keys where the product's
    /// loader (`crossaudit/config.py`, `load` and `_role`) refuses them: at the top level, in
    /// `auditor`, `generator` and their `fallbacks` entries, `isolation.minimum`, `resilience`
    /// and `budgets`. The product never runs with such a file, so a receipt over it was not
    /// produced by the product's rules.
    ///
    /// # Errors
    /// As [`Config::parse`], and the first unknown key set, worded as the product words it.
    pub fn parse_product(text: &str) -> Result<Config, Error> {
        let cfg = Config::parse(text)?;
        let docs = YamlLoader::load_from_str(text).map_err(|e| Error(format!("invalid YAML: {e}")))?;
        match docs.first().and_then(product_unknown_keys) {
            Some(why) => Err(Error(why)),
            None => Ok(cfg),
        }
    }

    /// `max_rounds`, defaulting to the protocol's 3 when the file does not say.
    #[must_use]
    pub fn max_rounds(&self) -> i64 {
        self.max_rounds.unwrap_or(3)
    }

    /// `ledger.dir`, default `cycles`.
    #[must_use]
    pub fn ledger_dir(&self) -> &str {
        self.ledger_dir.as_deref().unwrap_or("cycles")
    }

    /// `state.dir`, default `.crossaudit`.
    #[must_use]
    pub fn state_dir(&self) -> &str {
        self.state_dir.as_deref().unwrap_or(".crossaudit")
    }

    /// Constitution path, default `AUDIT_RULES.md`.
    #[must_use]
    pub fn constitution(&self) -> &str {
        self.constitution.as_deref().unwrap_or("AUDIT_RULES.md")
    }
}

const PRODUCT_TOP: [&str; 15] = [
    "version",
    "science_repo",
    "audit_repo",
    "constitution",
    "max_rounds",
    "auditor",
    "generator",
    "isolation",
    "state",
    "ledger",
    "scope",
    "checks",
    "plugins",
    "resilience",
    "budgets",
];
const PRODUCT_ROLE: [&str; 7] = ["provider", "model", "base_url", "key_env", "vendor", "reasoning_effort", "fallbacks"];
const PRODUCT_ISOLATION: [&str; 3] = ["parametric", "contextual", "permissive"];
const PRODUCT_RESILIENCE: [&str; 6] = [
    "max_attempts",
    "initial_backoff_seconds",
    "max_backoff_seconds",
    "retry_after_cap_seconds",
    "circuit_breaker_failures",
    "circuit_breaker_cooldown_seconds",
];
const PRODUCT_BUDGETS: [&str; 4] =
    ["daily_token_warning", "daily_token_limit", "monthly_cost_warning_usd", "monthly_cost_limit_usd"];

/// Keys of mapping `y` outside `allowed`, sorted and shown as Python shows a list of strings.
fn unknown_in(y: &Yaml, allowed: &[&str]) -> Option<String> {
    let Yaml::Hash(h) = y else { return None };
    let mut bad: Vec<String> = h
        .keys()
        .map(|k| scalar(k).unwrap_or_else(|| format!("{k:?}")))
        .filter(|k| !allowed.contains(&k.as_str()))
        .collect();
    bad.sort();
    (!bad.is_empty()).then(|| format!("[{}]", bad.iter().map(|k| format!("'{k}'")).collect::<Vec<_>>().join(", ")))
}

fn role_unknown_keys(y: &Yaml, name: &str) -> Option<String> {
    if let Some(bad) = unknown_in(y, &PRODUCT_ROLE) {
        return Some(format!("{name}: unknown keys {bad}"));
    }
    let Some(Yaml::Array(rows)) = y.as_hash().and_then(|h| h.get(&Yaml::String("fallbacks".into()))) else {
        return None;
    };
    rows.iter().enumerate().find_map(|(i, row)| {
        unknown_in(row, &PRODUCT_ROLE).map(|bad| format!("{name}.fallbacks[{i}]: unknown keys {bad}"))
    })
}

/// The product's first refusal of an unknown key in `doc`, in the order its loader checks.
fn product_unknown_keys(doc: &Yaml) -> Option<String> {
    let get = |k: &str| doc.as_hash().and_then(|h| h.get(&Yaml::String(k.into())));
    if let Some(bad) = unknown_in(doc, &PRODUCT_TOP) {
        return Some(format!("unknown top-level keys {bad}"));
    }
    let minimum = get("isolation").and_then(|i| i.as_hash()).and_then(|h| h.get(&Yaml::String("minimum".into())));
    get("auditor")
        .and_then(|r| role_unknown_keys(r, "auditor"))
        .or_else(|| get("generator").and_then(|r| role_unknown_keys(r, "generator")))
        .or_else(|| {
            minimum
                .and_then(|m| unknown_in(m, &PRODUCT_ISOLATION))
                .map(|_| format!("isolation.minimum keys must be within ['{}']", PRODUCT_ISOLATION.join("', '")))
        })
        .or_else(|| {
            get("resilience")
                .and_then(|r| unknown_in(r, &PRODUCT_RESILIENCE))
                .map(|b| format!("resilience: unknown keys {b}"))
        })
        .or_else(|| {
            get("budgets").and_then(|r| unknown_in(r, &PRODUCT_BUDGETS)).map(|b| format!("budgets: unknown keys {b}"))
        })
}

/// Counts the nodes of `text` with every alias expanded, without building them, and refuses a
/// document beyond [`MAX_EXPANDED_NODES`] before the loader copies anything.
fn expanded_size(text: &str) -> Result<u64, Error> {
    let mut counter = NodeCounter::default();
    // Scan errors are left to the loader, which reports them with their position.
    let _ = Parser::new_from_str(text).load(&mut counter, true);
    if counter.total > MAX_EXPANDED_NODES {
        return Err(Error(format!(
            "aliases expand to more than {MAX_EXPANDED_NODES} nodes (an alias bomb?); refused before expanding"
        )));
    }
    Ok(counter.total)
}

/// Sizes of open collections and of every anchor, in nodes after expansion.
#[derive(Default)]
struct NodeCounter {
    open: Vec<(usize, u64)>,
    anchors: BTreeMap<usize, u64>,
    total: u64,
}

impl NodeCounter {
    fn close(&mut self, anchor: usize, size: u64) {
        if anchor > 0 {
            self.anchors.insert(anchor, size);
        }
        match self.open.last_mut() {
            Some((_, n)) => *n = n.saturating_add(size),
            None => self.total = self.total.saturating_add(size),
        }
    }
}

impl MarkedEventReceiver for NodeCounter {
    fn on_event(&mut self, ev: Event, _mark: Marker) {
        if self.total > MAX_EXPANDED_NODES {
            return;
        }
        match ev {
            Event::SequenceStart(a, _) | Event::MappingStart(a, _) => self.open.push((a, 1)),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((a, n)) = self.open.pop() {
                    self.close(a, n);
                }
            }
            Event::Scalar(_, _, a, _) => self.close(a, 1),
            Event::Alias(a) => {
                let n = self.anchors.get(&a).copied().unwrap_or(1);
                self.close(0, n);
            }
            _ => {}
        }
        // A bomb nests: the running size of open collections counts too.
        let open: u64 = self.open.iter().fold(0, |acc, (_, n)| acc.saturating_add(*n));
        if self.total.saturating_add(open) > MAX_EXPANDED_NODES {
            self.total = MAX_EXPANDED_NODES + 1;
        }
    }
}

fn scalar(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_shape() {
        let c = Config::parse(include_str!(
            "../../../test-vectors/real/crossaudit/examples/minimal/science-repo/crossaudit.yml"
        ))
        .unwrap();
        assert_eq!(c.generator_vendor.as_deref(), Some("anthropic"));
        assert_eq!(c.auditor_vendor.as_deref(), Some("openai"));
        assert_eq!(c.max_rounds, Some(3));
        assert_eq!(c.audit_repo.as_deref(), Some("REPLACE-USER/demo-audit"));
    }

    #[test]
    fn schema2_shape_with_fallbacks() {
        let c = Config::parse(
            "version: 1\nscience_repo: lab/x\nconstitution: RULES.md\nmax_rounds: 2\nauditor:\n  vendor: \"OpenAI \"\n  provider: p\n  model: m\n  key_env: K\n  fallbacks:\n    - {provider: q, model: n, vendor: google, key_env: K2}\ngenerator: {vendor: anthropic}\nisolation:\n  minimum: {parametric: true, permissive: false}\nledger: {dir: audits}\nscope: {dirs: [experiments, data]}\n",
        )
        .unwrap();
        assert_eq!(c.auditor_vendor.as_deref(), Some("OpenAI "));
        assert_eq!(c.auditor_fallbacks, vec!["google".to_owned()]);
        assert_eq!(c.max_rounds(), 2);
        assert_eq!(c.ledger_dir(), "audits");
        assert_eq!(c.constitution(), "RULES.md");
        assert_eq!(c.scope_dirs, Some(vec!["experiments".to_owned(), "data".to_owned()]));
        assert_eq!(c.isolation_minimum.get("parametric"), Some(&true));
    }

    #[test]
    fn alias_bomb_is_refused_quickly() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (prev, next) in
            ["a", "b", "c", "d", "e", "f", "g", "h", "i"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i", "j"])
        {
            let row = format!(
                "{next}: &{next} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            );
            text.push_str(&row);
        }
        let t = std::time::Instant::now();
        let e = Config::parse(&text).unwrap_err();
        assert!(e.0.contains("alias bomb"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        // Aliases within the bound are still read.
        let c = Config::parse("g: &v openai\ngenerator: {vendor: anthropic}\nauditor: {vendor: *v}\n").unwrap();
        assert_eq!(c.auditor_vendor.as_deref(), Some("openai"));
    }

    #[test]
    fn product_refuses_unknown_keys_where_the_product_does() {
        let base = "version: 1\nscience_repo: lab/x\nconstitution: R.md\nauditor: {provider: p, model: m, vendor: v, key_env: K}\n";
        assert!(Config::parse_product(base).is_ok());
        let cases = [
            ("colour: red\n", "unknown top-level keys ['colour']"),
            ("generator: {vendor: a, temperature: 0}\n", "generator: unknown keys ['temperature']"),
            ("isolation: {minimum: {social: true}}\n", "isolation.minimum keys must be within"),
            ("resilience: {retries: 2}\n", "resilience: unknown keys ['retries']"),
            ("budgets: {yearly: 1}\n", "budgets: unknown keys ['yearly']"),
            (
                "generator:\n  vendor: a\n  fallbacks:\n    - {provider: p, model: m, vendor: w, key_env: K, x: 1}\n",
                "generator.fallbacks[0]: unknown keys ['x']",
            ),
        ];
        for (extra, want) in cases {
            let e = Config::parse_product(&format!("{base}{extra}")).unwrap_err();
            assert!(e.0.starts_with(want), "{extra}: {e}");
            // The v1 reader has no such rule: its files carry keys of their own.
            assert!(Config::parse(&format!("{base}{extra}")).is_ok());
        }
        // Sub-keys the product does not check stay accepted.
        assert!(Config::parse_product(&format!("{base}state: {{dir: s, colour: red}}\n")).is_ok());
    }

    #[test]
    fn refuses_non_mappings_and_bad_rounds() {
        assert!(Config::parse("- a\n- b\n").is_err());
        assert!(Config::parse("a: [\n").is_err());
        assert!(Config::parse("max_rounds: three\n").is_err());
        assert!(Config::parse("").is_err());
    }
}
