//! `crossaudit.yml`, in the v1 reference shape and the product (schema-2) shape.

use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

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
            "../../test-vectors/real/crossaudit/examples/minimal/science-repo/crossaudit.yml"
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
    fn refuses_non_mappings_and_bad_rounds() {
        assert!(Config::parse("- a\n- b\n").is_err());
        assert!(Config::parse("a: [\n").is_err());
        assert!(Config::parse("max_rounds: three\n").is_err());
        assert!(Config::parse("").is_err());
    }
}
