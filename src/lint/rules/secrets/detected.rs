//! `secrets/detected`: something that looks like a credential.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::secrets::{find, find_with};

/// The rule's documentation, as `memlint rule secrets/detected` prints it.
pub const DOC: &str = r#"# secrets/detected

something that looks like a credential

## What it does

Fires on text in a record (front matter or body) or in `CONTEXT.md` that looks like a credential: a private-key block (`-----BEGIN … PRIVATE KEY-----`), an AWS access key id (`AKIA…`, `ASIA…`), a GitHub token (`ghp_…`, `github_pat_…`), a Slack token (`xoxb-…`), an `sk-…` API key, a Google API key (`AIza…`), or `password`, `token`, `api_key`, `secret_key` and the like followed by `:` or `=` and a long value mixing letters and digits. The message names the kind of secret and never repeats it. Code spans are not exempt.

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
    emit(find_with(r.text, r.hint_words()), out);
}

/// `secrets/detected` on any text (records and `CONTEXT.md`).
pub fn scan(text: &str, out: &mut Sink) {
    emit(find(text), out);
}

fn emit(found: Vec<(std::ops::Range<usize>, &'static str)>, out: &mut Sink) {
    for (span, what) in found {
        out.emit(
            Rule::SecretsDetected,
            span,
            format!("this looks like {what}; remove it and rotate the credential, since memory is committed and pushed"),
        );
    }
}
