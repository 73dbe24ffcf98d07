//! `secrets/detected`: something that looks like a credential.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::secrets::{find, find_with, fingerprint};

/// The rule's documentation, as `memlint rule secrets/detected` prints it.
pub const DOC: &str = r#"# secrets/detected

something that looks like a credential

## What it does

Fires on text in a record (front matter or body) or in `CONTEXT.md` that looks like a credential: a private-key block (`-----BEGIN … PRIVATE KEY-----`), an AWS access key id (`AKIA…`, `ASIA…`), a GitHub token (`ghp_…`, `github_pat_…`), a GitLab token (`glpat-…`), a Slack token (`xoxb-…`), a Stripe key (`sk_live_…`, `rk_live_…`), an `sk-…` API key (OpenAI, Anthropic and others), a Google API key (`AIza…`), a Hugging Face, npm or PyPI token, an Azure storage `AccountKey=`, a JSON Web Token, a password in a URL (`postgres://user:…@host`, but not a placeholder such as `${DB_PASSWORD}` or `<password>`), or `password`, `pwd`, `secret`, `token`, `api_key`, `client_secret` and the like (`DB_PASSWORD=` too) followed by `:` or `=` and a long value mixing letters and digits. The message names the kind of secret and its fingerprint, never the secret. Code spans are not exempt, and neither is a record whose front matter cannot be read nor a file where no record belongs (`knowledge/sub/x.md`, a banned directory): they are committed all the same. A credential whose fingerprint is listed in `secrets.allow` in `.memlint.yml` is not reported (for the example keys providers document).

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
```
"#;

/// `secrets/detected` on a record.
pub fn check(r: &Record, out: &mut Sink) {
    emit(
        r.text,
        find_with(r.text, r.hint_words()),
        &r.config.secrets_allow,
        out,
    );
}

/// `secrets/detected` on any text (records and `CONTEXT.md`), but the
/// credentials whose fingerprints are in `allow`.
pub fn scan(text: &str, allow: &[String], out: &mut Sink) {
    emit(text, find(text), allow, out);
}

fn emit(
    text: &str,
    found: Vec<(std::ops::Range<usize>, &'static str)>,
    allow: &[String],
    out: &mut Sink,
) {
    for (span, what) in found {
        let print = fingerprint(&text[span.clone()]);
        if allow.contains(&print) {
            continue;
        }
        out.emit(
            Rule::SecretsDetected,
            span,
            format!("this looks like {what} (fingerprint {print}); remove it and rotate the credential, since memory is committed and pushed (a documented example key may stay: add its fingerprint to `secrets.allow` in .memlint.yml)"),
        );
    }
}
