//! `frontmatter/duplicate-key`: a key appears twice.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule frontmatter/duplicate-key` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/duplicate-key

a key appears twice

## What it does

Fires on the second (and any later) occurrence of a key in the front matter mapping, pointing at the repeated key and naming the line of the first. Keys are compared as written, so `date` and `Date` are different keys. The other rules read the first occurrence.

## Why it matters

YAML readers disagree about duplicate keys: some keep the first value, some the last, some refuse the file. The same record then says different things to memlint, to the index and to an agent's own YAML library; here it is unclear whether the decision dates from March 2 or March 9. `memlint fmt` leaves such a file as it is until one is deleted.

## Example

`memory/decisions/pin-http-client-timeouts.md`:

```markdown
---
title: Pin HTTP client timeouts to 3 s connect and 10 s read
status: active
date: 2026-03-02
sources:
  - staging:20260309-161000-c4f0
date: 2026-03-09
---

Every outbound client sets `connect_timeout=3` and `read_timeout=10` explicitly.
```

## Fixed

`memory/decisions/pin-http-client-timeouts.md`:

```markdown
---
title: Pin HTTP client timeouts to 3 s connect and 10 s read
status: active
date: 2026-03-09
sources:
  - staging:20260309-161000-c4f0
---

Every outbound client sets `connect_timeout=3` and `read_timeout=10` explicitly.
```

## Fix

Not fixed automatically: memlint cannot know which value is right. Delete the wrong occurrence by hand.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/duplicate-key: warning   # default: error; or off
```
"#;

/// `frontmatter/duplicate-key`: a key appears twice. YAML readers disagree on
/// which value wins, so the record means different things to different tools.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.duplicates.is_empty() {
        return;
    }
    let index = crate::model::diagnostic::LineIndex::new(r.text);
    for d in r.duplicates {
        let first = index.position(d.first.start);
        out.emit(
            Rule::FrontmatterDuplicateKey,
            d.repeat.clone(),
            format!(
                "key `{}` appears twice (first on line {}); delete one of them",
                d.key, first.line
            ),
        );
    }
}
