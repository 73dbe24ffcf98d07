//! Relative date expressions ("yesterday", "last week", 昨日, 上周, …):
//! the words are text knowledge, shared by the hint-word search of
//! [`crate::syntax::text`] (which also finds them: `find_relative`) and the
//! `date/*` rules. A leaf: it imports nothing.

use regex::Regex;
use std::sync::LazyLock;

/// Every match holds a date word of [`crate::syntax::text::HintWords`] (`day`, `tomorrow`,
/// `week`, `month`, `year` in any ASCII case): texts without one are ruled
/// out by that literal search.
pub(crate) static ENGLISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:yesterday|today|tomorrow|(?:last|next|this)\s+(?:week|month|year)|\d+\s+days?\s+ago)\b",
    )
    .expect("valid regex")
});

/// Japanese and Chinese relative date words.
pub(crate) const CJK_WORDS: &[&str] = &[
    "一昨日",
    "明後日",
    "昨日",
    "今日",
    "明日",
    "先週",
    "今週",
    "来週",
    "先月",
    "今月",
    "来月",
    "昨年",
    "今年",
    "来年",
    "昨天",
    "今天",
    "明天",
    "上周",
    "本周",
    "下周",
    "上个月",
    "下个月",
    "去年",
    "明年",
];
