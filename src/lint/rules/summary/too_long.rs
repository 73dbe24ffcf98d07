//! `summary/too-long`: the summary exceeds `summary_max_tokens`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule summary/too-long` prints it.
pub(crate) const DOC: &str = r#"# summary/too-long

the summary exceeds `summary_max_tokens`

## What it does

Fires when the body of `memory/summary.md` is estimated at more than `summary_max_tokens` tokens (default 5000), pointing at the body's first line. The estimate counts each CJK character (Han, kana, Hangul, CJK and full-width punctuation) as one token and every other character as a quarter token, rounded up, so a Chinese or Japanese summary reaches the limit about four times sooner than an English one of the same length in characters. The front matter is not counted. The example sets `summary_max_tokens: 60` to stay short.

## Why it matters

The rolling summary is meant to be read in full at the start of work; once it outgrows its budget it pushes other context out of the agent's window, and it has stopped being a summary.

## Example

`.memlint.yml`:

```yaml
summary_max_tokens: 60
```

`memory/summary.md`:

```markdown
---
title: shop-api 记忆摘要
updated: 2026-04-03
---

目录接口的响应缓存在 Redis 中，有效期十分钟，价格变化时按商品失效。
用户会话也保存在 Redis 中，任何副本都可以处理请求。
支付接口只对 429 和 503 重试，并遵守 Retry-After；前面加了熔断器。
Webhook 最多重试六次，失败的事件进入死信表，可以在管理界面重放。
```

## Fixed

`memory/summary.md`:

```markdown
---
title: shop-api 记忆摘要
updated: 2026-04-03
---

缓存和会话都在 Redis。支付接口只重试 429/503，有熔断器。
```

## Fix

Not fixed automatically: condense the summary (keep what every session needs; leave details to the decisions and knowledge records, which recall finds on demand), or raise `summary_max_tokens`.

## Configuration

```yaml
# .memlint.yml
summary_max_tokens: 5000   # default
rules:
  summary/too-long: error   # default: warning; or off
```
"#;

/// Estimated tokens: a CJK character counts one; other characters one per 4,
/// rounded up.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let mut cjk = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if crate::syntax::cjk::counts_as_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// `summary/too-long`: the summary body exceeds `summary_max_tokens`.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Summary {
        return;
    }
    let tokens = estimate_tokens(&r.body_text().replace("\r\n", "\n"));
    let max = r.config.summary_max_tokens;
    if tokens > max {
        out.emit(
            Rule::SummaryTooLong,
            r.body_span(),
            format!(
                "the summary is about {tokens} tokens, more than the {max} allowed; condense it"
            ),
        );
    }
}
