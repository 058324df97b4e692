//! What the product's receipt builder always writes, and the fields it derives from other
//! fields (product 4.14 `receipt/build.py` `build`, `auditor/run.py` `run_audit`,
//! `providers/base.py` `Reply.commitments`). A receipt that lacks such a field, or whose derived
//! field contradicts its source, is not one the product wrote (CV-A718).

use crate::json::Value;

/// The product's major version as the receipt states it. Receipts without a readable version
/// are judged by their own shape: `audit.reasoning_effort` marks a 4.x builder.
fn v4(v: &Value) -> bool {
    let major = v
        .pointer(&["verifier", "version"])
        .and_then(Value::as_str)
        .and_then(|s| s.split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    major.map_or_else(|| v.pointer(&["audit", "reasoning_effort"]).is_some(), |m| m >= 4)
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Problems visible in the receipt alone: fields `build` always writes, and the exchange
/// commitments against the audit block they are copied from.
pub(crate) fn receipt_problems(v: &Value) -> Vec<String> {
    let mut p = Vec::new();
    let v4 = v4(v);
    let mut always: Vec<&[&str]> = vec![&["inputs", "constitution_path"], &["isolation", "provider"]];
    if v4 {
        always.extend([&["audit", "reasoning_effort"][..], &["audit", "fallback"][..]]);
        always.push(&["verifier", "lock_digest_sha256"]);
    }
    for path in always {
        if v.pointer(path).is_none() {
            p.push(format!("{} is missing: the product's builder always writes it", path.join(".")));
        }
    }
    if let Some(x) = v.pointer(&["audit", "fallback"])
        && x.as_bool().is_none()
    {
        p.push(format!("audit.fallback is a {}, not a boolean", x.type_name()));
    }
    if let Some(x) = v.pointer(&["verifier", "lock_digest_sha256"])
        && !x.is_null()
        && !x.as_str().is_some_and(is_hex64)
    {
        p.push("verifier.lock_digest_sha256 is neither null nor a SHA-256 digest".into());
    }
    if let Some(x) = v.pointer(&["verifier", "project"])
        && x.as_str() != Some("crossaudit")
    {
        p.push(format!("verifier.project is {}, not \"crossaudit\"", crate::json::canonical(x)));
    }
    if let Some(m) = v.pointer(&["verifier", "install_mode"]).and_then(Value::as_str)
        && !["wheel", "editable", "source", "unknown", "frozen-app"].contains(&m)
    {
        p.push(format!("verifier.install_mode {m:?} is not a mode the product reports"));
    }
    if let Some(Value::Object(ex)) = v.pointer(&["audit", "exchange"]) {
        exchange_problems(v, ex, v4, &mut p);
    }
    p
}

/// An online exchange records the route actually taken and the reply's commitments;
/// `mode` is the retention it ran under (`run_audit`); an offline or failed call records
/// `mode: none` and nothing of a route.
fn exchange_problems(v: &Value, ex: &std::collections::BTreeMap<String, Value>, v4: bool, p: &mut Vec<String>) {
    let mode = ex.get("mode").and_then(Value::as_str);
    let retention = v.pointer(&["audit", "retention"]).and_then(Value::as_str);
    let fallback = v.pointer(&["audit", "fallback"]).and_then(Value::as_bool);
    match mode {
        None => p.push("audit.exchange.mode is missing or not text".into()),
        Some("none") => {
            if fallback == Some(true) {
                p.push("audit.fallback is true but no call was made (audit.exchange.mode none)".into());
            }
        }
        Some(m) => {
            if Some(m) != retention {
                p.push(format!(
                    "audit.exchange.mode {m:?} is not the retention the audit ran under ({:?})",
                    retention.unwrap_or("")
                ));
            }
            let mut need = vec!["provider", "model", "request_sha256", "response_sha256", "provider_request_id"];
            if v4 {
                need.extend(["vendor", "fallback", "reasoning_effort"]);
            }
            let missing: Vec<&str> = need.into_iter().filter(|k| !ex.contains_key(*k)).collect();
            if !missing.is_empty() {
                p.push(format!("audit.exchange of an online call is missing {missing:?}"));
            }
            for k in ["request_sha256", "response_sha256"] {
                if let Some(x) = ex.get(k)
                    && !x.as_str().is_some_and(is_hex64)
                {
                    p.push(format!("audit.exchange.{k} is not a SHA-256 digest"));
                }
            }
            commitment_problems(ex, retention, fallback, p);
        }
    }
}

fn commitment_problems(
    ex: &std::collections::BTreeMap<String, Value>,
    retention: Option<&str>,
    fallback: Option<bool>,
    p: &mut Vec<String>,
) {
    // `Reply.commitments`: only a sealed exchange records raw_retained, and 4.x keeps
    // commitments only, so it is always false.
    match (retention, ex.get("raw_retained")) {
        (Some("sealed"), None) => p.push("audit.exchange.raw_retained is missing under sealed retention".into()),
        (Some("sealed"), Some(x)) if x.as_bool() != Some(false) => p.push(format!(
            "audit.exchange.raw_retained is {}: the product keeps commitments only (false)",
            crate::json::canonical(x)
        )),
        (Some(r), Some(_)) if r != "sealed" => {
            p.push(format!(
                "audit.exchange.raw_retained is recorded under {r:?} retention, where the product omits it"
            ));
        }
        _ => {}
    }
    if let Some(x) = ex.get("fallback") {
        if x.as_bool().is_none() {
            p.push(format!("audit.exchange.fallback is a {}, not a boolean", x.type_name()));
        } else if fallback.is_some() && x.as_bool() != fallback {
            p.push(format!(
                "audit.exchange.fallback {} differs from audit.fallback {}",
                crate::json::canonical(x),
                fallback.map_or("?", |b| if b { "true" } else { "false" })
            ));
        }
    }
    // The replay provider names its request by the request digest (`providers/replay.py`).
    if ex.get("provider").and_then(Value::as_str) == Some("replay")
        && let (Some(id), Some(req)) =
            (ex.get("provider_request_id").and_then(Value::as_str), ex.get("request_sha256").and_then(Value::as_str))
        && req.get(..12).is_some_and(|h| id != format!("replay:{h}"))
    {
        p.push(format!("audit.exchange.provider_request_id {id:?} is not replay:<request_sha256[:12]>"));
    }
}
