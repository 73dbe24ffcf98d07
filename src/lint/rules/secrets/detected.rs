//! `secrets/detected`: something that looks like a credential.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::secrets::{findings_with, fingerprint, legacy_fingerprint, Finding};
use crate::syntax::text::HintWords;

/// The rule's documentation, as `memlint rule secrets/detected` prints it.
pub(crate) const DOC: &str = r#"# secrets/detected

something that looks like a credential

## What it does

Fires on text in a record (front matter or body) or in `CONTEXT.md` that looks like a credential: a private-key block (`-----BEGIN … PRIVATE KEY-----`), an AWS access key id (`AKIA…`, `ASIA…`), a GitHub token (`ghp_…`, `github_pat_…`), a GitLab token (`glpat-…`), a Slack token (`xoxb-…`), a Stripe key (`sk_live_…`, `rk_live_…`), an `sk-…` API key (OpenAI, Anthropic and others), a Google API key (`AIza…`), a Hugging Face, npm or PyPI token, an Azure storage `AccountKey=`, a JSON Web Token, a password in a URL (`postgres://user:…@host`, but not a placeholder such as `${DB_PASSWORD}` or `<password>`), or `password`, `pwd`, `secret`, `token`, `api_key`, `client_secret` and the like (`DB_PASSWORD=` too) followed by `:` or `=` and a long value mixing letters and digits. The message names the kind of secret and its fingerprint, never the secret; the fingerprint is keyed by the file's path, short and slow to compute, so that a reader of a CI log cannot use it to confirm a guessed secret. Code spans are not exempt, and neither is a record whose front matter cannot be read nor a file where no record belongs (`knowledge/sub/x.md`, a banned directory): they are committed all the same. A credential listed in `secrets.allow` in `.memlint.yml` as `path:fingerprint` (the entry the message names) is not reported (for the example keys providers document); the entry holds while the file keeps its name and the credential its value, whatever else in the file changes.

## Why it matters

Memory is committed and pushed, and agents read it back into their context at every session start: a credential written there is exposed to everyone with access to the repository, to every tool that reads it, and to the history for good, even after the line is deleted.

## Example

`knowledge/payment-api-sandbox.md`:

```markdown
---
title: Payment API sandbox access
description: How tests reach the payment API sandbox.
model_invocation: false
date: 2026-04-02
sources:
  - staging:20260402-100000-5b1f
---

The integration tests use the sandbox with the key AKIAIOSFODNN7EXAMPLE in `us-east-1`.
```

## Fixed

`knowledge/payment-api-sandbox.md`:

```markdown
---
title: Payment API sandbox access
description: How tests reach the payment API sandbox.
model_invocation: false
date: 2026-04-02
sources:
  - staging:20260402-100000-5b1f
---

The integration tests read the sandbox key from the secret manager entry `shop/sandbox/payment-api` in `us-east-1`.
```

## Fix

Not fixed automatically: remove the value and write where the secret is kept instead (a secret-manager entry, an environment variable name). Then rotate the credential: if it was ever committed or pushed, deleting the line does not take it out of git history.

## Configuration

```yaml
# .memlint.yml
rules:
  secrets/detected: warning   # default: error; or off
secrets:
  allow:                      # a documented example key may stay: the entry the message names
    - knowledge/aws-example-credentials.md:26c3
```
"#;

/// `secrets/detected` on a record.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    emit(
        r.path,
        r.text,
        findings_with(r.text, r.hint_words()),
        &r.config.secrets_allow,
        out,
    );
}

/// `secrets/detected` on any text (records and `CONTEXT.md`) of the file
/// at root-relative `path`, but the credentials `allow` lists.
pub(crate) fn scan(path: &str, text: &str, allow: &[String], out: &mut Sink) {
    emit(
        path,
        text,
        findings_with(text, &HintWords::of(text)),
        allow,
        out,
    );
}

fn emit(path: &str, text: &str, found: Vec<Finding>, allow: &[String], out: &mut Sink) {
    if found.is_empty() {
        return;
    }
    // This file's entries (`path:fingerprint`), and the 12-digit
    // fingerprints of earlier versions, which named a value anywhere.
    let here: Vec<&str> = allow
        .iter()
        .filter_map(|a| a.rsplit_once(':'))
        .filter(|(p, _)| *p == path)
        .map(|(_, f)| f)
        .collect();
    let legacy: Vec<&String> = allow
        .iter()
        .filter(|a| crate::syntax::secrets::is_legacy_fingerprint(a))
        .collect();
    for f in found {
        let old = match legacy.is_empty() {
            true => None,
            false => {
                Some(legacy_fingerprint(&text[f.range.clone()])).filter(|o| legacy.contains(&o))
            }
        };
        // A private key's old fingerprint was its `BEGIN` line's: the same
        // for every key, so it allows none.
        if old.is_some() && !f.is_private_key() {
            continue;
        }
        let print = fingerprint(path, &f.secret(text));
        if here.contains(&print.as_str()) {
            continue;
        }
        let migration = match old {
            Some(o) => format!("; the entry `{o}` no longer allows it: taken from the key's `BEGIN` line alone, it allowed every key of this type"),
            None => String::new(),
        };
        out.emit(
            Rule::SecretsDetected,
            f.range,
            format!("this looks like {} (fingerprint {print}); remove it and rotate the credential, since memory is committed and pushed (a documented example key may stay: add `{path}:{print}` to `secrets.allow` in .memlint.yml{migration})", f.what),
        );
    }
}
