//! Tampers applied to minted records: as if minted so, forged before the receipt, or
//! committed later.

use serde_json::{Map, Number, Value};

use super::minter::*;
use super::scenario::*;
use crate::fixture::{self, Error};
use crate::pyjson;

impl Minter {
    /// Applies forge-mode tampers to a cycle file before the receipt binds it: the forger
    /// also wrote the receipt, so every digest agrees with the forged text.
    pub(super) fn forged(&self, n: usize, file: &str, text: String) -> String {
        self.s
            .tamper
            .iter()
            .filter(|t| t.mode == "forge" && t.cycle == Some(n) && t.file == file)
            .fold(text, |t, tp| apply(&self.expand(tp), &t))
    }

    /// Applies rewrite-mode tampers to a cycle file as it is first written (`None`: the
    /// tamper deletes it).
    pub(super) fn tampered(&self, n: usize, file: &str, text: String) -> Option<String> {
        let mut t = text;
        for tp in self.s.tamper.iter().filter(|t| t.mode == "rewrite" && t.cycle == Some(n) && t.file == file) {
            if tp.op == "delete" {
                return None;
            }
            t = apply(&self.expand(tp), &t);
        }
        Some(t)
    }

    /// Expands `{sha:N}`, `{cycle_id:N}`, `{receipt:N}` (the identity the controller
    /// recorded), `{dir:N}` and `{constitution:N}` in a tamper's strings, N being the 1-based
    /// cycle number.
    pub(super) fn expand(&self, t: &Tamper) -> Tamper {
        let sub = |s: &str| -> String {
            let mut out = s.to_owned();
            for (i, m) in self.minted.iter().enumerate() {
                let n = i + 1;
                out = out
                    .replace(&format!("{{sha:{n}}}"), &m.sha)
                    .replace(&format!("{{cycle_id:{n}}}"), &m.cycle_id)
                    .replace(&format!("{{receipt:{n}}}"), &m.identity)
                    .replace(&format!("{{dir:{n}}}"), &m.dir)
                    .replace(&format!("{{constitution:{n}}}"), &m.constitution);
            }
            out
        };
        let mut t = t.clone();
        t.pointer = t.pointer.as_deref().map(sub);
        t.from = t.from.as_deref().map(sub);
        t.to = t.to.as_deref().map(sub);
        t.text = t.text.as_deref().map(sub);
        t.value = t.value.map(|v| match v {
            toml::Value::String(s) => toml::Value::String(sub(&s)),
            other => other,
        });
        t
    }

    /// Rewrite-mode tampers on files outside the cycle directory (e.g. the Constitution or a
    /// check script changed in the same commit as cycle `n`).
    pub(super) fn apply_rewrite_side_files(&mut self, n: usize) -> Result<(), Error> {
        let side: Vec<Tamper> = self
            .s
            .tamper
            .iter()
            .filter(|t| t.mode == "rewrite" && t.cycle == Some(n) && !CYCLE_FILES.contains(&t.file.as_str()))
            .cloned()
            .collect();
        for t in side {
            if t.file == "AUDIT_RULES.md" {
                self.constitution_memo = None;
            }
            let current = match self.ledger().get(&t.file) {
                Some(fixture::Content::File(b)) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            };
            if t.op == "delete" {
                self.ledger().remove(&t.file);
            } else {
                let new = apply(&self.expand(&t), &current);
                self.ledger().file(&t.file, new);
            }
        }
        Ok(())
    }

    pub(super) fn tamper_commit(&mut self, t: &Tamper) -> Result<(), Error> {
        let path = match t.cycle.filter(|_| CYCLE_FILES.contains(&t.file.as_str())) {
            Some(n) => format!(
                "{}/{}",
                self.dirs.get(n.wrapping_sub(1)).cloned().ok_or_else(|| self.err(format!("tamper names cycle {n}")))?,
                t.file
            ),
            None => t.file.clone(),
        };
        let current = match self.ledger().get(&path) {
            Some(fixture::Content::File(b)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        if t.op == "delete" {
            self.ledger().remove(&path);
        } else {
            let new = apply(&self.expand(t), &current);
            self.ledger().file(&path, new);
        }
        self.ledger().commit(&format!("edit {path}"))?;
        Ok(())
    }
}

/// Applies one tamper operation to a file's text.
pub(super) fn apply(t: &Tamper, text: &str) -> String {
    match t.op.as_str() {
        "replace" => text.replacen(t.from.as_deref().unwrap_or(""), t.to.as_deref().unwrap_or(""), 1),
        "write" | "raw" => t.text.clone().unwrap_or_default(),
        "append" => format!("{text}{}", t.text.as_deref().unwrap_or("")),
        "set" | "remove-key" => {
            let Ok(mut v) = serde_json::from_str::<Value>(text) else { return text.to_owned() };
            let ptr: Vec<String> = t
                .pointer
                .as_deref()
                .unwrap_or("")
                .split('/')
                .skip(1)
                .map(|p| p.replace("~1", "/").replace("~0", "~"))
                .collect();
            set_pointer(
                &mut v,
                &ptr,
                if t.op == "set" { Some(t.value.as_ref().map_or(Value::Null, toml_to_json)) } else { None },
            );
            let trailing = text.ends_with('\n');
            let mut out = pyjson::pretty(&v, true);
            if trailing {
                out.push('\n');
            }
            out
        }
        _ => text.to_owned(),
    }
}

pub(super) fn set_pointer(v: &mut Value, ptr: &[String], value: Option<Value>) {
    let Some((last, path)) = ptr.split_last() else {
        if let Some(x) = value {
            *v = x;
        }
        return;
    };
    let mut cur = v;
    for p in path {
        cur = match cur {
            Value::Object(m) => m.entry(p.clone()).or_insert_with(|| Value::Object(Map::new())),
            Value::Array(a) => match p.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            _ => return,
        };
    }
    match (cur, value) {
        (Value::Object(m), Some(x)) => {
            m.insert(last.clone(), x);
        }
        (Value::Object(m), None) => {
            m.remove(last);
        }
        (Value::Array(a), Some(x)) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *slot = x;
            }
        }
        _ => {}
    }
}

/// Files of a cycle directory; a tamper naming any other file targets that path in the ledger
/// repository (changed in the same commit as its cycle, in rewrite mode).
const CYCLE_FILES: [&str; 4] = ["report.md", "checks.json", "receipt.json", "raw_exchange.json"];

fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => jint(*i),
        toml::Value::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(t.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()),
    }
}
