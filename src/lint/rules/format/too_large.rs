//! `format/too-large`: the file exceeds `max_file_bytes`.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule format/too-large` prints it.
pub(crate) const DOC: &str = r#"# format/too-large

the file exceeds `max_file_bytes`

## What it does

Fires when a record or `CONTEXT.md` is larger than `max_file_bytes` (default 1 MiB, 1048576 bytes). The file is not read at all: it gets this diagnostic and nothing else except `slug/format` and `layout/*`, which need only its path.

## Why it matters

Memory is read at every session start and on every recall; a file of megabytes, usually a pasted log or dump, slows every command, cannot fit in an agent's context, and buries the few lines that matter. memlint refuses to parse it so that one such file cannot stall a hook or a CI job.

## Example

<!-- example: described -->

An activity log into which a whole worker log was pasted: the two log lines shown stand for some 14,000 lines like them, so the file is just over 1 MiB.

`staging/20260317-113000-b5e2.md`:

```markdown
---
id: 20260317-113000-b5e2
source: session:9f3c2a1e-0b7d-4c55-8e21-5a6b7c8d9e0f
created: 2026-03-17T11:30:00+09:00
---

Retry worker log while reproducing the duplicate-charge bug:

2026-03-17T11:02:14Z INFO retry job=4411 attempt=1 status=503 backoff=2s
2026-03-17T11:02:16Z INFO retry job=4411 attempt=2 status=503 backoff=4s
```

## Fixed

The log is cut to the lines that matter and the full log is kept outside memory.

`staging/20260317-113000-b5e2.md`:

```markdown
---
id: 20260317-113000-b5e2
source: session:9f3c2a1e-0b7d-4c55-8e21-5a6b7c8d9e0f
created: 2026-03-17T11:30:00+09:00
---

Reproduced the duplicate charge: job 4411 was retried after a 503 although the
first attempt had reached the payment API. Full worker log: CI run 8812, artifact
`retry-worker.log`.
```

## Fix

Not fixed automatically: shorten the file by hand (keep the lines that matter, link to the full log or artifact), or split it into several records. Raise `max_file_bytes` only if large records are really wanted.

## Configuration

```yaml
# .memlint.yml
max_file_bytes: 1048576   # default: 1 MiB
rules:
  format/too-large: warning   # default: error; or off
```
"#;

/// `format/too-large` on a file of `size` bytes, more than `max_file_bytes`
/// (`max`): it was not read.
pub(crate) fn check(size: u64, max: u64, sink: &mut Sink) {
    sink.emit(
        Rule::FormatTooLarge,
        0..0,
        format!(
            "the file has {size} bytes, more than `max_file_bytes` ({max}); it was not read. Shorten it or split it into several records, or raise `max_file_bytes` in .memlint.yml"
        ),
    );
}
